#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A training step through remat-opt and then IREE: outputs and peaks.

  iree_run.py STEP.mlir [--budgets 100%,60%,min] [--work DIR] [--json FILE]

For each budget:
1. `remat-opt --remat-budget=B --remat-barriers=iree` (the form IREE
   reads: recomputations behind util.optimization_barrier; `--barriers
   iree-ordered`: every op's result too where the plan recomputes;
   `--barriers iree-fused`: that, planned after elementwise chains are
   fused as IREE fuses them, `--remat-fuse-elementwise`) and
   `remat-opt --remat-budget=B` (remat's own CPU path, with
   `--remat-fuse-elementwise` for `iree-fused`: the same plan);
2. compiles the first with `iree-compile` (llvm-cpu, the host's CPU) and
   runs it with `iree-run-module --device=local-sync --print_statistics`:
   IREE's peak is its DEVICE_LOCAL heap's, where the step's buffers live
   (HOST_LOCAL, which holds the arguments and results, is printed too);
3. runs the second on remat's CPU path (test/Integration/CPU/run.sh) with
   the same arguments: the loss and every gradient must agree within
   --rtol of the largest value of each tensor.
Arguments: float element i of argument k is 0.5 * u(i), u the importer's
hash in [-1, 1) with argument k's seed (remat_import_torch/argfill.py);
integer arguments are 0.  Prints one line per budget; exit status 1 when
an output differs or a step fails.
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
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))

from remat_import_torch.argfill import Init, arg_seed, main_lines  # noqa: E402
from remat_import_torch.check import find_tool, run, run_step  # noqa: E402
from remat_import_torch.mlir import V  # noqa: E402
from remat_import_jax.harness import headers, signature  # noqa: E402

IREE_COMPILE = ["--iree-hal-target-device=local",
                "--iree-hal-local-target-device-backends=llvm-cpu",
                "--iree-llvmcpu-target-cpu=host"]


# remat-opt's flags for each form of the step IREE reads.
FORMS = {"iree": ["--remat-barriers=iree"],
         "iree-ordered": ["--remat-barriers=iree-ordered"],
         "iree-fused": ["--remat-barriers=iree-ordered", "--remat-fuse-elementwise"]}


def planning_flags(form):
    """The flags of `form` that decide the plan (not how it is written)."""
    return [f for f in FORMS[form] if not f.startswith("--remat-barriers=")]


def iree_tool(name):
    """iree-compile / iree-run-module of the iree-base-* packages, run by
    this interpreter (their console scripts name another one when the
    environment was moved)."""
    try:
        import iree.compiler  # noqa: F401
        import iree.runtime  # noqa: F401
    except ImportError:
        sys.exit("iree_run.py: needs iree-base-compiler and iree-base-runtime "
                 "(python/requirements.txt; scripts/python-env.sh installs them)")
    module = {"iree-compile": "iree.compiler.tools.scripts.iree_compile",
              "iree-run-module": "iree._runtime.scripts.iree_run_module"}[name]
    return [sys.executable, "-m", module]


def step_name(text):
    """The function with a {remat.loss} result."""
    for name, (_, results) in headers(text).items():
        if "remat.loss" in results:
            return name
    sys.exit("iree_run.py: no function with a {remat.loss} result")


def arguments(text, name):
    """[(V, Init)] of @name's arguments."""
    arg_types, result_types = signature(text, name)
    out = []
    for k, ty in enumerate(arg_types):
        parts = ty[len("tensor<"):-1].split("x")
        shape, elt = [int(d) for d in parts[:-1]], parts[-1]
        init = Init("uniform", arg_seed(k), 0.5) if elt.startswith(("f", "bf")) else \
            Init("values", values=[0] * max(1, math.prod(shape)), note="zeros")
        out.append((V("%%a%d" % k, shape, elt), init))
    return out, result_types


def write_inputs(args, work):
    """One .npy per argument, the values the harness computes."""
    import numpy as np
    import torch
    from remat_import_torch.harness import torch_value
    paths = []
    for k, (v, init) in enumerate(args):
        if init.kind == "uniform":
            x = torch_value(init, v.shape, torch.float32).numpy()
        else:
            x = np.zeros(v.shape, dtype={"i32": np.int32, "i64": np.int64}[v.elt])
        paths.append(os.path.join(work, "arg%d.npy" % k))
        np.save(paths[-1], x)
    return paths


def iree_peaks(stderr_and_out):
    """{heap: peak bytes} from --print_statistics."""
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"(HOST_LOCAL|DEVICE_LOCAL):\s+(\d+)B peak", stderr_and_out)}


def run_iree(opt, step, name, result_types, inputs, budget, work, barriers="iree", seen=None):
    """remat-opt's IREE form of `step` at `budget` (`barriers`: a form of
    FORMS), compiled and run by IREE: {budget, barriers,
    budget_bytes, predicted_before, predicted, iree_*_peak, outs,
    iree_mlir}, or {budget, barriers, error}.  With `seen` ({IREE form's
    text: row}), a form written before is not compiled again: its row."""
    tag = re.sub(r"[^0-9A-Za-z.]", "", budget.replace("%", "pct")) + \
        ("" if barriers == "iree" else "." + barriers)
    iree_mlir = os.path.join(work, "step.%s.iree.mlir" % tag)
    report = os.path.join(work, "report.%s.json" % tag)
    res = run([opt, step, "--remat-budget=" + budget] + FORMS[barriers] +
              ["--remat-report=" + report, "-o", iree_mlir], may_fail=True)
    if res.returncode != 0:
        return {"budget": budget, "barriers": barriers,
                "error": res.stderr.strip().splitlines()[-1]}
    with open(iree_mlir) as fh:
        text = fh.read()
    if seen is not None and text in seen:
        return seen[text]
    row = compile_and_run(step, name, result_types, inputs, budget, work, barriers, tag,
                          iree_mlir, report)
    if seen is not None:
        seen[text] = row
    return row


def compile_and_run(step, name, result_types, inputs, budget, work, barriers, tag, iree_mlir,
                    report):
    """run_iree's IREE part, for the form remat-opt wrote to iree_mlir."""
    with open(report) as fh:
        r = json.load(fh)["functions"][0]
    vmfb = os.path.join(work, "step.%s.vmfb" % tag)
    run(iree_tool("iree-compile") + IREE_COMPILE + [iree_mlir, "-o", vmfb])
    outs = [os.path.join(work, "out.%s.%d.npy" % (tag, k)) for k in range(len(result_types))]
    res = run(iree_tool("iree-run-module") + [
        "--module=" + vmfb, "--function=" + name, "--device=local-sync", "--print_statistics"]
        + ["--input=@" + p for p in inputs] + ["--output=@" + p for p in outs], may_fail=True)
    if res.returncode != 0:
        lines = (res.stdout + res.stderr).strip().splitlines() or ["failed"]
        why = [l for l in lines if re.search(r"\b[A-Z_]{6,};", l)] or lines[-1:]
        return {"budget": budget, "barriers": barriers,
                "error": "iree-run-module: " + why[0].strip()}
    peaks = iree_peaks(res.stdout + res.stderr)
    return {"budget": budget, "barriers": barriers, "budget_bytes": r["budget"],
            "predicted_before": r["peak_before"],
            "predicted": r["peak_after"], "time_after": r.get("time_after"),
            "iree_device_local_peak": peaks.get("DEVICE_LOCAL"),
            "iree_host_local_peak": peaks.get("HOST_LOCAL"), "outs": outs,
            "iree_mlir": iree_mlir}


def check_on_cpu(a, opt, name, args, result_types, row, work):
    """remat's own CPU path at row's budget, with the same arguments:
    adds remat_cpu_measured, max_rel_err and outputs_match to row."""
    tag = re.sub(r"[^0-9A-Za-z.]", "", row["budget"].replace("%", "pct"))
    cpu_mlir = os.path.join(work, "step.%s.mlir" % tag)
    run([opt, a.step, "--remat-budget=" + row["budget"]] + planning_flags(row["barriers"]) +
        ["-o", cpu_mlir])
    harness = os.path.join(work, "harness.mlir")
    with open(harness, "w") as fh:
        fh.write("\n".join(main_lines(name, [v for v, _ in args], [i for _, i in args],
                                      result_types, "remat_write_f32")) + "\n")
    env = dict(os.environ, REMAT_OPT=opt)
    env.pop("ALIGNMENT", None)
    cpu_peak, printed = run_step(cpu_mlir, harness, env, os.path.join(work, "cpu.results"))
    worst = compare(printed, row["outs"])
    row.update(remat_cpu_measured=cpu_peak, max_rel_err=worst, outputs_match=worst <= a.rtol)
    return row


def run_budget(a, opt, name, args, result_types, inputs, budget, work):
    row = run_iree(opt, a.step, name, result_types, inputs, budget, work, a.barriers)
    if "error" in row:
        return row
    return check_on_cpu(a, opt, name, args, result_types, row, work)


def compare(printed, outs):
    """The largest max|cpu - iree| / max|cpu| over the results."""
    import numpy as np
    worst = 0.0
    for (shape, got), path in zip(printed, outs):
        want = np.load(path).astype(np.float64).reshape(-1)
        got = got.numpy().astype(np.float64).reshape(-1)
        scale = max(np.abs(got).max(initial=0.0), 1e-30)
        worst = max(worst, float(np.abs(got - want).max(initial=0.0) / scale))
    if len(printed) != len(outs):
        return float("inf")
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("step", help="a training step remat-opt reads (a {remat.loss} result)")
    ap.add_argument("--budgets", default="100%,60%,min")
    ap.add_argument("--barriers", choices=sorted(FORMS), default="iree",
                    help="the form IREE reads: remat-opt's --remat-barriers (default iree); "
                         "iree-fused: iree-ordered planned with --remat-fuse-elementwise")
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--work", default=None, help="keep the files here")
    ap.add_argument("--json", default=None, help="write the rows as JSON")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="remat-iree-")
    os.makedirs(work, exist_ok=True)
    opt = find_tool("remat-opt")
    with open(a.step) as fh:
        text = fh.read()
    name = step_name(text)
    args, result_types = arguments(text, name)
    inputs = write_inputs(args, work)
    rows, ok = [], True
    for budget in a.budgets.split(","):
        row = run_budget(a, opt, name, args, result_types, inputs, budget, work)
        rows.append(row)
        if "error" in row:
            ok = False
            print("%s at %s: FAIL: %s" % (os.path.basename(a.step), budget, row["error"]))
            continue
        ok &= row["outputs_match"]
        print("%s at %s: remat predicts %d B (of %d B), measures %d B on its CPU path; "
              "IREE DEVICE_LOCAL peak %s B (HOST_LOCAL %s B); outputs %s (max rel err %.1e)"
              % (os.path.basename(a.step), budget, row["predicted"], row["predicted_before"],
                 row["remat_cpu_measured"], row["iree_device_local_peak"],
                 row["iree_host_local_peak"], "match" if row["outputs_match"] else "DIFFER",
                 row["max_rel_err"]))
    base = rows[0].get("iree_device_local_peak") if rows else None
    for row in rows[1:]:
        peak = row.get("iree_device_local_peak")
        if base and peak:
            print("IREE's peak at %s: %d B, %s its peak at %s, %d B: %.1f %% of the %d B "
                  "remat predicts saved" % (
                      row["budget"], peak, "below" if peak < base else "NOT below",
                      rows[0]["budget"], base,
                      100.0 * (base - peak) / max(1, rows[0]["predicted"] - row["predicted"]),
                      rows[0]["predicted"] - row["predicted"]))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump([{k: v for k, v in r.items() if k != "outs"} for r in rows], fh, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
