#!/bin/sh
# adarl model inspect|tokenize (docs/guides/models.md "Hugging Face models") on tiny checkpoints written
# by make_tiny_hf (the small byte-level tokenizer, so that the ids are known here):
#  - inspect of a good checkpoint: architecture, parameter count, dtypes, tokenizer, chat
#    format, "supported: yes", exit 0;
#  - inspect of checkpoints adarl cannot run (yarn rope scaling, a tensor missing, a
#    tokenizer larger than the vocabulary): "supported: no: <why>", exit 1; not a
#    directory: exit 2;
#  - tokenize: hand-checked ids of the small tokenizer's merges; --decode gives the text
#    back (Unicode, emoji, LaTeX, whitespace runs); --chat wraps the line in the ChatML
#    template (its special tokens' ids); bad input lines exit 2 naming the line.
#   hf_model_command.sh ADARL MAKE_TINY_HF WORK_DIR
set -u
adarl=$1 make=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
expect() {  # expect FILE TEXT: FILE has a line equal to TEXT
  grep -qxF -- "$2" "$1" || { echo "== $1"; cat "$1"; fail "$1 lacks the line: $2"; }
}

"$make" tiny --small-tokenizer --f32 > /dev/null || fail "make_tiny_hf"
"$adarl" model inspect tiny > inspect.log 2>&1
[ $? -eq 0 ] || { cat inspect.log; fail "inspect of a good checkpoint did not exit 0"; }
cat inspect.log
# 2 layers of hidden 64 (4 heads, 2 kv heads of 16), intermediate 128, vocabulary 272
# (269 ids rounded up to 16), tied: 272*64 + 2*(64*64 + 64 + 2*(32*64 + 32) + 64*64
# + 3*64*128 + 2*64) + 64 = 91,712 parameters in 1 + 2*12 + 1 tensors.
expect inspect.log "parameters: 91,712 (from config.json)"
expect inspect.log "weights: 26 tensors in 1 file(s), 91,712 values; dtypes F32 x26"
grep -q "^architecture: .*qwen2" inspect.log || fail "no architecture line"
grep -q "^tokenizer: 269 ids; end ids .*<|im_end|>" inspect.log || fail "tokenizer line"
grep -q "^chat format: chatml, system turn: \"You are a careful solver.\"" inspect.log \
  || fail "chat format line"
expect inspect.log "supported: yes (model.kind: hf, model.path: tiny)"

refused() {  # refused NAME WHY: inspect of NAME exits 1 with "supported: no: ...WHY..."
  "$adarl" model inspect "$1" > "$1.log" 2>&1
  status=$?
  [ $status -eq 1 ] || { cat "$1.log"; fail "inspect of $1 exited $status, not 1"; }
  grep -q "^supported: no: .*$2" "$1.log" || { cat "$1.log"; fail "$1: no reason matching $2"; }
  echo "$1: $(grep '^supported' "$1.log")"
}
edit_config() {  # edit_config DIR PYTHON_STATEMENT_ON_c
  python3 - "$1/config.json" "$2" <<'PY'
import json, sys
path, statement = sys.argv[1], sys.argv[2]
c = json.load(open(path))
exec(statement)
json.dump(c, open(path, "w"))
PY
}
cp -r tiny yarn
edit_config yarn 'c["rope_scaling"] = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 128}'
refused yarn "rope_scaling"
cp -r tiny deeper
edit_config deeper 'c["num_hidden_layers"] = 3'
refused deeper "tensor model.layers.2.[a-z_.]* is missing"
"$make" narrow --small-tokenizer --f32 --vocab 256 > /dev/null || fail "make_tiny_hf narrow"
refused narrow "the tokenizer has 269 ids, more than the model's vocab_size 256"
cp -r tiny reshaped
edit_config reshaped 'c["vocab_size"] = 256'
refused reshaped "tensor model.embed_tokens.weight has shape \[272, 64\], expected \[256, 64\]"
"$adarl" model inspect nowhere > nowhere.log 2>&1
[ $? -eq 2 ] || fail "inspect of a missing directory did not exit 2"
grep -q "nowhere: not a directory" nowhere.log || fail "missing directory message"

# The small tokenizer: bytes are ids 0..255, merges 256.. in order (Ġt, he, Ġthe, in, Ġa,
# er, on, Ġs, re, at), then <|endoftext|> 266, <|im_start|> 267, <|im_end|> 268.
printf 'the cat\n the rain\n' | "$adarl" model tokenize tiny > ids.log 2>&1 || fail "tokenize"
expect ids.log "[116,257,32,99,265]"
expect ids.log "[258,32,114,97,259]"
text='héllo wörld 😀  \boxed{42}	tab   end'
printf '%s\n' "$text" | "$adarl" model tokenize tiny > unicode.log || fail "tokenize unicode"
"$adarl" model tokenize tiny --decode < unicode.log > decoded.log || fail "decode"
python3 -c 'import json,sys; assert json.loads(open(sys.argv[1]).read()) == sys.argv[2], open(sys.argv[1]).read()' \
  decoded.log "$text" || fail "decode did not give the text back"
echo "round trip: $(cat decoded.log)"
printf 'hi\n' | "$adarl" model tokenize tiny --chat --system-prompt "" > chat.log || fail "--chat"
# <|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n
expect chat.log "[267,117,115,261,10,104,105,268,10,267,97,115,115,105,115,116,97,110,116,10]"
printf '[267,117]\n' | "$adarl" model tokenize tiny --decode > special.log || fail "decode special"
expect special.log '"<|im_start|>u"'
printf '[267,117]\n' | "$adarl" model tokenize tiny --decode --skip-special > skip.log || fail "skip"
expect skip.log '"u"'
printf '[1,2]\n[1,"x"]\n' | "$adarl" model tokenize tiny --decode > bad.out 2> bad.err
[ $? -eq 2 ] || fail "a bad id line did not exit 2"
grep -q "stdin:2: expected a JSON array of token ids" bad.err || fail "bad line message"
printf 'x\n' | "$adarl" model tokenize tiny --chat --chat-template jinja > /dev/null 2> tpl.err
[ $? -eq 2 ] || fail "a bad --chat-template did not exit 2"
grep -q "expected auto, none, chatml or llama3" tpl.err || fail "template message"
echo "model command: all checks hold"
