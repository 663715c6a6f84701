#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Writes a cost table of measured times for a training step.

  calibrate_costs.py STEP.mlir -o TABLE.json [--build BUILD] [--runs N] [--warmup W]


Times every planner node of the step on this machine, in the lowering the
step gets (`remat-opt -remat-time-nodes`, then `-remat-lower-to-cpu` and
mlir-runner -O3 with libRematRuntime): each node is called alone W times,
then N times timed one call at a time, and its median goes to the node's op
in the table (its absorbed initial values get 0: the node's time includes
them). Read the table with `remat-opt --remat-cost-table=TABLE.json`: every
strategy, and `auto`'s choice, then plan with measured times (ns) instead of
the FLOP model. Ops are keyed by location (file:line:col or a name), so
the table applies to this step and to what the fit pipeline makes of it.

Nodes are timed with their inputs in cache. A loop's body is outlined and
its nodes are timed (the planner costs a loop from its body's ops), and so
are the copies and row stores a checkpointed scan's rewrite adds, one per
kind and carry type (keys `remat.scan.copy <type>`, `remat.scan.store
<type>`).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
LLVM = "/usr/lib/llvm-22"


def run(cmd, what):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("calibrate_costs.py: %s failed (exit %d):\n%s"
                 % (what, p.returncode, p.stderr[-3000:]))
    return p


def medians(stderr):
    """The median of every `timer id=0` line, in order."""
    return [float(m.group(1)) for m in re.finditer(r"^timer id=0 .*median_ns=([\d.]+)",
                                                   stderr, re.M)]


def table(keys, times):
    nodes = keys["nodes"]
    if len(nodes) != len(times):
        sys.exit("calibrate_costs.py: %d nodes but %d timings" % (len(nodes), len(times)))
    ops = {}
    for node, ns in zip(nodes, times):
        for i, op in enumerate(node["ops"]):
            key = op["key"]
            if not key:
                sys.exit("calibrate_costs.py: a %s has no location to key it by; "
                         "give the step's ops locations" % op["op"])
            if key in ops:
                sys.exit("calibrate_costs.py: two ops share the location %s" % key)
            # The node's last op produces its results; the others are its
            # initial values, whose time the measurement includes.
            ops[key] = {"time": ns if i == len(node["ops"]) - 1 else 0.0}
    return {"units": {"time": "ns", "memory": "B"},
            "function": keys["function"], "ops": ops}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("step")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--build", help="build directory (default: the one of the "
                    "remat-opt on PATH, else build/)")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    args = ap.parse_args()
    if args.build:
        opt = os.path.join(args.build, "bin", "remat-opt")
    else:
        opt = shutil.which("remat-opt") or os.path.join(SRC, "build", "bin", "remat-opt")
    opt = os.path.realpath(opt)
    runtime = os.path.join(os.path.dirname(os.path.dirname(opt)), "lib",
                           "libRematRuntime.so")
    if not os.path.exists(runtime):
        sys.exit("calibrate_costs.py: no runtime %s (build the project)" % runtime)
    libs = ",".join([runtime, LLVM + "/lib/libmlir_c_runner_utils.so",
                     LLVM + "/lib/libmlir_runner_utils.so"])
    with tempfile.TemporaryDirectory() as tmp:
        keys = os.path.join(tmp, "keys.json")
        timed = os.path.join(tmp, "timed.mlir")
        lowered = os.path.join(tmp, "timed.llvm.mlir")
        run([opt, args.step, "-remat-time-nodes=keys=%s runs=%d warmup=%d"
             % (keys, args.runs, args.warmup), "-o", timed], "-remat-time-nodes")
        run([opt, timed, "--remat-lower-to-cpu=buffers=early alignment=1", "-o", lowered],
            "-remat-lower-to-cpu")
        p = run([LLVM + "/bin/mlir-runner", lowered, "-e", "main",
                 "-entry-point-result=void", "-O3", "-shared-libs=" + libs], "mlir-runner")
        result = table(json.load(open(keys)), medians(p.stderr))
    with open(args.output, "w") as fh:
        json.dump(result, fh, indent=1, sort_keys=True)
        fh.write("\n")
    print("calibrate_costs.py: %d ops of @%s timed -> %s"
          % (len(result["ops"]), result["function"], args.output))


if __name__ == "__main__":
    main()
