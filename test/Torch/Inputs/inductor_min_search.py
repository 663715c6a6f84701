# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""FittedGraph's search at budget min, without Inductor.

    inductor_min_search.py

Planning, compiling and measuring are stubbed: each planning budget maps
to a fake plan (its op order) with a fake measured step peak and predicted
time, on a step whose model says 1000 B at min and 2000 B without
recomputation.  For each case, prints the plan the search kept, whether it
is the least measured of the plans it measured (ties: the faster), and its
compiles against MAX_COMPILES.
"""

from remat_torch.inductor_fit import MAX_COMPILES, Attempt, FittedGraph
from remat_torch.planner import Plan

PEAK_AFTER, PEAK_BEFORE = 1000, 2000     # the model's smallest budget, its peak

# case: [(lowest planning budget, plan, measured B, predicted time)], rising
CASES = {
    # Llama under Inductor: the smallest plan measures within 1 % of its
    # model, a plan that keeps more measures far less.
    "higher plan measures less": [
        (1000, "A", 1005, 3.0), (1100, "B", 700, 2.0), (1300, "C", 800, 1.5)],
    # Every plan above measures less than the one below it: the compiles
    # run out first.
    "every plan measures less": [
        (1000 + 100 * i, "P%d" % i, 1000 - 50 * i, 3.0 - 0.1 * i) for i in range(10)],
    # Two plans measure the same: the faster is kept.
    "tie": [(1000, "A", 1000, 3.0), (1100, "B", 700, 2.0), (1200, "C", 700, 1.0)],
    # Plans measure more as they keep more: one probe, then stop.
    "smallest measures least": [
        (1000, "A", 1000, 3.0), (1100, "B", 1200, 2.0), (1300, "C", 1500, 1.0)],
}


class StubbedGraph(FittedGraph):
    """FittedGraph at min with fake plans in place of remat-opt, Inductor
    and the measurement."""

    def __init__(self, plans):
        self.plans, self.budget, self.strategy = plans, "min", "auto-monotone"
        self.log, self.verbose, self.gm = [], False, None
        self.attempts, self.tried = [], []
        self.compiled, self.first_entries = self._compile("min", None)

    def _row(self, key):
        budget = PEAK_AFTER if key == "min" else int(key[:-1])
        return [r for r in self.plans if r[0] <= budget][-1]

    def _plan(self, first, key):
        _, name, _, time = self._row(key)
        report = {"budget": PEAK_AFTER if key == "min" else int(key[:-1]),
                  "peak_after": PEAK_AFTER, "peak_before": PEAK_BEFORE, "time_after": time}
        return Plan(report, [name])

    def _compile(self, key, inputs):
        self.tried.append(key)
        p = self._plan(None, key)
        return key, [{"report": p.report, "order": p.order}]

    def _measure(self, compiled, entries, key, inputs):
        a = Attempt(key, compiled, entries[0], self._row(key)[2])
        self.attempts.append(a)
        return a


def main():
    for case, plans in CASES.items():
        g = StubbedGraph(plans)
        g._fit(None)
        info = g.log[-1]
        measured = [(m, g._row(b)[3]) for b, m in info["attempts"]]
        least = (info["measured"], info["report"]["time_after"]) == min(measured)
        print("%s: kept %s, measured %d B, %s of %d measured; %d compiles, %s %d" % (
            case, info["order"][0], info["measured"], "the least" if least else "NOT the least",
            len(measured), info["compiles"],
            "<=" if info["compiles"] <= MAX_COMPILES else ">", MAX_COMPILES))


if __name__ == "__main__":
    main()
