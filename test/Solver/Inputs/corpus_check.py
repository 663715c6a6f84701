#!/usr/bin/env python3
"""Runs remat-plan on the exported corpus graphs and checks, per model:
  - every strategy at 100/80/60% of the no-remat peak: a schedule is either
    reported feasible with a peak <= budget and a time >= the no-remat time,
    or refused with exit code 1 (never an error);
  - the budgets each strategy must reach and the overheads auto must beat
    (REACH, OVERHEAD below; the numbers are justified in docs/solver.md,
    "Op-level graphs").
Prints one line per model and 'ALL OK' at the end."""
import json
import os
import subprocess
import sys

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
STRATEGIES = ["none", "revolve", "chain-rotor", "chain-rotor-weak",
              "chain-precise", "join", "chen-sqrt", "chen-greedy",
              "lowerset-exact", "lowerset-approx", "lowerset-exact-mc",
              "lowerset-approx-mc", "auto"]
# (model, strategy, budget in % of the no-remat peak) that must be feasible.
REACH = [
    ("mlp", "auto", 81.5), ("mlp", "chain-rotor", 81.5),
    ("mlp", "revolve", 81.5), ("cnn", "auto", 95.0),
    ("resnet", "auto", 47.5), ("resnet", "lowerset-approx", 47.5),
    ("resnet", "chain-rotor", 54.0), ("unet", "auto", 75.0),
    ("siamese", "auto", 70.5), ("siamese", "chain-rotor", 72.0),
    ("exp-chain", "chain-rotor", 57.2), ("exp-chain", "revolve", 57.2),
]
# (model, budget %, most overhead % auto may add).
OVERHEAD = [("resnet", 80, 0.5), ("resnet", 60, 5.0), ("siamese", 80, 8.0),
            ("unet", 80, 15.0), ("exp-chain", 80, 36.5)]


def plan(path, strategy, budget):
    r = subprocess.run(["remat-plan", "--strategy=" + strategy,
                        "--budget=" + budget, path],
                       capture_output=True, text=True)
    if r.returncode not in (0, 1):
        sys.exit("%s %s %s: exit %d: %s" % (path, strategy, budget,
                                            r.returncode, r.stderr))
    out = json.loads(r.stdout)
    if (r.returncode == 0) != bool(out["feasible"]):
        sys.exit("%s %s %s: exit code and 'feasible' disagree" %
                 (path, strategy, budget))
    return out


def main():
    failures = []
    models = sorted(f[:-5] for f in os.listdir(CORPUS) if f.endswith(".json"))
    for model in models:
        path = os.path.join(CORPUS, model + ".json")
        base = plan(path, "none", "100%")
        peak, time = base["peak"], base["time"]
        feasible = 0
        for strategy in STRATEGIES:
            for pct in (100, 80, 60):
                out = plan(path, strategy, "%d%%" % pct)
                if not out["feasible"]:
                    continue
                feasible += 1
                if out["peak"] > out["budget"] or out["time"] < time:
                    failures.append("%s %s %d%%: peak %s budget %s time %s"
                                    % (model, strategy, pct, out["peak"],
                                       out["budget"], out["time"]))
        for m, strategy, pct in REACH:
            if m == model and not plan(path, strategy, "%g%%" % pct)["feasible"]:
                failures.append("%s: %s does not reach %g%%" %
                                (model, strategy, pct))
        for m, pct, most in OVERHEAD:
            if m != model:
                continue
            out = plan(path, "auto", "%d%%" % pct)
            over = 100.0 * out["overhead"] / time if out["feasible"] else None
            if over is None or over > most:
                failures.append("%s: auto at %d%% adds %s%% (at most %g%%)" %
                                (model, pct, over, most))
        print("%s: %d feasible schedules checked" % (model, feasible))
    for f in failures:
        print("FAIL: " + f)
    print("ALL OK" if not failures else "FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
