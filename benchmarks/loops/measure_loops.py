#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Loop-form training steps (test/Loops) against the goals of docs/loops.md:

  * fitted by remat-opt --remat-budget=B, run on the CPU: outputs identical,
    measured peak (libRematRuntime, exact bytes) vs predicted and budget,
    forward steps vs t(T, K) + 1 (the remark of -remat-rematerialize); the
    while forms (scf.while run for all T steps) checkpointed online;
  * the smallest budget of the loop form and of its unrolled twin;
  * the pass's wall time and output size at T = 64 and T = 100,000.

Usage: measure_loops.py BUILD_DIR   (remat-opt and the runtime from it)
Prints a Markdown table per part. Needs about a minute on 2 cores.
"""
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
GEN = os.path.join(SRC, "test", "Loops", "gen_loops.py")
CHECK = os.path.join(SRC, "test", "Integration", "CPU", "check_remat.py")


def sh(args, env=None):
    return subprocess.run(args, capture_output=True, text=True, env=env)


def gen(tmp, model, steps, harness=False, form="loop"):
    suffix = {"loop": "", "unrolled": "u", "while": "w", "dynamic": "d"}[form]
    path = os.path.join(tmp, "%s%d%s.%s" % (model, steps, suffix,
                                           "harness.mlir" if harness else "mlir"))
    args = [sys.executable, GEN, "--model", model, "--steps", str(steps), "--form", form,
            "-o", path] + (["--harness"] if harness else [])
    subprocess.run(args, check=True)
    return path


def fitted_runs(opt_env, tmp, rows):
    print("| model | T | budget | slots | forward steps | measured peak | predicted | "
          "outputs | predicted overhead |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for model, steps, budgets, form in rows:
        mlir = gen(tmp, model, steps, form=form)
        gen(tmp, model, steps, harness=True, form=form)
        for b in budgets:
            remark = sh(["remat-opt", mlir, "--remat-budget=" + b, "-o", os.devnull],
                        env=opt_env).stderr
            m = re.search(r"with (\d+) slots .*?[:;] (\d+) forward steps", remark)
            slots, fwd = (m.group(1), m.group(2)) if m else ("-", "-")
            out = sh([sys.executable, CHECK, mlir, "--budgets", b], env=opt_env)
            line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else out.stderr
            r = re.search(r"-> (\d+) B measured, \d+ -> (\d+) B predicted, overhead ([-\d.]+%): (\S+)",
                          line)
            if r:
                print("| %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
                    model + ("" if form == "loop" else " (%s)" % form), steps, b, slots, fwd, r.group(1), r.group(2),
                    "identical" if r.group(4) == "ok" else r.group(4), r.group(3)))
            else:
                print("| %s | %d | %s | %s | %s | failed: %s |" % (model, steps, b, slots, fwd,
                                                                 line[:80]))


def smallest(opt_env, path):
    err = sh(["remat-opt", path, "--remat-budget=1%", "-o", os.devnull], env=opt_env).stderr
    m = re.search(r"peak without rematerialization, (\d+) B.*?smallest budget it can meet is "
                  r"(\d+) B \(([\d.]+%)\)", err)
    return (m.group(1), m.group(2), m.group(3)) if m else ("?", "?", "?")


def twins(opt_env, tmp):
    print("\n| model | loop form: peak, smallest budget | unrolled: peak, smallest budget |")
    print("|---|---|---|")
    for model, steps in (("rnn", 64), ("gru", 16), ("pde", 16), ("scan_layers", 8)):
        lp = smallest(opt_env, gen(tmp, model, steps))
        up = smallest(opt_env, gen(tmp, model, steps, form="unrolled"))
        print("| %s (T=%d) | %s B, %s B (%s) | %s B, %s B (%s) |" % ((model, steps) + lp + up))


def scale(opt_env, tmp):
    print("\n| form | T | pass wall time (median of 3) | output lines | output bytes |")
    print("|---|---:|---:|---:|---:|")
    for form, steps in (("loop", 64), ("loop", 100000), ("while", 64), ("while", 100000)):
        mlir = gen(tmp, "rnn", steps, form=form)
        out = os.path.join(tmp, "fit%d.mlir" % steps)
        times = []
        for _ in range(3):
            t0 = time.monotonic()
            sh(["remat-opt", mlir, "--remat-budget=20%", "-o", out], env=opt_env)
            times.append(time.monotonic() - t0)
        text = open(out).read()
        print("| %s | %d | %.2f s | %d | %d |" % (form, steps, sorted(times)[1],
                                                  text.count("\n"), len(text)))


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(SRC, "build"))
    env = dict(os.environ, PATH=os.path.join(build, "bin") + os.pathsep + os.environ["PATH"])
    with tempfile.TemporaryDirectory() as tmp:
        fitted_runs(env, tmp, [("rnn", 64, ["50%", "20%", "17%"], "loop"),
                               ("rnn", 1024, ["10%"], "loop"),
                               ("gru", 16, ["50%"], "loop"), ("pde", 16, ["50%"], "loop"),
                               ("rnn", 64, ["50%", "20%", "17%"], "while"),
                               ("rnn", 1024, ["10%"], "while"),
                               ("gru", 16, ["50%"], "while"), ("pde", 16, ["50%"], "while"),
                               ("rnn", 64, ["50%", "20%"], "dynamic")])
        twins(env, tmp)
        scale(env, tmp)


if __name__ == "__main__":
    main()
