# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""One plan of a joint graph from remat-opt: the report and the order.

`remat-opt --remat-budget=B --remat-report=R` rewrites the step: each op
moves to where the plan runs it, and every later run of a forward value is
a clone inside a `remat.recompute` region placed right before the backward
ops that read it.  Printed with its locations (`--mlir-print-debuginfo
--mlir-print-local-scope`), each op names the FX node it computes
(loc("relu"), a helper of it loc("relu.pad"), a repeated name
loc("relu.2")), so the output, read top to bottom, is the plan's order of
FX nodes, a node run twice appearing twice.

REMAT_TORCH_PLAN_CACHE=DIR keeps every plan under a key of the MLIR text,
the budget and the other flags: a machine without remat-opt reuses plans
made elsewhere.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from typing import List

from .joint import Unplannable

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

_LOC = re.compile(r'loc\((?:fused\[)?"([^"]*)"')


@dataclass
class Plan:
    report: dict          # the function's entry of --remat-report
    order: List[str]      # FX node names in the rewritten step's order

    def decisions(self):
        """{FX node name: 'kept' or 'recomputed'} of every forward value."""
        out = {}
        for v in self.report.get("values", []):
            name = v["loc"].split(".", 1)[0]
            if v["decision"] == "recomputed" or name not in out:
                out[name] = v["decision"]
        return out


def find_remat_opt():
    """remat-opt from $REMAT_BIN_DIR, PATH or the build tree."""
    bindir = os.environ.get("REMAT_BIN_DIR")
    cands = [os.path.join(bindir, "remat-opt")] if bindir else []
    cands.append(shutil.which("remat-opt") or "")
    cands += [os.path.join(REPO, b, "bin", "remat-opt") for b in ("build", "build-torch")]
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def op_order(mlir_text):
    """FX node names in the order the ops of the printed function run: one
    entry per run of a node (its helpers and repeated names fold into it)."""
    order = []
    prev_line_name = None
    for line in mlir_text.splitlines():
        s = line.strip()
        if not s or s.startswith(("}", "^", "#", "//", "func.func", "return", "remat.yield")):
            continue
        m = _LOC.search(s)
        if not m or s.startswith("->"):
            continue
        name = m.group(1).split(".", 1)[0]
        if name != prev_line_name:
            order.append(name)
        prev_line_name = name
    return order


def _cache_path(mlir_text, budget, extra_args):
    d = os.environ.get("REMAT_TORCH_PLAN_CACHE")
    if not d:
        return None
    key = "\n".join([budget, *extra_args, mlir_text])
    key = hashlib.sha256(key.encode()).hexdigest()[:32]
    return os.path.join(d, key + ".json")


def plan(mlir_text, budget, extra_args=(), keep_dir=None):
    """Plans the step at `budget` (remat's syntax); Unplannable when
    remat-opt refuses it (its first error line) or cannot be found."""
    cached = _cache_path(mlir_text, budget, list(extra_args))
    if cached and os.path.exists(cached):
        with open(cached) as f:
            d = json.load(f)
        return Plan(d["report"], d["order"])
    tool = find_remat_opt()
    if tool is None:
        raise Unplannable("remat-opt not found (set REMAT_BIN_DIR)")
    work = keep_dir or tempfile.mkdtemp(prefix="remat_torch_")
    os.makedirs(work, exist_ok=True)
    try:
        src, out, rep = (os.path.join(work, f) for f in ("step.mlir", "step.remat.mlir",
                                                        "report.json"))
        with open(src, "w") as f:
            f.write(mlir_text)
        cmd = [tool, src, "--remat-budget=" + budget, "--remat-report=" + rep,
               "--mlir-print-debuginfo", "--mlir-print-local-scope", "-o", out]
        res = subprocess.run(cmd + list(extra_args), capture_output=True, text=True)
        if res.returncode != 0:
            errs = [l for l in res.stderr.splitlines() if "error:" in l]
            why = errs[0].split("error:", 1)[1].strip() if errs else res.stderr.strip()[-300:]
            # The notes that follow the error are not part of the line.
            raise Unplannable("remat-opt: " + re.sub(r";[^;]*\(notes\):?$", "", why))
        with open(rep) as f:
            report = json.load(f)
        funcs = report.get("functions", [])
        if not funcs:
            why = report.get("skipped", [{}])[0].get("reason", "nothing planned")
            raise Unplannable("remat-opt skipped the step: %s" % why)
        with open(out) as f:
            p = Plan(funcs[0], op_order(f.read()))
    finally:
        if keep_dir is None:
            shutil.rmtree(work, ignore_errors=True)
    if cached:
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        tmp = cached + ".%d.tmp" % os.getpid()
        with open(tmp, "w") as f:
            json.dump({"budget": budget, "report": p.report, "order": p.order}, f)
        os.replace(tmp, cached)
    return p
