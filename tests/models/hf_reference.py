#!/usr/bin/python3
"""Reference check of adarl's Hugging Face decoder (models/arch/hf_model.cpp).

    hf_reference.py DIR TOKENS.json PREFIX

A plain re-implementation of the published Qwen2 / Qwen3 / Llama decoder (RMSNorm,
rotary positions with none/linear/llama3 scaling, grouped-query attention, SwiGLU MLP,
q/k/v biases, Qwen3's per-head q/k RMSNorm, tied or untied embeddings) in PyTorch, reading DIR/config.json and the
safetensors files itself (no transformers, no safetensors package), computes the logits
of each sequence of TOKENS.json alone (no padding) in float32 and compares them with the
logits adarl wrote (tests/models/hf_logits.cpp: PREFIX.forward.f32, the learner's
padded batch, and PREFIX.decode.f32, the decoder's slot cache). Where transformers and
safetensors are importable, transformers' own model on the same files is compared too.

Prints the largest absolute differences; exits 0 when all are within 1e-4, 1 when not,
77 when this Python has no torch (ctest SKIP_RETURN_CODE).
"""
import json
import math
import os
import struct
import sys

try:
    import numpy as np
    import torch
except ImportError as e:  # Debian: apt-get install python3-torch
    print(f"hf_reference: skipped: {e} (install python3-torch: scripts/setup.sh)")
    sys.exit(77)

TOLERANCE = 1e-4


def read_safetensors(path):
    """{name: float32 tensor} of one safetensors file."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        raw = data[begin:end]
        shape = info["shape"]
        if info["dtype"] == "F32":
            a = np.frombuffer(raw, dtype="<f4")
        elif info["dtype"] == "F16":
            a = np.frombuffer(raw, dtype="<f2").astype(np.float32)
        elif info["dtype"] == "BF16":
            a = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            raise SystemExit(f"{path}: {name}: dtype {info['dtype']} not handled")
        out[name] = torch.from_numpy(a.copy()).reshape(shape)
    return out


def read_weights(d):
    index = os.path.join(d, "model.safetensors.index.json")
    if os.path.exists(index):
        weights = {}
        for shard in sorted(set(json.load(open(index))["weight_map"].values())):
            weights.update(read_safetensors(os.path.join(d, shard)))
        return weights
    return read_safetensors(os.path.join(d, "model.safetensors"))


def inverse_frequencies(cfg, dim):
    base = cfg.get("rope_theta", 10000.0)
    inv = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    scaling = cfg.get("rope_scaling") or {}
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    if kind == "linear":
        return inv / scaling["factor"]
    if kind == "llama3":
        factor = scaling["factor"]
        low, high = scaling.get("low_freq_factor", 1.0), scaling.get("high_freq_factor", 4.0)
        old = scaling.get("original_max_position_embeddings", 8192)
        out = []
        for f in inv.tolist():
            wavelen = 2 * math.pi / f
            if wavelen < old / high:
                out.append(f)
            elif wavelen > old / low:
                out.append(f / factor)
            else:
                smooth = (old / wavelen - low) / (high - low)
                out.append((1 - smooth) * f / factor + smooth * f)
        return torch.tensor(out, dtype=torch.float32)
    return inv


def rms_norm(x, weight, eps):
    return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def rotate(x, cos, sin):
    half = x.shape[-1] // 2
    return x * cos + torch.cat((-x[..., half:], x[..., :half]), -1) * sin


def reference_logits(cfg, w, ids):
    """Logits [T, V] of one sequence, written from the model cards' description."""
    h = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    kv_heads = cfg.get("num_key_value_heads", heads)
    dim = cfg.get("head_dim") or h // heads
    eps = cfg.get("rms_norm_eps", 1e-6)
    t = len(ids)
    x = w["model.embed_tokens.weight"][torch.tensor(ids)]
    angles = torch.arange(t, dtype=torch.float32)[:, None] * inverse_frequencies(cfg, dim)[None, :]
    angles = torch.cat((angles, angles), -1)
    cos, sin = angles.cos(), angles.sin()
    causal = torch.full((t, t), float("-inf")).triu(1)

    def lin(name, v):
        out = v @ w[name + ".weight"].T
        return out + w[name + ".bias"] if name + ".bias" in w else out

    for layer in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        y = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = lin(p + "self_attn.q_proj", y).view(t, heads, dim)
        k = lin(p + "self_attn.k_proj", y).view(t, kv_heads, dim)
        if cfg["model_type"] == "qwen3":  # each head's q and k RMS-normed before rotation
            q = rms_norm(q, w[p + "self_attn.q_norm.weight"], eps)
            k = rms_norm(k, w[p + "self_attn.k_norm.weight"], eps)
        q, k = q.transpose(0, 1), k.transpose(0, 1)
        v = lin(p + "self_attn.v_proj", y).view(t, kv_heads, dim).transpose(0, 1)
        q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        group = heads // kv_heads
        k = k[:, None].expand(kv_heads, group, t, dim).reshape(heads, t, dim)
        v = v[:, None].expand(kv_heads, group, t, dim).reshape(heads, t, dim)
        attn = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(dim) + causal, -1) @ v
        x = x + lin(p + "self_attn.o_proj", attn.transpose(0, 1).reshape(t, heads * dim))
        y = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        gate = lin(p + "mlp.gate_proj", y)
        x = x + lin(p + "mlp.down_proj", torch.nn.functional.silu(gate) * lin(p + "mlp.up_proj", y))
    x = rms_norm(x, w["model.norm.weight"], eps)
    head = w["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings") else w["lm_head.weight"]
    return x @ head.T


def transformers_logits(d, seqs):
    """transformers' own model on the same files, or None where it is not importable."""
    try:
        import safetensors  # noqa: F401
        import transformers
    except ImportError:
        return None
    model = transformers.AutoModelForCausalLM.from_pretrained(d, torch_dtype=torch.float32)
    model.eval()
    with torch.no_grad():
        return [model(torch.tensor([s])).logits[0] for s in seqs]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    d, tokens_path, prefix = sys.argv[1:]
    cfg = json.load(open(os.path.join(d, "config.json")))
    seqs = json.load(open(tokens_path))
    meta = json.load(open(prefix + ".json"))
    vocab, lengths = meta["vocab"], meta["lengths"]
    assert lengths == [len(s) for s in seqs], "adarl's logits are of other sequences"
    w = read_weights(d)
    torch.set_grad_enabled(False)
    ref = torch.cat([reference_logits(cfg, w, s) for s in seqs])
    worst = {}
    for kind in ("forward", "decode"):
        a = np.fromfile(f"{prefix}.{kind}.f32", dtype="<f4").reshape(-1, vocab)
        worst[kind] = float((torch.from_numpy(a) - ref).abs().max())
    theirs = transformers_logits(d, seqs)
    if theirs is not None:
        worst["transformers vs reference"] = float((torch.cat(theirs) - ref).abs().max())
    spread = float(ref.std())
    print(f"hf_reference: {cfg['model_type']} {cfg['num_hidden_layers']} layers, hidden "
          f"{cfg['hidden_size']}, heads {cfg['num_attention_heads']}/"
          f"{cfg.get('num_key_value_heads')}, vocab {vocab}, {sum(lengths)} positions; "
          f"logit std {spread:.3g}")
    for kind, diff in worst.items():
        print(f"hf_reference: max |adarl {kind} - reference| = {diff:.3g}" if kind in
              ("forward", "decode") else f"hf_reference: max |{kind}| = {diff:.3g}")
    if theirs is None:
        print("hf_reference: transformers/safetensors not importable here: reference only")
    ok = all(v <= TOLERANCE for v in worst.values())
    print("hf_reference: " + ("agree within 1e-4" if ok else "DIFFER beyond 1e-4"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
