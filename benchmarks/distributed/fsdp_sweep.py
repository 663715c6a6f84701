#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The budget decides what FSDP users set by hand (issue 32, item 6).

Generates the FSDP form of the GPT-like step (test/Distributed/
gen_sharded.py), plans it with remat-opt at each budget (default options)
and runs each plan as RANKS processes (run.sh RANKS=N). Prints a markdown
table: per budget, the plan's choices (gathered weights kept from the
forward to the backward pass or gathered again; activations recomputed),
the predicted per-device peak, every rank's measured peak (one number when
they agree) and the predicted recomputation overhead.

Usage: fsdp_sweep.py [--ranks 2] [--budgets 100% 90% ... min] [-- GEN FLAGS]
Needs remat-opt, mlir-runner and MPICH as run.sh does.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, "test", "Distributed", "gen_sharded.py")
RUN = os.path.join(ROOT, "test", "Integration", "CPU", "run.sh")
TIME = os.path.join(ROOT, "test", "Integration", "CPU", "time.sh")


def measured_ratio(original, planned, harness, ranks, runs):
    """Median over the ranks of each rank's median time ratio planned /
    original (time.sh RANKS=N: paired, interleaved calls in one process)."""
    env = dict(os.environ, RANKS=str(ranks), RUNS=str(runs))
    p = subprocess.run([TIME, original, planned, harness], env=env,
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("timing %s failed:\n%s" % (planned, p.stderr))
    medians = sorted(float(m) for m in re.findall(
        r"timer_ratio num=1 den=0 n=\d+ .*?median=([0-9.]+)", p.stderr))
    return medians[len(medians) // 2]


def measured_peaks(model, harness, ranks):
    env = dict(os.environ, RANKS=str(ranks))
    p = subprocess.run([RUN, model, harness], env=env, capture_output=True,
                       text=True)
    if p.returncode != 0:
        sys.exit("running %s failed:\n%s" % (model, p.stderr))
    return sorted({int(v) for v in re.findall(
        r"rank=\d+ window_peak_bytes=(\d+)", p.stderr)})


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--budgets", nargs="+",
                    default=["100%", "90%", "80%", "70%", "60%", "50%", "min"])
    ap.add_argument("--model", help="use this FSDP step (and its "
                    "MODEL.harness.mlir) instead of generating one")
    ap.add_argument("--cost-table", help="plan with these measured costs "
                    "(benchmarks/timing/calibrate_costs.py --ranks N on the "
                    "same --model)")
    ap.add_argument("--time-runs", type=int, default=0,
                    help="also time each plan against the original under "
                    "MPI (time.sh RANKS=N) with this many paired calls")
    ap.add_argument("gen_flags", nargs="*")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        model = args.model or os.path.join(tmp, "fsdp.mlir")
        if not args.model:
            subprocess.run([sys.executable, GEN, "--form", "fsdp", "--ranks",
                            str(args.ranks), "-o", model] + args.gen_flags,
                           check=True)
        harness = model[:-5] + ".harness.mlir"
        timed = args.time_runs > 0
        print("| budget | B | weights gathered again | activations recomputed "
              "| predicted peak per rank | measured per rank | overhead |" +
              (" measured time ratio |" if timed else ""))
        print("|---|---|---|---|---|---|---|" + ("---|" if timed else ""))
        for budget in args.budgets:
            out = os.path.join(tmp, "plan.mlir")
            report = os.path.join(tmp, "report.json")
            table = (["--remat-cost-table=" + args.cost_table]
                     if args.cost_table else [])
            p = subprocess.run(["remat-opt", model, "--remat-budget=" + budget,
                                "--remat-report=" + report, "-o", out] + table,
                               capture_output=True, text=True)
            if p.returncode != 0:
                first = p.stderr.splitlines()[0] if p.stderr else ""
                print("| %s | - | refused: %s | | | | |" % (budget, first[first.find("error:"):]))
                continue
            f = json.load(open(report))["functions"][0]
            gathers = [v for v in f["values"] if v["op"] == "shard.all_gather"]
            regathered = sum(1 for v in gathers if v["recomputations"])
            acts = sum(1 for v in f["values"]
                       if v["op"] != "shard.all_gather" and v["recomputations"])
            peaks = measured_peaks(out, harness, args.ranks)
            ratio = ""
            if timed:
                ratio = " %.3f |" % measured_ratio(model, out, harness,
                                                   args.ranks, args.time_runs)
            print("| %s | %d | %d of %d | %d | %d | %s | %.1f %% |%s" % (
                budget, f["budget"], regathered, len(gathers), acts,
                f["peak_after"], " / ".join(str(x) for x in peaks),
                f["overhead_percent"], ratio))


if __name__ == "__main__":
    main()
