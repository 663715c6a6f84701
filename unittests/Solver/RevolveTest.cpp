//===- RevolveTest.cpp - Binomial checkpointing against Griewank's bound --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Testing/BruteForce.h"
#include "remat/Solver/Chain/ChainSolvers.h"
#include "remat/Solver/Testing/RandomGraphs.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Portfolio/MinimumBudget.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <tuple>

using namespace remat;

namespace {

int64_t binomial(int n, int k) {
  int64_t v = 1;
  for (int i = 1; i <= k; ++i)
    v = v * (n - k + i) / i;
  return v;
}

// Advances per stage (F_ck / F_none) and tapings (F_all) of a sequence.
struct Counts {
  std::vector<int> advances, tapes, backs;
};
Counts count(const ChainOps &ops, int steps) {
  Counts c{std::vector<int>(steps + 1), std::vector<int>(steps + 1),
           std::vector<int>(steps + 1)};
  for (const ChainStep &s : ops) {
    EXPECT_GE(s.stage, 1);
    EXPECT_LE(s.stage, steps);
    if (s.op == ChainOp::Backward)
      ++c.backs[s.stage];
    else if (s.op == ChainOp::FAll)
      ++c.tapes[s.stage];
    else
      ++c.advances[s.stage];
  }
  return c;
}

// Exhaustive search in Griewank's model: `c` snapshots (x_0 among them,
// never deleted) and a working state; advancing one step costs 1; the
// youturn of step n (tape and reverse it) needs the working state at x_{n-1}.
int64_t griewankOptimum(int l, int c) {
  // State: steps left n, working position p (-1: must restore), snapshots.
  using State = std::tuple<int, int, unsigned>;
  std::map<State, int64_t> dist;
  std::deque<std::pair<State, int64_t>> q;
  auto push = [&](State s, int64_t d, bool front) {
    auto it = dist.find(s);
    if (it != dist.end() && it->second <= d)
      return;
    dist[s] = d;
    front ? q.push_front({s, d}) : q.push_back({s, d});
  };
  push({l, 0, 1u}, 0, true);
  while (!q.empty()) {
    auto [s, d] = q.front();
    q.pop_front();
    if (dist[s] < d)
      continue;
    auto [n, p, snaps] = s;
    if (n == 0)
      return d;
    for (int k = 0; k < n; ++k) // Restore a snapshot.
      if (snaps >> k & 1)
        push({n, k, snaps}, d, true);
    if (p < 0)
      continue;
    if (__builtin_popcount(snaps) < c && !(snaps >> p & 1))
      push({n, p, snaps | 1u << p}, d, true); // Store.
    for (int k = 1; k < n; ++k)               // Delete.
      if (snaps >> k & 1)
        push({n, p, snaps & ~(1u << k)}, d, true);
    if (p == n - 1) // Youturn: later snapshots are of no use any more.
      push({n - 1, -1, snaps & ((1u << (n - 1)) - 1)}, d, true);
    else
      push({n, p + 1, snaps}, d + 1, false); // Advance.
  }
  return -1;
}

TEST(Revolve, ClosedFormEqualsGriewankRecursion) {
  // t(l, c) = min_m m + t(l - m, c - 1) + t(m, c); t(1, c) = 0.
  const int L = 90, C = 9;
  const int64_t inf = int64_t(1) << 40;
  std::vector<std::vector<int64_t>> t(L + 1, std::vector<int64_t>(C + 1, inf));
  for (int c = 0; c <= C; ++c)
    t[1][c] = 0;
  for (int c = 1; c <= C; ++c)
    for (int l = 2; l <= L; ++l)
      for (int m = 1; m < l; ++m)
        t[l][c] = std::min(t[l][c], m + t[l - m][c - 1] + t[m][c]);
  for (int c = 1; c <= C; ++c)
    for (int l = 1; l <= L; ++l) {
      ASSERT_EQ(revolveAdvances(l, c), t[l][c]) << "l=" << l << " c=" << c;
      ChainOps ops = revolveOps(l, c);
      Counts k = count(ops, l);
      int64_t total = 0;
      for (int s = 1; s <= l; ++s) {
        total += k.advances[s];
        EXPECT_EQ(k.tapes[s], 1);
        EXPECT_EQ(k.backs[s], 1);
      }
      EXPECT_EQ(total, t[l][c]) << "l=" << l << " c=" << c;
    }
  EXPECT_EQ(revolveAdvances(5, 0), -1);
}

TEST(Revolve, ClosedFormEqualsExhaustiveSearch) {
  for (int l = 1; l <= 9; ++l)
    for (int c = 1; c <= 4; ++c)
      EXPECT_EQ(revolveAdvances(l, c), griewankOptimum(l, c))
          << "l=" << l << " c=" << c;
}

// A chain of C(s+t, s) steps is reversed with s checkpoints and t forward
// sweeps: no step is advanced more than t times, and the total number of
// advances (forward recomputations) is Griewank's minimum
// t * l - C(s+t, s+1).
TEST(Revolve, BinomialChainsAndRepetitions) {
  for (int s = 1; s <= 5; ++s)
    for (int t = 1; t <= 5; ++t) {
      const int l = static_cast<int>(binomial(s + t, s));
      ChainOps ops = revolveOps(l, s);
      Counts k = count(ops, l);
      int most = 0;
      int64_t total = 0;
      for (int j = 1; j <= l; ++j) {
        most = std::max(most, k.advances[j]);
        total += k.advances[j];
      }
      EXPECT_EQ(most, t) << "s=" << s << " t=" << t;
      EXPECT_EQ(total, t * l - binomial(s + t, s + 1))
          << "s=" << s << " t=" << t;
      EXPECT_EQ(revolveAdvances(l, s), total);
      // One step more needs a (t+1)-th sweep.
      std::vector<int> more = count(revolveOps(l + 1, s), l + 1).advances;
      EXPECT_EQ(*std::max_element(more.begin(), more.end()), t + 1);
    }
}

// On chain graphs: valid, within budget, never better than the optimum
// (brute force) nor than rotor's persistent DP, which contains it.
TEST(Revolve, StrategyOnChainGraphs) {
  int checked = 0;
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    RandomCostOptions o;
    o.maxExtra = seed % 3;
    const int L = 2 + seed % 4;
    ChainSpec spec = randomChain(seed, L, o);
    ChainGraph cg = buildChainGraph(spec);
    int64_t top = simulate(cg.graph, keepEverythingSchedule(cg.graph)).peak;
    int64_t minimum = minimumBudget(cg.graph, "revolve", {});
    ASSERT_GT(minimum, 0);
    double previous = 0;
    for (int64_t budget = top; budget >= minimum;
         budget -= std::max<int64_t>(1, (top - minimum) / 4)) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " budget " +
                   std::to_string(budget));
      SolveOptions so;
      so.budget = budget;
      so.slots = 1 << 30;
      Solution rev = solve(cg.graph, "revolve", so);
      ASSERT_TRUE(rev.feasible) << rev.reason;
      EXPECT_LE(rev.sim.peak, budget);
      EXPECT_GE(rev.sim.time, previous - 1e-9); // Less memory, more time.
      previous = rev.sim.time;
      // F_all right before each B: every stage runs at least twice.
      EXPECT_GE(
          rev.sim.time, cg.graph.baseTime() + 0.99 * [&] {
            double uf = 0;
            for (const ChainStage &st : spec.stages)
              uf += st.uf;
            return uf;
          }());
      Solution rotor = solve(cg.graph, "chain-rotor", so);
      ASSERT_TRUE(rotor.feasible) << rotor.reason;
      EXPECT_LE(rotor.sim.time, rev.sim.time + 1e-9);
      if (L <= 4) {
        auto bf = bruteForceOptimum(cg.graph, budget);
        if (bf && bf->feasible) {
          EXPECT_LE(bf->time, rev.sim.time + 1e-9);
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(Revolve, HomogeneousChainUsesCheckpointsItCanAfford) {
  // a = delta = 10 bytes, abar = a: each extra checkpoint costs 10 bytes.
  ChainSpec spec;
  spec.a0 = spec.delta0 = 10;
  for (int l = 0; l < 20; ++l)
    spec.stages.push_back(ChainStage{1, 1, 10, 10, 10, 0, 0});
  ChainGraph cg = buildChainGraph(spec);
  int64_t last = -1;
  for (int64_t budget = 60; budget <= 260; budget += 10) {
    SolveOptions so;
    so.budget = budget;
    Solution s = solve(cg.graph, "revolve", so);
    ASSERT_TRUE(s.feasible) << budget << ": " << s.reason;
    int64_t advances = static_cast<int64_t>(s.sim.time) - 40; // Tapes, Bs.
    if (last >= 0) {
      EXPECT_LE(advances, last);
    }
    last = advances;
    // Times match Griewank's count for some number of snapshots c.
    bool some = false;
    for (int c = 1; c <= 21; ++c)
      some |= revolveAdvances(21, c) == advances;
    EXPECT_TRUE(some) << advances;
  }
  EXPECT_EQ(last, 20); // With enough memory: every state advanced once.
}

} // namespace
