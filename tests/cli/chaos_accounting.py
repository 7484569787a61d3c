#!/usr/bin/env python3
"""Exits 0 when a finished run's sample accounting is exact (used by chaos.sh).

usage: chaos_accounting.py RUN_DIR STEPS

metrics.jsonl: one line per step 0..STEPS-1, each exactly once and in order, policy
version step + 1; cumulative_samples (and cumulative_tokens) equal the running sum of
samples (tokens) over the steps, so no sample is counted twice or lost across resumes;
results >= samples + duplicates on every step (every accepted sample came from a
result, dropped duplicates are counted apart). metrics.csv holds the same steps once
each; eval.jsonl holds each evaluated version once; checkpoints/latest is the last
step's. Prints one line of totals, or what is wrong.
"""
import csv
import json
import sys


def main(run, steps):
    problems = []
    rows = []
    with open(run + "/metrics.jsonl") as f:
        text = f.read()
    if text and not text.endswith("\n"):
        problems.append("metrics.jsonl: torn last line")
    for n, line in enumerate(text.splitlines(), 1):
        try:
            rows.append(json.loads(line))
        except ValueError as e:
            problems.append(f"metrics.jsonl:{n}: not JSON ({e})")
    got = [r.get("step") for r in rows]
    if got != list(range(steps)):
        seen = {}
        for s in got:
            seen[s] = seen.get(s, 0) + 1
        twice = sorted(s for s, c in seen.items() if c > 1)
        missing = sorted(set(range(steps)) - set(seen))
        problems.append(f"metrics.jsonl: {len(got)} lines, steps not 0..{steps - 1} once each "
                        f"in order (twice: {twice[:10]}, missing: {missing[:10]})")
    samples = tokens = results = duplicates = reissued = 0
    for r in rows:
        s = r.get("step")
        samples += r["samples"]
        tokens += r["tokens"]
        results += r["results"]
        duplicates += r["duplicates"]
        reissued += r["reissued"]
        if r["cumulative_samples"] != samples:
            problems.append(f"step {s}: cumulative_samples {r['cumulative_samples']} != "
                            f"sum of samples {samples}")
            samples = r["cumulative_samples"]  # report each break once
        if r["cumulative_tokens"] != tokens:
            problems.append(f"step {s}: cumulative_tokens {r['cumulative_tokens']} != "
                            f"sum of tokens {tokens}")
            tokens = r["cumulative_tokens"]
        if r["results"] < r["samples"] + r["duplicates"]:
            problems.append(f"step {s}: results {r['results']} < samples {r['samples']} + "
                            f"duplicates {r['duplicates']}")
        if r["policy_version"] != s + 1:
            problems.append(f"step {s}: policy_version {r['policy_version']}")
    with open(run + "/metrics.csv", newline="") as f:
        csv_steps = [int(r["step"]) for r in csv.DictReader(f)]
    if csv_steps != list(range(steps)):
        problems.append(f"metrics.csv: {len(csv_steps)} rows, steps not 0..{steps - 1} once each")
    with open(run + "/eval.jsonl") as f:
        versions = [json.loads(line)["version"] for line in f if line.strip()]
    if len(versions) != len(set(versions)):
        problems.append(f"eval.jsonl: a version evaluated twice: {sorted(versions)}")
    with open(run + "/checkpoints/latest") as f:
        latest = f.read().strip()
    if latest != f"step-{steps:06d}":
        problems.append(f"checkpoints/latest: {latest}, expected step-{steps:06d}")
    for p in problems[:20]:
        print(p)
    print(f"accounting: {len(rows)} steps, {samples} samples (= cumulative_samples), "
          f"{tokens} tokens, {results} results, {duplicates} duplicates, {reissued} reissued, "
          f"{len(versions)} evaluations: " + ("exact" if not problems else
                                               f"{len(problems)} problems"))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
