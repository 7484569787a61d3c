#!/usr/bin/env python3
"""Every repository path named in a Markdown file or in a source comment exists.

A path is a word that starts with a top-level folder of the repository (`algorithms/`,
`docs/`, ...) or names a top-level file (README.md, CHANGELOG.md excepted: it tells the
history, in the paths of its time). Globs (`models/hf_*`) must match a file, brace lists
(`net/remote_wire.{hpp,cpp}`) each name one, a stem (`runtime/metrics_http`) names
its files; a path with a placeholder
(`tests/<folder>/`, `DIR/FILE`) is skipped. Prints each missing path with the file and
line that names it, and each section named with a page (docs/design.md "Determinism")
that the page has no heading for; exit status 1 when there is one.
   scripts/check_paths.py [ROOT]"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), ".."))
SKIP_FILES = {"CHANGELOG.md"}
SOURCE_EXT = {".cpp": "//", ".hpp": "//", ".in": "#", ".cmake": "#", ".txt": "#", ".sh": "#",
              ".py": "#", ".yaml": "#", ".yml": "#"}


def tracked():
    """The repository's files (git's list; without git, the tree less build outputs)."""
    try:
        out = subprocess.check_output(["git", "-C", ROOT, "ls-files", "--cached", "--others",
                                       "--exclude-standard"], stderr=subprocess.DEVNULL).decode()
        return [f for f in out.split("\n") if f and os.path.isfile(os.path.join(ROOT, f))]
    except (OSError, subprocess.CalledProcessError):
        out = []
        for d, dirs, names in os.walk(ROOT):
            dirs[:] = [x for x in dirs if not x.startswith(("build", "runs", ".git"))]
            out += [os.path.relpath(os.path.join(d, n), ROOT) for n in names]
        return out


def top_level(files):
    dirs = {f.split("/")[0] for f in files if "/" in f}
    return sorted(d for d in dirs if not d.startswith(".") or d == ".ci")


def commented_lines(path, text):
    """(line number, text) of the comments of a source file; every line of Markdown."""
    if path.endswith(".md"):
        return list(enumerate(text.split("\n"), 1))
    ext = os.path.splitext(path)[1]
    if path.endswith("CMakeLists.txt"):
        mark = "#"
    elif ext in SOURCE_EXT and not path.endswith(".txt"):
        mark = SOURCE_EXT[ext]
    else:
        return []
    out = []
    in_block = False
    for n, line in enumerate(text.split("\n"), 1):
        if mark == "//":
            if in_block:
                end = line.find("*/")
                out.append((n, line if end < 0 else line[:end]))
                in_block = end < 0
                continue
            at = line.find("//")
            block = line.find("/*")
            if block >= 0 and (at < 0 or block < at):
                end = line.find("*/", block + 2)
                out.append((n, line[block + 2:] if end < 0 else line[block + 2:end]))
                in_block = end < 0
            elif at >= 0:
                out.append((n, line[at + 2:]))
        else:
            at = line.find("#")
            if at >= 0:
                out.append((n, line[at + 1:]))
    return out


def expand(word):
    m = re.search(r"\{([^{}]*)\}", word)
    if not m:
        return [word]
    return [x for alt in m.group(1).split(",") for x in expand(word[:m.start()] + alt +
                                                                 word[m.end():])]


def exists(word):
    for w in expand(word):
        full = os.path.join(ROOT, w)
        if any(ch in w for ch in "*?["):
            if not glob.glob(full) and not glob.glob(full + "*"):
                return False
        elif not os.path.exists(full) and not glob.glob(full + ".*"):
            return False  # a module may be named by its stem: runtime/metrics_http
    return True


def main():
    files = tracked()
    tops = top_level(files)
    word = re.compile(r"(?<![\w./<>$@-])((?:" + "|".join(re.escape(t) for t in tops) +
                      r")/[\w./*?{},+-]*)")
    missing = []
    checked = 0
    for f in files:
        if f in SKIP_FILES or f.startswith("tests/data/") or "/corpus/" in f:
            continue
        try:
            text = open(os.path.join(ROOT, f), encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        for n, line in commented_lines(f, text):
            for m in word.finditer(line):
                w = m.group(1).rstrip(".,:;")
                after = line[m.end():m.end() + 1]
                if after in ("<", "$") or re.search(r"[A-Z]{3,}", w):
                    continue  # a placeholder: tests/<folder>/, docs/results/compare-<suite>.json
                if w.endswith("{") or "{}" in w or "{" in w and "}" not in w:
                    continue
                checked += 1
                if not exists(w):
                    missing.append(f"{f}:{n}: {w}")
    # A section named with a page, docs/design.md "Determinism": one of its headings holds
    # the name (case aside).
    section = re.compile(r'((?:docs/[\w/.-]+\.md))`?[ \t]*(?:\n[ \t]*(?:#|//+|\*)?[ \t]*)?"([^"\n]{2,60})"')
    for f in files:
        if f in SKIP_FILES or not os.path.isfile(os.path.join(ROOT, f)):
            continue
        try:
            text = open(os.path.join(ROOT, f), encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        for m in section.finditer(text):
            page = os.path.join(ROOT, m.group(1))
            if not os.path.isfile(page):
                continue  # reported above
            heads = [l.lstrip("#").strip().lower() for l in open(page, encoding="utf-8")
                     if l.startswith("#")]
            name = m.group(2).lower()
            checked += 1
            if not any(name in h for h in heads):
                n = text.count("\n", 0, m.start()) + 1
                missing.append(f"{f}:{n}: {m.group(1)} has no section \"{m.group(2)}\"")
    for m in missing:
        print(m)
    print(f"check_paths: {checked} paths named, {len(missing)} missing")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
