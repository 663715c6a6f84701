//===- SizedMILPTest.cpp - Sizes chosen inside checkmate-milp's model -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Oracle: the same MILP solved at every combination of the parts' choices
// (same order, each proven optimal). Choosing the sizes inside the model
// must find the best of them, and its schedule must be what the Simulator
// measures on the graph at the choices it took.

#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/MILP/CheckmateMILP.h"
#include "remat/Solver/Portfolio/SizedSolve.h"
#include "remat/Solver/Testing/RandomGraphs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace remat;

namespace {

/// One or two sized parts on random computed tensors of `g` (never a
/// required one: those are held to the end, the model's constants); the
/// first also sizes a random node's time. Bytes drawn per choice, the
/// node's time raised by 0-6.
std::vector<SizedPart> randomParts(const TrainingGraph &g, std::mt19937 &rng) {
  std::vector<TensorId> computed;
  for (TensorId t = 0; t < g.numTensors(); ++t)
    if (!g.isInput(t) && !g.isRequired(t))
      computed.push_back(t);
  std::shuffle(computed.begin(), computed.end(), rng);
  const size_t numParts = std::min<size_t>(1 + rng() % 2, computed.size());
  std::vector<SizedPart> parts(numParts);
  for (size_t p = 0; p < numParts; ++p) {
    SizedPart &part = parts[p];
    part.tensors = {computed[p]};
    if (p == 0)
      part.node = static_cast<NodeId>(rng() % g.numNodes());
    const int choices = 2 + rng() % 3;
    for (int c = 0; c < choices; ++c) {
      SizedPart::Choice ch;
      ch.value = c;
      ch.bytes = {static_cast<int64_t>(1 + rng() % 16)};
      ch.time = part.node == kNone ? 0 : g.node(part.node).time + rng() % 7;
      part.choices.push_back(ch);
    }
  }
  return parts;
}

/// Every combination of choices, the first part's fastest-varying.
std::vector<std::vector<int>> combinations(const std::vector<SizedPart> &parts) {
  std::vector<std::vector<int>> all{{}};
  for (const SizedPart &p : parts) {
    std::vector<std::vector<int>> next;
    for (const std::vector<int> &prefix : all)
      for (size_t c = 0; c < p.choices.size(); ++c) {
        next.push_back(prefix);
        next.back().push_back(static_cast<int>(c));
      }
    all = std::move(next);
  }
  return all;
}

TEST(SizedMILP, FindsTheBestCombinationOfChoices) {
  std::mt19937 rng(11);
  int compared = 0, notFirst = 0;
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    TrainingGraph g = randomTrainingDag(seed, 3 + seed % 3);
    std::vector<SizedPart> parts = randomParts(g, rng);
    ASSERT_FALSE(verifySizedParts(g, parts));
    std::vector<std::vector<int>> combos = combinations(parts);
    // Budgets from below the smallest peak to above the largest.
    int64_t most = 0;
    for (const std::vector<int> &c : combos) {
      TrainingGraph at = withSizes(g, parts, c);
      most = std::max(most, simulate(at, keepEverythingSchedule(at)).peak);
    }
    for (int64_t budget = most / 2; budget <= most; budget += most / 8 + 1) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " budget " +
                   std::to_string(budget));
      CheckmateOptions o;
      o.budget = budget;
      o.seconds = 30;
      o.order = g.defaultOrder();
      std::unique_ptr<milp::Backend> cbc = milp::createCbcBackend();
      // The oracle: the best over every fixed combination.
      std::optional<double> best;
      std::vector<int> bestPicks;
      for (const std::vector<int> &c : combos) {
        CheckmateResult r = solveCheckmate(withSizes(g, parts, c), o, *cbc);
        ASSERT_NE(r.status, milp::Status::Unknown);
        if (r.schedule && (!best || r.time < *best - 1e-9)) {
          best = r.time;
          bestPicks = c;
        }
      }
      o.sized = &parts;
      CheckmateResult joint = solveCheckmate(g, o, *cbc);
      ASSERT_EQ(joint.schedule.has_value(), best.has_value());
      if (!best)
        continue;
      ASSERT_EQ(joint.status, milp::Status::Optimal);
      ASSERT_EQ(joint.picks.size(), parts.size());
      EXPECT_NEAR(joint.time, *best, 1e-6 * *best);
      SimulationResult sim =
          simulate(withSizes(g, parts, joint.picks), *joint.schedule);
      EXPECT_TRUE(sim.valid) << sim.error;
      EXPECT_LE(sim.peak, budget);
      EXPECT_NEAR(sim.time, joint.time, 1e-9 * joint.time);
      ++compared;
      notFirst += bestPicks != combos.front();
    }
  }
  std::printf("%d budgets compared, %d best at another combination than the "
              "first\n", compared, notFirst);
  EXPECT_GE(compared, 40);
  // The best combination is not always the first one (the test can tell).
  EXPECT_GE(notFirst, 5);
}

TEST(SizedMILP, WarmStartAtOtherChoicesNeverWorse) {
  std::mt19937 rng(5);
  int used = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    TrainingGraph g = randomTrainingDag(seed, 4);
    std::vector<SizedPart> parts = randomParts(g, rng);
    std::vector<int> warmPicks(parts.size(), 0);
    TrainingGraph warmGraph = withSizes(g, parts, warmPicks);
    Schedule warm = keepEverythingSchedule(warmGraph);
    SimulationResult w = simulate(warmGraph, warm);
    SolveOptions o;
    o.budget = w.peak;
    o.milpSeconds = 30;
    o.warmStart = std::make_shared<Schedule>(warm);
    SizedSolution s = solveSized(g, parts, "checkmate-milp", o, warmPicks);
    ASSERT_TRUE(s.solution.feasible) << s.solution.reason;
    EXPECT_LE(s.solution.sim.time, w.time + 1e-9);
    EXPECT_LE(s.solution.sim.peak, o.budget);
    // The Simulator's figures are those of the graph at the picks.
    SimulationResult again =
        simulate(withSizes(g, parts, s.picks), s.solution.schedule);
    EXPECT_EQ(again.peak, s.solution.sim.peak);
    used += s.picks != warmPicks;
  }
  EXPECT_GE(used, 1); // Some warm choice was not the best.
}

TEST(SizedMILP, OnlyStrategiesWithAModelChooseSizes) {
  TrainingGraph g = randomTrainingDag(3, 4);
  std::mt19937 rng(1);
  std::vector<SizedPart> parts = randomParts(g, rng);
  SolveOptions o;
  EXPECT_NE(sizingStrategy(g, "checkmate-milp", o), nullptr);
  EXPECT_NE(sizingStrategy(g, "auto", o), nullptr); // Small: it refines.
  o.autoMILP = false;
  EXPECT_EQ(sizingStrategy(g, "auto", o), nullptr);
  EXPECT_EQ(sizingStrategy(g, "lowerset-exact", o), nullptr);
  SizedSolution s = solveSized(g, parts, "lowerset-exact", o, {});
  EXPECT_FALSE(s.solution.feasible);
  EXPECT_NE(s.solution.reason.find("no model that chooses sizes"),
            std::string::npos);
}

TEST(SizedMILP, RejectsPartsThatDoNotFitTheGraph) {
  TrainingGraph g = randomTrainingDag(2, 3);
  SizedPart input;
  input.tensors = {0}; // A graph input.
  input.choices = {{0, {8}, 0}};
  EXPECT_TRUE(verifySizedParts(g, {input}));
  SizedPart noChoice;
  EXPECT_TRUE(verifySizedParts(g, {noChoice}));
  SizedPart wrongArity;
  wrongArity.tensors = {g.node(0).outputs[0]};
  wrongArity.choices = {{0, {}, 0}};
  EXPECT_TRUE(verifySizedParts(g, {wrongArity}));
  SolveOptions o;
  SizedSolution s = solveSized(g, {input}, "checkmate-milp", o, {0});
  EXPECT_FALSE(s.solution.feasible);
  EXPECT_NE(s.solution.reason.find("graph input"), std::string::npos);
}

} // namespace
