//===- ChainViewTest.cpp - Chain extraction and expansion -----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Chain/ChainView.h"
#include "remat/Solver/Chain/ChainSolvers.h"
#include "remat/Solver/Testing/ModelGraphs.h"
#include "remat/Solver/Testing/RandomGraphs.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/Strategy.h"

#include <gtest/gtest.h>

#include <random>

using namespace remat;

namespace {

// Random specs exercising every field: abar below a (measured tables have
// it), delta unlike a, workspaces, and a loss stage with real costs.
ChainSpec anySpec(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto r = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng() % uint64_t(hi - lo + 1));
  };
  ChainSpec c;
  c.a0 = r(1, 9);
  c.delta0 = r(0, 9);
  int L = static_cast<int>(r(1, 9));
  for (int l = 0; l < L; ++l) {
    ChainStage s;
    s.uf = static_cast<double>(r(0, 7)) / 2;
    s.ub = static_cast<double>(r(0, 7)) / 2;
    s.a = r(1, 9);
    s.abar = s.a + r(-2, 5);
    s.delta = r(0, 9);
    s.of = r(0, 4);
    s.ob = r(0, 4);
    c.stages.push_back(s);
  }
  if (r(0, 1)) {
    c.loss.uf = 1.5;
    c.loss.ub = 2;
    c.loss.abar = r(0, 5); // Its a is never a checkpoint: keep it 0.
    c.loss.of = r(0, 3);
    c.loss.ob = r(0, 3);
  }
  return c;
}

void expectSameSpec(const ChainSpec &want, const ChainSpec &got) {
  ASSERT_EQ(got.length(), want.length());
  EXPECT_EQ(got.a0, want.a0);
  EXPECT_EQ(got.delta0, want.delta0);
  auto same = [](const ChainStage &w, const ChainStage &g, int l) {
    EXPECT_DOUBLE_EQ(g.uf, w.uf) << "stage " << l;
    EXPECT_DOUBLE_EQ(g.ub, w.ub) << "stage " << l;
    EXPECT_EQ(g.a, w.a) << "stage " << l;
    EXPECT_EQ(g.abar, std::max(w.a, w.abar)) << "stage " << l;
    EXPECT_EQ(g.of, w.of) << "stage " << l;
    EXPECT_EQ(g.ob, w.ob) << "stage " << l;
  };
  for (int l = 0; l < want.length(); ++l) {
    same(want.stages[l], got.stages[l], l + 1);
    EXPECT_EQ(got.stages[l].delta, want.stages[l].delta) << "stage " << l + 1;
  }
  same(want.loss, got.loss, want.length() + 1);
}

TEST(ChainView, RoundTripOfChainGraphs) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE(seed);
    ChainSpec spec = anySpec(seed);
    ChainGraph cg = buildChainGraph(spec);
    std::string why;
    auto view = extractChain(cg.graph, &why);
    ASSERT_TRUE(view.has_value()) << why;
    expectSameSpec(spec, view->spec);
    for (int l = 1; l <= spec.length() + 1; ++l) {
      EXPECT_EQ(view->forward[l], std::vector<NodeId>{cg.forward[l]});
      EXPECT_EQ(view->backward[l], std::vector<NodeId>{cg.backward[l]});
      EXPECT_TRUE(view->discard[l]);
      if (l <= spec.length()) {
        EXPECT_EQ(view->cut[l], cg.a[l]);
      }
    }
  }
}

// F_ck / F_none discard r^l on stage-level nodes; F_all keeps it.
TEST(ChainView, ExpansionOfStageLevelOps) {
  ChainSpec spec = randomChain(7, 2);
  ChainGraph cg = buildChainGraph(spec);
  auto view = extractChain(cg.graph);
  ASSERT_TRUE(view);
  ChainOps ops = {{ChainOp::FCheck, 1},   {ChainOp::FAll, 2},
                  {ChainOp::FAll, 3},     {ChainOp::Backward, 3},
                  {ChainOp::Backward, 2}, {ChainOp::FAll, 1},
                  {ChainOp::Backward, 1}};
  EXPECT_EQ(chainOpsString(ops), "Fck1 Fall2 Fall3 B3 B2 Fall1 B1");
  Schedule s = expandChainSchedule(cg.graph, *view, ops);
  SimulationResult sim = simulate(cg.graph, s);
  ASSERT_TRUE(sim.valid) << sim.error << "\n" << s.str(cg.graph);
  EXPECT_DOUBLE_EQ(sim.time, chainOpsTime(spec, ops));
  EXPECT_EQ(s.steps()[0], Step::run(cg.forward[1], {cg.residual[1]}));
  EXPECT_EQ(s.runCounts(cg.graph)[cg.forward[1]], 2);
}

// Every forward boundary crosses two values: no stage structure at all.
TEST(ChainView, NoCutPointIsNotAChain) {
  TrainingGraph g;
  TensorId x = g.addInput("x", 4);
  NodeId f1 = g.addNode("f1", NodeKind::Forward, 1, {x}, {2, 2});
  TensorId y1a = g.node(f1).outputs[0], y1b = g.node(f1).outputs[1];
  NodeId f2 = g.addNode("f2", NodeKind::Forward, 1, {y1a}, {2});
  TensorId y2 = g.node(f2).outputs[0];
  NodeId f3 = g.addNode("f3", NodeKind::Forward, 1, {y1b, y2}, {2});
  TensorId y3 = g.node(f3).outputs[0];
  NodeId f4 = g.addNode("f4", NodeKind::Forward, 1, {y2, y3}, {1});
  NodeId b = g.addNode("b", NodeKind::Backward, 1,
                       {g.node(f4).outputs[0], y1a, y1b, y2, y3, x}, {4});
  g.markRequired(g.node(b).outputs[0]);
  std::string why;
  EXPECT_FALSE(extractChain(g, &why).has_value());
  EXPECT_NE(why.find("cut point"), std::string::npos) << why;
  SolveOptions o;
  for (const char *name : {"chain-rotor", "chain-rotor-weak", "revolve"}) {
    Solution s = solve(g, name, o);
    EXPECT_FALSE(s.feasible);
    EXPECT_NE(s.reason.find("not applicable"), std::string::npos) << s.reason;
  }
}

TEST(ChainView, MalformedGraphIsRejected) {
  TrainingGraph g;
  TensorId x = g.addInput("x", 1);
  g.addNode("f", NodeKind::Forward, -1, {x}, {1});
  std::string why;
  EXPECT_FALSE(extractChain(g, &why).has_value());
  EXPECT_NE(why.find("malformed"), std::string::npos);
}

// An MLP built like autodiff: stages are single ops here, their backward
// reads the stage's input (matmul) or its output (relu), parameter gradients
// pile up as the backward pass goes.
TEST(ChainView, OpLevelStagesAndAccumulatingGradients) {
  ForwardGraphBuilder b;
  TensorId x = b.input("x", 10, false);
  TensorId w1 = b.input("w1", 3, true), w2 = b.input("w2", 3, true);
  TensorId h = b.value("mm1", "linalg.matmul", 10, {x, w1}, 8);
  TensorId r = b.value("relu", "relu", 1, {h}, 8, false, true);
  TensorId o = b.value("mm2", "linalg.matmul", 10, {r, w2}, 6);
  TensorId loss = b.value("loss", "sum", 1, {o}, 1);
  TrainingGraph g = b.build(loss);
  std::string why;
  auto view = extractChain(g, &why);
  ASSERT_TRUE(view) << why;
  // Cuts: r, o; the loss op is the loss stage. relu's backward reads only
  // r, so it moves up to mm2's stage (reading its input); mm1's stage is
  // then left without backward and joins relu's (h becomes internal).
  ASSERT_EQ(view->length(), 2);
  EXPECT_EQ(view->cut[1], r);
  EXPECT_EQ(view->cut[2], o);
  EXPECT_EQ(view->forward[1], (std::vector<NodeId>{g.tensor(h).producer,
                                                   g.tensor(r).producer}));
  // No backward reads a value of its own stage: the loss's backward (it
  // reads o) moved up to the loss stage too.
  EXPECT_FALSE(view->spec.stages[0].tape);
  EXPECT_FALSE(view->spec.stages[1].tape);
  EXPECT_EQ(view->spec.a0, 16);
  for (int l = 1; l <= 3; ++l)
    EXPECT_FALSE(view->discard[l]) << l; // Op-level: never discard.
  // The required loss value lives from the loss stage to the end, and the
  // gradients of w2 (3 bytes, made by mm2's backward) from stage 3 down.
  EXPECT_GE(view->spec.delta0, 1 + 3 + 3);
  Schedule s = expandChainSchedule(g, *view,
                                   {{ChainOp::FAll, 1},
                                    {ChainOp::FAll, 2},
                                    {ChainOp::FAll, 3},
                                    {ChainOp::Backward, 3},
                                    {ChainOp::Backward, 2},
                                    {ChainOp::Backward, 1}});
  SimulationResult sim = simulate(g, s);
  ASSERT_TRUE(sim.valid) << sim.error;
  EXPECT_EQ(sim.peak, simulate(g, keepEverythingSchedule(g)).peak);
}

// The chain model must never under-estimate an op-level graph: simulate the
// rotor plan on the graph and on the stage-level graph of its chain view.
void expectModelBoundsGraph(const TrainingGraph &g, const ChainView &view,
                            int64_t budget, int slots) {
  for (RotorModel model : {RotorModel::Paper, RotorModel::Graph}) {
    ChainPlan plan = rotorPersistentPlan(view.spec, budget, slots, model);
    if (view.length() <= 8 && model == RotorModel::Graph)
      plan = rotorWeakPlan(view.spec, budget, slots, model);
    if (!plan.feasible)
      continue;
    ChainGraph cg = buildChainGraph(view.spec);
    ChainView cview = chainGraphView(cg, view.spec);
    SimulationResult chain =
        simulate(cg.graph, expandChainSchedule(cg.graph, cview, plan.ops));
    SimulationResult real = simulate(g, expandChainSchedule(g, view, plan.ops));
    ASSERT_TRUE(chain.valid) << chain.error;
    ASSERT_TRUE(real.valid) << real.error;
    EXPECT_LE(chain.peak, budget);
    EXPECT_LE(real.peak, chain.peak) << chainOpsString(plan.ops);
    EXPECT_DOUBLE_EQ(real.time, chain.time);
  }
}

TEST(ChainView, ModelBoundsRandomOpLevelDags) {
  int chains = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    SCOPED_TRACE(seed);
    RandomDagOptions o;
    o.costs.maxWorkspace = 2;
    TrainingGraph g = randomTrainingDag(seed, 3 + seed % 12, o);
    auto view = extractChain(g);
    if (!view)
      continue;
    ++chains;
    int64_t peak = simulate(g, keepEverythingSchedule(g)).peak;
    for (int64_t budget = inputBytes(g); budget <= peak;
         budget += std::max<int64_t>(1, (peak - inputBytes(g)) / 7))
      expectModelBoundsGraph(g, *view, budget, 1 << 20);
  }
  EXPECT_GT(chains, 50);
}

TEST(ChainView, ModelBoundsResNetLike) {
  TrainingGraph g = resnetLike(400);
  std::string why;
  auto view = extractChain(g, &why);
  ASSERT_TRUE(view) << why;
  EXPECT_GT(view->length(), 10);
  size_t multi = 0;
  for (int l = 1; l <= view->length(); ++l)
    multi += view->forward[l].size() > 1;
  EXPECT_GT(multi, 0u); // Residual blocks are single stages.
  int64_t peak = simulate(g, keepEverythingSchedule(g)).peak;
  for (int k = 3; k <= 10; ++k)
    expectModelBoundsGraph(g, *view, peak * k / 10, 500);
}

/// Plans of every kind on `view`: revolve with each number of snapshots,
/// rotor's persistent (both models) and weak DPs at chain budgets from the
/// inputs to the chain model's peak, with few and many slots.
std::vector<ChainOps> manyPlans(const TrainingGraph &g, const ChainView &view) {
  std::vector<ChainOps> plans;
  const int steps = view.length() + 1;
  for (int c = 1; c <= steps; ++c)
    plans.push_back(revolveOps(steps, c));
  ChainGraph cg = buildChainGraph(view.spec);
  const int64_t lo = inputBytes(g);
  const int64_t hi = simulate(cg.graph, keepEverythingSchedule(cg.graph)).peak;
  for (int slots : {4, 50})
    for (int64_t b = lo; b <= hi; b += std::max<int64_t>(1, (hi - lo) / 6))
      for (const ChainPlan &p :
           {rotorPersistentPlan(view.spec, b, slots, RotorModel::Paper),
            rotorPersistentPlan(view.spec, b, slots, RotorModel::Graph),
            rotorWeakPlan(view.spec, b, slots)})
        if (p.feasible)
          plans.push_back(p.ops);
  return plans;
}

/// The B steps' stages, in plan order.
std::vector<int> backwardStages(const ChainOps &ops) {
  std::vector<int> stages;
  for (const ChainStep &st : ops)
    if (st.op == ChainOp::Backward)
      stages.push_back(st.stage);
  return stages;
}

// No valid expansion on a view peaks below backwardBlockFloor, whatever the
// plan, and no schedule of the chain strategies below viaChainFloor. Every
// plan runs B^{L+1} .. B^1 in this order, as the floor assumes.
TEST(ChainView, BackwardBlockFloorBoundsEveryPlan) {
  std::vector<TrainingGraph> graphs = {resnetLike(60), unetLike(40)};
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    RandomDagOptions o;
    o.costs.maxWorkspace = 2;
    graphs.push_back(randomTrainingDag(seed, 3 + seed % 10, o));
  }
  int checked = 0, tight = 0;
  for (const TrainingGraph &g : graphs) {
    for (bool move : {true, false}) {
      std::optional<ChainView> view = extractChain(g, nullptr, 0, move);
      if (!view)
        continue;
      const int64_t floor = backwardBlockFloor(g, *view);
      int64_t least = -1;
      std::vector<int> chainOrder;
      for (int l = view->length() + 1; l >= 1; --l)
        chainOrder.push_back(l);
      for (const ChainOps &ops : manyPlans(g, *view)) {
        EXPECT_EQ(backwardStages(ops), chainOrder) << chainOpsString(ops);
        SimulationResult r = simulate(g, expandChainSchedule(g, *view, ops));
        if (!r.valid)
          continue;
        ++checked;
        EXPECT_GE(r.peak, floor) << chainOpsString(ops);
        least = least < 0 ? r.peak : std::min(least, r.peak);
      }
      tight += least == floor;
    }
    const int64_t peak = simulate(g, keepEverythingSchedule(g)).peak;
    for (const char *name :
         {"revolve", "chain-rotor", "chain-rotor-weak", "chain-precise"}) {
      // Each descriptor's floor (chain-precise's is viaChainFloor off the
      // thesis model), for any slots.
      const int64_t floor =
          findStrategy(name)->budgetSearch.floor(g, SolveOptions{});
      if (std::string(name) != "chain-precise")
        EXPECT_EQ(floor, viaChainFloor(g, SolveOptions{}));
      for (int64_t b = inputBytes(g); b <= peak;
           b += std::max<int64_t>(1, (peak - inputBytes(g)) / 8)) {
        SolveOptions o;
        o.budget = b;
        o.slots = 50;
        Solution s = solve(g, name, o);
        if (s.feasible)
          EXPECT_GE(s.sim.peak, floor) << name << " at " << b;
      }
    }
  }
  EXPECT_GT(checked, 500);
  EXPECT_GT(tight, 0); // Reached by some plan on some views.
}

} // namespace
