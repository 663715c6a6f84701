//===- JoinTest.cpp - Join graphs (Beaumont et al. 2019) ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Two memory models are checked (docs/solver.md, "join"):
//  - the paper's pebble model (unit slots, in-place turn and steps, x_0 may
//    be freed), against Theorem 2, the paper's simulation anchors and an
//    exhaustive in-place pebble search written here;
//  - the Simulator's model, against bruteForceOptimum on random joins.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Testing/BruteForce.h"
#include "remat/Solver/Join/Join.h"
#include "remat/Solver/Testing/RandomGraphs.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Portfolio/MinimumBudget.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <queue>
#include <unordered_map>

using namespace remat;

namespace {

JoinPlan paperPlan(const JoinGraph &jg, int64_t c) {
  JoinPlanOptions o;
  o.model = JoinModel::PaperSlots;
  return planJoin(jg.graph, jg.view, c, o);
}

/// Smallest c (slots) for which the paper-model DP finds a schedule.
int paperMinimum(const JoinGraph &jg) {
  for (int c = 0; c < 64; ++c)
    if (paperPlan(jg, c).feasible)
      return c;
  return -1;
}

/// Exhaustive search in the paper's pebble model: a step may write its
/// output over inputs that die at that step (the state after it, not during
/// it, must fit), the turn in place, x_0 freeable. Returns the optimal time
/// or -1 when c slots do not suffice. Unit sizes.
double pebbleOptimum(const JoinSpec &spec, int c) {
  struct Op {
    std::vector<int> in, out;
    double time;
    int once; // Bit of the run-once set, or -1.
  };
  std::vector<Op> ops;
  int nt = 0, nonce = 0;
  std::vector<std::vector<int>> x(spec.k()), xb(spec.k());
  for (int j = 0; j < spec.k(); ++j)
    for (int i = 0; i <= spec.branches[j].length(); ++i) {
      x[j].push_back(nt++);
      xb[j].push_back(nt++);
    }
  Op turn{{}, {}, spec.ut, nonce++};
  uint64_t required = 0, start = 0;
  for (int j = 0; j < spec.k(); ++j) {
    const JoinBranch &b = spec.branches[j];
    int len = b.length();
    start |= uint64_t(1) << x[j][0];
    required |= uint64_t(1) << xb[j][0];
    turn.in.push_back(x[j][len]);
    turn.out.push_back(xb[j][len]);
    for (int i = 0; i < len; ++i) {
      ops.push_back({{x[j][i]}, {x[j][i + 1]}, b.stages[i].uf, -1});
      ops.push_back({{x[j][i], xb[j][i + 1]}, {xb[j][i]}, b.stages[i].ub,
                     nonce++});
    }
  }
  ops.push_back(turn);
  const uint64_t allOnce = (uint64_t(1) << nonce) - 1;
  using State = std::pair<uint64_t, uint64_t>; // (live, done)
  struct Hash {
    size_t operator()(const State &s) const {
      return std::hash<uint64_t>()(s.first * 0x9E3779B97F4A7C15ULL ^ s.second);
    }
  };
  std::unordered_map<State, double, Hash> dist;
  using QE = std::pair<double, State>;
  std::priority_queue<QE, std::vector<QE>, std::greater<QE>> pq;
  if (__builtin_popcountll(start) > c)
    return -1;
  dist[{start, 0}] = 0;
  pq.push({0, {start, 0}});
  auto relax = [&](State s, double d) {
    auto it = dist.find(s);
    if (it == dist.end() || d < it->second) {
      dist[s] = d;
      pq.push({d, s});
    }
  };
  while (!pq.empty()) {
    auto [d, s] = pq.top();
    pq.pop();
    if (d > dist[s])
      continue;
    auto [live, done] = s;
    if (done == allOnce)
      return d;
    for (int t = 0; t < nt; ++t)
      if ((live >> t & 1) && !(required >> t & 1))
        relax({live & ~(uint64_t(1) << t), done}, d);
    for (const Op &op : ops) {
      if (op.once >= 0 && (done >> op.once & 1))
        continue;
      bool ok = true;
      for (int t : op.in)
        ok &= (live >> t & 1) != 0;
      for (int t : op.out)
        ok &= !(live >> t & 1);
      if (!ok)
        continue;
      uint64_t after = live;
      for (int t : op.out)
        after |= uint64_t(1) << t;
      uint64_t nd = op.once >= 0 ? done | uint64_t(1) << op.once : done;
      // Free any subset of the inputs at the same time (in place).
      int ni = static_cast<int>(op.in.size());
      for (int sub = 0; sub < (1 << ni); ++sub) {
        uint64_t a = after;
        for (int q = 0; q < ni; ++q)
          if (sub >> q & 1)
            a &= ~(uint64_t(1) << op.in[q]);
        if (__builtin_popcountll(a) <= c)
          relax({a, nd}, d + op.time);
      }
    }
  }
  return -1;
}

/// Peak of a schedule's runs in the paper's model: every value (x_0
/// included) dies right after its last read before it is produced again,
/// and memory is counted between steps.
int64_t paperPeak(const TrainingGraph &g, const Schedule &s) {
  std::vector<NodeId> runs;
  for (const Step &st : s.steps())
    if (st.isRun())
      runs.push_back(st.id);
  std::vector<char> live(g.numTensors(), 0);
  int64_t cur = 0;
  for (TensorId t = 0; t < g.numTensors(); ++t)
    if (g.isInput(t)) {
      live[t] = 1;
      cur += g.tensor(t).bytes;
    }
  int64_t peak = cur;
  auto readLater = [&](TensorId t, size_t from) {
    for (size_t r = from; r < runs.size(); ++r) {
      const Node &n = g.node(runs[r]);
      if (std::count(n.inputs.begin(), n.inputs.end(), t))
        return true;
      if (std::count(n.outputs.begin(), n.outputs.end(), t))
        return false;
    }
    return false;
  };
  for (size_t r = 0; r < runs.size(); ++r) {
    for (TensorId t : g.node(runs[r]).outputs) {
      live[t] = 1;
      cur += g.tensor(t).bytes;
    }
    for (TensorId t = 0; t < g.numTensors(); ++t)
      if (live[t] && !g.isRequired(t) && !readLater(t, r + 1)) {
        live[t] = 0;
        cur -= g.tensor(t).bytes;
      }
    peak = std::max(peak, cur);
  }
  return peak;
}

std::vector<std::vector<int>> allLengths(int k, int maxLen) {
  std::vector<std::vector<int>> out;
  std::vector<int> l(k, 0);
  while (true) {
    out.push_back(l);
    int j = 0;
    while (j < k && l[j] == maxLen)
      l[j++] = 0;
    if (j == k)
      return out;
    ++l[j];
  }
}

TEST(JoinTest, BuildAndRecognise) {
  JoinSpec spec = JoinSpec::uniform({3, 0, 2}, 2, 3, 4);
  spec.branches[2].stages[1].x = 7;
  spec.branches[2].stages[1].ob = 5;
  JoinGraph jg = buildJoinGraph(spec);
  ASSERT_FALSE(jg.graph.verify());
  EXPECT_EQ(jg.graph.numNodes(), 2 * 5 + 1);
  std::string why;
  std::optional<JoinView> v = recognizeJoin(jg.graph, &why);
  ASSERT_TRUE(v) << why;
  EXPECT_EQ(v->spec.lengths(), (std::vector<int>{3, 0, 2}));
  EXPECT_EQ(v->spec.branches[2].stages[1].x, 7);
  EXPECT_EQ(v->spec.branches[2].stages[1].ob, 5);
  EXPECT_EQ(v->spec.ut, 4);
  EXPECT_EQ(v->forward, jg.view.forward);
  EXPECT_EQ(v->backward, jg.view.backward);

  // A rotor chain is not a join (B^l reads abar^l and a^{l-1}).
  ChainGraph cg = buildChainGraph(randomChain(1, 3));
  EXPECT_FALSE(recognizeJoin(cg.graph, &why));
  Solution s = solve(cg.graph, "join", {});
  EXPECT_FALSE(s.feasible);
  EXPECT_NE(s.reason.find("not applicable"), std::string::npos);
  EXPECT_FALSE(recognizeJoin(randomTrainingDag(3, 5)));
  // An extra required value breaks the structure.
  JoinGraph bad = buildJoinGraph(JoinSpec::uniform({2, 2}));
  bad.graph.markRequired(bad.view.x[0][1]);
  EXPECT_FALSE(recognizeJoin(bad.graph));
}

// Theorem 2 in the paper's model: the DP's smallest memory is c_min(l),
// including the length-1 exceptions and empty branches; the exhaustive
// pebble search agrees on the small cases.
TEST(JoinTest, Theorem2PaperModel) {
  int checked = 0, pebbled = 0;
  for (int k = 1; k <= 3; ++k)
    for (const std::vector<int> &l : allLengths(k, k == 3 ? 3 : 5)) {
      JoinGraph jg = buildJoinGraph(JoinSpec::uniform(l));
      int cmin = joinMinimumSlots(l);
      EXPECT_EQ(paperMinimum(jg), cmin) << "k=" << k << " l0=" << l[0];
      ++checked;
      int total = 0;
      for (int x : l)
        total += x;
      if (total <= 5) {
        EXPECT_LT(pebbleOptimum(jg.view.spec, cmin - 1), 0);
        EXPECT_GE(pebbleOptimum(jg.view.spec, cmin), 0);
        ++pebbled;
      }
    }
  EXPECT_GE(checked, 36 + 6 + 64);
  EXPECT_GT(pebbled, 40);
  // The paper's examples: 5 slots for two non-trivial chains, 7 for three.
  EXPECT_EQ(joinMinimumSlots({5, 25}), 5);
  EXPECT_EQ(joinMinimumSlots({10, 10, 10}), 7);
  EXPECT_EQ(joinMinimumSlots({1, 10, 10}), 6);
}

// Theorem 3 (canonical DP + Opt_0) is optimal in the paper's model: equal
// to the exhaustive pebble search for every memory size, unit and random
// times; its schedules replay within c slots and the Simulator accepts them
// with the DP's time.
TEST(JoinTest, Theorem3PaperModelMatchesPebbleSearch) {
  int compared = 0;
  for (uint64_t seed = 0; seed < 90; ++seed) {
    int k = 1 + seed % 3;
    std::vector<ChainSpec> chains = randomJoin(seed, k, 5 - k);
    int total = 0; // At most 4 steps: the pebble search is exhaustive.
    for (ChainSpec &c : chains) {
      int keep = std::max(0, std::min<int>(c.length(), 4 - total));
      c.stages.resize(keep);
      total += keep;
    }
    JoinSpec spec = joinFromChains(chains, 1 + seed % 3);
    for (JoinBranch &b : spec.branches) { // Unit sizes: slots.
      b.x0 = b.xbar0 = 1;
      for (JoinStage &st : b.stages) {
        st.x = st.xbar = 1;
        st.of = st.ob = 0;
        if (seed % 2 == 0)
          st.uf = st.ub = 1;
      }
    }
    JoinGraph jg = buildJoinGraph(spec);
    int cmin = joinMinimumSlots(spec.lengths());
    for (int c = cmin; c <= total + k + 1; ++c) {
      JoinPlan p = paperPlan(jg, c);
      double bf = pebbleOptimum(spec, c);
      ASSERT_TRUE(p.feasible) << seed << " c=" << c;
      ASSERT_GE(bf, 0);
      EXPECT_NEAR(p.time, bf, 1e-9) << "seed " << seed << " c=" << c;
      SimulationResult sim = simulate(jg.graph, p.schedule);
      ASSERT_TRUE(sim.valid) << sim.error;
      EXPECT_NEAR(sim.time, p.time, 1e-9);
      EXPECT_LE(paperPeak(jg.graph, p.schedule), c);
      ++compared;
    }
  }
  EXPECT_GE(compared, 200);
}

// Section 4: with C_SNN(L) = 6L+3, C_CM(L) = 6L+2, C_RNN(L) = 6L+1 slots
// every activation is stored and the makespan is Span*(L) = 12L+1; one slot
// less costs recomputations. The curves start at c_min = 7 (SNN), 5 (CM).
TEST(JoinTest, PaperSimulationAnchors) {
  for (int L = 1; L <= 5; ++L) {
    struct Model {
      std::vector<int> lengths;
      int memory;
    } models[] = {{{2 * L, 2 * L, 2 * L}, 6 * L + 3},
                  {{L, 5 * L}, 6 * L + 2},
                  {{6 * L}, 6 * L + 1}};
    for (const Model &m : models) {
      JoinGraph jg = buildJoinGraph(JoinSpec::uniform(m.lengths));
      JoinPlan full = paperPlan(jg, m.memory);
      ASSERT_TRUE(full.feasible);
      EXPECT_EQ(full.time, 12 * L + 1);
      JoinPlan less = paperPlan(jg, m.memory - 1);
      ASSERT_TRUE(less.feasible);
      EXPECT_GT(less.time, 12 * L + 1);
      EXPECT_NEAR(simulate(jg.graph, full.schedule).time, 12 * L + 1, 1e-9);
    }
    JoinGraph snn = buildJoinGraph(JoinSpec::uniform({2 * L, 2 * L, 2 * L}));
    JoinGraph cm = buildJoinGraph(JoinSpec::uniform({L, 5 * L}));
    EXPECT_EQ(paperMinimum(snn), 7);
    EXPECT_EQ(paperMinimum(cm), L == 1 ? 4 : 5); // (1, 5): a length-1 branch.
  }
  // "halving memory needs only induces an increase of approximately 25%"
  // (L = 5 and 15, c = C_Opt / 2; this model gives 24.6% to 27.9%).
  for (int L : {5, 15})
    for (std::vector<int> l : {std::vector<int>{2 * L, 2 * L, 2 * L},
                               std::vector<int>{L, 5 * L},
                               std::vector<int>{6 * L}}) {
      JoinGraph jg = buildJoinGraph(JoinSpec::uniform(l));
      int copt = 6 * L + static_cast<int>(l.size());
      double ratio = paperPlan(jg, copt / 2).time / (12 * L + 1);
      EXPECT_GT(ratio, 1.2);
      EXPECT_LT(ratio, 1.3);
    }
  // "even with c_min + 2 the makespan is less than doubled": true at L = 5;
  // at L = 15 this model gives 2.03 (SNN, 9 slots) and 2.30 (CM, 7 slots).
  for (int L : {5}) {
    JoinGraph snn = buildJoinGraph(JoinSpec::uniform({2 * L, 2 * L, 2 * L}));
    JoinGraph cm = buildJoinGraph(JoinSpec::uniform({L, 5 * L}));
    EXPECT_LT(paperPlan(snn, 9).time, 2 * (12 * L + 1));
    EXPECT_LT(paperPlan(cm, 7).time, 2 * (12 * L + 1));
  }
}

// The same anchors in the Simulator's model: the store-everything peak is
// 6L + 2k (inputs stay, the turn's outputs count on top of its inputs).
TEST(JoinTest, SimulatorAnchors) {
  for (int L = 1; L <= 3; ++L)
    for (std::vector<int> l : {std::vector<int>{2 * L, 2 * L, 2 * L},
                               std::vector<int>{L, 5 * L},
                               std::vector<int>{6 * L}}) {
      JoinGraph jg = buildJoinGraph(JoinSpec::uniform(l));
      int64_t k = static_cast<int64_t>(l.size());
      int64_t keepAll = simulate(jg.graph, keepEverythingSchedule(jg.graph)).peak;
      EXPECT_EQ(keepAll, 6 * L + 2 * k);
      SolveOptions o;
      o.budget = keepAll;
      Solution s = solve(jg.graph, "join", o);
      ASSERT_TRUE(s.feasible) << s.reason;
      EXPECT_EQ(s.sim.time, 12 * L + 1);
      o.budget = keepAll - 1;
      s = solve(jg.graph, "join", o);
      ASSERT_TRUE(s.feasible) << s.reason;
      EXPECT_GT(s.sim.time, 12 * L + 1);
    }
}

// Theorem 2 translated to the Simulator's model: minimumBudget and the
// brute force agree with joinMinimumBytesUnit.
TEST(JoinTest, MinimumMemorySimulatorModel) {
  int bf = 0;
  for (int k = 1; k <= 3; ++k)
    for (const std::vector<int> &l : allLengths(k, k == 3 ? 2 : 4)) {
      JoinGraph jg = buildJoinGraph(JoinSpec::uniform(l));
      int64_t expected = joinMinimumBytesUnit(l);
      EXPECT_EQ(minimumBudget(jg.graph, "join", {}), expected)
          << "k=" << k << " l0=" << l[0];
      int total = 0;
      for (int x : l)
        total += x;
      if (total <= 5) {
        BruteForceOptions bo;
        bo.allowDiscard = false;
        auto below = bruteForceOptimum(jg.graph, expected - 1, bo);
        auto at = bruteForceOptimum(jg.graph, expected, bo);
        ASSERT_TRUE(below && at);
        EXPECT_FALSE(below->feasible);
        EXPECT_TRUE(at->feasible);
        ++bf;
      }
    }
  EXPECT_GT(bf, 30);
}

JoinGraph randomInstance(uint64_t seed, bool unitTimes, bool unitSizes) {
  int k = 1 + seed % 3;
  RandomCostOptions co;
  co.maxBytes = unitSizes ? 1 : 3;
  co.maxTime = unitTimes ? 1 : 4;
  co.maxWorkspace = unitTimes ? 0 : 2;
  std::vector<ChainSpec> chains =
      randomJoin(seed, k, k == 1 ? 5 : k == 2 ? 3 : 2, co);
  // Keep the brute force small: at most 5 steps in all (branches may end up
  // empty).
  int total = 0;
  for (ChainSpec &c : chains) {
    int keep = std::max(0, std::min<int>(c.length(), 5 - total));
    c.stages.resize(keep);
    total += keep;
  }
  return buildJoinGraph(joinFromChains(chains, unitTimes ? 1 : 1 + seed % 4,
                                       unitTimes ? 0 : seed % 2));
}

/// Theorem 3 in the Simulator's model against bruteForceOptimum on random
/// small joins (k = 1..3; k = 1 is a chain), at every budget from the
/// no-remat peak down to the first infeasible one. Returns {compared, equal}.
std::pair<int, int> compareWithBruteForce(bool unitTimes, bool unitSizes,
                                          int want) {
  int compared = 0, equal = 0, infeasible = 0;
  for (uint64_t seed = unitSizes ? 0 : 20000; compared < want; ++seed) {
    EXPECT_LT(seed % 10000, 2000u);
    if (seed % 10000 >= 2000)
      break;
    JoinGraph jg = randomInstance(seed, unitTimes, unitSizes);
    const TrainingGraph &g = jg.graph;
    int64_t hi = simulate(g, keepEverythingSchedule(g)).peak;
    BruteForceOptions bo;
    bo.allowDiscard = false;
    for (int64_t budget = hi; budget >= 0; --budget) {
      auto bf = bruteForceOptimum(g, budget, bo);
      EXPECT_TRUE(bf);
      SolveOptions o;
      o.budget = budget;
      Solution s = solve(g, "join", o);
      if (!bf->feasible) {
        EXPECT_FALSE(s.feasible);
        ++infeasible;
        break;
      }
      ++compared;
      if (!s.feasible) {
        EXPECT_FALSE(unitSizes) << "seed " << seed << " budget " << budget;
        continue;
      }
      EXPECT_GE(s.sim.time, bf->time - 1e-9);
      bool same = std::fabs(s.sim.time - bf->time) < 1e-9;
      equal += same;
      EXPECT_TRUE(same || !unitSizes)
          << "seed " << seed << " budget " << budget << "\n"
          << s.schedule.str(g) << "brute force:\n"
          << bf->schedule.str(g);
    }
  }
  EXPECT_GT(infeasible, 20);
  return {compared, equal};
}

TEST(JoinTest, MatchesBruteForceUnitCosts) {
  auto [compared, equal] = compareWithBruteForce(true, true, 220);
  EXPECT_EQ(equal, compared);
}

// Heterogeneous times, turn costs and workspaces with unit tensor sizes:
// the DP stays exact.
TEST(JoinTest, MatchesBruteForceHeterogeneousTimes) {
  auto [compared, equal] = compareWithBruteForce(false, true, 250);
  EXPECT_EQ(equal, compared);
}

// Heterogeneous sizes: the DP builds persistent schedules only (Property 2,
// checkpoint persistence); with unequal sizes freeing a large checkpoint
// early and recomputing it later can pay (rotor's weak persistence,
// Beaumont et al. 2024, Sec. 4). Never better than the optimum (the
// Simulator would catch it), and equal on the vast majority of budgets.
TEST(JoinTest, HeterogeneousSizesPersistentOptimum) {
  auto [compared, equal] = compareWithBruteForce(false, false, 300);
  EXPECT_GE(equal * 100, compared * 95) << equal << " of " << compared;
}

// k = 1 is a chain in the thesis's model: join and chain-precise agree.
TEST(JoinTest, OneBranchIsChainPrecise) {
  for (uint64_t seed = 0; seed < 40; ++seed) {
    RandomCostOptions co;
    co.maxWorkspace = 2;
    JoinGraph jg = buildJoinGraph(
        joinFromChains({randomChain(seed, 1 + seed % 6, co)}, 1 + seed % 3));
    int64_t hi = simulate(jg.graph, keepEverythingSchedule(jg.graph)).peak;
    for (int64_t budget = hi; budget > 0; budget -= 2) {
      SolveOptions o;
      o.budget = budget;
      Solution a = solve(jg.graph, "join", o);
      Solution b = solve(jg.graph, "chain-precise", o);
      ASSERT_EQ(a.feasible, b.feasible) << seed << " " << budget;
      if (!a.feasible)
        break;
      EXPECT_NEAR(a.sim.time, b.sim.time, 1e-9) << seed << " " << budget;
    }
  }
}

// Real byte sizes: memory is cut into slots (rounded up), every schedule
// stays within budget and the time falls as the budget grows.
TEST(JoinTest, DiscretisedBytes) {
  RandomCostOptions co;
  co.maxBytes = 4000;
  co.maxTime = 9;
  co.maxWorkspace = 1000;
  JoinGraph jg =
      buildJoinGraph(joinFromChains(randomJoin(7, 3, 12, co), 3, 500));
  const TrainingGraph &g = jg.graph;
  int64_t hi = simulate(g, keepEverythingSchedule(g)).peak;
  int64_t lo = minimumBudget(g, "join", {});
  ASSERT_GT(lo, 0);
  double first = 0, last = 0;
  for (int i = 0; i <= 8; ++i) {
    SolveOptions o;
    o.budget = lo + (hi - lo) * i / 8;
    Solution s = solve(g, "join", o);
    ASSERT_TRUE(s.feasible) << s.reason; // solve() checked peak <= budget.
    EXPECT_LE(s.sim.peak, o.budget);
    EXPECT_GE(s.sim.time, g.baseTime() - 1e-9);
    (i == 0 ? first : last) = s.sim.time;
  }
  EXPECT_LT(last, first);
}

} // namespace
