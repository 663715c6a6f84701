//===- OpLevelTest.cpp - Strategies on graphs shaped like exported IR -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Graphs exported from real IR differ from the papers' chains: a backward op
// may read its forward op's output only (exp, relu), parameter gradients
// pile up while the backward pass runs, weight transposes sit between the
// backward ops, and functions have thousands of ops. These tests pin what
// the chain view, the group order and auto do about it.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Testing/BruteForce.h"
#include "remat/Solver/Chain/ChainSolvers.h"
#include "remat/Solver/Chain/ChainView.h"
#include "remat/Solver/LowerSet/LowerSet.h"
#include "remat/Solver/Testing/ModelGraphs.h"
#include "remat/Solver/Testing/RandomGraphs.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/Strategy.h"

#include <gtest/gtest.h>

using namespace remat;

namespace {

// test/Solver/Inputs/corpus/exp-chain.json (remat-opt -remat-export-graph
// of four math.exp and a sum): d exp(x) = exp(x) dy, so each backward op
// reads its forward op's output and nothing else.
TrainingGraph expChain() {
  TrainingGraph g;
  TensorId x = g.addInput("arg0", 1024);
  TensorId seed = g.addInput("cst6", 0);
  std::vector<TensorId> e;
  for (int i = 0; i < 4; ++i) {
    NodeId f = g.addNode("exp" + std::to_string(i), NodeKind::Forward, 1024,
                         {i ? e.back() : x}, {1024});
    e.push_back(g.node(f).outputs[0]);
  }
  NodeId red = g.addNode("reduce", NodeKind::Forward, 256, {e[3]}, {4});
  g.markRequired(g.node(red).outputs[0]);
  TensorId d = g.node(g.addNode("mulf5", NodeKind::Backward, 512,
                                {seed, e[3]}, {1024}, 1024))
                   .outputs[0];
  for (int i = 2; i >= 0; --i)
    d = g.node(g.addNode("mulf" + std::to_string(8 - i), NodeKind::Backward,
                         256, {d, e[i]}, {1024}))
            .outputs[0];
  g.markRequired(d);
  return g;
}

TEST(OpLevel, ExpChainOptimumByRevolveAndRotor) {
  TrainingGraph g = expChain();
  ASSERT_FALSE(g.verify().has_value());
  EXPECT_EQ(simulate(g, keepEverythingSchedule(g)).peak, 7172);
  BruteForceOptions bf;
  bf.allowDiscard = false; // Op-level: every result is stored.
  // 4100 B: arg0 + loss + three exps: 6 exps recomputed (4 + 3 + 2 + 1
  // forward runs); 5124 B: 2.
  for (auto [budget, time] : {std::pair<int64_t, double>{4100, 11776},
                              {5124, 7680}}) {
    SCOPED_TRACE(budget);
    auto opt = bruteForceOptimum(g, budget, bf);
    ASSERT_TRUE(opt && opt->feasible);
    EXPECT_EQ(opt->time, time);
    SolveOptions o;
    o.budget = budget;
    for (const char *name : {"revolve", "chain-rotor", "auto"}) {
      Solution s = solve(g, name, o);
      ASSERT_TRUE(s.feasible) << name << ": " << s.reason;
      EXPECT_EQ(s.sim.time, time) << name;
    }
  }
  // Below, the optimum computes the 4-byte loss last (all exps once more):
  // no chain schedule can, the chain model runs the loss stage before the
  // backward pass. 4000 B fit nothing.
  auto late = bruteForceOptimum(g, 4099, bf);
  ASSERT_TRUE(late && late->feasible);
  EXPECT_EQ(late->time, 14848);
  EXPECT_FALSE(bruteForceOptimum(g, 4000, bf)->feasible);
  SolveOptions o;
  o.budget = 4099;
  EXPECT_FALSE(solve(g, "chain-rotor", o).feasible);
}

// The backward of exp reads its output a^l only: it moves up one stage,
// where a^l is the input, so B^l needs no F_all^l (no tape).
TEST(OpLevel, ExpChainViewHasNoTape) {
  TrainingGraph g = expChain();
  auto view = extractChain(g);
  ASSERT_TRUE(view);
  ASSERT_EQ(view->length(), 4);
  EXPECT_TRUE(view->backward[1].empty());
  for (int l = 1; l <= 4; ++l)
    EXPECT_FALSE(view->spec.stages[l - 1].tape) << l;
  EXPECT_TRUE(view->spec.loss.tape);
  EXPECT_EQ(view->backward[5].size(), 1u); // mulf5 reads exp3 = a^4.
  // The gradients pass through B^1 unchanged: o_b = -delta^1 there.
  EXPECT_EQ(view->spec.stages[0].ob, -view->spec.stages[0].delta);
}

// Coarsened chains stay valid, bounded by their model, and their plans fit.
TEST(OpLevel, CoarsenedChainsKeepTheModelBound) {
  TrainingGraph g = resnetLike(1500);
  auto full = extractChain(g);
  ASSERT_TRUE(full);
  ASSERT_GT(full->length(), 40);
  const int64_t peak = simulate(g, keepEverythingSchedule(g)).peak;
  for (int stages : {32, 8}) {
    SCOPED_TRACE(stages);
    auto view = extractChain(g, nullptr, stages);
    ASSERT_TRUE(view);
    EXPECT_LE(view->length(), stages);
    ChainGraph cg = buildChainGraph(view->spec);
    ChainView cview = chainGraphView(cg, view->spec);
    for (int pct : {50, 70, 90}) {
      ChainPlan plan = rotorPersistentPlan(view->spec, peak * pct / 100, 200);
      if (!plan.feasible)
        continue;
      SimulationResult chain = simulate(
          cg.graph, expandChainSchedule(cg.graph, cview, plan.ops));
      SimulationResult real =
          simulate(g, expandChainSchedule(g, *view, plan.ops));
      ASSERT_TRUE(real.valid) << real.error;
      EXPECT_LE(real.peak, chain.peak);
      EXPECT_DOUBLE_EQ(real.time, chain.time);
    }
    SolveOptions o;
    o.budget = peak * 7 / 10;
    o.maxChainStages = stages;
    Solution s = solve(g, "chain-rotor", o);
    EXPECT_TRUE(s.feasible) << s.reason;
  }
}

// Reordering a backward group never raises the peak of the schedule (the
// whole backward pass as one group after keeping every forward value), and
// it lowers it where transposes wait next to each other.
TEST(OpLevel, LowMemoryOrderNeverRaisesThePeak) {
  int lower = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE(seed);
    RandomBranchyOptions ro;
    ro.maxWorkspace = 3;
    TrainingGraph g = randomBranchyDag(seed, 4 + seed % 9, ro);
    std::vector<NodeId> fwd, bwd;
    for (NodeId v : g.defaultOrder())
      (g.isForward(v) ? fwd : bwd).push_back(v);
    Schedule given, ordered;
    for (NodeId v : fwd)
      given.run(v), ordered.run(v);
    for (NodeId v : bwd)
      given.run(v);
    for (NodeId v : lowMemoryOrder(g, bwd))
      ordered.run(v);
    SimulationResult a = simulate(g, given.withEagerFrees(g));
    SimulationResult b = simulate(g, ordered.withEagerFrees(g));
    ASSERT_TRUE(b.valid) << b.error;
    EXPECT_LE(b.peak, a.peak);
    lower += b.peak < a.peak;
  }
  EXPECT_GT(lower, 0);
}

// auto skips what its estimates say does not fit SolveOptions::timeBudget,
// says so, and still returns a schedule within budget; decisions depend on
// the graph only.
TEST(OpLevel, AutoSkipsExpensiveStrategiesWithANote) {
  TrainingGraph g = resnetLike(3000);
  const int64_t peak = simulate(g, keepEverythingSchedule(g)).peak;
  SolveOptions o;
  o.budget = peak * 7 / 10;
  o.timeBudget = 0.2;
  std::vector<std::string> notes;
  o.note = [&](const std::string &n) { notes.push_back(n); };
  Solution s = solve(g, "auto", o);
  ASSERT_TRUE(s.feasible) << s.reason;
  EXPECT_LE(s.sim.peak, o.budget);
  bool skipped = false, coarse = false;
  for (const std::string &n : notes) {
    skipped |= n.find("auto: skipped") != std::string::npos &&
               n.find("lowerset-exact") != std::string::npos;
    coarse |= n.find("coarsened") != std::string::npos;
  }
  EXPECT_TRUE(skipped);
  EXPECT_TRUE(coarse);
  o.note = nullptr;
  Solution again = solve(g, "auto", o);
  EXPECT_EQ(again.chosen, s.chosen);
  EXPECT_EQ(again.schedule, s.schedule);
}

// Small graphs: every strategy runs (no skip note) and auto is at least as
// fast as each of them.
TEST(OpLevel, AutoRunsEverythingOnSmallGraphs) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    TrainingGraph g = randomTrainingDag(seed, 6 + seed % 6);
    const int64_t peak = simulate(g, keepEverythingSchedule(g)).peak;
    SolveOptions o;
    o.budget = inputBytes(g) + (peak - inputBytes(g)) * 3 / 4;
    std::vector<std::string> notes;
    o.note = [&](const std::string &n) { notes.push_back(n); };
    Solution a = solve(g, "auto", o);
    for (const std::string &n : notes)
      EXPECT_EQ(n.find("skipped"), std::string::npos) << n;
    o.note = nullptr;
    for (const StrategyInfo &info : allStrategies()) {
      // auto runs the MILP with a bounded search (MILPTest compares them);
      // it does not weigh host copies (issue 51).
      if (info.name == "auto" || info.name == "checkmate-milp" ||
          info.plansHostCopies)
        continue;
      Solution s = solve(g, info.name, o);
      if (s.feasible) {
        ASSERT_TRUE(a.feasible) << info.name;
        EXPECT_LE(a.sim.time, s.sim.time) << info.name;
      }
    }
  }
}

// The thinned L_v family and the step window still give valid plans.
TEST(OpLevel, ThinnedLowerSetFamilies) {
  TrainingGraph g = googlenetLike(300);
  LowerSetModel m(g);
  const int64_t peak = simulate(g, keepEverythingSchedule(g)).peak;
  for (int keep : {0, 40, 10}) {
    LowerSetFamily fam = prunedLowerSets(m, keep);
    if (keep)
      EXPECT_LE(fam.size(), keep + 2);
    for (int window : {0, 16}) {
      fam.maxStep = window;
      LowerSetPlan p = solveLowerSetDP(m, fam, LowerSetObjective::MinOverhead,
                                       peak * 9 / 10);
      if (!p.feasible)
        continue;
      SimulationResult sim = simulate(g, m.canonicalSchedule(p.sets));
      ASSERT_TRUE(sim.valid) << sim.error;
      EXPECT_LE(sim.peak, p.peak); // The model bounds the canonical schedule.
    }
  }
}

} // namespace
