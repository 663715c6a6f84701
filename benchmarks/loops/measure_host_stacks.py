#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A scan's stacks in host memory (issue 51, docs/loops.md "Stacks in host
memory"): each loop step of test/Loops with a harness, at 50 % and at the
smallest budget, planned by `remat-opt --remat-budget=B` without and with
`--remat-offload`, the latter run on the GPU emulation
(test/Integration/GPU/run.sh, EMULATE=1).

Usage: measure_host_stacks.py BUILD_DIR
Prints a Markdown table: each plan's device peak and predicted time
(FLOP model, the default link), whether the stacks went to the host, the
device and host peaks measured, and whether the outputs are the program's
bit for bit. About a minute on 2 cores.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
INPUTS = os.path.join(SRC, "test", "Loops", "Inputs")
RUN = os.path.join(SRC, "test", "Integration", "GPU", "run.sh")
STEPS = [("rnn", "rnn"), ("rnn_jax_scan", "rnn"), ("rnn_batch_first", "rnn"),
         ("rnn_while", "rnn_while"), ("gru", "gru"), ("gru_while", "gru_while"),
         ("gru_recompute", "gru_recompute"), ("pde", "pde"),
         ("scan_layers", "scan_layers")]


def plan(opt, model, budget, extra, tmp):
    report = os.path.join(tmp, "r.json")
    out = os.path.join(tmp, "out.mlir")
    p = subprocess.run([opt, model, "--remat-budget=" + budget,
                        "--remat-report=" + report, "-o", out] + extra,
                       capture_output=True)
    f = json.load(open(report))["functions"][0]
    return f, (out if p.returncode == 0 else None)


def emulate(model, harness, env):
    p = subprocess.run(["bash", RUN, model, harness], check=True,
                       capture_output=True, text=True, env=env)
    peaks = [int(x) for x in re.findall(
        r"(?:device|host)_window_peak_bytes=(\d+)", p.stderr)]
    return re.sub(r"base@ = \S*", "", p.stdout), peaks


def main():
    build = sys.argv[1]
    opt = os.path.join(build, "bin", "remat-opt")
    env = dict(os.environ, EMULATE="1", REMAT_OPT=opt)
    print("| step (as written) | budget | recompute only | `--remat-offload` "
          "| measured: device, host | outputs |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for name, harness_of in STEPS:
            model = os.path.join(INPUTS, name + ".mlir")
            harness = os.path.join(INPUTS, harness_of + ".harness.mlir")
            ref, _ = emulate(model, harness, env)
            for budget in ["50%", "min"]:
                r, fits = plan(opt, model, budget, [], tmp)
                h, out = plan(opt, model, budget, ["--remat-offload"], tmp)

                def pct(f):
                    return "%+.1f %%" % (100 * (f["time_after"] /
                                                f["time_before"] - 1))
                if not out:
                    print("| %s (%s B) | %s | refused (smallest %s B) | "
                          "refused (smallest %s B) | | |" % (
                              name, format(r["peak_before"], ","), budget,
                              format(r["minimum_budget"], ","),
                              format(h["minimum_budget"], ",")))
                    continue
                got, peaks = emulate(out, harness, env)
                stacks = h.get("host_stacks", {}).get("bytes", 0)
                print("| %s (%s B) | %s | %s B, %s | %s B, %s%s | %s | %s |" % (
                    name, format(r["peak_before"], ","), budget,
                    format(r["peak_after"], ","), pct(r),
                    format(h["peak_after"], ","), pct(h),
                    ", stacks on the host" if stacks else "",
                    " / ".join(format(p, ",") for p in peaks),
                    "bit for bit" if got == ref else "DIFFER"))


if __name__ == "__main__":
    main()
