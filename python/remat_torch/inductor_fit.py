# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The budget held under Inductor: each graph's step measured and re-planned.

Inductor fuses and orders the kernels of the graphs remat gives it, so
what its generated code allocates is not remat's model of one buffer per
ATen op (more where it computes several fused outputs at once, less where
a fused value is never stored).  The compiled step is measured on the
device it will run on, and re-planned at a budget moved by what the
measurement missed, until it holds (docs/torch-compile.md, "With
Inductor").
"""

import re
import sys
import time

import torch

from .inductor import RematInductorPartitioner, install_fusion_choices

MAX_COMPILES = 4        # compiles of one graph at most, the first included
TIGHT = 0.95            # a plan measured below this share of its budget is re-planned higher


class Attempt:
    def __init__(self, planning_budget, compiled, info, measured):
        self.planning_budget = planning_budget  # what remat-opt was given (bytes or min)
        self.compiled = compiled
        self.info = info                        # the partitioner's log entry
        self.measured = measured                # peak + arguments, bytes

    @property
    def time(self):
        return self.info["report"].get("time_after") or 0.0


def _smallest(why):
    """The smallest budget in remat-opt's refusal ('... meet is N B ...')."""
    m = re.search(r"smallest budget it can meet is (\d+) B", why)
    return int(m.group(1)) if m else None


class FittedGraph:
    """A Dynamo graph compiled by Inductor with remat's plan, measured and
    re-planned until its step holds the budget.  The first compile happens
    in the backend; the measurement and any re-plan on the first call, on
    that call's inputs (peak.graph_step_peak: nothing of the caller's
    changes; the call itself then runs the graph kept), outside Dynamo's
    compile (the backward compiles on its first run)."""

    def __init__(self, gm, example_inputs, make_partitioner, budget, log, verbose):
        self.gm, self.make_partitioner = gm, make_partitioner
        self.budget, self.log, self.verbose = budget, log, verbose
        self.attempts, self.tried = [], []
        self.compiled, entries = self._compile(budget, example_inputs)
        self.first_entries = entries
        self.fitted = len(entries) != 1 or "fallback" in entries[0]
        if self.fitted and log is not None:   # fell back: nothing to measure
            log.extend(entries)

    def _compile(self, planning_budget, example_inputs):
        from torch._inductor.compile_fx import compile_fx
        self.tried.append(planning_budget)
        install_fusion_choices()
        entries = []
        part = self.make_partitioner(planning_budget, entries)
        patches = {"custom_partitioner_fn": RematInductorPartitioner(part)}
        # AOTAutograd's cache would key the whole compile by the budget
        # asked, not the one the loop settles on; Inductor's FX-graph cache
        # still keys each compiled graph by remat's uuid.
        with torch._functorch.config.patch(enable_autograd_cache=False):
            return compile_fx(self.gm, example_inputs, config_patches=patches), entries

    def _measure(self, compiled, entries, planning_budget, inputs):
        from .peak import graph_step_peak
        peak, args = graph_step_peak(compiled, inputs)
        a = Attempt(planning_budget, compiled, entries[0], peak + args)
        self.attempts.append(a)
        return a

    def __call__(self, *args):
        if not self.fitted:
            self.fitted = True
            if torch._C._autograd._profiler_enabled():
                # The measurement is a profile of its own: not inside the caller's.
                print("remat_torch: a profiler is running on the graph's first call: its step "
                      "is not measured under Inductor, the plan at the budget asked is kept",
                      file=sys.stderr)
                if self.log is not None:
                    self.log.extend(self.first_entries)
            else:
                self._fit(args)
        return self.compiled(*args)

    def _fit(self, inputs):
        t0 = time.time()
        first = self._measure(self.compiled, self.first_entries, self.budget, inputs)
        rep = first.info["report"]
        target = None if self.budget == "min" else rep["budget"]
        floor = rep["budget"] if self.budget == "min" else None
        current = rep["budget"]
        while target is not None and len(self.tried) < MAX_COMPILES:
            a = self.attempts[-1]
            no_remat = a.info["report"].get("peak_after") == rep.get("peak_before")
            if a.measured <= target and (a.measured >= TIGHT * target or no_remat
                                         or current >= rep["peak_before"]):
                break   # tight, or nothing more to keep
            nxt = int(current + target - a.measured)   # moved by what the model missed
            if floor is not None and nxt <= floor:
                nxt = floor
            key = "min" if nxt == floor else "%dB" % nxt
            if key in self.tried or nxt == current:
                break
            current = nxt
            compiled, entries = self._compile(key, inputs)
            if len(entries) == 1 and "fallback" not in entries[0]:
                self._measure(compiled, entries, key, inputs)
                continue
            # Below the smallest budget remat meets: its smallest, once.
            floor = _smallest(entries[0]["fallback"]) if entries else None
            if floor is None or "min" in self.tried:
                break
            current = floor
            compiled, entries = self._compile("min", inputs)
            if len(entries) == 1 and "fallback" not in entries[0]:
                self._measure(compiled, entries, "min", inputs)
        fitting = [a for a in self.attempts if target is None or a.measured <= target]
        if fitting:
            best = min(fitting, key=lambda a: (a.time, -a.measured))
        else:
            best = min(self.attempts, key=lambda a: a.measured)
            print("remat_torch: under Inductor the smallest step remat measured is %d B, above "
                  "the budget of %d B; the graph keeps that plan" % (best.measured, target),
                  file=sys.stderr)
        self.compiled = best.compiled
        info = best.info
        info.update(measured=best.measured, planning_budget=best.planning_budget,
                    target=target, compiles=len(self.tried), fit_seconds=time.time() - t0,
                    attempts=[(a.planning_budget, a.measured) for a in self.attempts])
        if self.verbose:
            print("remat_torch: under Inductor, measured %d B against %s, planned at %s; "
                  "%d compiles, %.1f s measuring and re-planning"
                  % (best.measured, "budget %d B" % target if target else "budget min",
                     best.planning_budget, len(self.tried), info["fit_seconds"]),
                  file=sys.stderr)
        if self.log is not None:
            self.log.append(info)
        self.gm, self.attempts = None, []   # compiled for good: the others go


