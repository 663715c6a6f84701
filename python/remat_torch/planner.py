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
the budget and the other flags (DIR/KEY.json), and remat-opt's refusal of a
budget as well: a machine without remat-opt reuses plans made elsewhere.
There, a graph the cache lacks is written down as a request
(DIR/KEY.request.json) and falls back; `python -m remat_torch.plan_cache
DIR` plans every request on a machine with remat-opt (plan_cache.py).
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
BUNDLED = os.path.join(HERE, "_bin", "remat-opt")   # the wheel's, with its libraries

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


class Refused(Unplannable):
    """remat-opt ran and refused the step (an error line of its own): the
    same text and budget get the same answer, so the cache keeps it."""


class PlanRequested(Unplannable):
    """No remat-opt here: the plan is requested in the cache (plan_cache.py)."""


def find_remat_opt():
    """remat-opt from $REMAT_BIN_DIR when it is set, else from PATH, the
    build tree or the wheel (scripts/build-wheel.py)."""
    bindir = os.environ.get("REMAT_BIN_DIR")
    if bindir:
        cands = [os.path.join(bindir, "remat-opt")]
    else:
        cands = [shutil.which("remat-opt") or ""]
        cands += [os.path.join(REPO, b, "bin", "remat-opt") for b in ("build", "build-torch")]
        cands.append(BUNDLED)
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


def cache_key(mlir_text, budget, extra_args):
    """The name of a plan in the cache: the text, the budget and the flags."""
    key = "\n".join([budget, *extra_args, mlir_text])
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def _cache_path(mlir_text, budget, extra_args):
    d = os.environ.get("REMAT_TORCH_PLAN_CACHE")
    if not d:
        return None
    return os.path.join(d, cache_key(mlir_text, budget, extra_args) + ".json")


def _write_json(path, data):
    """Writes whole or not at all: a reader never sees half a file."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".%d.tmp" % os.getpid()
    with open(tmp, "w") as f:
        json.dump(data, f)
    os.replace(tmp, path)


def keep_answer(path, budget, answer):
    """Writes remat-opt's answer for the cache: a Plan, or a Refused."""
    if isinstance(answer, Refused):
        _write_json(path, {"budget": budget, "refused": str(answer)})
    else:
        _write_json(path, {"budget": budget, "report": answer.report, "order": answer.order})


def request_path(cached):
    """Where a plan the cache lacks is requested."""
    return cached[:-len(".json")] + ".request.json"


def plan(mlir_text, budget, extra_args=(), keep_dir=None):
    """Plans the step at `budget` (remat's syntax); Unplannable when
    remat-opt refuses it (its first error line) or cannot be found (with a
    cache: the request is written down first)."""
    extra_args = list(extra_args)
    cached = _cache_path(mlir_text, budget, extra_args)
    if cached and os.path.exists(cached):
        with open(cached) as f:
            d = json.load(f)
        if "refused" in d:
            raise Unplannable(d["refused"])
        return Plan(d["report"], d["order"])
    tool = find_remat_opt()
    if tool is None:
        if not cached:
            raise Unplannable("remat-opt not found (set REMAT_BIN_DIR)")
        req = request_path(cached)
        _write_json(req, {"budget": budget, "args": extra_args, "mlir": mlir_text})
        raise PlanRequested("remat-opt not found; the plan is requested in %s (`python -m "
                          "remat_torch.plan_cache %s` makes it where remat-opt is)"
                          % (req, os.path.dirname(cached)))
    try:
        p = run_remat_opt(tool, mlir_text, budget, extra_args, keep_dir)
    except Refused as e:
        if cached:
            keep_answer(cached, budget, e)
        raise
    if cached:
        keep_answer(cached, budget, p)
    return p


def run_remat_opt(tool, mlir_text, budget, extra_args, keep_dir=None):
    """remat-opt's plan of the step, or Unplannable with its first error."""
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
            if not errs:   # a crash, not an answer: nothing to keep
                raise Unplannable("remat-opt: " + why)
            # The notes that follow the error are not part of the line.
            raise Refused("remat-opt: " + re.sub(r";[^;]*\(notes\):?$", "", why))
        with open(rep) as f:
            report = json.load(f)
        funcs = report.get("functions", [])
        if not funcs:
            why = report.get("skipped", [{}])[0].get("reason", "nothing planned")
            raise Unplannable("remat-opt skipped the step: %s" % why)
        with open(out) as f:
            return Plan(funcs[0], op_order(f.read()))
    finally:
        if keep_dir is None:
            shutil.rmtree(work, ignore_errors=True)
