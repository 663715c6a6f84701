//===- BruteForceTest.cpp - The exhaustive oracle against reasoning -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Testing/BruteForce.h"
#include "remat/Solver/Chain/Chain.h"
#include "remat/Solver/Testing/RandomGraphs.h"
#include "remat/Solver/Core/Simulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <queue>

using namespace remat;

namespace {

// Checks a claimed optimum with the Simulator: valid, time as claimed, peak
// within the budget.
void expectHonest(const TrainingGraph &g, const BruteForceResult &r,
                  int64_t budget) {
  ASSERT_TRUE(r.feasible);
  SimulationResult sim = simulate(g, r.schedule);
  ASSERT_TRUE(sim.valid) << sim.error << "\n" << r.schedule.str(g);
  EXPECT_DOUBLE_EQ(sim.time, r.time);
  EXPECT_LE(sim.peak, budget);
}

// x(1) -f-> y(4) -g-> z(4) -h-> l(1) (the loss); bh reads z, l; bg reads dz,
// y; bf reads dy, x. Without remat the peak is during bh: x+y+z+l+dz = 14.
// bg needs x+y+dz+dy = 13 whatever happens, so 13 is the minimum; reaching it
// means dropping y during bh and recomputing it (+1 for f).
struct ThreeOps {
  TrainingGraph g;
  ThreeOps() {
    TensorId x = g.addInput("x", 1);
    NodeId f = g.addNode("f", NodeKind::Forward, 1, {x}, {4});
    TensorId y = g.node(f).outputs[0];
    NodeId gn = g.addNode("g", NodeKind::Forward, 2, {y}, {4});
    TensorId z = g.node(gn).outputs[0];
    NodeId h = g.addNode("h", NodeKind::Forward, 3, {z}, {1});
    TensorId l = g.node(h).outputs[0];
    NodeId bh = g.addNode("bh", NodeKind::Backward, 1, {z, l}, {4});
    NodeId bg = g.addNode("bg", NodeKind::Backward, 1,
                          {g.node(bh).outputs[0], y}, {4});
    NodeId bf = g.addNode("bf", NodeKind::Backward, 1,
                          {g.node(bg).outputs[0], x}, {1});
    g.markRequired(g.node(bf).outputs[0]);
  }
};

TEST(BruteForce, ThreeOpsOptimaByBudget) {
  ThreeOps t;
  auto at = [&](int64_t b) {
    auto r = bruteForceOptimum(t.g, b, {/*allowDiscard=*/false});
    EXPECT_TRUE(r.has_value());
    return *r;
  };
  BruteForceResult r14 = at(14), r13 = at(13), r12 = at(12);
  expectHonest(t.g, r14, 14);
  EXPECT_DOUBLE_EQ(r14.time, 9); // Every node once.
  expectHonest(t.g, r13, 13);
  EXPECT_DOUBLE_EQ(r13.time, 10); // f runs twice.
  EXPECT_EQ(r13.schedule.runCounts(t.g)[0], 2);
  EXPECT_FALSE(r12.feasible);
}

TEST(BruteForce, InputsAboveBudgetAreInfeasible) {
  ThreeOps t;
  auto r = bruteForceOptimum(t.g, 0);
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->feasible);
}

TEST(BruteForce, GivesUpBeyondMaxStates) {
  ThreeOps t;
  BruteForceOptions o;
  o.maxStates = 2;
  EXPECT_FALSE(bruteForceOptimum(t.g, 14, o).has_value());
}

// The SimulatorTest TwoLayer graph: bg always holds x+y+z+dy = 260, which is
// also the no-remat peak, so 260 is both the minimum and the no-remat budget.
TEST(BruteForce, TwoLayerMinimumIsNoRematPeak) {
  TrainingGraph g;
  TensorId x = g.addInput("x", 10);
  NodeId f = g.addNode("f", NodeKind::Forward, 1, {x}, {100});
  TensorId y = g.node(f).outputs[0];
  NodeId gn = g.addNode("g", NodeKind::Forward, 2, {y}, {50});
  NodeId bg = g.addNode("bg", NodeKind::Backward, 3,
                        {g.node(gn).outputs[0], y}, {100});
  NodeId bf =
      g.addNode("bf", NodeKind::Backward, 4, {g.node(bg).outputs[0], x}, {10}, 7);
  g.markRequired(g.node(bf).outputs[0]);
  auto ok = bruteForceOptimum(g, 260);
  ASSERT_TRUE(ok && ok->feasible);
  expectHonest(g, *ok, 260);
  EXPECT_DOUBLE_EQ(ok->time, 10);
  EXPECT_FALSE(bruteForceOptimum(g, 259)->feasible);
}

// Rotor's Table 2 (same data as SimulatorTest's helper), in kB.
ChainSpec rotorToyChain() {
  const double a[] = {7.63, 9.54, 10.68, 11.06, 10.68, 9.54, 7.63};
  const double abar[] = {7.63, 9.54, 10.68, 11.08, 10.66, 9.54, 7.63};
  const double ob[] = {0, 20.01, 27.64, 30.99, 30.99, 27.64, 19.08};
  const double uf[] = {0, 1.60, 2.20, 2.44, 2.51, 2.10, 1.43};
  const double ub[] = {0, 3.05, 4.48, 5.09, 4.93, 4.21, 3.34};
  auto kb = [](double mb) { return static_cast<int64_t>(mb * 1000 + 0.5); };
  ChainSpec c;
  c.a0 = c.delta0 = kb(a[0]);
  for (int l = 1; l <= 6; ++l)
    c.stages.push_back(ChainStage{uf[l], ub[l], kb(a[l]), kb(abar[l]),
                                  kb(a[l]), 0, kb(ob[l])});
  return c;
}

// Published (Sec. 3.2): 37.4 ms without remat (the table's times add up to
// 37.38); 47.4 ms at 90 MB in rotor's model (see storedWith).
TEST(BruteForce, RotorToyChainPublishedMakespans) {
  ChainGraph cg = buildChainGraph(rotorToyChain());
  BruteForceOptions rotor;
  rotor.storedWith = chainStoredWith(cg);
  auto full = bruteForceOptimum(cg.graph, 107010, rotor);
  ASSERT_TRUE(full && full->feasible);
  EXPECT_NEAR(full->time, 37.38, 1e-9);
  auto r90 = bruteForceOptimum(cg.graph, 90000, rotor);
  ASSERT_TRUE(r90 && r90->feasible);
  expectHonest(cg.graph, *r90, 90000);
  // The paper's sequence (with F_none^3 for its typo F_all^3) recomputes
  // F1 F2 F3 and then F1 F2: 37.38 + 6.24 + 3.80 = 47.42, printed as 47.4.
  EXPECT_NEAR(r90->time, 47.42, 1e-9);
  // The schedule keeps r^l only while a^l and a^{l-1} are stored.
  std::vector<char> live(cg.graph.numTensors(), 0);
  live[cg.a[0]] = 1; // The input.
  for (const Step &s : r90->schedule.steps()) {
    if (s.isFree())
      live[s.id] = 0;
    else
      for (TensorId t : cg.graph.node(s.id).outputs)
        if (std::find(s.discard.begin(), s.discard.end(), t) == s.discard.end())
          live[t] = 1;
    for (int l = 1; l <= cg.length + 1; ++l)
      EXPECT_FALSE(live[cg.residual[l]] && (!live[cg.a[l]] || !live[cg.a[l - 1]]))
          << "stage " << l;
  }
  // The Simulator alone lets r^l outlive a^l or a^{l-1}, a relaxation that
  // can only be cheaper.
  auto relaxed = bruteForceOptimum(cg.graph, 90000);
  ASSERT_TRUE(relaxed && relaxed->feasible);
  expectHonest(cg.graph, *relaxed, 90000);
  EXPECT_LT(relaxed->time, r90->time);
}

// An independent, unpruned Dijkstra straight from the Simulator's rules:
// every valid Run (any discard subset) or Free is an edge. It checks that the
// oracle's prunings (useless nodes, dead-tensor frees) lose nothing.
double naiveOptimum(const TrainingGraph &g, int64_t budget, bool discard,
                    const std::vector<std::pair<TensorId, TensorId>> &with = {}) {
  using State = std::pair<uint64_t, uint64_t>; // live tensors, ran nodes
  uint64_t start = 0;
  for (TensorId t = 0; t < g.numTensors(); ++t)
    if (g.isInput(t))
      start |= uint64_t(1) << t;
  auto bytes = [&](uint64_t live) {
    int64_t s = 0;
    for (TensorId t = 0; t < g.numTensors(); ++t)
      if (live >> t & 1)
        s += g.tensor(t).bytes;
    return s;
  };
  if (bytes(start) > budget)
    return -1;
  std::map<State, double> dist;
  using Item = std::pair<double, State>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> q;
  dist[{start, 0}] = 0;
  q.push({0, {start, 0}});
  while (!q.empty()) {
    auto [d, s] = q.top();
    q.pop();
    if (d > dist[s])
      continue;
    auto [live, ran] = s;
    bool done = ran == (uint64_t(1) << g.numNodes()) - 1;
    for (TensorId t : g.requiredOutputs())
      done = done && (live >> t & 1);
    if (done)
      return d;
    auto push = [&](State ns, double nd) {
      for (auto [t, host] : with)
        if ((ns.first >> t & 1) && !(ns.first >> host & 1))
          return;
      auto it = dist.find(ns);
      if (it == dist.end() || nd < it->second) {
        dist[ns] = nd;
        q.push({nd, ns});
      }
    };
    for (TensorId t = 0; t < g.numTensors(); ++t)
      if ((live >> t & 1) && !g.isInput(t) && !g.isRequired(t))
        push({live & ~(uint64_t(1) << t), ran}, d);
    for (NodeId n = 0; n < g.numNodes(); ++n) {
      const Node &node = g.node(n);
      bool once = node.kind == NodeKind::Backward || !node.recomputable;
      if (once && (ran >> n & 1))
        continue;
      bool ready = true;
      for (TensorId t : node.inputs)
        ready = ready && (live >> t & 1);
      if (!ready)
        continue;
      size_t k = node.outputs.size();
      for (uint64_t sub = 0; sub < (discard ? uint64_t(1) << k : 1); ++sub) {
        uint64_t stored = 0;
        for (size_t i = 0; i < k; ++i)
          if (!(sub >> i & 1))
            stored |= uint64_t(1) << node.outputs[i];
        if (stored & live)
          continue;
        int64_t during = bytes(live) + bytes(stored) + node.workspace;
        if (during <= budget)
          push({live | stored, ran | uint64_t(1) << n}, d + node.time);
        // In place: the overwritten input freed right after the run.
        TensorId over = node.overwrites;
        if (over != kNone && !g.isInput(over) && !g.isRequired(over) &&
            (stored >> node.outputs.front() & 1) &&
            during - g.inPlaceBytes(node) <= budget)
          push({(live | stored) & ~(uint64_t(1) << over), ran | uint64_t(1) << n},
               d + node.time);
      }
    }
  }
  return -1;
}

TEST(BruteForce, MatchesUnprunedSearchOnRandomChains) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    RandomCostOptions o;
    o.maxWorkspace = 2;
    ChainGraph cg = buildChainGraph(randomChain(seed, 1 + seed % 3, o));
    const TrainingGraph &g = cg.graph;
    int64_t full = simulate(g, keepEverythingSchedule(g)).peak;
    BruteForceOptions rotor;
    rotor.storedWith = chainStoredWith(cg);
    for (int64_t b = inputBytes(g); b <= full; ++b) {
      for (const BruteForceOptions &o : {BruteForceOptions{}, rotor}) {
        auto r = bruteForceOptimum(g, b, o);
        ASSERT_TRUE(r.has_value());
        double naive = naiveOptimum(g, b, true, o.storedWith);
        ASSERT_EQ(r->feasible, naive >= 0) << "seed " << seed << " budget " << b;
        if (r->feasible) {
          EXPECT_DOUBLE_EQ(r->time, naive) << "seed " << seed << " budget " << b;
          expectHonest(g, *r, b);
        }
      }
    }
  }
}

TEST(BruteForce, MatchesUnprunedSearchOnRandomDags) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    TrainingGraph g = randomTrainingDag(seed, 2 + seed % 2);
    ASSERT_FALSE(g.verify().has_value()) << *g.verify();
    int64_t full = simulate(g, keepEverythingSchedule(g)).peak;
    for (int64_t b = inputBytes(g); b <= full; ++b) {
      auto r = bruteForceOptimum(g, b, {/*allowDiscard=*/false});
      ASSERT_TRUE(r.has_value());
      double naive = naiveOptimum(g, b, false);
      ASSERT_EQ(r->feasible, naive >= 0) << "seed " << seed << " budget " << b;
      if (r->feasible) {
        EXPECT_DOUBLE_EQ(r->time, naive) << "seed " << seed << " budget " << b;
        expectHonest(g, *r, b);
      }
    }
  }
}

// Random DAGs with in-place nodes (Node::overwrites: a node writes its
// first output over one of its inputs, picked at random, when that input
// dies there): the oracle matches the unpruned search, the Simulator holds
// its schedules to the budget, nothing fits below peakLowerBound, and the
// credit lets some budget fit that the same graph without it cannot.
TEST(BruteForce, InPlaceNodesMatchUnprunedSearch) {
  int helped = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    TrainingGraph plain = randomTrainingDag(seed, 2 + seed % 2);
    TrainingGraph g = plain;
    uint64_t pick = seed * 0x9E3779B97F4A7C15ULL;
    for (NodeId n = 0; n < g.numNodes(); ++n, pick = pick * 6364136223846793005ULL + 1) {
      std::vector<TensorId> ins;
      for (TensorId t : g.node(n).inputs)
        if (!g.isInput(t))
          ins.push_back(t);
      if (!ins.empty() && (pick >> 33) % 3 != 0)
        g.node(n).overwrites = ins[(pick >> 40) % ins.size()];
    }
    ASSERT_FALSE(g.verify().has_value()) << *g.verify();
    int64_t full = simulate(g, keepEverythingSchedule(g)).peak;
    bool fitted = false;
    for (int64_t b = inputBytes(g); b <= full; ++b) {
      auto r = bruteForceOptimum(g, b, {/*allowDiscard=*/false});
      ASSERT_TRUE(r.has_value());
      double naive = naiveOptimum(g, b, false);
      ASSERT_EQ(r->feasible, naive >= 0) << "seed " << seed << " budget " << b;
      if (!r->feasible)
        continue;
      EXPECT_DOUBLE_EQ(r->time, naive) << "seed " << seed << " budget " << b;
      expectHonest(g, *r, b);
      if (!fitted) {
        fitted = true;
        EXPECT_GE(b, peakLowerBound(g)) << "seed " << seed;
        auto without = bruteForceOptimum(plain, b, {false});
        helped += without && !without->feasible;
      }
    }
  }
  EXPECT_GT(helped, 0); // In-place writes lower some smallest budget.
}

// At the no-remat peak every node runs once (the optimum is the base time),
// and the optimum never gets cheaper as the budget shrinks.
TEST(BruteForce, BaseTimeAtNoRematPeakAndMonotoneInBudget) {
  for (uint64_t seed = 100; seed < 120; ++seed) {
    TrainingGraph g = randomTrainingDag(seed, 4);
    int64_t full = simulate(g, keepEverythingSchedule(g)).peak;
    auto top = bruteForceOptimum(g, full, {false});
    ASSERT_TRUE(top && top->feasible);
    EXPECT_DOUBLE_EQ(top->time, g.baseTime());
    double prev = top->time;
    for (int64_t b = full - 1; b >= inputBytes(g); --b) {
      auto r = bruteForceOptimum(g, b, {false});
      ASSERT_TRUE(r.has_value());
      if (!r->feasible)
        break;
      expectHonest(g, *r, b);
      EXPECT_GE(r->time, prev);
      prev = r->time;
    }
  }
}

// peakLowerBound() is a floor: the brute-force optimum is infeasible below
// it, on chains (with workspace) and on DAGs. minimumBudget() starts its
// search there.
TEST(BruteForce, NothingFitsBelowPeakLowerBound) {
  int tight = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    RandomCostOptions o;
    o.maxWorkspace = 2;
    TrainingGraph g =
        seed % 2 ? buildChainGraph(randomChain(seed, 1 + seed % 4, o)).graph
                 : randomTrainingDag(seed, 2 + seed % 3);
    int64_t bound = peakLowerBound(g);
    EXPECT_GE(bound, inputBytes(g));
    int64_t least = -1;
    int64_t full = simulate(g, keepEverythingSchedule(g)).peak;
    for (int64_t b = inputBytes(g); b <= full && least < 0; ++b) {
      auto r = bruteForceOptimum(g, b, {/*allowDiscard=*/false});
      ASSERT_TRUE(r.has_value());
      if (r->feasible)
        least = b;
    }
    ASSERT_GE(least, 0) << "seed " << seed;
    EXPECT_GE(least, bound) << "seed " << seed;
    tight += least == bound;
  }
  EXPECT_GT(tight, 0); // The bound is reached on some graphs.
}

TEST(RandomGraphs, DeterministicAndWellFormed) {
  EXPECT_EQ(randomChain(7, 5).stages.size(), 5u);
  EXPECT_EQ(randomChain(7, 5).stages[3].abar, randomChain(7, 5).stages[3].abar);
  std::vector<ChainSpec> join = randomJoin(3, 3, 4);
  ASSERT_EQ(join.size(), 3u);
  for (const ChainSpec &c : join) {
    EXPECT_GE(c.length(), 1);
    EXPECT_LE(c.length(), 4);
  }
  for (uint64_t seed = 0; seed < 50; ++seed) {
    TrainingGraph g = randomTrainingDag(seed, 6);
    ASSERT_FALSE(g.verify().has_value()) << *g.verify();
    EXPECT_EQ(g.requiredOutputs().size(), 1u);
    EXPECT_TRUE(simulate(g, keepEverythingSchedule(g)).valid);
    TrainingGraph h = randomTrainingDag(seed, 6);
    EXPECT_EQ(g.numTensors(), h.numTensors());
    EXPECT_EQ(g.baseTime(), h.baseTime());
  }
}

} // namespace
