#!/usr/bin/env python3
"""Writes a .safetensors file with Python's struct and json modules alone, laid out as
the reference implementation (safetensors.torch.save_file) lays it out: tensors sorted by
dtype (largest alignment first) then name, a compact JSON header with __metadata__ first,
padded with spaces to a multiple of 8. tests/formats/safetensors_test.cpp reads it back.

usage: write_safetensors_reference.py OUT.safetensors
"""
import json
import struct
import sys

# The format's dtype order (increasing alignment), as in safetensors' Rust Dtype enum.
ORDER = ["BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "I16", "U16", "F16", "BF16",
         "I32", "U32", "F32", "F64", "I64", "U64"]


def bf16(values):
    # bfloat16 is the upper half of a float32; these values are exact in bf16.
    return b"".join(struct.pack("<f", v)[2:] for v in values)


TENSORS = {
    "model.embed_tokens.weight": ("BF16", [2, 3], bf16([1.0, -2.5, 0.15625, 2.0**127, -0.0, 65536.0])),
    "model.norm.weight": ("F16", [4], struct.pack("<4e", 1.0, -0.5, 65504.0, 5.960464477539063e-08)),
    "lm_head.weight": ("F32", [2, 2], struct.pack("<4f", 0.1, -1.0, 3.5, 1e-30)),
    "position_ids": ("I64", [3], struct.pack("<3q", 0, -1, 2**40)),
    "mask": ("I32", [2], struct.pack("<2i", 7, -7)),
}


def main():
    names = sorted(TENSORS, key=lambda n: (-ORDER.index(TENSORS[n][0]), n))
    header = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name in names:
        dtype, shape, data = TENSORS[name]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(sys.argv[1], "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name in names:
            f.write(TENSORS[name][2])


if __name__ == "__main__":
    main()
