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
#include "remat/Solver/Core/StrategyRegistry.h"
#include "remat/Solver/Join/Join.h"
#include "remat/Solver/MILP/MILPStrategies.h"
#include "remat/Solver/Portfolio/Auto.h"
#include "remat/Solver/Portfolio/MinimumBudget.h"
#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Testing/ModelGraphs.h"
#include "remat/Solver/Testing/RandomGraphs.h"

#include <gtest/gtest.h>

#include <algorithm>

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

/// Registers for the test's lifetime only: other tests see the built-ins.
struct ScopedStrategy {
  explicit ScopedStrategy(StrategyDescriptor d) : name(d.name) {
    EXPECT_TRUE(StrategyRegistry::global().add(std::move(d)));
  }
  ~ScopedStrategy() { StrategyRegistry::global().remove(name); }
  std::string name;
};

/// The budgets a test strategy was solved at.
struct Solves {
  std::vector<int64_t> budgets;
  int below(int64_t b) const {
    return static_cast<int>(
        std::count_if(budgets.begin(), budgets.end(),
                      [&](int64_t x) { return x < b; }));
  }
};

/// The program itself where it fits, else nothing: its proven floor is the
/// no-remat peak. Not declared monotone, so without the floor the search
/// would bisect it from peakLowerBound, solving at every step.
StrategyDescriptor programOnly(const std::string &name, Solves &solves) {
  StrategyDescriptor d;
  d.name = name;
  d.description = "the program where it fits (a unit test's)";
  d.run = [&solves](const TrainingGraph &g, const SolveOptions &o) {
    solves.budgets.push_back(o.budget);
    StrategyResult r;
    Schedule all = keepEverythingSchedule(g);
    if (simulate(g, all).peak <= o.budget) {
      r.feasible = true;
      r.schedule = std::move(all);
    }
    return r;
  };
  d.rank = 5000; // Last in auto's ties.
  d.estimate = [](const GraphMeasures &, const SolveOptions &) {
    return 0.0;
  };
  d.autoRole.priority = 1000; // After the built-ins.
  d.budgetSearch.floor = [](const TrainingGraph &g, const SolveOptions &) {
    return simulate(g, keepEverythingSchedule(g)).peak;
  };
  return d;
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

// Below a strategy's proven floor (budgetSearch.floor) the search solves
// nothing: the chain strategies' bisection below a budget evict-greedy met
// took 19 solves of chain-rotor-weak, 1 s each, on the 90-node ResNet. The
// answers are those of the search that solved.
TEST(MinimumBudget, SolvesNothingBelowAProvenFloor) {
  TrainingGraph g = resnetLike(40);
  const int64_t peak = simulate(g, keepEverythingSchedule(g)).peak;
  ASSERT_LT(peakLowerBound(g), peak);
  Solves solves;
  ScopedStrategy scoped(programOnly("program-only", solves));
  SolveOptions o;
  o.autoMILP = false;
  EXPECT_EQ(minimumBudget(g, "program-only", o), peak);
  EXPECT_EQ(solves.below(peak), 0);
  EXPECT_FALSE(solves.budgets.empty());

  // In auto's portfolio: after evict-greedy's budget, one run more to
  // settle, without a solve.
  solves.budgets.clear();
  const int64_t withIt = minimumBudget(g, "auto", o);
  EXPECT_EQ(solves.below(peak), 0);
  EXPECT_LT(withIt, peak);
}

// The chain strategies' floor is above the proven floor of every schedule on
// a ResNet-like step (so it settles runs), and they do not meet the budget
// just below it (ChainView.BackwardBlockFloorBoundsEveryPlan: any budget).
TEST(MinimumBudget, ChainStrategiesMeetNothingBelowTheirFloor) {
  TrainingGraph g = resnetLike(40);
  SolveOptions o;
  o.slots = 50;
  for (const char *name : {"revolve", "chain-rotor", "chain-rotor-weak"}) {
    SCOPED_TRACE(name);
    const StrategyDescriptor *d = findStrategy(name);
    ASSERT_TRUE(d && d->budgetSearch.floor);
    const int64_t floor = d->budgetSearch.floor(g, o);
    EXPECT_GT(floor, peakLowerBound(g));
    o.budget = floor - 1;
    EXPECT_FALSE(solve(g, name, o).feasible);
    o.budget = kUnlimitedBudget;
  }
}

// checkmate-milp's short probes run only where auto runs the MILP: on larger
// graphs a 0.2 s probe took 1-11 s in CBC's root LP and found nothing. A
// strategy with its search role, counting its solves, shows it.
TEST(MinimumBudget, NoMILPProbesWhereTheyCannotHelp) {
  const StrategyDescriptor &milp = *findStrategy("checkmate-milp");
  ASSERT_GT(milp.budgetSearch.probes, 0);
  ASSERT_TRUE(milp.budgetSearch.probesHelp);
  Solves solves;
  StrategyDescriptor d = programOnly("probed", solves);
  d.budgetSearch = milp.budgetSearch;
  d.autoRole = {};
  ScopedStrategy scoped(std::move(d));
  SolveOptions o;
  o.autoMILP = false;
  for (int n : {8, 60}) {
    TrainingGraph g = resnetLike(n);
    SCOPED_TRACE(g.numNodes());
    solves.budgets.clear();
    const int64_t peak = simulate(g, keepEverythingSchedule(g)).peak;
    minimumBudget(g, "probed", o);
    const bool small = milp.budgetSearch.probesHelp(g);
    EXPECT_EQ(small, g.numNodes() <= 40);
    // The check at the peak, then the probes below the budget found.
    EXPECT_EQ(solves.below(peak), small ? milp.budgetSearch.probes : 0);
  }
}

// Past a failed probe just below the best budget so far, a run that is not
// monotone is bisected only to within 1/64 of that budget: the exact
// bisection's probes crowd just below it (hi - 2, hi - 3, ...), 14 solves of
// each chain strategy on rnn.unrolled.mlir, none of which ever met a budget
// on the shipped inputs. A strategy that meets nothing, last in auto's
// portfolio, counts its solves; the answer is the search's without it.
TEST(MinimumBudget, BisectsPastAFailedProbeToWithinASixtyFourth) {
  TrainingGraph g = resnetLike(40);
  SolveOptions o;
  o.autoMILP = false;
  const int64_t without = minimumBudget(g, "auto", o);
  Solves solves;
  StrategyDescriptor d = programOnly("never-fits", solves);
  d.run = [&solves](const TrainingGraph &, const SolveOptions &so) {
    solves.budgets.push_back(so.budget);
    return StrategyResult{};
  };
  d.budgetSearch = {}; // Not monotone, no floor.
  ScopedStrategy scoped(std::move(d));
  const int64_t hi = minimumBudget(g, "auto", o);
  EXPECT_EQ(hi, without);
  ASSERT_GT(hi >> 6, 4);
  int near = 0;
  for (int64_t b : solves.budgets)
    near += b > hi - (hi >> 7) && b < hi - 1;
  EXPECT_EQ(near, 0); // Only the probe at hi - 1 comes that close.
  EXPECT_EQ(std::count(solves.budgets.begin(), solves.budgets.end(), hi - 1),
            1);
  EXPECT_LE(solves.budgets.size(), 10u);
}
