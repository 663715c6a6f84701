//===- StrategyRegistryTest.cpp - A strategy added from outside the solver -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// docs/architecture.md, "How to add a strategy": a descriptor registered by
// its own code, here the test's, is found by solve() and run by auto when
// it is affordable and the fastest, with no change to Core or Portfolio.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Core/StrategyRegistry.h"
#include "remat/Solver/Testing/ModelGraphs.h"

#include <gtest/gtest.h>

using namespace remat;

namespace {

constexpr const char *kName = "evict-greedy-again";

/// evict-greedy under another name, with no cheapening rule: at a tiny time
/// allowance it keeps its four replays where evict-greedy drops to one.
StrategyDescriptor evictGreedyAgain(int rank) {
  StrategyDescriptor d;
  d.name = kName;
  d.description = "evict-greedy once more, registered by a unit test";
  d.run = findStrategy("evict-greedy")->run;
  d.rank = rank; // Listings and auto's ties: lower first.
  d.estimate = [](const GraphMeasures &, const SolveOptions &) {
    return 0.0;
  };
  d.autoRole.priority = 0;
  return d;
}

/// Registers for the test's lifetime only: other tests see the built-ins.
struct ScopedStrategy {
  explicit ScopedStrategy(StrategyDescriptor d) : name(d.name) {
    EXPECT_TRUE(StrategyRegistry::global().add(std::move(d)));
  }
  ~ScopedStrategy() { StrategyRegistry::global().remove(name); }
  std::string name;
};

/// A ResNet-like step at 80 % of its peak, with no time for auto's usual
/// runs: only evict-greedy (which always runs) and the free ones.
struct Fixture {
  TrainingGraph g = resnetLike(60);
  SolveOptions o;
  Fixture() {
    o.autoMILP = false;
    o.timeBudget = 0;
    o.budget = simulate(g, keepEverythingSchedule(g)).peak * 8 / 10;
  }
};

} // namespace

TEST(StrategyRegistry, SolveFindsAStrategyRegisteredByItsOwnCode) {
  Fixture f;
  ASSERT_EQ(findStrategy(kName), nullptr);
  ScopedStrategy scoped(evictGreedyAgain(0));
  ASSERT_NE(findStrategy(kName), nullptr);
  EXPECT_EQ(allStrategies().front().name, kName);
  Solution again = solve(f.g, kName, f.o);
  Solution evict = solve(f.g, "evict-greedy", f.o);
  ASSERT_TRUE(again.feasible) << again.reason;
  EXPECT_EQ(again.sim.peak, evict.sim.peak);
  EXPECT_EQ(again.sim.time, evict.sim.time);
}

// auto runs it beside evict-greedy and keeps the faster plan; on a tie, the
// one ranked first.
TEST(StrategyRegistry, AutoPicksItWhenItIsTheFastestFeasible) {
  Fixture f;
  Solution without = solve(f.g, "auto", f.o);
  ASSERT_TRUE(without.feasible) << without.reason;
  EXPECT_EQ(without.chosen, "evict-greedy");
  {
    ScopedStrategy first(evictGreedyAgain(0));
    Solution with = solve(f.g, "auto", f.o);
    ASSERT_TRUE(with.feasible) << with.reason;
    EXPECT_EQ(with.chosen, kName);
    EXPECT_LE(with.sim.time, without.sim.time);
  }
  // Ranked last it still wins when strictly faster, else evict-greedy does.
  ScopedStrategy last(evictGreedyAgain(1000));
  Solution with = solve(f.g, "auto", f.o);
  EXPECT_EQ(with.chosen, with.sim.time < without.sim.time ? std::string(kName)
                                                          : "evict-greedy");
}
