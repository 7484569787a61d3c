#!/usr/bin/env python3
"""Every repository path named in a Markdown file or a source comment exists.

    doc_paths.py SOURCE_DIR

A path is a word that starts with one of the repository's top-level folders and names
a file (with an extension) or a folder (ending in '/'): `models/arch/attention.hpp`,
`docs/guides/`, `configs/quickstart.yaml`. Words with placeholders (<...>, {...}, *,
DIR, FILE) and paths under build or run folders are not checked. Prints each missing
path with the file and line that names it; exits 1 when any is missing.
"""
import os
import re
import subprocess
import sys

src = sys.argv[1] if len(sys.argv) > 1 else "."
os.chdir(src)
tops = sorted(d for d in os.listdir(".") if os.path.isdir(d) and not d.startswith((".", "build"))
              and d not in ("runs",))
exts = r"(?:cpp|hpp|h|md|yaml|yml|sh|py|json|jsonl|cmake|txt|svg|html|in|supp|cbor|safetensors)"
word = re.compile(r"(?<![\w./-])((?:%s)/[\w./+-]*?(?:\.%s|/))(?![\w/])" % ("|".join(map(re.escape, tops)), exts))
placeholder = re.compile(r"[<>{}*]|\b[A-Z][A-Z_]+\b|\.\.\.|/[a-z]\.[a-z]+$")

files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], capture_output=True,
                       text=True, check=True).stdout.split()
missing = []
checked = 0
for f in files:
    if not os.path.isfile(f):
        continue
    is_md = f.endswith(".md")
    is_src = f.endswith((".cpp", ".hpp", ".sh", ".py", ".cmake", ".txt", ".yaml"))
    if not (is_md or is_src) or f.startswith(("tests/data/", "tests/fuzz/corpus/")):
        continue
    with open(f, encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            # In sources, comments only: after //, #, or inside a /* */ or ''' line.
            text = line
            if is_src and not is_md:
                m = re.search(r"(//|#|/\*|\*)\s", line)
                if f.endswith((".cpp", ".hpp")):
                    m = re.search(r"(//|/\*|^\s*\*)", line)
                if not m:
                    continue
                text = line[m.start():]
            for p in word.findall(text):
                if placeholder.search(p) or "/build" in p or p.startswith(("runs/",)):
                    continue
                checked += 1
                if not os.path.exists(p.rstrip("/") if p.endswith("/") else p):
                    missing.append(f"{f}:{n}: {p}")
for m in missing:
    print("missing:", m)
print(f"doc_paths: {checked} paths named, {len(missing)} missing")
sys.exit(1 if missing else 0)
