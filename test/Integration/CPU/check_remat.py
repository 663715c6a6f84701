#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Rematerializes a corpus model at several budgets, runs the original and
each rewritten program on the CPU, and checks the promises of the pipeline:

  * the printed loss and gradients are identical to the original's;
  * the measured peak (libRematRuntime, every allocation at the size the
    lowering requests) is <= the budget, and never above the input's;
  * it is within 5 % (or 64 KiB) of the peak -remat-rematerialize predicted
    (with --exact: equal, and so is the original's to the report's
    peak_before);

The model goes through the command users run (remat-opt --remat-budget,
the -remat-fit pipeline; --pipeline pass: the pass alone). Planner and
lowering run with their default options (alignment 64), or
both with --alignment. With --ranks N the programs run as N MPI processes
(run.sh's RANKS=N): the printed results of all ranks must be identical and
the largest rank's measured peak is checked against the per-device
prediction (every rank runs the same plan; ranks differ only where the
program branches on the device index); with --exact, where the report
lists every device's peak (device_peaks), each rank's too.
  * the saving measured (original peak - rewritten peak) is the saving
    predicted, within the same tolerance.

Prints one line per budget; exits non-zero on the first broken promise.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = os.path.join(HERE, "run.sh")
ADDRESS = re.compile(r"base@ = 0x[0-9a-f]+")


def run(model, harness, tag, alignment, ranks=None):
    """(printed values without addresses, measured peak of the model call,
    each rank's peak in rank order). A harness may call the model several
    times (dynamic shapes: sizes up to the bound); the peak is then the
    largest call's. Under MPI (ranks), the peak is the largest rank's and
    every rank must report one."""
    env = dict(os.environ, BUFFERS="early")
    env.pop("ALIGNMENT", None)  # run.sh's default: the lowering's.
    env.pop("RANKS", None)
    if alignment:
        env["ALIGNMENT"] = alignment
    if ranks:
        env["RANKS"] = str(ranks)
    p = subprocess.run([RUN, model, harness], env=env, capture_output=True,
                       text=True)
    if p.returncode != 0:
        sys.exit("%s: running %s failed:\n%s" % (tag, model, p.stderr))
    peaks = [int(v) for v in re.findall(r"window_peak_bytes=(\d+)", p.stderr)]
    if not peaks:
        sys.exit("%s: no window_peak_bytes in:\n%s" % (tag, p.stderr))
    per_rank = []
    if ranks:
        lines = [(int(r), int(v)) for r, v in
                 re.findall(r"rank=(\d+) window_peak_bytes=(\d+)", p.stderr)]
        seen = {r for r, _ in lines}
        if seen != set(range(ranks)):
            sys.exit("%s: peaks of ranks %s, expected 0..%d:\n%s"
                     % (tag, sorted(seen), ranks - 1, p.stderr))
        for r in range(ranks):
            per_rank.append(max(v for q, v in lines if q == r))
    # Ranks may differ (rank-dependent branches, as upstream shard-partition
    # writes for a partial reduction's initial value): the plan is for the
    # largest, which is the peak checked.
    return ADDRESS.sub("", p.stdout), max(peaks), per_rank


def close(a, b):
    return abs(a - b) <= max(0.05 * max(a, b), 64 * 1024)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("model")
    ap.add_argument("--budgets", nargs="+", required=True)
    ap.add_argument("--strategy", default="auto")
    ap.add_argument("--milp-seconds", default="60",
                    help="checkmate-milp's time limit (the pass option)")
    ap.add_argument("--pipeline", choices=["pass", "fit"], default="fit",
                    help="fit (the default): remat-opt --remat-budget, the "
                    "-remat-fit pipeline users run; pass: -remat-rematerialize "
                    "alone")
    ap.add_argument("--flag", action="append", default=[],
                    help="one more remat-opt flag (repeatable), e.g. "
                         "--flag=--remat-dim-bounds=arg0:0=256 with --pipeline fit")
    ap.add_argument("--alignment", default=None,
                    help="the planner's and the lowering's alignment "
                    "(default: theirs, 64)")
    ap.add_argument("--ranks", type=int, default=None,
                    help="run under MPI with this many processes (RANKS=N "
                    "of run.sh); peaks are per rank")
    ap.add_argument("--harness", default=None,
                    help="the harness to run with (default: MODEL's name "
                    "with .harness.mlir), e.g. a twin's that has the same "
                    "signature")
    ap.add_argument("--exact", action="store_true",
                    help="the measured peaks must equal the predicted ones")
    args = ap.parse_args()
    name = os.path.basename(args.model)
    harness = args.harness or args.model[:-len(".mlir")] + ".harness.mlir"
    with tempfile.TemporaryDirectory() as tmp:
        ref_out, ref_peak, _ = run(args.model, harness, name, args.alignment,
                                   args.ranks)
        for budget in args.budgets:
            out_mlir = os.path.join(tmp, "remat.mlir")
            report = os.path.join(tmp, "report.json")
            settings = dict(budget=budget, strategy=args.strategy,
                            report=report)
            settings["milp-seconds"] = args.milp_seconds
            if args.alignment:
                settings["alignment"] = args.alignment
            if args.pipeline == "pass":
                flags = ["-remat-rematerialize=" + " ".join(
                    "%s=%s" % kv for kv in settings.items())]
            else:
                flags = ["--remat-%s=%s" % kv for kv in settings.items()]
            p = subprocess.run(["remat-opt", args.model] + flags + args.flag +
                               ["-o", out_mlir], capture_output=True,
                               text=True)
            if p.returncode != 0:
                sys.exit("%s @ %s: remat-opt failed:\n%s" % (name, budget, p.stderr))
            f = json.load(open(report))["functions"][0]
            out, peak, rank_peaks = run(out_mlir, harness, "%s @ %s" % (name, budget),
                                        args.alignment, args.ranks)
            problems = []
            if out != ref_out:
                problems.append("printed results differ from the original's")
            if peak > ref_peak:
                problems.append("measured peak %d above the input's %d"
                                % (peak, ref_peak))
            if peak > f["budget"]:
                problems.append("measured peak %d > budget %d" % (peak, f["budget"]))
            if args.exact and peak != f["peak_after"]:
                problems.append("measured peak %d != predicted %d" % (peak, f["peak_after"]))
            if args.exact and rank_peaks and f.get("device_peaks") and \
                    rank_peaks != f["device_peaks"]:
                problems.append("ranks measured %s != device_peaks %s"
                                % (rank_peaks, f["device_peaks"]))
            if args.exact and ref_peak != f["peak_before"]:
                problems.append("original measured %d != peak_before %d"
                                % (ref_peak, f["peak_before"]))
            if not close(peak, f["peak_after"]):
                problems.append("measured peak %d vs predicted %d" % (peak, f["peak_after"]))
            if not close(ref_peak, f["peak_before"]):
                problems.append("original measured %d vs predicted %d"
                                % (ref_peak, f["peak_before"]))
            saved, predicted_saving = ref_peak - peak, f["peak_before"] - f["peak_after"]
            if not close(saved, predicted_saving):
                problems.append("saved %d, predicted %d" % (saved, predicted_saving))
            print("%s%s budget=%s (%d B) strategy=%s: peak %d -> %d B measured, "
                  "%d -> %d B predicted, overhead %.1f%%: %s" % (
                      name, " ranks=%d" % args.ranks if args.ranks else "",
                      budget, f["budget"], f["strategy"], ref_peak, peak,
                      f["peak_before"], f["peak_after"], f["overhead_percent"],
                      "ok" if not problems else "; ".join(problems)))
            if problems:
                sys.exit(1)


if __name__ == "__main__":
    main()
