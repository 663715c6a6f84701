//===- LowerSetTest.cpp - Lower-set DPs against an exhaustive oracle ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The oracle is the paper's naive search (Kusumoto et al. 2019, Sec. 4.1):
// every increasing sequence of lower sets, each evaluated from the model's
// definitions (LowerSet.h) with plain sets, independently of LowerSetModel.

#include "remat/Solver/Testing/BruteForce.h"
#include "remat/Solver/LowerSet/LowerSet.h"
#include "remat/Solver/Testing/ModelGraphs.h"
#include "remat/Solver/Testing/RandomGraphs.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/Strategy.h"
#include "remat/Solver/Portfolio/MinimumBudget.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>

using namespace remat;

namespace {

/// Lower sets as bit masks over the forward nodes (at most 16 of them).
struct Oracle {
  const TrainingGraph &g;
  std::vector<NodeId> fwd, bwd;
  std::vector<int> pos;                  ///< NodeId -> index in fwd, or -1.
  std::vector<uint32_t> predMask;        ///< Forward predecessors.
  std::vector<uint32_t> succMask;        ///< Forward successors.
  std::vector<uint32_t> reach;           ///< F(b) of each backward node.
  uint32_t full = 0;
  int64_t base = 0;

  explicit Oracle(const TrainingGraph &graph) : g(graph) {
    pos.assign(g.numNodes(), -1);
    for (NodeId n : g.topologicalOrder()) {
      if (g.isForward(n)) {
        pos[n] = static_cast<int>(fwd.size());
        fwd.push_back(n);
      } else {
        bwd.push_back(n);
      }
    }
    full = (uint32_t(1) << fwd.size()) - 1;
    predMask.assign(fwd.size(), 0);
    succMask.assign(fwd.size(), 0);
    for (size_t v = 0; v < fwd.size(); ++v)
      for (TensorId t : g.node(fwd[v]).inputs)
        if (!g.isInput(t)) {
          int p = pos[g.tensor(t).producer];
          predMask[v] |= uint32_t(1) << p;
          succMask[p] |= uint32_t(1) << v;
        }
    std::vector<uint32_t> reachOf(g.numNodes(), 0);
    for (NodeId b : bwd) {
      for (TensorId t : g.node(b).inputs) {
        NodeId p = g.tensor(t).producer;
        if (p == kNone)
          continue;
        reachOf[b] |= g.isForward(p) ? uint32_t(1) << pos[p] : reachOf[p];
      }
      reach.push_back(reachOf[b]);
    }
    base = inputBytes(g);
    for (NodeId n : fwd)
      for (TensorId t : g.node(n).outputs)
        if (g.isRequired(t))
          base += g.tensor(t).bytes;
  }

  int64_t memOf(uint32_t set) const {
    int64_t m = 0;
    for (size_t v = 0; v < fwd.size(); ++v)
      if (set >> v & 1)
        for (TensorId t : g.node(fwd[v]).outputs)
          if (!g.isRequired(t))
            m += g.tensor(t).bytes;
    return m;
  }
  bool inR(size_t b, uint32_t set) const {
    return reach[b] ? (reach[b] & set) != 0 : set == full;
  }
  bool isLower(uint32_t s) const {
    for (size_t v = 0; v < fwd.size(); ++v)
      if ((s >> v & 1) && (predMask[v] & ~s))
        return false;
    return true;
  }

  struct Cost {
    double overhead;
    int64_t peak;
  };
  Cost cost(const std::vector<uint32_t> &seq) const {
    Cost c{0, 0};
    uint32_t prev = 0, cached = 0;
    int64_t worst = 0;
    for (size_t i = 0; i < seq.size(); ++i) {
      uint32_t L = seq[i], Vi = L & ~prev, D = 0;
      for (size_t v = 0; v < fwd.size(); ++v)
        if ((L >> v & 1) &&
            ((succMask[v] & ~L) || !g.node(fwd[v]).recomputable))
          D |= uint32_t(1) << v;
      if (i + 1 < seq.size())
        for (size_t v = 0; v < fwd.size(); ++v)
          if ((Vi & ~D) >> v & 1)
            c.overhead += g.node(fwd[v]).time;
      int64_t mb = 0, k = 0, cross = 0, ws = 0;
      for (size_t v = 0; v < fwd.size(); ++v)
        if (Vi >> v & 1)
          ws = std::max(ws, g.node(fwd[v]).workspace);
      std::vector<char> inRNow(g.numNodes(), 0);
      for (size_t b = 0; b < bwd.size(); ++b)
        inRNow[bwd[b]] = inR(b, L);
      for (size_t b = 0; b < bwd.size(); ++b)
        if (inRNow[bwd[b]] && !inR(b, prev)) {
          for (TensorId t : g.node(bwd[b]).outputs)
            mb += g.tensor(t).bytes;
          ws = std::max(ws, g.node(bwd[b]).workspace);
        }
      for (TensorId t = 0; t < g.numTensors(); ++t) {
        NodeId p = g.tensor(t).producer;
        if (p == kNone)
          continue;
        bool readInR = false;
        for (NodeId r : g.consumers(t))
          readInR = readInR || (!g.isForward(r) && inRNow[r]);
        if (g.isForward(p)) {
          if (!g.isRequired(t) && !(L >> pos[p] & 1) && readInR)
            k += g.tensor(t).bytes;
        } else if (!inRNow[p] && (readInR || g.isRequired(t))) {
          cross += g.tensor(t).bytes;
        }
      }
      worst = std::max(worst, memOf(cached) + memOf(Vi) + mb + k + cross + ws);
      cached |= D & ~prev;
      prev = L;
    }
    c.peak = base + worst;
    return c;
  }

  /// Every increasing sequence of lower sets ending at V.
  void forEachSequence(const std::function<void(const std::vector<uint32_t> &)>
                           &visit) const {
    std::vector<uint32_t> lower;
    for (uint32_t s = 1; s <= full; ++s)
      if (isLower(s))
        lower.push_back(s);
    std::vector<uint32_t> seq;
    std::function<void(uint32_t)> dfs = [&](uint32_t from) {
      if (from == full) {
        visit(seq);
        return;
      }
      for (uint32_t s : lower)
        if ((s & from) == from && s != from) {
          seq.push_back(s);
          dfs(s);
          seq.pop_back();
        }
    };
    dfs(0);
  }

  std::vector<uint32_t> masks(const LowerSetPlan &p) const {
    std::vector<uint32_t> out;
    for (const NodeSet &s : p.sets) {
      uint32_t m = 0;
      for (size_t v = 0; v < fwd.size(); ++v)
        if (setHas(s.data(), static_cast<int>(v)))
          m |= uint32_t(1) << v;
      out.push_back(m);
    }
    return out;
  }
};

TrainingGraph randomInstance(uint64_t seed) {
  // Alternate the generators so chains with skips, branching DAGs, multi-
  // output ops, non-recomputable ops and workspaces all appear.
  if (seed % 4 == 3) {
    RandomDagOptions o;
    o.costs.maxWorkspace = seed % 8 == 3 ? 2 : 0;
    return randomTrainingDag(seed, 3 + static_cast<int>(seed % 5), o);
  }
  RandomBranchyOptions o;
  o.nonRecomputablePercent = seed % 3 == 0 ? 20 : 0;
  o.maxWorkspace = seed % 5 == 0 ? 3 : 0;
  o.maxInputs = 1 + static_cast<int>(seed % 3);
  return randomBranchyDag(seed, 3 + static_cast<int>(seed % 6), o);
}

struct Exhaustive {
  std::vector<Oracle::Cost> costs;
  int64_t minPeak = std::numeric_limits<int64_t>::max();
  double bestOverhead(int64_t budget) const {
    double best = -1;
    for (const Oracle::Cost &c : costs)
      if (c.peak <= budget && (best < 0 || c.overhead < best))
        best = c.overhead;
    return best;
  }
  double worstOverhead(int64_t budget) const {
    double worst = -1;
    for (const Oracle::Cost &c : costs)
      if (c.peak <= budget)
        worst = std::max(worst, c.overhead);
    return worst;
  }
};

Exhaustive exhaust(const Oracle &o) {
  Exhaustive e;
  o.forEachSequence([&](const std::vector<uint32_t> &seq) {
    e.costs.push_back(o.cost(seq));
    e.minPeak = std::min(e.minPeak, e.costs.back().peak);
  });
  return e;
}

std::vector<int64_t> budgetsOf(const Exhaustive &e) {
  std::vector<int64_t> peaks;
  for (const Oracle::Cost &c : e.costs)
    peaks.push_back(c.peak);
  std::sort(peaks.begin(), peaks.end());
  peaks.erase(std::unique(peaks.begin(), peaks.end()), peaks.end());
  // Every peak some sequence reaches, and just below the lowest.
  peaks.insert(peaks.begin(), peaks.front() - 1);
  return peaks;
}

TEST(LowerSet, ModelMatchesTheDefinitions) {
  for (uint64_t seed = 0; seed < 60; ++seed) {
    TrainingGraph g = randomInstance(seed);
    ASSERT_FALSE(g.verify().has_value());
    Oracle o(g);
    LowerSetModel m(g);
    int checked = 0;
    o.forEachSequence([&](const std::vector<uint32_t> &seq) {
      if (++checked > 300)
        return;
      std::vector<NodeSet> sets;
      for (uint32_t s : seq) {
        NodeSet ns(m.words(), 0);
        for (size_t v = 0; v < o.fwd.size(); ++v)
          if (s >> v & 1)
            setAdd(ns.data(), m.index(o.fwd[v]));
        sets.push_back(ns);
      }
      Oracle::Cost want = o.cost(seq);
      LowerSetModel::Cost got = m.evaluate(sets);
      ASSERT_DOUBLE_EQ(got.overhead, want.overhead) << "seed " << seed;
      ASSERT_EQ(got.peak, want.peak) << "seed " << seed;
    });
  }
}

// The model is an upper bound of the Simulator for the canonical schedule
// of any sequence; the schedule is valid and recomputes at most the model's
// overhead.
TEST(LowerSet, CanonicalScheduleFitsTheModel) {
  for (uint64_t seed = 0; seed < 120; ++seed) {
    TrainingGraph g = randomInstance(seed);
    Oracle o(g);
    LowerSetModel m(g);
    double base = g.baseTime();
    o.forEachSequence([&](const std::vector<uint32_t> &seq) {
      std::vector<NodeSet> sets;
      for (uint32_t s : seq) {
        NodeSet ns(m.words(), 0);
        for (size_t v = 0; v < o.fwd.size(); ++v)
          if (s >> v & 1)
            setAdd(ns.data(), m.index(o.fwd[v]));
        sets.push_back(ns);
      }
      Schedule s = m.canonicalSchedule(sets);
      SimulationResult sim = simulate(g, s);
      ASSERT_TRUE(sim.valid) << "seed " << seed << ": " << sim.error << "\n"
                             << s.str(g);
      LowerSetModel::Cost c = m.evaluate(sets);
      ASSERT_LE(sim.peak, c.peak) << "seed " << seed << "\n" << s.str(g);
      ASSERT_LE(sim.time, base + c.overhead + 1e-9) << "seed " << seed;
    });
  }
}

// The DP's pruning relies on both step costs growing with the target set.
TEST(LowerSet, StepCostsGrowWithTheTarget) {
  long pairs = 0;
  for (uint64_t seed = 0; seed < 60; ++seed) {
    TrainingGraph g = randomInstance(seed);
    LowerSetModel m(g);
    LowerSetFamily all = allLowerSets(m, 1 << 20);
    for (int a = 0; a < all.size(); ++a)
      for (int b = a + 1; b < all.size(); ++b) {
        const uint64_t *A = all.set(a), *B = all.set(b);
        if (!std::equal(A, A + m.words(), B, [](uint64_t x, uint64_t y) {
              return (x & ~y) == 0;
            }))
          continue;
        LowerSetStep ab = m.step(A, all.info[a], B, all.info[b]);
        for (int i = all.childStart[b]; i < all.childStart[b + 1]; ++i) {
          int c = all.children[i];
          LowerSetStep ac = m.step(A, all.info[a], all.set(c), all.info[c]);
          ++pairs;
          EXPECT_LE(ab.peak, ac.peak) << "seed " << seed;
          if (c != all.fullId) {
            EXPECT_LE(ab.overhead, ac.overhead) << "seed " << seed;
          }
        }
      }
  }
  EXPECT_GT(pairs, 5000);
}

// Sec. 4.2's DP equals the naive search of Sec. 4.1 (overhead at every
// budget, the lowest peak, the maximal overhead at it); Sec. 4.3's DP over
// the sets L_v is never better.
TEST(LowerSet, ExactDPEqualsExhaustiveSearch) {
  int instances = 0, comparisons = 0;
  for (uint64_t seed = 0; seed < 240; ++seed) {
    TrainingGraph g = randomInstance(seed);
    Oracle o(g);
    Exhaustive e = exhaust(o);
    LowerSetModel m(g);
    LowerSetFamily all = allLowerSets(m, 1 << 20);
    LowerSetFamily pruned = prunedLowerSets(m);
    ASSERT_TRUE(all.complete);
    ++instances;
    for (int64_t b : budgetsOf(e)) {
      double want = e.bestOverhead(b);
      LowerSetPlan exact =
          solveLowerSetDP(m, all, LowerSetObjective::MinOverhead, b);
      LowerSetPlan approx =
          solveLowerSetDP(m, pruned, LowerSetObjective::MinOverhead, b);
      ASSERT_EQ(exact.feasible, want >= 0) << "seed " << seed << " B " << b;
      if (approx.feasible) {
        ASSERT_TRUE(exact.feasible);
        EXPECT_GE(approx.overhead, exact.overhead) << "seed " << seed;
        EXPECT_LE(approx.peak, b);
      }
      if (!exact.feasible)
        continue;
      ++comparisons;
      ASSERT_DOUBLE_EQ(exact.overhead, want) << "seed " << seed << " B " << b;
      ASSERT_LE(exact.peak, b);
      Oracle::Cost self = o.cost(o.masks(exact));
      EXPECT_DOUBLE_EQ(self.overhead, exact.overhead);
      EXPECT_EQ(self.peak, exact.peak);
    }
    LowerSetPlan low =
        solveLowerSetDP(m, all, LowerSetObjective::MinPeak, kUnlimitedBudget);
    ASSERT_TRUE(low.feasible);
    EXPECT_EQ(low.peak, e.minPeak) << "seed " << seed;
    LowerSetPlan lowApprox = solveLowerSetDP(
        m, pruned, LowerSetObjective::MinPeak, kUnlimitedBudget);
    EXPECT_GE(lowApprox.peak, low.peak);
    LowerSetPlan slow =
        solveLowerSetDP(m, all, LowerSetObjective::MaxOverhead, e.minPeak);
    ASSERT_TRUE(slow.feasible);
    EXPECT_DOUBLE_EQ(slow.overhead, e.worstOverhead(e.minPeak))
        << "seed " << seed;
  }
  EXPECT_GE(instances, 200);
  EXPECT_GE(comparisons, 1000);
}

// The brute force allows any schedule (several recomputations, any order);
// lowerset-exact is one of them, so it can never be faster at a budget.
TEST(LowerSet, BruteForceIsNeverSlower) {
  int compared = 0;
  for (uint64_t seed = 0; seed < 80; ++seed) {
    TrainingGraph g = randomInstance(seed);
    if (g.numNodes() > 14)
      continue;
    SimulationResult none = simulate(g, keepEverythingSchedule(g));
    for (int64_t b = inputBytes(g); b <= none.peak; ++b) {
      SolveOptions o;
      o.budget = b;
      Solution ls = solve(g, "lowerset-exact", o);
      if (!ls.feasible)
        continue;
      BruteForceOptions bo;
      bo.allowDiscard = false;
      bo.maxStates = 2000000;
      auto brute = bruteForceOptimum(g, b, bo);
      if (!brute)
        continue;
      ASSERT_TRUE(brute->feasible) << "seed " << seed << " B " << b;
      EXPECT_LE(brute->time, ls.sim.time + 1e-9) << "seed " << seed;
      ++compared;
    }
  }
  EXPECT_GE(compared, 50);
}

TEST(LowerSet, StrategiesFitTheirBudgets) {
  const char *names[] = {"lowerset-exact", "lowerset-approx",
                         "lowerset-exact-mc", "lowerset-approx-mc",
                         "chen-sqrt", "chen-greedy"};
  for (uint64_t seed = 0; seed < 100; ++seed) {
    TrainingGraph g = randomInstance(seed);
    SimulationResult none = simulate(g, keepEverythingSchedule(g));
    for (const char *name : names)
      for (int64_t b : {none.peak, none.peak * 3 / 4, none.peak / 2}) {
        SolveOptions o;
        o.budget = b;
        Solution s = solve(g, name, o);
        // solve() reports invalid schedules as internal errors.
        EXPECT_EQ(s.reason.find("internal error"), std::string::npos)
            << name << " seed " << seed << ": " << s.reason;
        if (s.feasible) {
          EXPECT_LE(s.sim.peak, b);
        }
      }
    // Keeping everything fits at the no-remat peak: so do the time-centric
    // strategies, without overhead.
    SolveOptions o;
    o.budget = none.peak;
    for (const char *name : {"lowerset-exact", "lowerset-approx"}) {
      Solution s = solve(g, name, o);
      ASSERT_TRUE(s.feasible) << name << " seed " << seed;
      EXPECT_DOUBLE_EQ(s.sim.time, g.baseTime());
    }
  }
}

// Sec. 4.4: the memory-centric strategy peaks no higher than the time-centric
// one at its smallest budget; exact is never slower than approx.
TEST(LowerSet, MemoryCentricAndExactVersusApprox) {
  int checked = 0;
  for (uint64_t seed = 0; seed < 120; ++seed) {
    TrainingGraph g = randomInstance(seed);
    for (const char *variant : {"exact", "approx"}) {
      std::string tc = std::string("lowerset-") + variant;
      SolveOptions o;
      int64_t low = minimumBudget(g, tc, o);
      ASSERT_GT(low, 0) << tc << " seed " << seed;
      o.budget = low;
      Solution t = solve(g, tc, o);
      ASSERT_TRUE(t.feasible);
      o.budget = kUnlimitedBudget;
      Solution mc = solve(g, tc + "-mc", o);
      ASSERT_TRUE(mc.feasible);
      EXPECT_LE(mc.sim.peak, t.sim.peak) << variant << " seed " << seed;
      ++checked;
    }
    SimulationResult none = simulate(g, keepEverythingSchedule(g));
    for (int64_t b : {none.peak * 9 / 10, none.peak * 7 / 10}) {
      SolveOptions o;
      o.budget = b;
      Solution ex = solve(g, "lowerset-exact", o);
      Solution ap = solve(g, "lowerset-approx", o);
      if (ap.feasible) {
        ASSERT_TRUE(ex.feasible) << "seed " << seed;
        EXPECT_LE(ex.sim.time, ap.sim.time + 1e-9) << "seed " << seed;
      }
    }
  }
  EXPECT_GE(checked, 200);
}

TEST(LowerSet, ExactFallsBackToApproxBeyondTheCap) {
  TrainingGraph g = googlenetLike(120);
  SolveOptions o;
  o.maxLowerSets = 50;
  std::string note;
  o.note = [&](const std::string &s) { note = s; };
  SimulationResult none = simulate(g, keepEverythingSchedule(g));
  o.budget = none.peak * 8 / 10;
  Solution ex = solve(g, "lowerset-exact", o);
  EXPECT_NE(note.find("more than 50 lower sets"), std::string::npos) << note;
  o.note = nullptr;
  Solution ap = solve(g, "lowerset-approx", o);
  ASSERT_EQ(ex.feasible, ap.feasible);
  EXPECT_EQ(ex.schedule, ap.schedule);
}

// Few sets can still mean hours of DP (pairs of sets, large fronts): the work
// allowance stops it, with a note, and the plan is still a valid one at
// least as fast as the approximate DP's.
TEST(LowerSet, ExactGivesUpBeyondItsWorkAllowance) {
  TrainingGraph g = googlenetLike(120);
  SolveOptions o;
  SimulationResult none = simulate(g, keepEverythingSchedule(g));
  o.budget = none.peak * 8 / 10;
  std::vector<std::string> notes;
  o.note = [&](const std::string &s) { notes.push_back(s); };
  Solution full = solve(g, "lowerset-exact", o);
  EXPECT_TRUE(notes.empty());
  o.maxLowerSetWork = 1000;
  Solution capped = solve(g, "lowerset-exact", o);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("more than 1000 units of work"), std::string::npos)
      << notes[0];
  o.note = nullptr;
  Solution ap = solve(g, "lowerset-approx", o);
  ASSERT_TRUE(full.feasible && capped.feasible && ap.feasible);
  EXPECT_LE(capped.sim.time, ap.sim.time);
  EXPECT_LE(full.sim.time, capped.sim.time);
  EXPECT_LE(capped.sim.peak, o.budget);
}

// lowerset-approx's work allowance (auto sets it from its time budget): an
// allowance it does not reach changes nothing; one it reaches is said in a
// note, and whatever it keeps is a plan that meets the budget.
TEST(LowerSet, ApproxStopsAtItsWorkAllowance) {
  TrainingGraph g = googlenetLike(120);
  SolveOptions o;
  SimulationResult none = simulate(g, keepEverythingSchedule(g));
  // The tightest budget of 70-80 % it meets: there the DP must recompute.
  Solution free;
  for (int pct = 70; pct <= 80 && !free.feasible; ++pct) {
    o.budget = none.peak * pct / 100;
    free = solve(g, "lowerset-approx", o);
  }
  ASSERT_TRUE(free.feasible);
  ASSERT_GT(free.sim.time, none.time);
  std::vector<std::string> notes;
  o.note = [&](const std::string &s) { notes.push_back(s); };
  o.maxApproxWork = int64_t(1) << 60;
  Solution roomy = solve(g, "lowerset-approx", o);
  EXPECT_TRUE(notes.empty());
  EXPECT_EQ(free.schedule, roomy.schedule);
  for (int64_t work : {1, 100, 1000}) {
    notes.clear();
    o.maxApproxWork = work;
    Solution capped = solve(g, "lowerset-approx", o);
    ASSERT_EQ(notes.size(), 1u) << work;
    EXPECT_NE(notes[0].find("did " + std::to_string(work) + " units of work"),
              std::string::npos)
        << notes[0];
    if (capped.feasible)
      EXPECT_LE(capped.sim.peak, o.budget);
  }
}

// A cache shared between budgets (minimumBudget's bisection) only saves
// work: every solve returns what a fresh one returns.
TEST(LowerSet, SharedCacheChangesNoResult) {
  for (TrainingGraph g : {googlenetLike(40), unetLike(40), resnetLike(40)}) {
    SolveOptions shared;
    shared.cache = std::make_shared<SolveCache>();
    int64_t full = simulate(g, keepEverythingSchedule(g)).peak;
    for (const char *name : {"lowerset-approx", "lowerset-exact",
                             "lowerset-approx-mc"}) {
      for (int pct = 90; pct >= 10; pct -= 20) {
        SolveOptions fresh;
        fresh.budget = shared.budget = full * pct / 100;
        Solution a = solve(g, name, fresh), b = solve(g, name, shared);
        ASSERT_EQ(a.feasible, b.feasible) << name << " at " << pct << "%";
        EXPECT_EQ(a.schedule, b.schedule) << name << " at " << pct << "%";
        EXPECT_EQ(a.leastPeak, b.leastPeak) << name << " at " << pct << "%";
      }
    }
    EXPECT_FALSE(shared.cache->entries.empty());
    // And the search it serves gives the answer an uncached search gives.
    SolveOptions fresh;
    EXPECT_EQ(minimumBudget(g, "lowerset-approx", fresh),
              minimumBudget(g, "lowerset-approx", shared));
  }
}

// The lower-set paper's GoogLeNet has 134 forward functions and 27,358 lower
// sets; googlenetLike(268) has the same shape and size.
TEST(LowerSet, GoogLeNetShapeHasPaperSizedLattice) {
  TrainingGraph g = googlenetLike(268);
  ASSERT_FALSE(g.verify().has_value());
  LowerSetModel m(g);
  EXPECT_EQ(m.size(), 133);
  LowerSetFamily all = allLowerSets(m, 1 << 20);
  ASSERT_TRUE(all.complete);
  EXPECT_GT(all.size(), 20000);
  EXPECT_LT(all.size(), 40000);
  EXPECT_EQ(prunedLowerSets(m).size(), m.size() + 1);
  // Auxiliary heads join only at the loss: the sets L_v cannot cut inside
  // them, the exact DP can, and needs far less recomputation for it.
  SimulationResult none = simulate(g, keepEverythingSchedule(g));
  int64_t b = none.peak * 9 / 10;
  LowerSetPlan ex = solveLowerSetDP(m, all, LowerSetObjective::MinOverhead, b);
  LowerSetPlan ap =
      solveLowerSetDP(m, prunedLowerSets(m), LowerSetObjective::MinOverhead, b);
  ASSERT_TRUE(ex.feasible);
  ASSERT_TRUE(ap.feasible);
  EXPECT_LT(ex.overhead, ap.overhead);
}

// Four ops a, b, c, l (the loss), cut after b: the forward keeps b (read by
// c, outside the cut) and drops a. dl runs in segment 2's step; dc reads b,
// so it computes a gradient of segment 1 and runs in its step, which starts
// by recomputing a (read by db).
TEST(LowerSet, CanonicalScheduleOfAChain) {
  ForwardGraphBuilder fb;
  TensorId x = fb.input("x", 1, false);
  TensorId w = fb.input("w", 1, true);
  TensorId a = fb.value("a", "op", 1, {x, w}, 10, true, false);
  TensorId b = fb.value("b", "op", 1, {a}, 10, true, false);
  TensorId c = fb.value("c", "op", 1, {b}, 10, true, false);
  TensorId l = fb.value("l", "op", 1, {c}, 1, true, false);
  TrainingGraph g = fb.build(l);
  LowerSetModel m(g);
  NodeSet cut(m.words(), 0);
  setAdd(cut.data(), m.index(g.tensor(a).producer));
  setAdd(cut.data(), m.index(g.tensor(b).producer));
  Schedule s = m.canonicalSchedule({cut, m.fullSet()});
  EXPECT_EQ(s.str(g), "run a\nrun b\nfree a\nrun c\nrun l\n"
                      "run dl\nfree c\n"
                      "run a\nrun dc\nfree b\nfree dc\n"
                      "run db\nfree a\nfree db\nrun da\nfree da\n");
  SimulationResult sim = simulate(g, s);
  ASSERT_TRUE(sim.valid) << sim.error;
  EXPECT_DOUBLE_EQ(sim.time, g.baseTime() + 1); // a once more.
}

} // namespace

// Short segments lose nothing on deep networks: on a 600-node ResNet-like
// graph the DP limited to segments of 8 forward nodes finds the same overhead
// as the DP over all L_v pairs at every budget, and its plan is valid.
TEST(LowerSet, ShortSegmentsKeepTheOptimumOnDeepNetworks) {
  TrainingGraph g = resnetLike(600);
  const int64_t peak = simulate(g, keepEverythingSchedule(g)).peak;
  for (int percent : {60, 70, 80}) {
    SCOPED_TRACE(std::to_string(percent) + "%");
    SolveOptions full;
    full.budget = peak * percent / 100;
    SolveOptions shortSteps = full;
    shortSteps.maxLowerSetStep = 8;
    Solution a = solve(g, "lowerset-approx", full);
    Solution b = solve(g, "lowerset-approx", shortSteps);
    ASSERT_TRUE(a.feasible) << a.reason;
    ASSERT_TRUE(b.feasible) << b.reason;
    EXPECT_LE(b.sim.peak, full.budget);
    EXPECT_NEAR(b.sim.time, a.sim.time, 1e-9 * a.sim.time);
  }
}

// Where one DP over the whole L_v family is beyond auto's time allowance,
// auto does not fall back to the coarsened chain: it keeps evict-greedy's
// plan, or plans lower sets with short segments and says so; either way at
// least as fast as the short-segment lower-set plan itself.
TEST(LowerSet, AutoPlansLargeGraphsWithShortSegments) {
  TrainingGraph g = resnetLike(3000);
  SolveOptions o;
  o.budget = simulate(g, keepEverythingSchedule(g)).peak * 7 / 10;
  o.timeBudget = 0.05; // The whole family is estimated at ~1 s here.
  std::vector<std::string> notes;
  o.note = [&](const std::string &n) { notes.push_back(n); };
  Solution s = solve(g, "auto", o);
  ASSERT_TRUE(s.feasible) << s.reason;
  EXPECT_TRUE(s.chosen == "evict-greedy" || s.chosen == "lowerset-approx")
      << s.chosen;
  if (s.chosen == "lowerset-approx")
    EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string &n) {
      return n.find("segments of at most 8 forward nodes") != std::string::npos;
    }));
  SolveOptions segments = o;
  segments.note = nullptr;
  segments.maxLowerSetStep = 8;
  segments.lowerSetProbes = 1;
  Solution lowerSets = solve(g, "lowerset-approx", segments);
  ASSERT_TRUE(lowerSets.feasible) << lowerSets.reason;
  EXPECT_LE(s.sim.time, lowerSets.sim.time);
}
