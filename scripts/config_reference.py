#!/usr/bin/env python3
"""Writes docs/reference/config.md from the documented configs of configs/: every key
with its value there and its comment, by section. The configs are the source (each key
is documented where it is set); `config_reference.py --check` fails when the page is
not what the configs give (ctest docs.config_reference).
   scripts/config_reference.py [--check]"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "reference" / "config.md"
# The run document (quickstart) first, then what the others add: HF models, the compare
# section, simulate and replay documents.
SOURCES = ["quickstart.yaml", "hf-tiny.yaml", "server-llama.yaml", "compare.yaml", "simulate.yaml", "sim-smoke.yaml",
           "ada-est.yaml", "ada-seq-balance.yaml", "ada-seq-pos.yaml", "dapo.yaml", "grpo.yaml",
           "dr-grpo.yaml", "ada-est-online.yaml", "ada-budget.yaml", "sft.yaml", "compare-math.yaml",
           "compare-code.yaml", "compare-general.yaml", "compare-quick.yaml", "ablation.yaml"]
KEY = re.compile(r"^(\s*)(- )?([A-Za-z_][A-Za-z0-9_]*):(\s*)(.*)$")


def split_comment(rest):
    """Value and comment of the text after 'key:' (a '#' outside quotes starts it)."""
    quote = None
    for i, ch in enumerate(rest):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or rest[i - 1].isspace()):
            return rest[:i].strip(), rest[i + 1:].strip()
    return rest.strip(), ""


def flow_depth(text, depth):
    """`depth` after `text`: the nesting of flow collections ({...}, [...]) outside quotes
    and comments."""
    quote = None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1].isspace()):
            break
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
    return depth


def flow_keys(text):
    """The keys of the outermost flow mapping in `text` ("{name: a, set: [x]}")."""
    keys, depth, word = [], 0, ""
    for ch in split_comment(text)[0]:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        elif depth == 1 and ch == ":" and word.strip():
            keys.append(word.strip())
        if depth == 1 and ch not in "{[:," and not (ch.isspace() and not word.strip()):
            word = word + ch if ch.isalnum() or ch in "_" else ("" if ch.isspace() else word)
        elif ch in ",{":
            word = ""
    return keys


def keys_of(path):
    """(dotted key, value, comment) of every key of one file, in file order. A list of
    flow mappings (`- {name: a, strategy: {...}}`) gives its entries' keys as KEY[].NAME."""
    out = []
    stack = []  # (indent, name)
    last = None
    in_list = {}
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        stripped = line.strip()
        if stripped.startswith("- {"):  # a flow mapping in a list, maybe over lines
            text, depth = stripped[2:], flow_depth(stripped[2:], 0)
            while depth > 0 and i < len(lines):
                text += " " + lines[i].strip()
                depth = flow_depth(lines[i], depth)
                i += 1
            indent = len(line) - len(line.lstrip())
            parents = [s[1] for s in stack if s[0] < indent]
            for key in flow_keys(text):
                dotted = ".".join(parents[:-1] + [parents[-1] + "[]", key]) if parents else key
                if all(o[0] != dotted for o in out):
                    out.append([dotted, "", "a key of each entry of the list (the file's "
                                            "comments above it say what it does)"])
            last = None
            continue
        m = KEY.match(line)
        if m and flow_depth(m.group(5), 0) > 0:  # a flow value over several lines
            depth = flow_depth(m.group(5), 0)
            while depth > 0 and i < len(lines):
                depth = flow_depth(lines[i], depth)
                i += 1
        if not m:
            # A comment line aligned under the previous key's comment continues it.
            if last is not None and stripped.startswith("#") and line.startswith(" " * 8):
                last[2] += " " + stripped.lstrip("#").strip()
            else:
                last = None
            continue
        indent = len(m.group(1)) + (2 if m.group(2) else 0)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        name = m.group(3)
        parents = [s[1] for s in stack]
        if m.group(2):  # an entry of a list: its keys are KEY[].NAME
            parents = parents[:-1] + [parents[-1] + "[]"] if parents else parents
            in_list[indent] = True
        elif in_list.get(indent) and parents and not parents[-1].endswith("[]"):
            parents = parents[:-1] + [parents[-1] + "[]"]
        value, comment = split_comment(m.group(5))
        dotted = ".".join(parents + [name])
        stack.append((indent, name if not m.group(2) else name))
        if m.group(2):
            stack[-1] = (indent, name)
        last = [dotted, value, comment]
        out.append(last)
    return out


def page():
    seen = {}
    order = []
    for name in SOURCES:
        f = ROOT / "configs" / name
        if not f.exists():
            continue
        for key, value, comment in keys_of(f):
            if key not in seen:
                seen[key] = (value, comment, name)
                order.append(key)
            elif not seen[key][1] and comment:
                seen[key] = (seen[key][0], comment, seen[key][2])
    lines = [
        "# Reference: config keys",
        "",
        "Every key that the documented configs of `configs/` set, with the value it has",
        "there and what it means. Generated by `scripts/config_reference.py` from those",
        "files, where each key is documented beside its value (ctest",
        "`docs.config_reference` fails when this page and the configs differ). A key",
        "marked `[]` belongs to each entry of a list. The readers (`config/`) reject an",
        "unknown key or a bad value with the file, line and key.",
        "",
    ]
    sections = {}
    for key in order:
        value, comment, src = seen[key]
        if not value and not comment:
            continue  # a section's own line
        top = f"`{key.split('.')[0]}`" if "." in key else "The run"
        sections.setdefault(top, []).append(key)
    for top, keys in sections.items():
        lines += ["", f"## {top}", "", "| key | set in | value there | meaning |",
                  "|---|---|---|---|"]
        for key in keys:
            value, comment, src = seen[key]
            shown = f"`{value}`".replace("|", "\\|") if value else ""
            meaning = comment.replace("|", "\\|")
            lines.append(f"| `{key}` | {src} | {shown} | {meaning} |")
    return "\n".join(lines).replace("\n\n\n", "\n\n") + "\n"


def main():
    text = page()
    if "--check" in sys.argv[1:]:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT.relative_to(ROOT)} is not what configs/ give: run "
                  "scripts/config_reference.py")
            return 1
        print(f"{OUT.relative_to(ROOT)}: up to date ({text.count(chr(10) + '| `')} keys)")
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
