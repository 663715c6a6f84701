#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Writes a cost table of measured times for a training step.

  calibrate_costs.py STEP.mlir -o TABLE.json [--build BUILD] [--runs N] [--warmup W]


Times every planner node of the step on this machine, in the lowering the
step gets (`remat-opt -remat-time-nodes`, then `-remat-lower-to-cpu` and
mlir-runner -O3 with libRematRuntime): every node is called W times, untimed,
in program order (a warm-up pass: under MPICH the first hundred or so
collectives of a process run slow), then each node is called alone W more times, then N times timed
one call at a time, and its median goes to the node's op
in the table (its absorbed initial values get 0: the node's time includes
them). Read the table with `remat-opt --remat-cost-table=TABLE.json`: every
strategy, and `auto`'s choice, then plan with measured times (ns) instead of
the FLOP model. Ops are keyed by location (file:line:col or a name), so
the table applies to this step and to what the fit pipeline makes of it.

A sharded step (shard collectives) is timed as --ranks N MPI processes
(MPICH's mpiexec.mpich, libRematMpiRuntime): every rank times every node,
collectives included, and a node's time is the largest of the ranks'
medians (a collective ends with its slowest member).

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


def medians(stderr, ranks=None):
    """The median of every `timer id=0` line, in order; under MPI (each
    rank's lines in a file of its own) the largest over the ranks."""
    if ranks is None:
        return [float(m.group(1)) for m in re.finditer(
            r"^timer id=0 .*median_ns=([\d.]+)", stderr, re.M)]
    per_rank = [medians(text) for text in ranks]
    if len({len(m) for m in per_rank}) != 1:
        sys.exit("calibrate_costs.py: the ranks timed %s nodes"
                 % [len(m) for m in per_rank])
    return [max(col) for col in zip(*per_rank)]


def node_keys(node):
    return [op["key"] for op in node["ops"]]


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
            last = i == len(node["ops"]) - 1
            # A copy the fit pipeline adds (its empty and its copy) shares
            # the location of what it copies, within one node: the node's
            # time goes to its last op, the one the table looks up.
            if key in ops and (key not in node_keys(node) or ops[key]["node"] != node["node"]):
                sys.exit("calibrate_costs.py: two ops share the location %s" % key)
            # The node's last op produces its results; the others are its
            # initial values, whose time the measurement includes.
            if key not in ops or last:
                ops[key] = {"time": ns if last else 0.0, "node": node["node"]}
    for entry in ops.values():
        del entry["node"]
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
    ap.add_argument("--warmup", type=int, default=10,
                    help="untimed calls of each node, in a warm-up pass over "
                    "all nodes and again before its timed calls")
    ap.add_argument("--ranks", type=int, default=None,
                    help="a sharded step: time it as this many MPI processes")
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
    libs = [runtime]
    mpi_runtime = os.path.join(os.path.dirname(runtime), "libRematMpiRuntime.so")
    if os.path.exists(mpi_runtime):
        libs.append(mpi_runtime)
    elif args.ranks:
        sys.exit("calibrate_costs.py: --ranks needs %s (built when CMake "
                 "finds MPICH)" % mpi_runtime)
    libs = ",".join(libs + [LLVM + "/lib/libmlir_c_runner_utils.so",
                            LLVM + "/lib/libmlir_runner_utils.so"])
    with tempfile.TemporaryDirectory() as tmp:
        keys = os.path.join(tmp, "keys.json")
        timed = os.path.join(tmp, "timed.mlir")
        lowered = os.path.join(tmp, "timed.llvm.mlir")
        run([opt, args.step, "-remat-time-nodes=keys=%s runs=%d warmup=%d"
             % (keys, args.runs, args.warmup), "-o", timed], "-remat-time-nodes")
        run([opt, timed, "--remat-lower-to-cpu=buffers=early alignment=1", "-o", lowered],
            "-remat-lower-to-cpu")
        runner = [LLVM + "/bin/mlir-runner", lowered, "-e", "main",
                  "-entry-point-result=void", "-O3", "-shared-libs=" + libs]
        if args.ranks:
            mpiexec = shutil.which("mpiexec.mpich")
            if not mpiexec:
                sys.exit("calibrate_costs.py: --ranks needs mpiexec.mpich")
            # Each rank's stderr in a file of its own (PMI_RANK).
            run([mpiexec, "-n", str(args.ranks), "sh", "-c",
                 'exec "$@" 2> "$0/$PMI_RANK.err"', tmp] + runner, "mpiexec")
            errs = [open(os.path.join(tmp, "%d.err" % r)).read()
                    for r in range(args.ranks)]
            times = medians(None, errs)
        else:
            times = medians(run(runner, "mlir-runner").stderr)
        result = table(json.load(open(keys)), times)
    with open(args.output, "w") as fh:
        json.dump(result, fh, indent=1, sort_keys=True)
        fh.write("\n")
    print("calibrate_costs.py: %d ops of @%s timed -> %s"
          % (len(result["ops"]), result["function"], args.output))


if __name__ == "__main__":
    main()
