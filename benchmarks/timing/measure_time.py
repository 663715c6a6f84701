#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Measured time of rematerialized steps against the predicted overhead.

For each row (a step, its harness, a budget): fit the step with
`remat-opt --remat-budget=B --remat-report=...`, then time the original and
the fitted step on the CPU in one process, alternating calls
(test/Integration/CPU/time.sh), and print one Markdown row:

  * predicted overhead: the report's `overhead_percent` (FLOP cost model);
  * measured overhead: median over the runs of the per-pair time ratio
    (fitted call / the original call next to it) - 1, its MAD, and the
    ratio's 10th .. 90th percentile;
  * the median time of one call of each;
  * predicted peak (`peak_before` -> `peak_after`) and measured peak (the
    runtime's window peak of one call of each version, each in its own
    process: test/Integration/CPU/run.sh). Planner and lowering both use
    their default alignment (64: every buffer counted and allocated at its
    size rounded up to 64 bytes), so the two peaks are comparable.

A budget the step cannot meet is replaced by the smallest one remat-opt
names, rounded up to a whole percent (shown as `50% -> 78%`). Outputs of
both versions must be identical, else the row says so and the script exits
non-zero at the end.

With --calibrate, each row is also planned with a cost table of measured
node times (calibrate_costs.py, at the budget used above) and that plan is
timed the same way: its predicted overhead (in measured ns) against the
measured one.

Usage: measure_time.py [--build BUILD] [--runs N] [--warmup W] [--calibrate] [ROW...]
  ROW: NAME=MODEL.mlir[:HARNESS.mlir]@BUDGET (default: the rows of
  docs/benchmarks.md, "Measured time"); HARNESS defaults to
  MODEL.harness.mlir. Paths relative to the source root.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
TIME_SH = os.path.join(SRC, "test", "Integration", "CPU", "time.sh")
RUN_SH = os.path.join(SRC, "test", "Integration", "CPU", "run.sh")

CORPUS = "test/Corpus/Inputs/"
DEFAULT_ROWS = [
    "mlp=%smlp.mlir@50%%" % CORPUS,
    "cnn=%scnn.mlir@50%%" % CORPUS,
    "resnet=%sresnet.mlir@50%%" % CORPUS,
    "unet=%sunet.mlir@50%%" % CORPUS,
    "siamese=%ssiamese.mlir@50%%" % CORPUS,
    "unet_deep=%sunet_deep.mlir@50%%" % CORPUS,
    "README example=examples/resnet-train-step.mlir@60%",
    # Nothing to recompute: the noise floor and the fit pipeline's
    # canonicalization, against the original as written.
    "README example (control)=examples/resnet-train-step.mlir@100%",
    "loop RNN, 64 steps=test/Loops/Inputs/rnn.mlir:test/Loops/Inputs/rnn.harness.mlir@50%",
    "loop RNN, 64 steps=test/Loops/Inputs/rnn.mlir:test/Loops/Inputs/rnn.harness.mlir@20%",
]


def parse_row(text):
    m = re.match(r"^(.+?)=([^:@]+)(?::([^@]+))?@(.+)$", text)
    if not m:
        sys.exit("measure_time.py: bad row %r (NAME=MODEL[:HARNESS]@BUDGET)" % text)
    name, model, harness, budget = m.groups()
    src = lambda p: p if os.path.isabs(p) else os.path.join(SRC, p)
    model = src(model)
    return name, model, src(harness) if harness else model[:-len(".mlir")] + ".harness.mlir", budget


def fit(model, budget, out, report, env, table=None):
    """Runs remat-opt; returns the budget used (a smaller one than asked may
    not fit: then the smallest remat-opt names, rounded up to a percent).
    With `table`, the planner reads measured costs (--remat-cost-table)."""
    extra = ["--remat-cost-table=" + table] if table else []
    def run(b):
        return subprocess.run(["remat-opt", model, "--remat-budget=" + b,
                               "--remat-report=" + report, "-o", out] + extra,
                              capture_output=True, text=True, env=env)
    p = run(budget)
    if p.returncode == 0:
        return budget
    m = re.search(r"smallest budget it can meet is (\d+) B", p.stderr)
    peak = re.search(r"of its peak without rematerialization, (\d+) B\)", p.stderr)
    if not m or not peak:
        sys.exit("remat-opt %s --remat-budget=%s failed:\n%s" % (model, budget, p.stderr))
    # From the bytes: the printed percent is rounded (204096 of 313792 B
    # prints as 65.0 %, and 65 % is below it).
    smallest = "%d%%" % math.ceil(100 * int(m.group(1)) / int(peak.group(1)))
    p = run(smallest)
    if p.returncode != 0:
        sys.exit("remat-opt %s --remat-budget=%s failed:\n%s" % (model, smallest, p.stderr))
    return "%s -> %s" % (budget, smallest)


def fields(line):
    return {k: float(v) for k, v in re.findall(r"(\w+)=([-\d.]+)", line)}


def measure(model, remat, harness, args, env):
    cmd = [TIME_SH, model, remat, harness]
    p = subprocess.run(cmd, capture_output=True, text=True,
                       env=dict(env, RUNS=str(args.runs), WARMUP=str(args.warmup)))
    err = p.stderr.splitlines()
    timers = {int(fields(l)["id"]): fields(l) for l in err if l.startswith("timer id=")}
    ratio = next((fields(l) for l in err if l.startswith("timer_ratio ")), None)
    identical = p.stdout.rstrip().endswith("outputs: identical")
    if len(timers) != 2 or ratio is None:
        sys.exit("time.sh %s failed (exit %d):\n%s" % (" ".join(cmd[1:]), p.returncode,
                                                       p.stderr[-3000:]))
    return timers, ratio, identical


def peak(step, harness, env):
    cmd = [RUN_SH, step, harness]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    m = re.search(r"window_peak_bytes=(\d+)", p.stderr)
    if p.returncode != 0 or not m:
        sys.exit("run.sh %s failed:\n%s" % (" ".join(cmd[1:]), p.stderr[-3000:]))
    return int(m.group(1))


def calibrate(model, table, args, env):
    """Writes the cost table of measured node times of `model`; returns why
    it could not (a step with loops), else None."""
    p = subprocess.run([sys.executable, os.path.join(HERE, "calibrate_costs.py"),
                        model, "-o", table, "--build", args.build],
                       capture_output=True, text=True, env=env)
    if p.returncode == 0:
        return None
    lines = p.stderr.strip().splitlines()
    return next((l for l in lines if "error:" in l), lines[-1] if lines else "failed")


def compare_strategies(args, env):
    """auto against every strategy asked for, each planned with the row's
    calibrated table at auto's budget and timed against the original."""
    names = args.strategies.split(",")
    print("| step | budget | auto chose | " + " | ".join(names) +
          " | auto within 2 % of the fastest |")
    print("| --- | ---: | --- | " + " | ".join("---:" for _ in names) + " | --- |")
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for row in args.rows:
            name, model, harness, budget = parse_row(row)
            table = os.path.join(tmp, "table.json")
            why = calibrate(model, table, args, env)
            if why:
                print("| %s | | n/a (%s) |" % (name, why))
                continue
            remat, report = os.path.join(tmp, "remat.mlir"), os.path.join(tmp, "r.json")
            used = fit(model, budget, remat, report, env, table).split(" -> ")[-1]
            chose = json.load(open(report))["functions"][0]["strategy"]
            measured = {}
            for s in ["auto"] + names:
                p = subprocess.run(["remat-opt", model, "--remat-budget=" + used,
                                    "--remat-strategy=" + s, "--remat-cost-table=" + table,
                                    "-o", remat], capture_output=True, text=True, env=env)
                if p.returncode != 0:
                    measured[s] = None
                    continue
                _, ratio, identical = measure(model, remat, harness, args, env)
                failed |= not identical
                measured[s] = 100 * (ratio["median"] - 1)
            done = [v for v in measured.values() if v is not None]
            ok = measured["auto"] is not None and measured["auto"] <= min(done) + 2
            failed |= not ok
            print("| %s | %s | %s | %s | %s (auto %+.1f %%, fastest %+.1f %%) |" % (
                name, used, chose,
                " | ".join("misses" if measured[s] is None else "%+.1f %%" % measured[s]
                           for s in names),
                "yes" if ok else "NO", measured["auto"], min(done)))
            sys.stdout.flush()
    print("\nMeasured overhead over the original (median of %d paired calls)." % args.runs)
    return 1 if failed else 0


def ms(ns):
    return "%.2f ms" % (ns / 1e6)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", nargs="*", default=DEFAULT_ROWS)
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--strategies", metavar="NAME,...",
                    help="instead of the table: plan each row with a calibrated cost "
                         "table by auto and by each of these strategies at auto's "
                         "budget, time every plan, and say whether auto's is within "
                         "2 %% of the fastest measured")
    ap.add_argument("--calibrate", action="store_true",
                    help="also plan each row with a cost table of measured node "
                         "times (calibrate_costs.py) and time that plan")
    args = ap.parse_args()
    env = dict(os.environ)
    # The lowering's default alignment, the one remat-opt plans for.
    env.pop("ALIGNMENT", None)
    env["PATH"] = os.pathsep.join([os.path.join(os.path.abspath(args.build), "bin"),
                                   "/usr/lib/llvm-22/bin", env.get("PATH", "")])

    if args.strategies:
        sys.exit(compare_strategies(args, env))
    calibrated = ("| calibrated: strategy | predicted | measured (median ± MAD) | outputs "
                  if args.calibrate else "")
    print("| step | budget | strategy | predicted overhead | measured overhead "
          "(median ± MAD) | ratio p10 .. p90 | original, median | fitted, median "
          "| peak predicted | peak measured | outputs %s|" % calibrated)
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- %s|"
          % ("| --- | ---: | ---: | --- " if args.calibrate else ""))
    tables = {}
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for row in args.rows:
            name, model, harness, budget = parse_row(row)
            remat = os.path.join(tmp, "remat.mlir")
            report = os.path.join(tmp, "report.json")
            used = fit(model, budget, remat, report, env)
            f = json.load(open(report))["functions"][0]
            timers, ratio, identical = measure(model, remat, harness, args, env)
            peaks = [peak(model, harness, env), peak(remat, harness, env)]
            failed |= not identical
            cal = ""
            if args.calibrate:
                if model not in tables:
                    tables[model] = os.path.join(tmp, "table%d.json" % len(tables))
                    why = calibrate(model, tables[model], args, env)
                    if why:  # Loops: their bodies are not timed.
                        print(why, file=sys.stderr)
                        tables[model] = None
            if args.calibrate and tables[model] is None:
                cal = "| n/a | | | "
            elif args.calibrate:
                fit(model, used.split(" -> ")[-1], remat, report, env, tables[model])
                c = json.load(open(report))["functions"][0]
                _, cratio, cidentical = measure(model, remat, harness, args, env)
                failed |= not cidentical
                cal = "| %s | %+.1f %% | %+.1f %% ± %.1f | %s " % (
                    c["strategy"], c["overhead_percent"], 100 * (cratio["median"] - 1),
                    100 * cratio["mad"], "identical" if cidentical else "DIFFERENT")
            print("| %s | %s | %s | %+.1f %% | %+.1f %% ± %.1f | %.3f .. %.3f | %s | %s "
                  "| %d -> %d B | %d -> %d B | %s %s|" % (
                      name, used, f["strategy"], f["overhead_percent"],
                      100 * (ratio["median"] - 1), 100 * ratio["mad"],
                      ratio["p10"], ratio["p90"], ms(timers[0]["median_ns"]),
                      ms(timers[1]["median_ns"]), f["peak_before"], f["peak_after"],
                      peaks[0], peaks[1], "identical" if identical else "DIFFERENT", cal))
            sys.stdout.flush()
    print("\n%d timed calls of each version per row after %d warm-up calls, "
          "alternating." % (args.runs, args.warmup))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
