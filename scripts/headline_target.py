#!/usr/bin/env python3
"""Issue 16's target, read off a comparison's compare.json (README "adarl compare").

For each seed: the reference strategy's held-out accuracy at the equal-steps cap S (its
"final" accuracy in the equal-steps table), then the first evaluation of STRATEGY that
reaches it: its step as a fraction of S, and the wall-clock ratio of STRATEGY's seconds
at that evaluation to the reference's seconds at step S. Prints one line per seed and
the median; a seed whose STRATEGY never reaches it within S prints "never".

  python3 scripts/headline_target.py docs/compare.json [STRATEGY]   (default ada-seq-balance)
"""
import json
import statistics
import sys


def eval_at_step(run, step):
    """The evaluation of `run` at exactly `step` (evaluations are every eval.every steps)."""
    for e in run["evals"]:
        if e["step"] == step:
            return e
    return None


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    path = sys.argv[1]
    name = sys.argv[2] if len(sys.argv) > 2 else "ada-seq-balance"
    with open(path) as f:
        data = json.load(f)
    cap = data.get("equal_steps")
    if cap is None:
        print(f"{path}: no equal_steps: not an equal-steps comparison", file=sys.stderr)
        return 2
    by_name = {s["name"]: s for s in data["strategies"]}
    if name not in by_name or data["baseline"] not in by_name:
        print(f"{path}: strategies are {sorted(by_name)}", file=sys.stderr)
        return 2
    ref_runs = {r["seed"]: r for r in by_name[data["baseline"]]["runs"]}
    fractions, walls = [], []
    print(f"{name} against {data['baseline']}, equal steps {cap:g}:")
    for run in by_name[name]["runs"]:
        seed = run["seed"]
        ref = ref_runs.get(seed)
        ref_eval = eval_at_step(ref, cap) if ref else None
        if ref_eval is None:
            print(f"  seed {seed}: the reference has no evaluation at step {cap:g}")
            continue
        goal = ref_eval["accuracy"]
        hit = next((e for e in run["evals"] if e["step"] <= cap and e["accuracy"] >= goal), None)
        if hit is None:
            print(f"  seed {seed}: reference {goal:.3f} at step {cap:g}; never reached by step {cap:g}")
            fractions.append(float("inf"))
            continue
        frac = hit["step"] / cap
        wall = hit["seconds"] / ref_eval["seconds"] if ref_eval["seconds"] > 0 else float("nan")
        fractions.append(frac)
        walls.append(wall)
        print(f"  seed {seed}: reference {goal:.3f} at step {cap:g}; reached at step "
              f"{hit['step']:g} ({frac:.2f} of the steps), {hit['cumulative_samples']:g} samples "
              f"vs {ref_eval['cumulative_samples']:g}, wall-clock {wall:.2f}x")
    if fractions:
        print(f"median fraction of the steps: {statistics.median(fractions):.2f} "
              f"(target <= 0.60); seeds within 0.60: {sum(f <= 0.6 for f in fractions)} of {len(fractions)}")
    if walls:
        print(f"median wall-clock ratio at that point: {statistics.median(walls):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
