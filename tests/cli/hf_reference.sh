#!/bin/sh
# Reference check of adarl's Hugging Face decoder (docs/guides/models.md "Hugging Face models"): tiny
# random checkpoints of both families (Qwen2 with the real Qwen3 tokenizer when the npm
# cache has it, bf16, untied; Qwen2 float32; Llama with q/k/v/o biases and llama3 rope
# scaling; Llama with GQA 4:1 and linear scaling; Qwen3 with head_dim 32 over a hidden of
# 64 and 4 heads, and with biases and GQA 4:1), their logits from adarl's learner path
# and decoder path (hf_logits) against tests/models/hf_reference.py, a plain PyTorch
# implementation of the published architecture reading the same files (and transformers'
# model where it is importable). Skipped (77) where /usr/bin/python3 has no torch.
#   hf_reference.sh ADARL MAKE_TINY_HF HF_LOGITS SOURCE_DIR WORK_DIR
set -eu
adarl=$1 make=$2 logits=$3 src=$4 work=$5
py=/usr/bin/python3
if ! $py -c 'import torch, numpy' 2>/dev/null; then
  echo "hf_reference: skipped: $py has no torch (apt-get install python3-torch, see scripts/setup.sh)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work" && cd "$work"
prompts='Compute: 12*(3+4). Let'"'"'s think step by step and output the final answer within \boxed{}.
the cat sat on the mat and then it sat again on the other mat, which was red'
check() {  # check NAME [make_tiny_hf options]
  name=$1; shift
  echo "== $name: $("$make" "$name" "$@")"
  printf '%s\n' "$prompts" | "$adarl" model tokenize "$name" --chat --chat-template chatml \
    | $py -c 'import json, sys; print(json.dumps([json.loads(l) for l in sys.stdin]))' \
    > "$name.tokens.json"
  "$logits" "$name" "$name.tokens.json" "$name.out"
  $py "$src/tests/models/hf_reference.py" "$name" "$name.tokens.json" "$name.out"
}
check qwen2-bf16 --scale 0.1 --untied
check qwen2-f32 --small-tokenizer --f32 --scale 0.15
check llama3 --llama --attention-bias --small-tokenizer --scale 0.15 \
  --rope-scaling '{"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 32}'
check llama-gqa4 --llama --small-tokenizer --scale 0.15 --heads 4 --kv-heads 1 \
  --rope-scaling '{"type": "linear", "factor": 4.0}'
check qwen3 --qwen3 --scale 0.15 --head-dim 32 --untied
check qwen3-bias --qwen3 --attention-bias --small-tokenizer --f32 --scale 0.15 --heads 4 --kv-heads 1
echo "hf_reference: every variant agrees"
