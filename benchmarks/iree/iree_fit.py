#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A training step fitted to a budget in IREE's own bytes.

  iree_fit.py STEP.mlir --budget BYTES [-o STEP.iree.mlir] [--probes N]

IREE fuses elementwise chains into dispatches that allocate nothing in
between and packs each partition's buffers itself, so the peak it measures
is not remat's model of the step (the JAX MLP: 9,094,848 B in the model,
5,375,148 B in IREE).  This measures the step without recomputation and
at `min`, then bisects remat's planning budgets between the largest whose
`remat-opt --remat-barriers=iree` or `iree-ordered` output (the latter
also planned with `--remat-fuse-elementwise`: each plan in the three forms
by default) IREE measures within BYTES and the smallest over
it, the first guesses scaled by what IREE measured against the model,
each distinct output compiled and run once (iree_run.py: llvm-cpu,
`--print_statistics`, the DEVICE_LOCAL heap's peak, arguments included).
The plan kept is the fastest within BYTES by remat's predicted time (the
step without recomputation when it fits: never a plan measuring more than
it); its outputs are checked against remat's own CPU path.  BYTES: a
number of bytes (B, KB, KiB, MB, MiB, GB, GiB) or a percentage of what IREE
measures without recomputation.  Exit status 1 when nothing remat plans
fits or an output differs.
"""

import argparse
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import iree_run  # noqa: E402

UNITS = {"B": 1, "KB": 10**3, "KiB": 2**10, "MB": 10**6, "MiB": 2**20, "GB": 10**9, "GiB": 2**30}
CLOSE = 0.97        # a plan measuring at least this share of the budget ends the search


def parse_budget(text):
    """(bytes, None) or (None, fraction of the unplanned step's peak)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(%|B|KB|KiB|MB|MiB|GB|GiB)?\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(
            "'%s' is not a budget: bytes (e.g. 600000, 4.5MB, 2MiB) or a percentage" % text)
    value, unit = float(m.group(1)), m.group(2) or "B"
    if unit == "%":
        if not 0 < value <= 100:
            raise argparse.ArgumentTypeError("a percentage budget is in (0, 100]: '%s'" % text)
        return None, value / 100.0
    return int(value * UNITS[unit]), None


class Fit:
    """Plans measured by IREE, each distinct plan compiled once."""

    def __init__(self, a, opt, name, result_types, inputs, work):
        self.a, self.opt, self.name = a, opt, name
        self.result_types, self.inputs, self.work = result_types, inputs, work
        self.rows, self.by_text = [], {}

    def measure(self, budget):
        """IREE's row for remat's plan at `budget` (a remat-opt budget), in
        the form that measures least of those asked."""
        forms = ["iree"] if budget == "100%" else self.a.forms
        return min((self.measure_form(budget, f) for f in forms), key=peak)

    def measure_form(self, budget, barriers):
        known = len(self.by_text)
        row = iree_run.run_iree(self.opt, self.a.step, self.name, self.result_types,
                                self.inputs, budget, self.work, barriers, self.by_text)
        if "error" in row:
            print("planned at %s, %s: %s" % (budget, barriers, row["error"]), flush=True)
            return row
        if len(self.by_text) == known:  # the same form as before: not compiled again
            return row
        self.rows.append(row)
        print("planned at %s (remat's model: %d B), %s: IREE measures %d B"
              % (budget, row["predicted"], barriers, row["iree_device_local_peak"]),
              flush=True)
        return row


def peak(row):
    """IREE's peak; a plan IREE fails to run measures as too large."""
    return row.get("iree_device_local_peak") or float("inf")


def search(fit, target, full, least, probes):
    """Bisects planning budgets between the largest plan within `target`
    (lo) and the smallest over it (hi): (planning bytes, row) each."""
    lo = (least["predicted"], least)
    hi = (full["predicted"], full)
    for _ in range(probes):
        if peak(lo[1]) >= CLOSE * target or hi[0] - lo[0] <= max(1, hi[0] // 1000):
            return
        # IREE's bytes per model byte, from the two ends: the first guess
        # where the budget falls between them, then halving.
        span = peak(hi[1]) - peak(lo[1])
        share = (target - peak(lo[1])) / span if 0 < span < float("inf") else 0.5
        cand = int(lo[0] + min(max(share, 0.1), 0.9) * (hi[0] - lo[0]))
        row = fit.measure("%dB" % cand)
        if peak(row) <= target:
            lo = (cand, row)
        else:
            hi = (cand, row)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("step", help="a training step remat-opt reads (a {remat.loss} result)")
    ap.add_argument("--budget", required=True, type=parse_budget,
                    help="IREE's peak to fit: bytes (600000, 4.5MB, 2MiB) or a percentage of "
                         "its peak without recomputation")
    ap.add_argument("-o", "--output", default=None, help="write the fitted IREE form here")
    ap.add_argument("--probes", type=int, default=8,
                    help="plans compiled at most between the two ends (default 8)")
    ap.add_argument("--barriers", choices=sorted(iree_run.FORMS) + ["all"], default="all",
                    help="the form IREE reads (iree_run.py's --barriers); all (default): each "
                         "plan in every form, the one measuring least kept")
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--work", default=None, help="keep the files here")
    a = ap.parse_args()
    a.forms = list(iree_run.FORMS) if a.barriers == "all" else [a.barriers]
    work = a.work or tempfile.mkdtemp(prefix="remat-iree-fit-")
    os.makedirs(work, exist_ok=True)
    opt = iree_run.find_tool("remat-opt")
    with open(a.step) as fh:
        text = fh.read()
    name = iree_run.step_name(text)
    args, result_types = iree_run.arguments(text, name)
    inputs = iree_run.write_inputs(args, work)
    fit = Fit(a, opt, name, result_types, inputs, work)

    full = fit.measure("100%")
    if "error" in full:
        sys.exit("iree_fit.py: the step without recomputation fails in IREE")
    target = a.budget[0] if a.budget[0] is not None else int(a.budget[1] * peak(full))
    if peak(full) > target:
        least = fit.measure("min")
        if "error" in least:
            sys.exit("iree_fit.py: remat's smallest plan fails in IREE")
        if peak(least) > target:
            sys.exit("iree_fit.py: the smallest step remat plans measures %d B in IREE, above "
                     "the budget of %d B; give at least that" % (peak(least), target))
        search(fit, target, full, least, a.probes)
    fitting = [r for r in fit.rows if peak(r) <= target]
    # The fastest plan within the budget by remat's predicted time; of one
    # plan in several forms, the one nearest the budget.
    best = min(fitting, key=lambda r: (r.get("time_after") or 0, -peak(r)))
    iree_run.check_on_cpu(a, opt, name, args, result_types, best, work)
    if a.output:
        shutil.copyfile(best["iree_mlir"], a.output)
    print("fitted: IREE measures %d B, %.1f %% of the budget of %d B (planned at %s, remat's "
          "model: %d B, %s; %d plans measured); outputs %s remat's CPU path "
          "(max rel err %.1e)%s"
          % (peak(best), 100.0 * peak(best) / target, target, best["budget"], best["predicted"],
             " ".join(iree_run.FORMS[best["barriers"]]), len(fit.rows),
             "match" if best["outputs_match"] else "DIFFER from",
             best["max_rel_err"], "; written to " + a.output if a.output else ""))
    return 0 if best["outputs_match"] else 1


if __name__ == "__main__":
    sys.exit(main())
