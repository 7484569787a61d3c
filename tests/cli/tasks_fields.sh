#!/bin/sh
# Datasets as published (docs/guides/datasets.md): the shipped examples in the shapes of GSM8K,
# MATH and a code set load through `adarl tasks check` with their mapping and report
# it; the same files without it are refused; `adarl tasks verify --dataset` scores the
# code set's reference solutions in the sandbox; and `adarl run` trains on the
# GSM8K-style file after tasks.fields, on a tiny model.
#   tasks_fields.sh ADARL SOURCE_DIR WORK_DIR
set -u
adarl=$1 src=$2 work=$3
ex="$src/examples/datasets"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; cat out.txt err.txt; exit 1; }
run() { "$adarl" "$@" > out.txt 2> err.txt; got=$?; }
expect() {  # expect STATUS PATTERN FILE
  [ "$got" = "$1" ] || fail "exit status $got, expected $1"
  grep -q -e "$2" "$3" || fail "no '$2' in $3"
}

run tasks check "$ex/gsm8k-style.jsonl" --field prompt=question --verifier math \
  --prompt-template 'Q: {prompt}
A:'
expect 0 "answers: 0 from \\\\boxed{}, 32 after ####, 0 as written; 32 ids from line numbers; 32 items take verifier \"math\"" out.txt
expect 0 'first item: id "line-1", prompt "Q: Ana has 7 apples and gets 4 more. How many apples now? A:", answer "11", verifier "math"' out.txt
expect 0 "gsm8k-style.jsonl: 32 items; tasks: (none) 32; verifiers: math 32" out.txt

run tasks check "$ex/math-style.jsonl" --field prompt=problem --field answer=solution \
  --field id=unique_id --field task=type --verifier math
expect 0 'prompt <- column "problem"; answer <- column "solution"; task <- column "type"' out.txt
expect 0 "answers: 24 from \\\\boxed{}, 0 after ####, 0 as written" out.txt
expect 0 'first item: id "ex/000", prompt "Compute $\\\\frac{3}{4} + \\\\frac{1}{4}$.", answer "1"' out.txt

run tasks check "$ex/code-style.jsonl" --field id=task_id --field prompt=question \
  --field answer=reference_solution --field tests=test_cases --verifier python
expect 0 "code-style.jsonl: 8 items; tasks: (none) 8; verifiers: python 8" out.txt

# verl's format: nested answer and id, chat-message prompts, verifiers by data_source.
run tasks check "$ex/verl-style.jsonl" --field answer=reward_model.ground_truth \
  --field id=extra_info.index --verifier-for math_dapo=math --verifier-for lighteval/MATH=math \
  --verifier-for openai/gsm8k=math
expect 0 "12 verifiers from data_source; 12 prompts from chat messages (3 with a system turn of their own)" out.txt
expect 0 'first item: id "verl-000", prompt "What is 17 + 25? Let.s think step by step and output the \.\.\.", answer "42", verifier "math"' out.txt
run tasks check "$ex/verl-style.jsonl" --field answer=reward_model.ground_truth \
  --verifier-for math_dapo=math
expect 2 'verl-style.jsonl:2: column "data_source": no verifier for "lighteval/MATH" (mapped: math_dapo)' err.txt
run tasks check "$ex/verl-style.jsonl" --verifier-for math_dapo
expect 2 '--verifier-for: expected SOURCE=VERIFIER, got "math_dapo"' err.txt
# adarl run on it, the mapping in the config's keys.
run run "$src/configs/quickstart.yaml" "tasks.dataset=$ex/verl-style.jsonl" \
  tasks.fields.answer=reward_model.ground_truth tasks.fields.id=extra_info.index \
  tasks.verifiers.math_dapo=math tasks.verifier=math model.d_model=16 model.n_layers=1 \
  model.n_heads=2 model.d_ff=32 \
  model.max_len=240 sft.steps=5 tasks.held_out=2 tracker.steps=2 tracker.prompts_per_step=4 \
  actors.generator_capacity=16 eval.every=0 progress=false out=V
expect 0 "run: finished at version 2" out.txt

# HumanEval's format: check(candidate) and entry_point; the canonical solutions (bodies that
# continue the prompt) pass their tests in the sandbox.
run tasks check "$ex/humaneval-style.jsonl" --field id=task_id --field answer=canonical_solution \
  --field tests=test --verifier python
expect 0 "4 tests as check(entry_point)" out.txt
python3 -c 'import json,sys
for l in open(sys.argv[1]):
    l = json.loads(l); print(json.dumps({"id": l["task_id"], "completion": l["canonical_solution"]}))' \
  "$ex/humaneval-style.jsonl" > he_completions.jsonl
run tasks verify --dataset "$ex/humaneval-style.jsonl" --completions he_completions.jsonl \
  --field id=task_id --field answer=canonical_solution --field tests=test --verifier python
expect 0 "adarl tasks verify: 4 lines, 4 rewarded" err.txt

# MBPP's format: integer task ids, assert lists, test_setup_code run before them.
mbpp="--field id=task_id --field prompt=text --field answer=code --field tests=test_list --verifier python"
run tasks check "$ex/mbpp-style.jsonl" $mbpp
expect 0 "1 assert lists after their test_setup_code; 4 integer ids as text" out.txt
python3 -c 'import json,sys
for l in open(sys.argv[1]):
    l = json.loads(l); print(json.dumps({"id": str(l["task_id"]), "completion": l["code"]}))' \
  "$ex/mbpp-style.jsonl" > mbpp_completions.jsonl
run tasks verify --dataset "$ex/mbpp-style.jsonl" --completions mbpp_completions.jsonl $mbpp
expect 0 "adarl tasks verify: 4 lines, 4 rewarded" err.txt
# Two-step runs on both code shapes (the character policy, a tiny model).
tiny="model.d_model=16 model.n_layers=1 model.n_heads=2 model.d_ff=32 model.max_len=320 sft.steps=5 tasks.held_out=1 tracker.steps=2 tracker.prompts_per_step=2 actors.generator_capacity=16 eval.every=0 progress=false"
run run "$src/configs/quickstart.yaml" "tasks.dataset=$ex/humaneval-style.jsonl" \
  tasks.fields.id=task_id tasks.fields.answer=canonical_solution tasks.fields.tests=test \
  tasks.verifier=python tasks.train=3 $tiny out=HE
expect 0 "run: finished at version 2" out.txt
run run "$src/configs/quickstart.yaml" "tasks.dataset=$ex/mbpp-style.jsonl" \
  tasks.fields.id=task_id tasks.fields.prompt=text tasks.fields.answer=code \
  tasks.fields.tests=test_list tasks.verifier=python tasks.train=3 $tiny out=MB
expect 0 "run: finished at version 2" out.txt

# Without the mapping: refused at the line, with adarl's own schema.
run tasks check "$ex/gsm8k-style.jsonl"
expect 2 'gsm8k-style.jsonl:1: field "id": missing' err.txt
# A column the file lacks is named as such.
run tasks check "$ex/gsm8k-style.jsonl" --field prompt=problem --verifier math
expect 2 'gsm8k-style.jsonl:1: column "problem" (mapped to prompt): missing' err.txt
run tasks check "$ex/gsm8k-style.jsonl" --field prompt --verifier math
expect 2 '--field: expected TASK_FIELD=COLUMN, got "prompt"' err.txt
run tasks check "$ex/gsm8k-style.jsonl" --field prompt=question --prompt-template 'Q:'
expect 2 '--prompt-template: expected "{prompt}" once' err.txt

# The code set's reference solutions pass their own tests in the sandbox.
for i in 0 1 2 3 4 5 6 7; do
  sed -n "$((i + 1))p" "$ex/code-style.jsonl" \
    | python3 -c 'import json,sys; l=json.loads(sys.stdin.read()); print(json.dumps({"id": l["task_id"], "completion": "```python\n" + l["reference_solution"] + "\n```"}))'
done > completions.jsonl
run tasks verify --dataset "$ex/code-style.jsonl" --completions completions.jsonl \
  --field id=task_id --field prompt=question --field answer=reference_solution \
  --field tests=test_cases --verifier python
expect 0 "adarl tasks verify: 8 lines, 8 rewarded" err.txt

# adarl run on the GSM8K-style file after one tasks.fields line (and its verifier).
run run "$src/configs/quickstart.yaml" "tasks.dataset=$ex/gsm8k-style.jsonl" \
  tasks.fields.prompt=question tasks.verifier=math 'tasks.prompt_template="Q: {prompt}\nA:"' \
  model.d_model=16 model.n_layers=1 model.n_heads=2 model.d_ff=32 model.max_len=96 \
  sft.steps=5 tasks.held_out=8 tracker.steps=2 tracker.prompts_per_step=4 \
  actors.generator_capacity=16 eval.every=0 progress=false out=R
expect 0 "run: finished at version 2" out.txt
expect 0 "24 training prompts, 8 held out" out.txt
# Without the mapping the run refuses the file before anything starts.
run run "$src/configs/quickstart.yaml" "tasks.dataset=$ex/gsm8k-style.jsonl" progress=false out=S
expect 2 'gsm8k-style.jsonl:1: field "id": missing' err.txt
[ ! -e S/metrics.jsonl ] || fail "a refused run wrote metrics"
echo "tasks fields: all checks hold"
