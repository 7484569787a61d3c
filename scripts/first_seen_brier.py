#!/usr/bin/env python3
"""The pass-rate predictor's calibration on first-seen prompts, from compare run folders.

    scripts/first_seen_brier.py OUT.json SUITE=runs/compare-SUITE [SUITE=DIR ...]

For every suite, reads each seed's metrics.jsonl of the `ada-est` (Beta-EMA estimator)
and `ada-est-learned` (learned predictor) runs, and takes the Brier score on the prompts
seen for the first time (`first_seen_brier`, weighted by `first_seen_prompts` over the
steps). Writes the per-seed scores and the paired difference learned minus ema (mean
and a 95% Student-t interval over the seeds) to OUT.json and prints a Markdown table.
A run without any first-seen prompt is an error, not a zero. Standard library only.
"""
import json
import statistics
import sys
from pathlib import Path

from paired_table import paired_interval
from step_means import seed_runs, step_lines

STRATEGIES = ("ada-est", "ada-est-learned")


def run_brier(path):
    weight = total = 0.0
    for m in step_lines(path):
        n = m.get("first_seen_prompts", 0)
        if n > 0:
            weight += n
            total += m["first_seen_brier"] * n
    if weight == 0:
        raise SystemExit(f"{path}: no step with first-seen prompts")
    return total / weight, int(weight)


def suite_scores(folder):
    seeds = {}
    for strategy in STRATEGIES:
        for seed, path in seed_runs(folder, strategy).items():
            seeds.setdefault(seed, {})[strategy] = run_brier(path)
    paired = sorted(s for s, v in seeds.items() if len(v) == len(STRATEGIES))
    d = [seeds[s]["ada-est-learned"][0] - seeds[s]["ada-est"][0] for s in paired]
    if len(d) < 2:
        raise SystemExit(f"{folder}: fewer than two paired seeds")
    return {
        "seeds": paired,
        "brier": {st: [seeds[s][st][0] for s in paired] for st in STRATEGIES},
        "first_seen_prompts": {st: [seeds[s][st][1] for s in paired] for st in STRATEGIES},
        "learned_minus_ema": paired_interval(d),
    }


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out = {}
    for arg in argv[2:]:
        suite, _, folder = arg.partition("=")
        out[suite] = suite_scores(folder)
    Path(argv[1]).write_text(json.dumps(out, indent=1) + "\n")
    print("| suite | ada-est (Beta-EMA prior) | ada-est-learned | learned minus ema [95% CI] |")
    print("|---|---|---|---|")
    for suite, s in out.items():
        e, l, d = s["brier"]["ada-est"], s["brier"]["ada-est-learned"], s["learned_minus_ema"]
        print(f"| {suite} | {statistics.mean(e):.3f} | {statistics.mean(l):.3f} | "
              f"{d['mean']:+.3f} [{d['low']:+.3f}, {d['high']:+.3f}] |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
