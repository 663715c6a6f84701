//===- ScanSlotsTest.cpp - The slot count chosen with the rest of the graph ===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Oracles: the Simulator over every slot count (the most that fit as the
// program is), the brute-force optimum as the planner (the best plan at
// each count), and Revolve's counts for the resized reversal.

#include "remat/Solver/Loop/LoopReversal.h"
#include "remat/Solver/Loop/ScanSlots.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Testing/BruteForce.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>

using namespace remat;

namespace {

/// A step with a checkpointed scan beside a straight-line part: the scan's
/// forward loop F writes its slots S (probe: 2 slots, one row of
/// `rowBytes`) and its final carry; a forward activation A (recomputable,
/// `activationBytes`) is read again by the backward B_A; the reversal R reads
/// S and the carry's gradient.
struct ScanStep {
  TrainingGraph g;
  ScanSlotNode scan;
  Schedule order;
};

ScanStep makeStep(int64_t steps, int64_t rowBytes, int64_t activationBytes,
                  double activationTime, double stepTime) {
  ScanStep s;
  TrainingGraph &g = s.g;
  TensorId x = g.addInput("x", 64);
  NodeId f = g.addNode("F", NodeKind::Forward, steps * stepTime, {x},
                       {rowBytes, 64});
  TensorId slots = g.node(f).outputs[0], carry = g.node(f).outputs[1];
  NodeId a = g.addNode("A", NodeKind::Forward, activationTime, {x},
                       {activationBytes});
  TensorId act = g.node(a).outputs[0];
  NodeId loss = g.addNode("loss", NodeKind::Forward, 1, {carry, act}, {64});
  TensorId l = g.node(loss).outputs[0];
  g.markRequired(l);
  NodeId dl = g.addNode("dloss", NodeKind::Backward, 1, {l}, {64});
  TensorId d = g.node(dl).outputs[0];
  NodeId ba = g.addNode("B_A", NodeKind::Backward, activationTime,
                        {act, d}, {64});
  g.markRequired(g.node(ba).outputs[0]);
  const int64_t probe = 2;
  NodeId r = g.addNode(
      "R", NodeKind::Backward,
      (countLoopReversal(steps, probe).forwardSteps) * stepTime + steps,
      {slots, d}, {64});
  g.markRequired(g.node(r).outputs[0]);
  s.scan.steps = steps;
  s.scan.probeSlots = probe;
  s.scan.storage = {{slots, rowBytes, -1}};
  s.scan.reversal = r;
  s.scan.stepTime = stepTime;
  for (NodeId n : g.defaultOrder())
    s.order.run(n);
  return s;
}

/// The planner as the brute force: the optimum plan within `budget`.
std::optional<GraphPlan> bruteForcePlan(const TrainingGraph &g,
                                        int64_t budget) {
  auto r = bruteForceOptimum(g, budget);
  if (!r)
    ADD_FAILURE() << "the brute force gave up";
  return r && r->feasible ? std::optional<GraphPlan>({r->time, r->schedule})
                          : std::nullopt;
}

/// The joint model as an exhaustive search: the brute force at every
/// combination of the parts' choices.
PlanSized exhaustiveJointModel(int64_t budget) {
  PlanSized exhaustive;
  exhaustive.applies = [](const TrainingGraph &) { return true; };
  exhaustive.plan = [budget](const TrainingGraph &g,
                             const std::vector<SizedPart> &parts,
                             const std::vector<int> &, const Schedule &) {
    std::optional<SizedPlan> best;
    double bestTime = 0;
    std::vector<int> picks(parts.size(), 0);
    while (true) {
      std::optional<GraphPlan> p = bruteForcePlan(withSizes(g, parts, picks),
                                                  budget);
      if (p && (!best || p->time < bestTime)) {
        best = SizedPlan{picks, p->schedule};
        bestTime = p->time;
      }
      size_t i = 0; // The next combination, the first part fastest.
      while (i < parts.size() &&
             ++picks[i] == static_cast<int>(parts[i].choices.size()))
        picks[i++] = 0;
      if (i == parts.size())
        return best;
    }
  };
  return exhaustive;
}

/// A joint model that applies and finds nothing: chooseScanSlots then
/// keeps the ladder's choice alone (no search between its rungs).
PlanSized noJointModel() {
  PlanSized none;
  none.applies = [](const TrainingGraph &) { return true; };
  none.plan = [](const TrainingGraph &, const std::vector<SizedPart> &,
                 const std::vector<int> &, const Schedule &) {
    return std::optional<SizedPlan>();
  };
  return none;
}

/// A random single-scan step small enough for the brute force at every
/// count (T = 6..13), and a budget around what a few slots take.
struct RandomStep {
  ScanStep s;
  int64_t budget;
};
RandomStep randomStep(std::mt19937 &rng) {
  const int64_t steps = 6 + rng() % 8; // sizedCounts then covers 1..T.
  const int64_t row = 64 * (1 + rng() % 4);
  ScanStep s = makeStep(steps, row, row * (1 + rng() % 6), 1 + rng() % 5,
                        5 + rng() % 20);
  const int64_t budget = 64 * 6 + row * (rng() % 8);
  return {std::move(s), budget};
}

/// The oracle: the best plan of `s` within `budget` at every count 1..T.
std::optional<double> bestAtEveryCount(const ScanStep &s, int64_t budget) {
  std::optional<double> best;
  for (int64_t k = 1; k <= s.scan.steps; ++k)
    if (std::optional<GraphPlan> p =
            bruteForcePlan(withScanSlots(s.g, {s.scan}, {k}), budget))
      best = best ? std::min(*best, p->time) : p->time;
  return best;
}

TEST(ScanSlots, ResizesStorageAndReversal) {
  ScanStep s = makeStep(16, 100, 64, 1, 10);
  for (int64_t k = 1; k <= 16; ++k) {
    TrainingGraph g = withScanSlots(s.g, {s.scan}, {k});
    // k - 1 rows of 100 B, rounded up to 64.
    EXPECT_EQ(g.tensor(s.scan.storage[0].tensor).bytes,
              ((k - 1) * 100 + 63) / 64 * 64);
    EXPECT_DOUBLE_EQ(g.node(s.scan.reversal).time,
                     countLoopReversal(16, k).forwardSteps * 10.0 + 16);
  }
}

// The most slots that fit, or fewer where they re-run as many steps: T
// slots re-run what T - 1 do (the last step's carry is the loop's result).
TEST(ScanSlots, WithoutAPlannerTheMostUsefulSlotsThatFitAsTheProgramIs) {
  ScanStep s = makeStep(20, 256, 512, 1, 10);
  bool sawPlateau = false;
  for (int64_t budget = 0; budget <= 8000; budget += 97) {
    int64_t most = 0;
    for (int64_t k = 1; k <= 20; ++k) {
      SimulationResult r = simulate(withScanSlots(s.g, {s.scan}, {k}), s.order);
      if (r.valid && r.peak <= budget)
        most = k;
    }
    int64_t useful = most;
    while (useful > 1 && countLoopReversal(20, useful - 1).forwardSteps ==
                             countLoopReversal(20, most).forwardSteps)
      --useful;
    sawPlateau |= useful < most;
    ScanSlotChoice c = chooseScanSlots(s.g, s.order, budget, {s.scan}, {});
    EXPECT_EQ(c.asIsSlots[0], useful) << "budget " << budget;
    EXPECT_EQ(c.slots[0], std::max<int64_t>(useful, 1)) << "budget " << budget;
    EXPECT_EQ(c.feasible, most > 0);
  }
  EXPECT_TRUE(sawPlateau) << "no budget where T slots fit: the case is untested";
  EXPECT_EQ(countLoopReversal(20, 20).forwardSteps,
            countLoopReversal(20, 19).forwardSteps);
}

// Online, the rule re-runs more steps with some counts than with fewer (64
// steps: 208 with 5 slots, 207 with 4): the count kept is the fewest that
// re-run the fewest steps of all that fit (the oracle: every count).
TEST(ScanSlots, OnlineTheFewestSlotsReRunningTheFewestSteps) {
  int nonMonotone = 0;
  for (int64_t steps : {20, 64, 90}) {
    ScanStep s = makeStep(steps, 256, 512, 1, 10);
    s.scan.online = true;
    for (int64_t budget = 0; budget <= steps * 256 + 2048; budget += 131) {
      int64_t most = 0;
      for (int64_t k = 1; k <= steps; ++k) {
        SimulationResult r =
            simulate(withScanSlots(s.g, {s.scan}, {k}), s.order);
        if (r.valid && r.peak <= budget)
          most = k;
      }
      int64_t best = most;
      for (int64_t k = most - 1; k >= 1; --k)
        if (s.scan.forwardSteps(k) <= s.scan.forwardSteps(best))
          best = k;
      nonMonotone += most > 0 &&
                     s.scan.forwardSteps(best) < s.scan.forwardSteps(most);
      ScanSlotChoice c = chooseScanSlots(s.g, s.order, budget, {s.scan}, {});
      EXPECT_EQ(c.asIsSlots[0], best) << steps << " steps, budget " << budget;
    }
  }
  EXPECT_GE(nonMonotone, 3) << "no budget where fewer slots re-run fewer steps";
}

TEST(ScanSlots, WithAPlannerNeverSlowerThanWhatFitsAsItIs) {
  // The activation is cheap to recompute and as large as several slots: at
  // budgets where few slots fit as the program is, recomputing it buys
  // slots that save forward steps.
  std::mt19937 rng(7);
  int feasible = 0, bought = 0;
  for (int trial = 0; trial < 30; ++trial) {
    const int64_t steps = 8 + rng() % 24;
    const int64_t row = 64 * (1 + rng() % 4);
    ScanStep s = makeStep(steps, row, row * (1 + rng() % 6), 1 + rng() % 5,
                          5 + rng() % 20);
    const int64_t budget = 64 * 6 + row * (rng() % 8);
    int solves = 0;
    PlanGraph optimum = [&](const TrainingGraph &g) {
      ++solves;
      return bruteForcePlan(g, budget);
    };
    ScanSlotChoice c = chooseScanSlots(s.g, s.order, budget, {s.scan}, optimum);
    EXPECT_EQ(c.plansSolved, solves);
    if (!c.feasible)
      continue;
    ++feasible;
    bought += c.slots[0] > c.asIsSlots[0];
    // The plan at the chosen count is the optimum there, and no slower than
    // the program that fits as it is.
    auto at = bruteForceOptimum(withScanSlots(s.g, {s.scan}, c.slots), budget);
    ASSERT_TRUE(at && at->feasible) << "trial " << trial;
    EXPECT_DOUBLE_EQ(at->time, c.time) << "trial " << trial;
    if (c.asIsSlots[0] > 0) {
      double asIs =
          simulate(withScanSlots(s.g, {s.scan}, {c.asIsSlots[0]}), s.order)
              .time;
      EXPECT_LE(c.time, asIs) << "trial " << trial;
      EXPECT_GE(c.slots[0], c.asIsSlots[0]) << "trial " << trial;
    }
  }
  // The trials exercise both outcomes.
  EXPECT_GE(feasible, 10);
  EXPECT_GE(bought, 3);
  EXPECT_LT(bought, feasible);
}

TEST(ScanSlots, RecomputingAnActivationBuysSlots) {
  // T = 16, rows of 256 B, steps of 20; an activation of 1024 B, 1 to
  // recompute. Within 1600 B, as the program is, the activation is live
  // from A to B_A, across the reversal: the slots get no row (1 slot, 121
  // forward steps). Recomputed just before B_A, it leaves the reversal
  // 1024 B more: 5 rows (6 slots, far fewer steps).
  ScanStep s = makeStep(16, 256, 1024, 1, 20);
  const int64_t budget = 1600;
  PlanGraph optimum = [&](const TrainingGraph &g) {
    return bruteForcePlan(g, budget);
  };
  ScanSlotChoice c = chooseScanSlots(s.g, s.order, budget, {s.scan}, optimum);
  ASSERT_TRUE(c.feasible);
  EXPECT_EQ(c.asIsSlots[0], 1);
  EXPECT_EQ(c.slots[0], 6);
  EXPECT_EQ(countLoopReversal(16, 1).forwardSteps, 121);
  EXPECT_LT(countLoopReversal(16, c.slots[0]).forwardSteps,
            countLoopReversal(16, std::max<int64_t>(c.asIsSlots[0], 1))
                .forwardSteps);
}

// The scan as a sized part is the graph withScanSlots makes, at every count.
TEST(ScanSlots, AsASizedPartItIsTheResizedGraph) {
  ScanStep s = makeStep(16, 100, 64, 1, 10);
  std::vector<int64_t> counts;
  for (int64_t k = 1; k <= 16; ++k)
    counts.push_back(k);
  SizedPart part = s.scan.sizedPart(s.g, counts);
  ASSERT_FALSE(verifySizedParts(s.g, {part}));
  for (int i = 0; i < 16; ++i) {
    TrainingGraph a = withSizes(s.g, {part}, {i});
    TrainingGraph b = withScanSlots(s.g, {s.scan}, {counts[i]});
    EXPECT_EQ(a.tensor(s.scan.storage[0].tensor).bytes,
              b.tensor(s.scan.storage[0].tensor).bytes);
    EXPECT_DOUBLE_EQ(a.node(s.scan.reversal).time,
                     b.node(s.scan.reversal).time);
  }
}

// The counts offered to the joint model: every useful count near the
// ladder's choice, a geometric ladder beyond, never a count that re-runs as
// many steps as one less.
TEST(ScanSlots, SizedCounts) {
  ScanStep s = makeStep(200, 100, 64, 1, 10);
  std::vector<int64_t> c = sizedCounts(s.scan, 60);
  for (int64_t k = 60 - kSizedWindow; k <= 60 + kSizedWindow; ++k)
    EXPECT_NE(std::find(c.begin(), c.end(), k), c.end()) << k;
  // Below: kSizedBelow counts, each 4/5 of the one before.
  EXPECT_EQ(std::vector<int64_t>(c.begin(), c.begin() + 9),
            (std::vector<int64_t>{8, 11, 14, 18, 23, 29, 37, 47, 48}));
  for (size_t i = 1; i < c.size(); ++i) {
    EXPECT_LT(c[i - 1], c[i]);
    EXPECT_LT(s.scan.forwardSteps(c[i]), s.scan.forwardSteps(c[i] - 1));
  }
  EXPECT_LT(c.size(), 80u); // Not all 200.
  // T = 200: 199 and 200 slots re-run as many steps.
  EXPECT_EQ(std::find(c.begin(), c.end(), 200), c.end());
}

// With a joint model of counts and schedule (here an exhaustive oracle:
// the brute force at every count offered), the choice is the best plan
// over every count from 1 to T, also between the ladder's rungs.
TEST(ScanSlots, TheJointModelFindsCountsBetweenRungs) {
  std::mt19937 rng(7);
  int feasible = 0, between = 0;
  for (int trial = 0; trial < 40; ++trial) {
    auto [s, budget] = randomStep(rng);
    auto optimum = [&, budget = budget](const TrainingGraph &g) {
      return bruteForcePlan(g, budget);
    };
    PlanSized exhaustive = exhaustiveJointModel(budget);
    ScanSlotChoice ladder = chooseScanSlots(s.g, s.order, budget, {s.scan},
                                            optimum, noJointModel());
    ScanSlotChoice c =
        chooseScanSlots(s.g, s.order, budget, {s.scan}, optimum, exhaustive);
    std::optional<double> best = bestAtEveryCount(s, budget);
    ASSERT_EQ(c.feasible, best.has_value()) << "trial " << trial;
    if (!best)
      continue;
    ++feasible;
    EXPECT_DOUBLE_EQ(c.time, *best) << "trial " << trial;
    EXPECT_LE(c.time, ladder.time);
    auto at = bruteForceOptimum(withScanSlots(s.g, {s.scan}, c.slots), budget);
    ASSERT_TRUE(at && at->feasible);
    EXPECT_DOUBLE_EQ(at->time, c.time);
    between += c.sizedChose && c.time < ladder.time;
  }
  std::printf("%d trials feasible, the ladder missed the best count in %d\n",
              feasible, between);
  EXPECT_GE(feasible, 20);
  EXPECT_GE(between, 1) << "no trial where the ladder missed the best count";
}

// Without a joint model (the DPs, evict-greedy, auto on larger graphs),
// the counts on the frontier around the ladder's choice are planned too
// (chooseOnFrontier): for one scan, with an exact planner and every count
// within reach (T <= 13), the best count of all. Oracle: the brute force at
// every count 1..T; the ladder alone is the same search with a joint model
// that finds nothing.
TEST(ScanSlots, WithoutAJointModelTheFrontier) {
  std::mt19937 rng(7);
  int feasible = 0, missedBefore = 0, missed = 0;
  for (int trial = 0; trial < 40; ++trial) {
    auto [s, budget] = randomStep(rng);
    auto optimum = [&, budget = budget](const TrainingGraph &g) {
      return bruteForcePlan(g, budget);
    };
    ScanSlotChoice ladder = chooseScanSlots(s.g, s.order, budget, {s.scan},
                                            optimum, noJointModel());
    ScanSlotChoice c = chooseScanSlots(s.g, s.order, budget, {s.scan}, optimum);
    std::optional<double> best = bestAtEveryCount(s, budget);
    ASSERT_EQ(c.feasible, best.has_value()) << "trial " << trial;
    if (!best)
      continue;
    ++feasible;
    EXPECT_LE(c.time, ladder.time) << "trial " << trial;
    // The time claimed is the plan's at the count chosen.
    auto at = bruteForceOptimum(withScanSlots(s.g, {s.scan}, c.slots), budget);
    ASSERT_TRUE(at && at->feasible);
    EXPECT_DOUBLE_EQ(at->time, c.time);
    missedBefore += ladder.time > *best;
    missed += c.time > *best;
  }
  std::printf("%d trials feasible: the ladder missed the best count in %d, "
              "with the frontier in %d\n",
              feasible, missedBefore, missed);
  EXPECT_GE(feasible, 20);
  EXPECT_GE(missedBefore, 1) << "no trial where the ladder missed";
  EXPECT_EQ(missed, 0);
}

// Two scans beside an activation: the ladder chooses them one after the
// other, the joint model together. Oracle: the brute force at every pair
// of counts (80 trials: 68 feasible, the joint model faster than the
// ladder in 25, the best pair in every one; the ladder's second pass over
// the scans brought its misses from 35 down to 25). Without a joint model
// the frontier (chooseOnFrontier) is searched: a heuristic for pairs (the
// plan sees more than the slots' total bytes). It finds the best pair on
// all 68; the counts between the ladder's rungs, one scan at a time, which
// it replaced, missed 21. Over 200 trials of each of seeds 1, 2, 4, 5, 6 it
// missed 8 of 873 (by 2-10 time units), hence the bound of 2 %.
TEST(ScanSlots, TwoScansChosenTogether) {
  std::mt19937 rng(3);
  int feasible = 0, better = 0, betweenMissed = 0;
  for (int trial = 0; trial < 80; ++trial) {
    const int64_t steps1 = 4 + rng() % 5, steps2 = 4 + rng() % 5;
    const int64_t row1 = 64 * (1 + rng() % 3), row2 = 64 * (1 + rng() % 3);
    const int64_t act = 64 * (1 + rng() % 6);
    TrainingGraph g;
    TensorId x = g.addInput("x", 64);
    auto forward = [&](const char *name, int64_t steps, int64_t row) {
      NodeId f = g.addNode(name, NodeKind::Forward, steps * 10.0, {x},
                           {row, 64});
      return std::pair{g.node(f).outputs[0], g.node(f).outputs[1]};
    };
    auto [slots1, carry1] = forward("F1", steps1, row1);
    auto [slots2, carry2] = forward("F2", steps2, row2);
    NodeId a = g.addNode("A", NodeKind::Forward, 1 + rng() % 5, {x}, {act});
    TensorId actOut = g.node(a).outputs[0];
    NodeId loss = g.addNode("loss", NodeKind::Forward, 1,
                            {carry1, carry2, actOut}, {64});
    g.markRequired(g.node(loss).outputs[0]);
    NodeId dl = g.addNode("dloss", NodeKind::Backward, 1,
                          {g.node(loss).outputs[0]}, {64});
    TensorId d = g.node(dl).outputs[0];
    NodeId ba = g.addNode("B_A", NodeKind::Backward, 2, {actOut, d}, {64});
    g.markRequired(g.node(ba).outputs[0]);
    std::vector<ScanSlotNode> scans(2);
    const std::vector<std::pair<int64_t, int64_t>> shape{{steps1, row1},
                                                         {steps2, row2}};
    const std::vector<TensorId> stores{slots1, slots2};
    for (int i = 0; i < 2; ++i) {
      NodeId r = g.addNode(i ? "R2" : "R1", NodeKind::Backward,
                           countLoopReversal(shape[i].first, 2).forwardSteps *
                               10.0,
                           {stores[i], d}, {64});
      g.markRequired(g.node(r).outputs[0]);
      scans[i].steps = shape[i].first;
      scans[i].probeSlots = 2;
      scans[i].storage = {{stores[i], shape[i].second, -1}};
      scans[i].reversal = r;
      scans[i].stepTime = 10;
    }
    Schedule order;
    for (NodeId n : g.defaultOrder())
      order.run(n);
    const int64_t budget = 64 * 6 + 64 * (rng() % 16);
    auto optimum = [&](const TrainingGraph &h) {
      return bruteForcePlan(h, budget);
    };
    PlanSized exhaustive = exhaustiveJointModel(budget);
    ScanSlotChoice ladder =
        chooseScanSlots(g, order, budget, scans, optimum, noJointModel());
    ScanSlotChoice between = chooseScanSlots(g, order, budget, scans, optimum);
    ScanSlotChoice c =
        chooseScanSlots(g, order, budget, scans, optimum, exhaustive);
    std::optional<double> best;
    for (int64_t k1 = 1; k1 <= steps1; ++k1)
      for (int64_t k2 = 1; k2 <= steps2; ++k2)
        if (std::optional<GraphPlan> p =
                optimum(withScanSlots(g, scans, {k1, k2})))
          best = best ? std::min(*best, p->time) : p->time;
    if (!c.feasible)
      continue; // Nothing fits as it is with one slot each, or no plan.
    ASSERT_TRUE(best.has_value());
    ++feasible;
    EXPECT_LE(c.time, ladder.time);
    // The best pair of all: found by the joint model where a plan bought
    // slots, by the ladder where none did.
    EXPECT_DOUBLE_EQ(c.time, *best) << "trial " << trial;
    EXPECT_LE(between.time, ladder.time) << "trial " << trial;
    better += c.time < ladder.time;
    betweenMissed += between.time > *best;
    // Its time is the plan's at the pair it chose.
    auto at = bruteForceOptimum(withScanSlots(g, scans, between.slots), budget);
    ASSERT_TRUE(at && at->feasible) << "trial " << trial;
    EXPECT_DOUBLE_EQ(at->time, between.time) << "trial " << trial;
  }
  std::printf("%d trials feasible, the joint model faster than the ladder in "
              "%d; with the frontier instead, %d not the best pair\n",
              feasible, better, betweenMissed);
  EXPECT_GE(feasible, 40);
  EXPECT_GE(better, 10); // One scan after the other often misses the pair.
  EXPECT_LE(betweenMissed * 50, feasible);
}

TEST(ScanSlots, FewestSlotsAtTheSmallestBudget) {
  ScanStep s = makeStep(16, 256, 1024, 1, 20);
  ScanSlotChoice c = chooseScanSlots(s.g, s.order, -1, {s.scan}, {});
  EXPECT_EQ(c.slots[0], 1);
}

} // namespace
