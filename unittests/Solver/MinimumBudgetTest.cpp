//===- MinimumBudgetTest.cpp - The smallest-budget search against a scan --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// minimumBudget() for auto searches each of auto's runs' smallest budget
// (autoPortfolio) instead of bisecting auto itself. The oracle is a scan of
// every budget from the proven floor to the no-remat peak with auto itself:
// on these small graphs (bytes 1-5 per tensor) that is a few dozen solves.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Join/Join.h"
#include "remat/Solver/Portfolio/Auto.h"
#include "remat/Solver/Portfolio/MinimumBudget.h"
#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Testing/RandomGraphs.h"

#include <gtest/gtest.h>

using namespace remat;

namespace {

/// The smallest budget auto (without the MILP) meets, by trying them all.
int64_t scanMinimum(const TrainingGraph &g, SolveOptions o) {
  const int64_t peak = simulate(g, keepEverythingSchedule(g)).peak;
  for (int64_t b = std::min(peakLowerBound(g), peak); b <= peak; ++b) {
    o.budget = b;
    if (solve(g, "auto", o).feasible)
      return b;
  }
  return -1;
}

} // namespace

// Equal to the scan on random training steps with skips, and a budget auto
// meets; auto's portfolio does not depend on the budget.
TEST(MinimumBudget, AutoEqualsTheScanOfEveryBudget) {
  SolveOptions o;
  o.autoMILP = false;
  int compared = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    RandomDagOptions ro;
    ro.skipPercent = 60;
    TrainingGraph g = randomTrainingDag(seed, 4 + seed % 6, ro);
    SCOPED_TRACE("seed " + std::to_string(seed));
    int64_t found = minimumBudget(g, "auto", o);
    EXPECT_EQ(found, scanMinimum(g, o));
    SolveOptions at = o;
    at.budget = found;
    EXPECT_TRUE(solve(g, "auto", at).feasible);
    ++compared;

    std::vector<PortfolioRun> runs = autoPortfolio(g, o);
    ASSERT_FALSE(runs.empty());
    for (const PortfolioRun &r : runs)
      EXPECT_NE(r.strategy, "auto");
  }
  EXPECT_EQ(compared, 12);
}

// With the MILP, never above the search without it, and still a budget
// auto meets.
TEST(MinimumBudget, MILPProbesOnlyLowerIt) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    RandomDagOptions ro;
    ro.skipPercent = 60;
    TrainingGraph g = randomTrainingDag(seed, 6, ro);
    SolveOptions without;
    without.autoMILP = false;
    int64_t plain = minimumBudget(g, "auto", without);
    int64_t withMILP = minimumBudget(g, "auto", SolveOptions{});
    EXPECT_LE(withMILP, plain);
    SolveOptions at;
    at.budget = withMILP;
    EXPECT_TRUE(solve(g, "auto", at).feasible);
  }
}

// join's slots make it non-monotone in the budget: on this three-branch join
// (8 slots) it meets 27 B but not 28-34 B, while evict-greedy meets 29 B and
// up. A search that gives up on a run after one failed probe just below the
// best budget so far (28 B) returned 29 B; join's descriptor says it is not
// monotone, so the search goes on and finds 27 B, where auto succeeds.
TEST(MinimumBudget, SearchesRunsNotMonotoneInTheBudgetPastAFailedProbe) {
  TrainingGraph g =
      buildJoinGraph(joinFromChains(randomJoin(33, 3, 5))).graph;
  SolveOptions o;
  o.autoMILP = false;
  o.slots = 8;
  ASSERT_FALSE(findStrategy("join")->budgetSearch.monotone);
  for (int64_t b : {27, 28}) {
    o.budget = b;
    EXPECT_EQ(solve(g, "join", o).feasible, b == 27) << b;
  }
  o.budget = kUnlimitedBudget;
  const int64_t found = minimumBudget(g, "auto", o);
  EXPECT_EQ(found, 27);
  o.budget = found;
  Solution s = solve(g, "auto", o);
  EXPECT_TRUE(s.feasible) << s.reason;
  EXPECT_EQ(s.chosen, "join");
}
