# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""FittedGraph's search at budget min, without Inductor.

    inductor_min_search.py

Planning, compiling and measuring are stubbed: each planning budget maps
to a fake plan (its op order) with a fake measured step peak and predicted
time, on a step whose model says 1000 B at min and 2000 B without
recomputation.  For each case, prints the plan the search kept, whether it
is the least measured of the plans it measured (ties: the faster), and its
compiles against MAX_COMPILES; then the same for a budget in bytes below
what the smallest plan measures.
"""

from remat_torch.inductor_fit import MAX_COMPILES, Attempt, FittedGraph
from remat_torch.joint import Unplannable
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

    def __init__(self, plans, budget="min"):
        self.plans, self.budget, self.strategy = plans, budget, "auto-monotone"
        self.log, self.verbose, self.gm = [], False, None
        self.attempts, self.tried = [], []
        self.compiled, self.first_entries = self._compile(budget, None)

    @staticmethod
    def _bytes(key):
        return PEAK_AFTER if key == "min" else int(key[:-1])

    def _row(self, key):
        budget = max(self._bytes(key), PEAK_AFTER)
        return [r for r in self.plans if r[0] <= budget][-1]

    def _plan(self, first, key):
        if self._bytes(key) < PEAK_AFTER:   # as remat-opt refuses it
            raise Unplannable("the smallest budget it can meet is %d B" % PEAK_AFTER)
        _, name, _, time = self._row(key)
        report = {"budget": self._bytes(key), "peak_after": PEAK_AFTER,
                  "peak_before": PEAK_BEFORE, "time_after": time}
        return Plan(report, [name])

    def _compile(self, key, inputs):
        """As partition.py: a budget below the smallest is planned at min,
        the budget asked kept."""
        self.tried.append(key)
        asked = self._bytes(key) if self._bytes(key) < PEAK_AFTER else None
        p = self._plan(None, "min" if asked else key)
        entry = {"report": p.report, "order": p.order}
        if asked:
            entry["asked"] = asked
        return key, [entry]

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
    # Asked for less than the smallest plan measures, more than a plan
    # above it does: that one, not the smallest (the faster of those that
    # fit).
    g = StubbedGraph(CASES["higher plan measures less"], "800B")
    g._fit(None)
    info = g.log[-1]
    print("below the smallest plan's measure, at 800 B: kept %s, measured %d B %s 800 B; "
          "%d compiles" % (info["order"][0], info["measured"],
                           "<=" if info["measured"] <= 800 else ">", info["compiles"]))


if __name__ == "__main__":
    main()
