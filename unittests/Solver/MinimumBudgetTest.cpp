//===- MinimumBudgetTest.cpp - The smallest-budget search against a scan --===//
//
// minimumBudget() for auto searches each of auto's runs' smallest budget
// (autoPortfolio) instead of bisecting auto itself. The oracle is a scan of
// every budget from the proven floor to the no-remat peak with auto itself:
// on these small graphs (bytes 1-5 per tensor) that is a few dozen solves.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/Simulator.h"
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
