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

With --policies, the fixed policies FSDP users pick instead, each planned
at the smallest budget it allows, next to auto at that same budget:
gathered weights kept (PyTorch's reshard_after_forward=False) or gathered
again in the backward pass (True), times activations: none recomputed;
selective (Megatron: the attention core, scores and softmax, recomputed);
full (Megatron: each block's input kept, everything inside recomputed).
They are written as #remat.policy marks (keep / recompute) on the forward
ops, found by the names gen_sharded.py gives them.

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


LOC = re.compile(r'loc\("[^"]*":(\d+):(\d+)\)\s*$')
ATTENTION_CORE = re.compile(r"^%(sc|mx|ex|den|p)_\d+$")
# Kept by "full": each block's input, and the loss (a result).
BLOCK_INPUT = re.compile(r"^%(x_rows|x2_\d+|loss\w*)$")


def forward_names(model):
    """{(line, col): SSA name} of the op of every forward node."""
    p = subprocess.run(["remat-opt", model, "--remat-test-training-graph",
                        "-o", os.devnull], capture_output=True, text=True,
                       check=True)
    text = open(model).read().splitlines()
    names = {}
    for m in re.finditer(r":(\d+):(\d+): remark: forward", p.stderr):
        line, col = int(m.group(1)), int(m.group(2))
        d = re.match(r"\s*(%[\w]+)\s*=", text[line - 1])
        names[(line, col)] = d.group(1) if d else ""
    return names


def policy_of(name, gathers, activations):
    if name.endswith("_g"):
        return gathers
    if activations == "none":
        return "keep"
    if activations == "selective":
        return "recompute" if ATTENTION_CORE.match(name) else "keep"
    return "keep" if BLOCK_INPUT.match(name) else "recompute"  # full


def with_policies(model, out, gathers, activations):
    """`model` with a #remat.policy on every forward op (generic form, where
    each op's line ends with its location in `model`)."""
    names = forward_names(model)
    text = subprocess.run(
        ["remat-opt", model, "--mlir-print-op-generic", "--mlir-print-debuginfo",
         "--mlir-print-local-scope"], capture_output=True, text=True,
        check=True).stdout
    lines = []
    for line in text.splitlines():
        m = LOC.search(line)
        key = m and (int(m.group(1)), int(m.group(2)))
        if key in names and " : (" in line and \
                "tensor<" in line.rsplit(" : (", 1)[1]:
            head, tail = line.rsplit(" : (", 1)
            attr = "remat.policy = #remat.policy<%s>" % policy_of(
                names[key], gathers, activations)
            if head.endswith("}") and not head.endswith("}>"):
                head = head[:-1] + ", " + attr + "}"
            else:
                head += " {" + attr + "}"
            line = head + " : (" + tail
        lines.append(line)
    open(out, "w").write("\n".join(lines) + "\n")


def plan(model, budget, out, report, table):
    p = subprocess.run(["remat-opt", model, "--remat-budget=" + budget,
                        "--remat-report=" + report, "-o", out] + table,
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("remat-opt %s at %s failed:\n%s" % (model, budget, p.stderr))
    return json.load(open(report))["functions"][0]


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
    ap.add_argument("--policies", action="store_true",
                    help="the fixed policies (and auto at their peaks)")
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
        if args.policies:
            table = (["--remat-cost-table=" + args.cost_table]
                     if args.cost_table else [])
            print("| weights | activations | peak per rank (measured) | "
                  "overhead | auto at that budget: peak (measured), overhead |" +
                  (" time ratio: policy / auto |" if timed else ""))
            print("|---|---|---|---|---|" + ("---|" if timed else ""))
            report = os.path.join(tmp, "report.json")
            for gathers, gname in (("keep", "kept"), ("recompute", "gathered again")):
                for acts in ("none", "selective", "full"):
                    marked = os.path.join(tmp, "marked.mlir")
                    with_policies(model, marked, gathers, acts)
                    fixed = os.path.join(tmp, "fixed.mlir")
                    f = plan(marked, "min", fixed, report, table)
                    auto = os.path.join(tmp, "auto.mlir")
                    a = plan(model, "%dB" % f["peak_after"], auto, report, table)
                    fp = measured_peaks(fixed, harness, args.ranks)
                    ap_ = measured_peaks(auto, harness, args.ranks)
                    ratio = ""
                    if timed:
                        ratio = " %.3f / %.3f |" % (
                            measured_ratio(model, fixed, harness, args.ranks, args.time_runs),
                            measured_ratio(model, auto, harness, args.ranks, args.time_runs))
                    print("| %s | %s | %d (%s) | %.1f %% | %d (%s), %.1f %% |%s" % (
                        gname, acts, f["peak_after"], "/".join(map(str, fp)),
                        f["overhead_percent"], a["peak_after"],
                        "/".join(map(str, ap_)), a["overhead_percent"], ratio))
            return
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
