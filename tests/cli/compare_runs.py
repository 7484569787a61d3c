#!/usr/bin/env python3
"""Exits 0 when two run directories hold the same results, timings aside.

usage: compare_runs.py RUN_A RUN_B [CHECKPOINT_FILE ...]

Compares metrics.jsonl line by line without the durations, without the held-out
fields a step line picks up from whichever evaluation finished before it (a matter of
timing; eval.jsonl holds every evaluation and is compared whole, without its seconds)
and without what lost work costs (the remote generators' counters, re-issued orders,
duplicate answers and the results that include them: which workers came and went),
then each named file of the final checkpoint byte for byte. Prints what differs.
"""
import json
import sys

TIMING = {"time_generation", "time_train", "time_wait", "time_publish", "time_step",
          "time_reduce", "reduced_bytes",
          "elapsed", "generator_busy", "heldout_greedy", "heldout_sampled", "heldout_version",
          "cluster", "results", "duplicates", "reissued"}


def lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main(a, b, files):
    problems = []
    ma, mb = lines(a + "/metrics.jsonl"), lines(b + "/metrics.jsonl")
    if len(ma) != len(mb):
        problems.append(f"metrics.jsonl: {len(ma)} lines against {len(mb)}")
    for x, y in zip(ma, mb):
        for key in sorted((set(x) | set(y)) - TIMING):
            if x.get(key) != y.get(key):
                problems.append(f"step {x.get('step')}: {key}: {x.get(key)} != {y.get(key)}")
    ea, eb = lines(a + "/eval.jsonl"), lines(b + "/eval.jsonl")
    for e in ea + eb:
        e.pop("seconds", None)
    ea.sort(key=lambda e: e["version"])
    eb.sort(key=lambda e: e["version"])
    if ea != eb:
        problems.append("eval.jsonl: the evaluations differ (versions %s against %s)" %
                        ([e["version"] for e in ea], [e["version"] for e in eb]))
    with open(a + "/checkpoints/latest") as f:
        latest = f.read().strip()
    for name in files:
        with open(f"{a}/checkpoints/{latest}/{name}", "rb") as f:
            fa = f.read()
        with open(f"{b}/checkpoints/{latest}/{name}", "rb") as f:
            fb = f.read()
        if fa != fb:
            problems.append(f"checkpoints/{latest}/{name}: the bytes differ")
    for p in problems[:20]:
        print(p)
    print(f"compared {len(ma)} steps, {len(ea)} evaluations, {len(files)} checkpoint files: "
          + ("identical" if not problems else f"{len(problems)} differences"))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
