#!/usr/bin/env python3
"""Where the samples of Seq's prompt visits went, per strategy of compare runs.

    scripts/exit_rounds.py OUT.json SUITE=runs/compare-SUITE [SUITE=DIR ...]

For every suite folder (an `adarl compare` output: STRATEGY/seed-N/metrics.jsonl) and
every strategy whose step lines count exits by rounds (the ada-seq ones), the sums over
all steps and seeds of: prompt visits that exited (pos or balance), fell back without
exiting (the never-exited ones) or were skipped; their samples (`exits` and
`exit_samples` of each line); and the visits by rounds used (`rounds`, whose entry i
counts the visits that drew i rounds). Writes OUT.json and prints a Markdown table. A
line without these keys is an error naming it. Standard library only.
"""
import json
import sys

from step_means import seed_runs, step_lines, strategies_of

EXITED = ("pos", "balance")
FALLBACK = ("fallback_missing_positives", "fallback_missing_negatives")


def run_sums(path, sums):
    for number, m in enumerate(step_lines(path), 1):
        try:
            exits, samples, rounds = m["exits"], m["exit_samples"], m["rounds"]
        except KeyError as e:
            raise SystemExit(f"{path}:{number}: no {e.args[0]}")
        sums["exited"] += sum(exits[k] for k in EXITED)
        sums["exited_samples"] += sum(samples[k] for k in EXITED)
        sums["never_exited"] += sum(exits[k] for k in FALLBACK)
        sums["never_exited_samples"] += sum(samples[k] for k in FALLBACK)
        sums["skipped"] += exits["skipped"]
        hist = sums["visits_by_rounds"]
        hist.extend([0] * (len(rounds) - len(hist)))
        for i, n in enumerate(rounds):
            hist[i] += n


def strategy_sums(folder, strategy):
    sums = {"exited": 0, "exited_samples": 0, "never_exited": 0, "never_exited_samples": 0,
            "skipped": 0, "visits_by_rounds": []}
    for path in seed_runs(folder, strategy).values():
        run_sums(path, sums)
    drawn = sums["exited_samples"] + sums["never_exited_samples"]
    sums["never_exited_share"] = sums["never_exited_samples"] / drawn if drawn else None
    return sums


def per_visit(samples, visits):
    return f"{samples / visits:.1f}" if visits else "-"


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out = {"suites": {}}
    print("| suite | strategy | visits exited / never exited / skipped | samples per exited "
          "visit | per never-exited visit | never-exited share | visits by rounds 1, 2, 3, ... |")
    print("|---|---|---|---|---|---|---|")
    for arg in argv[2:]:
        suite, _, folder = arg.partition("=")
        table = {}
        for strategy in strategies_of(folder):
            if not strategy.startswith("ada-seq"):
                continue
            s = table[strategy] = strategy_sums(folder, strategy)
            share = s["never_exited_share"]
            print(f"| {suite} | {strategy} | {s['exited']:,} / {s['never_exited']:,} / "
                  f"{s['skipped']:,} | {per_visit(s['exited_samples'], s['exited'])} | "
                  f"{per_visit(s['never_exited_samples'], s['never_exited'])} | "
                  f"{'-' if share is None else f'{share:.2f}'} | "
                  f"{', '.join(f'{n:,}' for n in s['visits_by_rounds'][1:])} |")
        out["suites"][suite] = table
    with open(argv[1], "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
