#!/usr/bin/env python3
"""Paired differences of held-out accuracy between strategies of a compare.json.

    scripts/paired_table.py docs/results/ablation.json A:B [A:B ...]

For each pair, A minus B at the equal-steps cap (`heldout_at_steps` of each run), seed
by seed, with the mean and a 95% Student-t interval over the seeds both have; the same
statistic `adarl compare` reports against its baseline (algorithms/paired_stats.cpp), for
pairs where neither is the baseline. Prints a Markdown table. Standard library only.
"""
import json
import math
import statistics
import sys

# Two-sided 95% Student-t quantiles by degrees of freedom.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
       9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131,
       19: 2.093, 29: 2.045}


def paired_interval(d):
    """Mean of the paired differences `d` and its 95% Student-t interval."""
    m = statistics.mean(d)
    h = T95[len(d) - 1] * statistics.stdev(d) / math.sqrt(len(d))
    return {"mean": m, "low": m - h, "high": m + h, "n": len(d)}


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        data = json.load(f)
    at = {s["name"]: {r["seed"]: r["heldout_at_steps"] for r in s["runs"]}
          for s in data["strategies"]}
    print(f"| comparison (step {data.get('equal_steps')}) | seeds | mean [95% CI] |")
    print("|---|---|---|")
    for pair in argv[2:]:
        a, _, b = pair.partition(":")
        if a not in at or b not in at:
            print(f"paired_table: no strategy {a if a not in at else b!r} in {argv[1]}",
                  file=sys.stderr)
            return 2
        seeds = sorted(s for s in set(at[a]) & set(at[b])
                       if at[a][s] is not None and at[b][s] is not None)
        d = [at[a][s] - at[b][s] for s in seeds]
        if len(d) < 2 or len(d) - 1 not in T95:
            print(f"paired_table: {pair}: {len(d)} paired seeds", file=sys.stderr)
            return 2
        i = paired_interval(d)
        print(f"| {a} minus {b} | {len(d)} | "
              f"{i['mean']:+.3f} [{i['low']:+.3f}, {i['high']:+.3f}] |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
