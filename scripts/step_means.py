#!/usr/bin/env python3
"""The mean of one metrics.jsonl key over a window of steps, per strategy of compare runs.

    scripts/step_means.py KEY FIRST LAST OUT.json SUITE=runs/compare-SUITE [SUITE=DIR ...]

For every suite folder (an `adarl compare` output: STRATEGY/seed-N/metrics.jsonl),
the mean of KEY over the step lines with FIRST <= step <= LAST, per seed, then over the
seeds (with the smallest and largest seed), for every strategy; and each strategy's
difference to the suite's first strategy (the baseline) paired by seed, with a 95%
Student-t interval. Writes OUT.json and prints a Markdown table. A run without KEY in
that window is an error, not a zero. Standard library only.
"""
import json
import statistics
import sys
from pathlib import Path

from paired_table import paired_interval


def step_lines(path):
    """The step lines of a metrics.jsonl; a line that is not JSON ends the script naming it."""
    with open(path) as f:
        for number, line in enumerate(f, 1):
            try:
                yield json.loads(line)
            except json.JSONDecodeError as e:
                raise SystemExit(f"{path}:{number}: not JSON ({e})")


def seed_runs(folder, strategy):
    """{seed: metrics.jsonl path} of a strategy's runs in a compare folder."""
    runs = sorted(Path(folder, strategy).glob("seed-*/metrics.jsonl"))
    if not runs:
        raise SystemExit(f"{folder}/{strategy}: no seed-*/metrics.jsonl")
    return {int(p.parent.name.removeprefix("seed-")): p for p in runs}


def run_mean(path, key, first, last):
    values = [m[key] for m in step_lines(path) if first <= m.get("step", -1) <= last and key in m]
    if not values:
        raise SystemExit(f"{path}: no step in [{first}, {last}] has {key}")
    return statistics.mean(values)


def strategies_of(folder):
    # The order of compare.json when there is one (its first strategy is the baseline).
    doc = Path(folder, "compare.json")
    if doc.exists():
        return [s["name"] for s in json.loads(doc.read_text())["strategies"]]
    return sorted(p.name for p in Path(folder).iterdir() if p.is_dir())


def suite_means(folder, key, first, last):
    out = {}
    for strategy in strategies_of(folder):
        out[strategy] = {seed: run_mean(p, key, first, last)
                         for seed, p in seed_runs(folder, strategy).items()}
    base_name = next(iter(out))
    base = out[base_name]
    table = {}
    for strategy, seeds in out.items():
        v = list(seeds.values())
        row = {"seeds": sorted(seeds), "per_seed": [seeds[s] for s in sorted(seeds)],
               "mean": statistics.mean(v), "min": min(v), "max": max(v)}
        paired = sorted(set(seeds) & set(base))
        if strategy != base_name and len(paired) >= 2:
            row["minus_baseline"] = dict(paired_interval([seeds[s] - base[s] for s in paired]),
                                         baseline=base_name)
        table[strategy] = row
    return table


def main(argv):
    if len(argv) < 6:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    key, first, last, out_path = argv[1], int(argv[2]), int(argv[3]), argv[4]
    out = {"key": key, "steps": [first, last], "suites": {}}
    for arg in argv[5:]:
        suite, _, folder = arg.partition("=")
        out["suites"][suite] = suite_means(folder, key, first, last)
    Path(out_path).write_text(json.dumps(out, indent=1) + "\n")
    suites = list(out["suites"])
    print(f"| strategy | " + " | ".join(f"{s}: {key} (steps {first}-{last}), minus baseline"
                                       for s in suites) + " |")
    print("|---|" + "---|" * len(suites))
    for strategy in out["suites"][suites[0]]:
        cells = []
        for s in suites:
            row = out["suites"][s].get(strategy)
            if row is None:
                cells.append("-")
                continue
            d = row.get("minus_baseline")
            cells.append(f"{row['mean']:.3f}" + (
                f", {d['mean']:+.3f} [{d['low']:+.3f}, {d['high']:+.3f}]" if d else ""))
        print(f"| {strategy} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
