# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""remat-import-jax check: import, rematerialize, lower, run, compare with JAX.

  remat-import-jax check FILE.py:FUNC [--budget 60%|min|3MiB] [--rtol 1e-4]
                   [--work DIR]

1. imports the step (cli.py) with a harness filling its arguments
   (harness.py);
2. `remat-opt --remat-budget=BUDGET` (none: the step as imported; `min`:
   the smallest budget remat-opt can meet);
3. lowers and runs it on remat's CPU path (test/Integration/CPU/run.sh),
   which measures the step's peak bytes;
4. runs jax.value_and_grad(loss_fn) on the same values, in float64 and in
   float32, and requires for the loss and every gradient
   max |mlir - jax64| <= tol * max |jax64|, tol = max(rtol, 2 x JAX's own
   float32 error in that metric), and the measured peak within the budget.
Prints one line per tensor and PASS or FAIL; exit status 0 on PASS.
"""

import argparse
import os
import shutil
import tempfile
import time

from remat_import_torch.check import find_tool, rematerialize, run_step

from .cli import add_model_args, fail, import_step
from .harness import harness_text, leaf_inits, leaf_values
from .lower import Unsupported


def reference(loss_fn, args, values, x64):
    """JAX's loss and gradients (torch float64 tensors) at `values`."""
    import jax
    import numpy as np
    import torch
    treedef = jax.tree_util.tree_structure(args)
    if x64:
        values = [v.astype(np.float64) if v.dtype.kind == "f" else v for v in values]
    with jax.enable_x64(x64):
        tree = jax.tree_util.tree_unflatten(treedef, [jax.numpy.asarray(v) for v in values])
        loss, grads = jax.value_and_grad(loss_fn)(*tree)
        out = [loss] + jax.tree_util.tree_leaves(grads)
        return [torch.from_numpy(np.array(x, dtype=np.float64)) for x in out]


def main(argv):
    ap = argparse.ArgumentParser(prog="remat-import-jax check",
                                 description="End-to-end check against JAX")
    add_model_args(ap)
    ap.add_argument("--budget", default=None,
                    help="remat budget (e.g. 60%%, 3MiB, min); none: the step as imported")
    ap.add_argument("--strategy", default=None, help="remat-opt --remat-strategy")
    ap.add_argument("--rtol", type=float, default=1e-4,
                    help="tolerance per tensor, relative to its largest value (default "
                         "1e-4; raised to twice JAX's own float32 error where that is larger)")
    ap.add_argument("--work", default=None, help="keep the files in this directory")
    ap.add_argument("--remat-opt", default=None, help="the remat-opt to use")
    a = ap.parse_args(argv)
    from remat_import_torch.harness import compare, step_rel_err

    work = a.work or tempfile.mkdtemp(prefix="remat-import-jax-")
    os.makedirs(work, exist_ok=True)
    opt = find_tool("remat-opt", a.remat_opt)
    times = []
    try:
        text, route, loss_fn, args = import_step(a.model, a.name)
        leaves, inits = leaf_inits(args)
    except (ValueError, Unsupported) as e:
        return fail(str(e))
    step = os.path.join(work, "step.mlir")
    harness = os.path.join(work, "step.harness.mlir")
    with open(step, "w") as fh:
        fh.write(text)
    with open(harness, "w") as fh:
        fh.write(harness_text(text, a.name, args))
    model_file, report = rematerialize(a, opt, step, work, times)
    if model_file is None:
        return 1
    env = dict(os.environ, REMAT_OPT=opt)
    env.pop("ALIGNMENT", None)
    t0 = time.time()
    peak, printed = run_step(model_file, harness, env, os.path.join(work, "step.results"))
    times.append(("lower+run", time.time() - t0))

    values = leaf_values(leaves, inits)
    want = reference(loss_fn, args, values, True)
    want32 = reference(loss_fn, args, values, False)
    jax32 = step_rel_err(want32[0], want32[1:], want[0], want[1:])
    tol = max(a.rtol, 2 * jax32)
    ok = len(printed) == len(want)
    if not ok:
        print("%s: %d tensors written, expected %d FAIL" % (a.model, len(printed), len(want)))
    floor = max([g.abs().max().item() for g in want[1:] if g.numel()] + [0.0])
    for k, ((shape, got), w) in enumerate(zip(printed, want)):
        good, line = compare("loss" if k == 0 else "gradient %d" % k, shape, got, w, tol,
                             0.0 if k == 0 else floor)
        ok &= good
        print(line)
    budget = report["budget"] if report else None
    peak_ok = peak is not None and (budget is None or peak <= budget)
    print("%s: peak measured %s B%s" % (
        a.model, peak, ", budget %d B, predicted %d B (no remat: %d B)" % (
            budget, report["peak_after"], report["peak_before"]) if report else ""))
    print("%s: %s (loss and %d gradients against jax.value_and_grad in float64, tolerance "
          "%.1e; JAX's own float32 error %.1e; lowered by %s%s)" % (
              a.model, "PASS" if ok and peak_ok else "FAIL", len(want) - 1, tol, jax32, route,
              "" if peak_ok else "; measured peak above the budget"))
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok and peak_ok else 1
