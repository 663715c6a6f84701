//===- EvictionTest.cpp - evict-greedy against the Simulator and oracles --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Evict/EvictStrategies.h"
#include "remat/Solver/Evict/Eviction.h"
#include "remat/Solver/Testing/BruteForce.h"
#include "remat/Solver/Testing/ModelGraphs.h"
#include "remat/Solver/Testing/RandomGraphs.h"
#include "remat/Solver/Portfolio/MinimumBudget.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace remat;

namespace {

int64_t noRematPeak(const TrainingGraph &g) {
  return simulate(g, keepEverythingSchedule(g)).peak;
}

/// Random steps of every kind the replay must handle: skips, two-output
/// nodes, nodes that must run once, workspaces.
std::vector<TrainingGraph> randomSteps() {
  std::vector<TrainingGraph> out;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    out.push_back(randomTrainingDag(seed, 6 + seed % 5));
    RandomBranchyOptions b;
    b.twoOutputPercent = 30;
    b.nonRecomputablePercent = 15;
    b.maxWorkspace = 3;
    out.push_back(randomBranchyDag(seed, 5 + seed % 4, b));
  }
  return out;
}

/// Did a forward node run a second time before the first backward node?
bool recomputesInForwardPhase(const TrainingGraph &g, const Schedule &s) {
  std::vector<int> runs(g.numNodes(), 0);
  for (const Step &step : s.steps()) {
    if (!step.isRun())
      continue;
    if (!g.isForward(step.id))
      return false;
    if (++runs[step.id] == 2)
      return true;
  }
  return false;
}

} // namespace

// Every plan is valid and within budget, at every budget from the proven
// floor to the no-remat peak; and it does meet budgets below the peak.
TEST(Eviction, ValidAndWithinBudgetOnRandomSteps) {
  int below = 0;
  for (const TrainingGraph &g : randomSteps()) {
    const int64_t lo = peakLowerBound(g), hi = noRematPeak(g);
    for (int64_t b = lo; b <= hi; ++b) {
      for (EvictionHeuristic h : {EvictionHeuristic{1, 2},
                                  EvictionHeuristic{1, 0.5}}) {
        EvictionPlan p = planByEviction(g, g.defaultOrder(), b, h);
        if (!p.schedule) {
          EXPECT_FALSE(p.reason.empty());
          continue;
        }
        SimulationResult sim = simulate(g, *p.schedule);
        ASSERT_TRUE(sim.valid) << sim.error << "\n"
                               << p.schedule->str(g);
        EXPECT_LE(sim.peak, b);
        below += b < hi;
      }
    }
  }
  EXPECT_GT(below, 50);
}

// With memory to spare nothing is recomputed; at the no-remat peak the
// strategy returns the program itself.
TEST(Eviction, AmpleBudgetRecomputesNothing) {
  for (const TrainingGraph &g : randomSteps()) {
    EvictionPlan p = planByEviction(g, g.defaultOrder(), kUnlimitedBudget);
    ASSERT_TRUE(p.schedule.has_value()) << p.reason;
    EXPECT_EQ(simulate(g, *p.schedule).time, g.baseTime());
    SolveOptions o;
    o.budget = noRematPeak(g);
    Solution s = solve(g, "evict-greedy", o);
    ASSERT_TRUE(s.feasible) << s.reason;
    EXPECT_EQ(s.sim.time, g.baseTime());
  }
  TrainingGraph unet = unetLike(40);
  SolveOptions o;
  o.budget = noRematPeak(unet);
  EXPECT_EQ(solve(unet, "evict-greedy", o).sim.time, unet.baseTime());
}

// The brute force searches every schedule: evict-greedy is never faster than
// its optimum, and never feasible where it proves that nothing is.
TEST(Eviction, NeverBeatsTheBruteForce) {
  int compared = 0, equal = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    TrainingGraph g = randomTrainingDag(seed, 3 + seed % 3);
    for (int64_t b = peakLowerBound(g); b <= noRematPeak(g); ++b) {
      auto oracle = bruteForceOptimum(g, b, {/*allowDiscard=*/false});
      if (!oracle)
        continue;
      SolveOptions o;
      o.budget = b;
      Solution s = solve(g, "evict-greedy", o);
      if (!oracle->feasible) {
        EXPECT_FALSE(s.feasible) << "budget " << b;
        continue;
      }
      if (!s.feasible)
        continue;
      ++compared;
      EXPECT_GE(s.sim.time, oracle->time - 1e-9);
      equal += s.sim.time <= oracle->time + 1e-9;
    }
  }
  EXPECT_GT(compared, 20);
  EXPECT_GT(equal, compared / 2); // A heuristic, but mostly optimal here.
}

// On the U-Net-like step evict-greedy meets budgets far below the lower-set
// plans' floor, close to the proven one; at 40 % of the no-remat peak it
// frees skip sources during the forward pass and recomputes them there,
// which no lower-set plan can.
TEST(Eviction, BeatsLowerSetsOnAUNetAndRecomputesInTheForwardPhase) {
  TrainingGraph g = unetLike(80);
  SolveOptions o;
  int64_t lowerSets = minimumBudget(g, "lowerset-exact", o);
  int64_t evict = minimumBudget(g, "evict-greedy", o);
  ASSERT_GT(evict, 0);
  EXPECT_LT(evict, lowerSets * 3 / 4);
  EXPECT_LE(evict, peakLowerBound(g) * 21 / 20);
  // auto keeps the best of its portfolio: at least as low.
  EXPECT_LE(minimumBudget(g, "auto", o), evict);

  o.budget = noRematPeak(g) * 4 / 10;
  ASSERT_LT(o.budget, lowerSets);
  Solution s = solve(g, "evict-greedy", o);
  ASSERT_TRUE(s.feasible) << s.reason;
  EXPECT_TRUE(recomputesInForwardPhase(g, s.schedule));
}

// Long freed chains are walked without recursion: a 3,000-node chain at a
// budget that keeps only a few values.
TEST(Eviction, DeepChainsAtSmallBudgets) {
  RandomDagOptions ro;
  ro.skipPercent = 0;
  TrainingGraph g = randomTrainingDag(7, 1500, ro);
  const int64_t hi = noRematPeak(g);
  EvictionPlan p = planByEviction(g, g.defaultOrder(), hi / 8);
  ASSERT_TRUE(p.schedule.has_value()) << p.reason;
  SimulationResult sim = simulate(g, *p.schedule);
  ASSERT_TRUE(sim.valid) << sim.error;
  EXPECT_LE(sim.peak, hi / 8);
  EXPECT_GT(sim.time, g.baseTime());
}

// Below what any run of a node needs, the replay says so.
TEST(Eviction, RefusesBudgetsBelowOneStep) {
  TrainingGraph g = randomTrainingDag(3, 6);
  EvictionPlan p = planByEviction(g, g.defaultOrder(), peakLowerBound(g) - 1);
  EXPECT_FALSE(p.schedule.has_value());
  EXPECT_FALSE(p.reason.empty());
}

namespace {

struct Probe {
  int64_t budget;
  Solution s;
};

/// solve() of `strategy` at budgets from the proven floor to the no-remat
/// peak, both included (about `steps`, every byte when there are fewer),
/// the solves sharing a cache as minimumBudget()'s do.
std::vector<Probe> sweep(const TrainingGraph &g, const std::string &strategy,
                         int64_t steps = 400,
                         std::shared_ptr<SolveCache> cache = nullptr) {
  const int64_t lo = peakLowerBound(g), hi = noRematPeak(g);
  const int64_t stride = std::max<int64_t>(1, (hi - lo) / steps);
  std::vector<Probe> out;
  SolveOptions o;
  o.cache = cache ? cache : std::make_shared<SolveCache>(); // Made once.
  for (int64_t b = lo; b <= hi;
       b = b < hi ? std::min(b + stride, hi) : hi + 1) {
    o.budget = b;
    out.push_back({b, solve(g, strategy, o)});
  }
  return out;
}

/// Pairs of budgets b < b' where the plan at b' is slower, or peaks lower,
/// than the plan at b, or b' is missed where b is met.
int nonMonotonePairs(const std::vector<Probe> &sweep) {
  int pairs = 0;
  const Solution *prev = nullptr;
  for (const auto &[budget, s] : sweep) {
    if (prev && prev->feasible &&
        (!s.feasible || s.sim.time > prev->sim.time + 1e-9 ||
         s.sim.peak < prev->sim.peak))
      ++pairs;
    if (s.feasible)
      prev = &s;
  }
  return pairs;
}

std::vector<TrainingGraph> ladderSteps() {
  std::vector<TrainingGraph> out = randomSteps();
  out.push_back(unetLike(40));
  out.push_back(resnetLike(30));
  out.push_back(googlenetLike(30));
  return out;
}

} // namespace

const char *const kMonotoneStrategies[] = {"evict-ladder", "auto-monotone"};

/// auto-monotone searches auto's smallest budget once per graph, with
/// MILP probes on small ones: every other step is enough.
bool skip(const std::string &strategy, size_t graphIndex) {
  return strategy == "auto-monotone" && graphIndex % 2;
}

// evict-greedy's plans depend on the exact budget: over these sweeps some
// larger budget gets a slower plan or a lower peak. evict-ladder's and
// auto-monotone's never do, every plan fits its budget, and once a budget
// is met every larger one is.
TEST(EvictLadder, MonotoneInTheBudgetWhereEvictGreedyIsNot) {
  std::map<std::string, int> pairs, met;
  const std::vector<TrainingGraph> graphs = ladderSteps();
  for (size_t i = 0; i < graphs.size(); ++i) {
    const TrainingGraph &g = graphs[i];
    pairs["evict-greedy"] += nonMonotonePairs(sweep(g, "evict-greedy"));
    for (const char *name : kMonotoneStrategies) {
      if (skip(name, i))
        continue;
      std::vector<Probe> probes = sweep(g, name);
      pairs[name] += nonMonotonePairs(probes);
      for (const auto &[budget, s] : probes) {
        if (!s.feasible)
          continue;
        ++met[name];
        EXPECT_LE(s.sim.peak, budget) << name;
      }
    }
  }
  EXPECT_GT(pairs["evict-greedy"], 0);
  for (const char *name : kMonotoneStrategies) {
    EXPECT_EQ(pairs[name], 0) << name;
    EXPECT_GT(met[name], 500) << name;
  }
}

// The smallest budget the search finds is met, the byte below it is not,
// and every budget of the sweep above it is; at the no-remat peak nothing
// is recomputed.
TEST(EvictLadder, SmallestBudgetIsTheFamilysLowestPeak) {
  const std::vector<TrainingGraph> graphs = ladderSteps();
  for (size_t i = 0; i < graphs.size(); ++i) {
    const TrainingGraph &g = graphs[i];
    SolveOptions o;
    o.cache = std::make_shared<SolveCache>(); // The families, made once.
    for (const char *name : kMonotoneStrategies) {
      if (skip(name, i))
        continue;
      const int64_t least = minimumBudget(g, name, o);
      ASSERT_GT(least, 0);
      o.budget = least;
      EXPECT_TRUE(solve(g, name, o).feasible) << name;
      o.budget = least - 1;
      EXPECT_FALSE(solve(g, name, o).feasible) << name;
      std::vector<Probe> all = sweep(g, name, 400, o.cache);
      for (const auto &[budget, s] : all)
        EXPECT_EQ(s.feasible, budget >= least) << name << " at " << budget;
      EXPECT_EQ(all.back().s.sim.time, g.baseTime()) << name;
    }
  }
}

// Never faster than the optimum the brute force proves, never feasible
// where it proves nothing is.
TEST(EvictLadder, NeverBeatsTheBruteForce) {
  int compared = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    TrainingGraph g = randomTrainingDag(seed, 3 + seed % 3);
    for (const char *name : kMonotoneStrategies) {
      for (const auto &[budget, s] : sweep(g, name)) {
        auto oracle = bruteForceOptimum(g, budget, {/*allowDiscard=*/false});
        if (!oracle || !s.feasible)
          continue;
        ASSERT_TRUE(oracle->feasible);
        ++compared;
        EXPECT_GE(s.sim.time, oracle->time - 1e-9) << name;
      }
    }
  }
  EXPECT_GT(compared, 40);
}

namespace {

/// x -> f1 -> a -> f2 -> b -> f3 -> c; the backward reads c, then b, then
/// x alone (nothing reads a after f2): sizes in bytes, times in units.
struct SmallChain {
  TrainingGraph g;
  NodeId f1, f2, f3, b3, b2, b1;
  SmallChain() {
    TensorId x = g.addInput("x", 1);
    f1 = g.addNode("f1", NodeKind::Forward, 5, {x}, {5});
    TensorId a = g.node(f1).outputs[0];
    f2 = g.addNode("f2", NodeKind::Forward, 1, {a}, {10});
    TensorId b = g.node(f2).outputs[0];
    f3 = g.addNode("f3", NodeKind::Forward, 1, {b}, {10});
    TensorId c = g.node(f3).outputs[0];
    b3 = g.addNode("b3", NodeKind::Backward, 1, {c}, {1});
    b2 = g.addNode("b2", NodeKind::Backward, 1,
                   {b, g.node(b3).outputs[0]}, {1});
    b1 = g.addNode("b1", NodeKind::Backward, 1,
                   {x, g.node(b2).outputs[0]}, {1});
    g.markRequired(g.node(b1).outputs[0]);
  }
  Schedule runs(std::vector<NodeId> order) const {
    Schedule s;
    for (NodeId n : order)
      s.run(n);
    return s;
  }
};

} // namespace

// b is recomputed for b2, and a only for that. The program peaks at 22
// bytes (x, b, c and b3's output while b3 runs); the plan peaks at 21 (x,
// b and c while f3 runs; b is then freed until its recomputation, which
// holds x, b3's output, a and b: 17). At 22
// both recomputations go (a's unread once b's is gone): the program. At 21
// neither can: the plan with eager frees. Under its own peak: unchanged.
TEST(GiveBack, TakesBackWhatTheBudgetDoesNotNeed) {
  SmallChain c;
  const Schedule plan =
      c.runs({c.f1, c.f2, c.f3, c.b3, c.f1, c.f2, c.b2, c.b1});
  SimulationResult planSim = simulate(c.g, plan.withEagerFrees(c.g));
  ASSERT_TRUE(planSim.valid) << planSim.error;
  EXPECT_EQ(planSim.peak, 21);
  EXPECT_EQ(simulate(c.g, keepEverythingSchedule(c.g)).peak, 22);

  Schedule at22 = giveBackRecomputations(c.g, plan, 22);
  EXPECT_EQ(at22, keepEverythingSchedule(c.g)) << at22.str(c.g);

  Schedule at21 = giveBackRecomputations(c.g, plan, 21);
  EXPECT_EQ(at21, plan.withEagerFrees(c.g)) << at21.str(c.g);

  EXPECT_EQ(giveBackRecomputations(c.g, plan, 20), plan);
}

// A recomputation nothing reads goes even where the budget allows no other
// change (at 21 the recomputation of b must stay, and a's that feeds it).
TEST(GiveBack, DropsUnreadRecomputations) {
  SmallChain c;
  const Schedule plan =
      c.runs({c.f1, c.f2, c.f3, c.b3, c.f1, c.f2, c.f1, c.b2, c.b1});
  Schedule s = giveBackRecomputations(c.g, plan, 21);
  EXPECT_EQ(s, c.runs({c.f1, c.f2, c.f3, c.b3, c.f1, c.f2, c.b2, c.b1})
                   .withEagerFrees(c.g))
      << s.str(c.g);
  SimulationResult sim = simulate(c.g, s);
  ASSERT_TRUE(sim.valid) << sim.error;
  EXPECT_EQ(sim.peak, 21);
  EXPECT_EQ(sim.time, c.g.baseTime() + 6);
}

// On random steps, at every budget, from each weighting's replay: valid,
// within the budget, never slower than the replay's plan; and near the
// no-remat peak it often recomputes less.
TEST(GiveBack, ValidWithinBudgetAndNeverSlowerOnRandomSteps) {
  int faster = 0;
  for (const TrainingGraph &g : randomSteps()) {
    const int64_t lo = peakLowerBound(g), hi = noRematPeak(g);
    for (int64_t b = lo; b <= hi; ++b) {
      for (EvictionHeuristic h : {EvictionHeuristic{1, 3},
                                  EvictionHeuristic{1, 0.5}}) {
        EvictionPlan p = planByEviction(g, g.defaultOrder(), b, h);
        if (!p.schedule)
          continue;
        SimulationResult replay = simulate(g, *p.schedule);
        Schedule s = giveBackRecomputations(g, *p.schedule, b);
        SimulationResult sim = simulate(g, s);
        ASSERT_TRUE(sim.valid) << sim.error << "\n" << s.str(g);
        EXPECT_LE(sim.peak, b);
        EXPECT_LE(sim.time, replay.time + 1e-9);
        faster += sim.time < replay.time - 1e-9;
      }
    }
  }
  EXPECT_GT(faster, 20);
}

// The ladder's floor is the lowest peak of the replays' plans with eager
// frees at its rungs (ladderRungs(), from the program's peak), not of the
// plans given back, which peak near their rungs: on some steps those are
// higher, and `min` would rise with them.
TEST(EvictLadder, FloorIsTheReplaysLowestPeakNotTheGivenBacks) {
  int higherGivenBack = 0;
  for (const TrainingGraph &g : ladderSteps()) {
    SolveOptions o;
    int64_t eagerLeast = INT64_MAX, givenBackLeast = INT64_MAX;
    const int64_t top = noRematPeak(g);
    for (int64_t rung : ladderRungs(top, peakLowerBound(g))) {
      o.budget = rung;
      StrategyResult replay = bestEvictionReplay(g, o);
      if (!replay.feasible)
        break;
      SimulationResult sim = simulate(g, replay.schedule);
      if (!sim.valid || sim.peak > rung)
        break;
      eagerLeast = std::min(eagerLeast, sim.peak);
      givenBackLeast = std::min(
          givenBackLeast,
          simulate(g, giveBackRecomputations(g, replay.schedule, rung)).peak);
    }
    if (eagerLeast == INT64_MAX)
      continue;
    EXPECT_EQ(evictLadderFloor(g, o), std::min(top, eagerLeast));
    higherGivenBack += givenBackLeast > eagerLeast;
  }
  EXPECT_GT(higherGivenBack, 0);
}

// The rungs: highest first, within [floor, top), the 1/64 grid (the rungs
// every budget got before the fine ones) all among them, and near the top
// no two more than half of what the upper one frees apart.
TEST(EvictLadder, RungsKeepTheSixtyFourthsAndAreCloseNearTheTop) {
  for (int64_t top : {int64_t(1000), int64_t(206124288), int64_t(1) << 40}) {
    const int64_t floor = top / 3;
    std::vector<int64_t> rungs = ladderRungs(top, floor);
    ASSERT_FALSE(rungs.empty());
    EXPECT_TRUE(std::is_sorted(rungs.rbegin(), rungs.rend()));
    EXPECT_EQ(std::adjacent_find(rungs.begin(), rungs.end()), rungs.end());
    EXPECT_GE(rungs.back(), floor);
    EXPECT_LT(rungs.front(), top);
    EXPECT_LE(top - rungs.front(), std::max<int64_t>(1, top / 1024));
    std::set<int64_t> have(rungs.begin(), rungs.end());
    int coarse = 0;
    for (int64_t r = top - std::max<int64_t>(1, top >> 6); r >= floor;
         r -= std::max<int64_t>(1, r >> 6), ++coarse)
      EXPECT_TRUE(have.count(r)) << "rung " << r << " of top " << top;
    EXPECT_GT(static_cast<int>(rungs.size()), coarse);
    const int64_t firstCoarse = top - (top >> 6);
    const int64_t secondCoarse = firstCoarse - (firstCoarse >> 6);
    for (size_t i = 1; i < rungs.size() && rungs[i] >= secondCoarse; ++i) {
      const int64_t freedAbove = top - rungs[i - 1];
      EXPECT_LE(rungs[i - 1] - rungs[i],
                std::max<int64_t>({1, freedAbove / 2, top >> 10}))
          << "between " << rungs[i - 1] << " and " << rungs[i];
    }
  }
}

// The fine rungs only add plans: at budgets just under the program's peak
// the ladder is never slower than the fastest fitting plan of the 1/64
// rungs alone (replayed and given back here, as the ladder does), and
// faster at some, where a 1/64 rung freed more than the budget needs
// (steps of many values each far below 1/64 of the peak).
TEST(EvictLadder, FineRungsNeverSlowerThanTheSixtyFourthsAlone) {
  int faster = 0;
  std::vector<TrainingGraph> graphs = ladderSteps();
  graphs.push_back(resnetLike(1200));
  graphs.push_back(unetLike(600));
  for (const TrainingGraph &g : graphs) {
    const int64_t top = noRematPeak(g);
    auto cache = std::make_shared<SolveCache>();
    std::vector<std::pair<int64_t, double>> coarse; // (peak, time)
    coarse.push_back({top, simulate(g, keepEverythingSchedule(g)).time});
    SolveOptions o;
    for (int64_t rung = top - std::max<int64_t>(1, top >> 6), n = 0;
         rung >= peakLowerBound(g) && rung > 0 && n < 4;
         rung -= std::max<int64_t>(1, rung >> 6), ++n) {
      o.budget = rung;
      StrategyResult replay = bestEvictionReplay(g, o);
      if (!replay.feasible)
        break;
      for (const Schedule &s :
           {replay.schedule, giveBackRecomputations(g, replay.schedule, rung)}) {
        SimulationResult sim = simulate(g, s);
        if (sim.valid && sim.peak <= rung)
          coarse.push_back({sim.peak, sim.time});
      }
    }
    for (int k = 1; k <= 40; ++k) {
      const int64_t budget = top - top * k / 1000;
      double best = -1;
      for (auto [peak, time] : coarse)
        if (peak <= budget && (best < 0 || time < best))
          best = time;
      if (best < 0)
        continue;
      SolveOptions ladder;
      ladder.cache = cache; // The family, made once per graph.
      ladder.budget = budget;
      Solution s = solve(g, "evict-ladder", ladder);
      ASSERT_TRUE(s.feasible) << "budget " << budget;
      EXPECT_LE(s.sim.time, best + 1e-9) << "budget " << budget;
      faster += s.sim.time < best - 1e-9;
    }
  }
  EXPECT_GT(faster, 0);
}
