#!/bin/sh
# adarl model score (docs/guides/models.md "Hugging Face models"): the per-token log-probs of
# completions under a tiny Qwen3 and a tiny Llama checkpoint, given as ids and as text,
# against tests/models/hf_reference.py's logits (log-softmax, temperature 1) to
# 1e-4; text lines score as the ids the tokenizer gives them; bad lines exit 2 naming
# their line. The reference part is skipped where /usr/bin/python3 has no torch.
#   hf_model_score.sh ADARL MAKE_TINY_HF SOURCE_DIR WORK_DIR
set -u
adarl=$1 make=$2 src=$3 work=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; cat err.txt 2>/dev/null; exit 1; }
py=/usr/bin/python3
for name in qwen3 llama; do
  case $name in
    qwen3) "$make" $name --qwen3 --f32 --scale 0.15 --head-dim 32 > /dev/null || fail "make $name" ;;
    llama) "$make" $name --llama --small-tokenizer --f32 --scale 0.15 --attention-bias > /dev/null || fail "make $name" ;;
  esac
  printf 'Compute: 2+3.\nthe cat sat\n' | "$adarl" model tokenize $name > prompts.ids || fail "tokenize"
  printf 'The answer is 5.\n on the mat\n' | "$adarl" model tokenize $name > completions.ids || fail "tokenize"
  $py - prompts.ids completions.ids > $name.in <<'PY'
import json, sys
prompts = [json.loads(l) for l in open(sys.argv[1])]
completions = [json.loads(l) for l in open(sys.argv[2])]
for p, c in zip(prompts, completions):
    print(json.dumps({"prompt_ids": p, "completion_ids": c}))
print(json.dumps({"prompt_ids": prompts[0], "completion_ids": []}))
PY
  printf '%s\n' '{"prompt": "Compute: 2+3.", "completion": "The answer is 5."}' \
    '{"prompt": "the cat sat", "completion": " on the mat"}' > $name.text.in
  "$adarl" model score $name --input $name.in --batch 2 > $name.out 2> err.txt || fail "$name: score ids"
  grep -q "adarl model score: 3 lines, [0-9]* completion tokens, mean log-prob -" err.txt \
    || fail "$name: no summary"
  [ "$(sed -n 3p $name.out)" = "[]" ] || fail "$name: an empty completion is not []"
  # Text lines: the same numbers as the ids the tokenizer gives them (the first two lines,
  # in one batch both times: padding moves the last bits).
  "$adarl" model score $name --input $name.text.in --batch 2 > $name.text.out 2> err.txt \
    || fail "$name: score text"
  head -2 $name.out | cmp -s - $name.text.out || fail "$name: text and ids differ"
  if $py -c 'import torch, numpy' 2>/dev/null; then
    $py - "$src/tests/models" $name $name.in $name.out <<'PY' || fail "$name: reference"
import json, sys
sys.path.insert(0, sys.argv[1])
import torch
import hf_reference as ref
d, inp, out = sys.argv[2:]
cfg = json.load(open(f"{d}/config.json"))
w = ref.read_weights(d)
torch.set_grad_enabled(False)
worst, n = 0.0, 0
for line, got in zip(open(inp), open(out)):
    x, got = json.loads(line), json.loads(got)
    p, c = x["prompt_ids"], x["completion_ids"]
    assert len(got) == len(c), (len(got), len(c))
    if not c:
        continue
    logp = torch.log_softmax(ref.reference_logits(cfg, w, p + c), -1)
    want = [float(logp[len(p) - 1 + j, t]) for j, t in enumerate(c)]
    worst = max(worst, max(abs(a - b) for a, b in zip(got, want)))
    n += len(c)
print(f"model score: {d}: {n} log-probs, max |adarl - reference| = {worst:.3g}")
sys.exit(0 if worst <= 1e-4 else 1)
PY
  else
    echo "model score: $name: reference skipped ($py has no torch)"
  fi
done
# Bad lines: each named, exit 2, nothing scored.
printf '%s\n' '{"prompt_ids": [1, 2], "completion_ids": [3]}' '{"prompt_ids": [1], "completion_ids": [99999999]}' \
  '{"prompt_ids": [], "completion_ids": [1]}' 'not json' '{"text": "x"}' > bad.in
"$adarl" model score qwen3 --input bad.in > bad.out 2> err.txt
got=$?
[ $got = 2 ] || fail "bad lines: exit $got"
[ ! -s bad.out ] || fail "bad lines: something was scored"
for pat in 'bad.in:2: field "completion_ids": expected ids in \[0, ' 'bad.in:3: the prompt has no tokens' \
    'bad.in:4: not valid JSON' 'bad.in:5: expected {"prompt_ids"'; do
  grep -q -e "$pat" err.txt || fail "no '$pat'"
done
"$adarl" model score no-such-dir < /dev/null > /dev/null 2> err.txt
[ $? = 2 ] && grep -q "no-such-dir" err.txt || fail "a missing directory"
echo "model score: all checks hold"
