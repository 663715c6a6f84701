#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks that the time model counts the steps a checkpointed scan executes.

The emitted loops run their regions as often as the reversal's schedule
says, which the IR does not (RegionRuns, TrainingGraphBuilder.h): the pass
gives its analyses those runs. With a cost table in which the step's op
(--step-op, one per forward step) costs 1 and every other op of the
program and of its rewrite costs 0, the time `remat-opt --remat-budget=B
--remat-scan-slots=K` reports is the number of forward steps the model
counts. It must equal the steps the remark states and the steps the CPU
executes (count_forward_steps.sh; for a loop of run-time length, the
harness's last call, which runs all its steps: the model counts the most).

Usage:
  check_step_time.py MODEL HARNESS --slots K [--budget 80%] [--step-op OP]
  check_step_time.py --random N --seed S
The second form draws N sine scans (h' = sin(h) on 64 floats, stacked, and
a backward loop of cosines), each a scf.for of T steps or a scf.while of at
most T steps run for all of them, with T in 4..40 and K in 1..T/2 (more,
or fewer steps, may not fit under the program's peak), and checks each.
(remat-opt, mlir-opt and the runner from PATH.) Prints one line per
check ending in ": ok" or ": FAIL"; exits 1 on a failure.
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

OP = re.compile(r'^\s*(?:%[^=]*=\s*)?"?([a-z_][a-z0-9_]*\.[a-z_][a-z0-9_.]*)')
HERE = os.path.dirname(os.path.abspath(__file__))


def op_names(path):
    with open(path) as fh:
        return {m.group(1) for m in map(OP.match, fh) if m}


def sine_scan(steps, form):
    """(model, harness) texts of a sine scan of `steps` steps."""
    vec, stack = "tensor<64xf32>", "tensor<%dx64xf32>" % steps
    head = ["func.func @sines(%%h0: %s%s) -> (%s {remat.loss}, %s) {"
            % (vec, ", %n: index" if form == "while" else "", vec, vec),
            "  %c0 = arith.constant 0 : index",
            "  %c1 = arith.constant 1 : index",
            "  %%cT = arith.constant %d : index" % steps,
            "  %%s0 = tensor.empty() : %s" % stack]
    insert = ("tensor.insert_slice %%h into %%s[%%i, 0] [1, 64] [1, 1] : %s into %s"
              % (vec, stack))
    if form == "for":
        fwd = ["  %%f:2 = scf.for %%i = %%c0 to %%cT step %%c1 iter_args(%%h = %%h0, "
               "%%s = %%s0) -> (%s, %s) {" % (vec, stack),
               "    %s1 = " + insert,
               "    %%hn = math.sin %%h : %s" % vec,
               "    scf.yield %%hn, %%s1 : %s, %s" % (vec, stack),
               "  }",
               "  %%last = arith.constant %d : index" % (steps - 1),
               "  %%trips = arith.constant %d : index" % steps]
        out, stk = "%f#0", "%f#1"
    else:
        fwd = ["  %%f:3 = scf.while (%%i = %%c0, %%h = %%h0, %%s = %%s0) : (index, %s, %s) "
               "-> (index, %s, %s) {" % (vec, stack, vec, stack),
               "    %below_n = arith.cmpi slt, %i, %n : index",
               "    %below_T = arith.cmpi slt, %i, %cT : index",
               "    %more = arith.andi %below_n, %below_T : i1",
               "    scf.condition(%%more) %%i, %%h, %%s : index, %s, %s" % (vec, stack),
               "  } do {",
               "  ^bb0(%%i: index, %%h: %s, %%s: %s):" % (vec, stack),
               "    %s1 = " + insert,
               "    %%hn = math.sin %%h : %s" % vec,
               "    %i1 = arith.addi %i, %c1 : index",
               "    scf.yield %%i1, %%hn, %%s1 : index, %s, %s" % (vec, stack),
               "  }",
               "  %last = arith.subi %f#0, %c1 : index",
               "  %trips = arith.addi %f#0, %c0 : index"]
        out, stk = "%f#1", "%f#2"
    bwd = ["  %%b = scf.for %%j = %%c0 to %%trips step %%c1 iter_args(%%d = %s) -> (%s) {"
           % (out, vec),
           "    %i = arith.subi %last, %j : index",
           "    %%hi = tensor.extract_slice %s[%%i, 0] [1, 64] [1, 1] : %s to %s"
           % (stk, stack, vec),
           "    %%c = math.cos %%hi : %s" % vec,
           "    %%dn = arith.mulf %%d, %%c : %s" % vec,
           "    scf.yield %%dn : %s" % vec,
           "  }",
           "  return %s, %%b : %s, %s" % (out, vec, vec),
           "}"]
    model = "\n".join(head + fwd + bwd) + "\n"
    harness = "\n".join([
        "func.func private @printNewline()",
        "func.func private @printMemrefF32(tensor<*xf32>)",
        "func.func @main() {",
        "  %%h0 = arith.constant dense<0.5> : %s" % vec,
        "  %%n = arith.constant %d : index" % steps,
        "  %%h, %%d = func.call @sines(%%h0%s) : (%s%s) -> (%s, %s)"
        % (", %n" if form == "while" else "", vec,
           ", index" if form == "while" else "", vec, vec),
        "  func.call @printNewline() : () -> ()",
        "  %%u = tensor.cast %%d : %s to tensor<*xf32>" % vec,
        "  func.call @printMemrefF32(%u) : (tensor<*xf32>) -> ()",
        "  func.call @printNewline() : () -> ()",
        "  return",
        "}"]) + "\n"
    return model, harness


def check(model, harness, slots, budget, step_op):
    """One line ending in ': ok' or ': FAIL', and whether it holds."""
    name = os.path.basename(model)
    with tempfile.TemporaryDirectory() as tmp:
        rewritten = os.path.join(tmp, "rewritten.mlir")
        subprocess.run(["remat-opt", model, "-remat-checkpoint-scans=slots=%d"
                        % slots, "-o", rewritten], check=True,
                       capture_output=True)
        names = op_names(model) | op_names(rewritten)
        if step_op not in names:
            return "%s has no %s: FAIL" % (name, step_op), False
        table = os.path.join(tmp, "table.json")
        with open(table, "w") as fh:
            json.dump({"units": {"time": "us", "memory": "B"},
                       "ops": {n: {"time": 1.0 if n == step_op else 0.0}
                               for n in sorted(names)}}, fh)
        report = os.path.join(tmp, "report.json")
        flags = ["--remat-budget=" + budget, "--remat-scan-slots=%d" % slots]
        p = subprocess.run(["remat-opt", model] + flags +
                           ["--remat-cost-table=" + table,
                            "--remat-report=" + report, "-o", os.devnull],
                           capture_output=True, text=True)
        m = re.search(r"(\d+) forward steps if it runs all|: (\d+) forward steps",
                      p.stderr)
        if p.returncode != 0 or not m:
            return ("%s with %d slots at %s: no scan checkpointed within the "
                    "budget: FAIL\n%s" % (name, slots, budget, p.stderr), False)
        with open(report) as fh:
            predicted = json.load(fh)["functions"][0]["time_after"]
        stated = int(m.group(1) or m.group(2))
        count = subprocess.run(
            ["bash", os.path.join(HERE, "count_forward_steps.sh"), model, harness]
            + flags + ["-remat-inline-recompute", "-remat-strip-annotations"],
            capture_output=True, text=True)
        steps = re.findall(r"^steps=(\d+)$", count.stdout, re.M)
        if count.returncode != 0 or not steps:
            return "%s: the counted run failed: FAIL\n%s" % (name, count.stderr), False
        measured = int(steps[-1])
    # The runs are averages (turns per action, steps per advance): their
    # products sum to the count up to rounding.
    ok = abs(predicted - stated) <= 1e-9 * max(1, stated) and stated == measured
    return ("%s with %d slots: the model counts %g steps, the remark states %d, "
            "the CPU runs %d: %s" % (name, slots, predicted, stated, measured,
                                     "ok" if ok else "FAIL"), ok)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", nargs="?")
    ap.add_argument("harness", nargs="?")
    ap.add_argument("--slots", type=int)
    ap.add_argument("--budget", default="80%")
    ap.add_argument("--step-op", default="math.sin")
    ap.add_argument("--random", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    results = []
    if a.random:
        rnd = random.Random(a.seed)
        with tempfile.TemporaryDirectory() as tmp:
            for i in range(a.random):
                steps = rnd.randint(4, 40)
                slots = rnd.randint(1, max(1, steps // 2))
                form = rnd.choice(["for", "while"])
                model_text, harness_text = sine_scan(steps, form)
                model = os.path.join(tmp, "sines_%s_T%d.mlir" % (form, steps))
                harness = model[:-len(".mlir")] + ".harness.mlir"
                with open(model, "w") as fh:
                    fh.write(model_text)
                with open(harness, "w") as fh:
                    fh.write(harness_text)
                # Just under the program's peak: the rewrite must run, and
                # any count fits (the stacks it drops outweigh the slots).
                results.append(check(model, harness, slots, "99.9%", "math.sin"))
    else:
        if not (a.model and a.harness and a.slots):
            ap.error("give MODEL HARNESS --slots K, or --random N")
        results.append(check(a.model, a.harness, a.slots, a.budget, a.step_op))
    for line, _ in results:
        print("step time: " + line)
    good = sum(ok for _, ok in results)
    if a.random:
        print("step time: %d of %d random scans counted exactly" % (good, len(results)))
    sys.exit(0 if good == len(results) else 1)


if __name__ == "__main__":
    main()
