//===- LowerSetStrategy.cpp - lowerset-{exact,approx}[-mc] ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Time-centric (Sec. 4.2/4.3): the fastest canonical strategy whose model
// peak fits the budget. The model bounds the simulated peak from above
// (LowerSet.h), so the DP's plan always fits. The bound is loose (like the
// paper's Eq. 2 it ignores liveness inside a step) and the simulated peak
// does not even fall monotonically with the model's, so the budget the DP
// works with is searched against the Simulator:
//  - the one-segment plan (no recomputation) is returned when it fits;
//  - when the DP has a plan at the budget, it is re-run with its budget
//    raised by the slack the Simulator measured, as long as the new plan
//    fits and is faster (three times; once for the exact DP);
//  - below the smallest model peak B* the DP has no plan at the budget:
//    the plans at the scan budgets B* (1 + j/20), j = 0..12, compete and the
//    fastest that fits wins (the scan uses the L_v family, with caches
//    compared in 1/64ths of the budget above B*; the exact variant adds its
//    plan at its own B*).
// Memory-centric (Sec. 4.4, strategies lowerset-exact-mc/-approx-mc): the
// lowest simulated peak among the scan plans, both the fastest (time-centric)
// and the slowest (maximal overhead: coarse segments, which liveness rewards)
// at each scan budget, and the one-segment plan. The budget only decides
// feasibility. Every plan the time-centric search can return at its smallest
// budget is among them, so memory-centric never peaks higher.
// lowerset-exact enumerates the lower sets up to SolveOptions::maxLowerSets
// and falls back to the approximate family (with a note) beyond; each exact
// DP starts from the approximate DP's plan as incumbent, and the approximate
// procedure's plan is kept when it is faster.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/LowerSet/LowerSet.h"
#include "remat/Solver/LowerSet/LowerSetStrategies.h"

#include <algorithm>
#include <functional>
#include <string>

namespace remat {

namespace {

struct Candidate {
  bool ok = false;
  LowerSetPlan plan;
  Schedule schedule;
  SimulationResult sim;
};

/// Faster plans win; among equally fast, the lower peak.
bool faster(const Candidate &a, const Candidate &b) {
  if (a.ok != b.ok)
    return a.ok;
  return a.sim.time < b.sim.time ||
         (a.sim.time == b.sim.time && a.sim.peak < b.sim.peak);
}
/// Lower peaks win; among equal peaks, the faster plan.
bool lower(const Candidate &a, const Candidate &b) {
  if (a.ok != b.ok)
    return a.ok;
  return a.sim.peak < b.sim.peak ||
         (a.sim.peak == b.sim.peak && a.sim.time < b.sim.time);
}

class LowerSetSolver {
public:
  LowerSetSolver(const TrainingGraph &g, const SolveOptions &opts, bool exact)
      : model_(g), approx_(prunedLowerSets(model_, opts.maxApproxSets)),
        probes_(opts.lowerSetProbes),
        workLeft_(opts.maxLowerSetWork),
        maxWork_(opts.maxLowerSetWork),
        approxWorkLeft_(opts.maxApproxWork),
        maxApproxWork_(opts.maxApproxWork), note_(opts.note),
        cache_(opts.cache), maxApproxSets_(opts.maxApproxSets) {
    approx_.maxStep = opts.maxLowerSetStep;
    if (!exact)
      return;
    all_ = allLowerSets(model_, opts.maxLowerSets);
    haveExact_ = all_.complete;
    if (!haveExact_ && opts.note)
      opts.note("lowerset-exact: the graph has more than " +
                std::to_string(opts.maxLowerSets) +
                " lower sets (SolveOptions::maxLowerSets); using the "
                "approximate DP of lowerset-approx");
  }

  /// Says so when the approximate DPs ran out of work.
  void noteApproxWorkSpent() const {
    if (maxApproxWork_ > 0 && approxWorkLeft_ == 0 && note_)
      note_("lowerset-approx: its DPs did " + std::to_string(maxApproxWork_) +
            " units of work (SolveOptions::maxApproxWork); kept the best "
            "plan found by then");
  }

  Candidate timeCentric(int64_t budget) const {
    Candidate whole = oneSegment();
    if (whole.ok && whole.sim.peak <= budget)
      return whole; // No overhead: nothing is faster.
    Candidate best = atBudget(budget, false);
    if (haveExact_) {
      Candidate e = atBudget(budget, true);
      if (faster(e, best))
        best = std::move(e);
    }
    if (best.ok)
      return best;
    const Candidate *lowest = nullptr;
    for (const Candidate &c : scan()) {
      if (c.ok && c.sim.peak <= budget && faster(c, best))
        best = c;
      if (lower(c, lowest ? *lowest : best))
        lowest = &c;
    }
    // Nothing fits: the lowest plan says by how much (StrategyResult::
    // leastPeak), which minimumBudget() starts from.
    if (!best.ok && lowest)
      best = *lowest;
    return best;
  }

  Candidate memoryCentric() const {
    Candidate best = oneSegment();
    for (const Candidate &c : scan())
      if (lower(c, best))
        best = c;
    if (haveExact_) {
      const LowerSetPlan &low = lowestExact();
      if (low.feasible) {
        // The maximal-overhead DP has no bound to prune with: over all lower
        // sets only while they are few.
        const LowerSetFamily &fam = all_.size() <= 4096 ? all_ : approx_;
        for (LowerSetPlan p :
             {dp(LowerSetObjective::MinOverhead, low.peak, true),
              solveLowerSetDP(model_, fam, LowerSetObjective::MaxOverhead,
                              low.peak)}) {
          if (!p.feasible)
            continue;
          Candidate c = make(std::move(p));
          if (lower(c, best))
            best = std::move(c);
        }
      }
    }
    return best;
  }

private:
  /// The DP over L_v, or over all lower sets seeded with its plan; `known`
  /// (a plan that fits the budget) bounds both.
  LowerSetPlan dp(LowerSetObjective obj, int64_t budget, bool exact,
                  const LowerSetPlan *known = nullptr) const {
    if (known && (!known->feasible || known->peak > budget))
      known = nullptr;
    LowerSetPlan a = solveLowerSetDP(model_, approx_, obj, budget, known, 1,
                                     approxWork());
    if (!exact)
      return a;
    const LowerSetPlan *seed = a.feasible ? &a : nullptr;
    if (known && known->feasible && known->peak <= budget &&
        (!seed || known->overhead < seed->overhead))
      seed = known;
    if (!haveExact_)
      return seed ? *seed : a;
    LowerSetPlan e = solveLowerSetDP(model_, all_, obj, budget, seed, 1,
                                     &workLeft_);
    if (e.exhausted) {
      // From here on, the approximate family only.
      haveExact_ = false;
      if (note_)
        note_("lowerset-exact: its DP over all " +
              std::to_string(all_.size()) + " lower sets did more than " +
              std::to_string(maxWork_) +
              " units of work (SolveOptions::maxLowerSetWork); using "
              "the approximate DP of lowerset-approx");
      e.exhausted = false;
    }
    return e;
  }

  /// The approximate DPs' allowance (null: no limit). Once it is spent,
  /// every DP keeps its incumbent.
  int64_t *approxWork() const {
    return maxApproxWork_ > 0 ? &approxWorkLeft_ : nullptr;
  }

  const LowerSetPlan &lowestExact() const {
    if (!lowestExactDone_) {
      lowestExact_ = dp(LowerSetObjective::MinPeak, kUnlimitedBudget, true);
      lowestExactDone_ = true;
    }
    return lowestExact_;
  }

  /// The plan's canonical schedule, with its recomputations just in time
  /// when that peaks lower (same runs, so the same time).
  Candidate make(LowerSetPlan plan) const {
    Candidate c;
    c.plan = std::move(plan);
    c.schedule = model_.canonicalSchedule(c.plan.sets);
    c.sim = simulate(model_.graph(), c.schedule);
    if (c.plan.sets.size() > 1) {
      Schedule jit = model_.canonicalSchedule(
          c.plan.sets, LowerSetModel::RecomputeTiming::JustInTime);
      SimulationResult sim = simulate(model_.graph(), jit);
      if (sim.valid && (!c.sim.valid || sim.peak < c.sim.peak)) {
        c.schedule = std::move(jit);
        c.sim = std::move(sim);
      }
    }
    c.ok = c.sim.valid;
    return c;
  }

  Candidate oneSegment() const {
    LowerSetPlan p;
    p.feasible = true;
    p.sets.push_back(model_.fullSet());
    return make(std::move(p));
  }

  /// The DP's plan at the budget, improved by probing higher DP budgets.
  Candidate atBudget(int64_t budget, bool exact) const {
    LowerSetPlan p = dp(LowerSetObjective::MinOverhead, budget, exact);
    if (!p.feasible)
      return {};
    Candidate best = make(std::move(p));
    int64_t modelBudget = budget;
    for (int probe = 0; probe < (exact ? std::min(1, probes_) : probes_) &&
                        best.ok;
         ++probe) {
      int64_t slack = budget - best.sim.peak;
      if (slack <= 0 || best.plan.overhead <= 0 ||
          modelBudget > kUnlimitedBudget - slack)
        break;
      modelBudget += slack;
      LowerSetPlan q =
          dp(LowerSetObjective::MinOverhead, modelBudget, exact, &best.plan);
      if (!q.feasible || q.overhead >= best.plan.overhead)
        continue; // The same plan: raise the budget further.
      Candidate c = make(std::move(q));
      if (!c.ok || c.sim.peak > budget || c.sim.time >= best.sim.time)
        break;
      best = std::move(c);
    }
    return best;
  }

  /// Plans at fixed DP budgets from B* up (approximate family, coarse
  /// fronts), plus the exact variant's plan at its own B*.
  /// The same at every budget: computed once per graph when the options
  /// carry a cache (minimumBudget's bisection).
  const std::vector<Candidate> &scan() const {
    if (!scan_)
      scan_ = cachedOrMade<std::vector<Candidate>>(
          cache_,
          "lowerset-scan/" + std::string(haveExact_ ? "exact/" : "approx/") +
              std::to_string(maxApproxSets_),
          [&] { return makeScan(); });
    return *scan_;
  }

  std::vector<Candidate> makeScan() const {
    std::vector<Candidate> scan;
    LowerSetPlan low =
        solveLowerSetDP(model_, approx_, LowerSetObjective::MinPeak,
                        kUnlimitedBudget, nullptr, 1, approxWork());
    if (low.feasible)
      for (int j = 0; j <= 12; ++j) {
        int64_t b = low.peak + low.peak / 20 * j;
        int64_t grain = std::max<int64_t>(1, (b - model_.baseBytes()) / 64);
        // At B* itself, the time-centric DP's own plan (exact fronts).
        for (LowerSetObjective obj :
             {LowerSetObjective::MinOverhead, LowerSetObjective::MaxOverhead}) {
          bool own = j == 0 && obj == LowerSetObjective::MinOverhead;
          LowerSetPlan p = solveLowerSetDP(model_, approx_, obj, b, nullptr,
                                           own ? 1 : grain, approxWork());
          if (p.feasible)
            scan.push_back(make(std::move(p)));
        }
      }
    if (haveExact_ && lowestExact().feasible) {
      // Its own plan is the incumbent: often the fastest there already.
      LowerSetPlan p = dp(LowerSetObjective::MinOverhead,
                          lowestExact().peak, true, &lowestExact());
      if (p.feasible)
        scan.push_back(make(std::move(p)));
    }
    return scan;
  }

  LowerSetModel model_;
  LowerSetFamily approx_, all_;
  int probes_ = 3;
  mutable int64_t workLeft_;
  int64_t maxWork_;
  mutable int64_t approxWorkLeft_;
  int64_t maxApproxWork_;
  std::function<void(const std::string &)> note_;
  std::shared_ptr<SolveCache> cache_;
  int maxApproxSets_ = 0;
  mutable bool haveExact_ = false; ///< Cleared when its DP gives up.
  mutable LowerSetPlan lowestExact_;
  mutable bool lowestExactDone_ = false;
  mutable std::shared_ptr<const std::vector<Candidate>> scan_;
};

StrategyResult finish(Candidate c, const SolveOptions &opts,
                      const char *what) {
  StrategyResult r;
  if (!c.ok) {
    r.reason = std::string(what) +
               ": no canonical strategy fits the budget in the lower-set "
               "model";
    return r;
  }
  if (c.sim.peak > opts.budget) {
    r.leastPeak = c.sim.peak;
    r.reason = std::string(what) + ": the lowest peak it reaches is " +
               std::to_string(c.sim.peak) + " bytes, above the budget";
    return r;
  }
  r.feasible = true;
  r.schedule = std::move(c.schedule);
  return r;
}

} // namespace

StrategyResult solveLowerSetExact(const TrainingGraph &g,
                                  const SolveOptions &opts) {
  LowerSetSolver s(g, opts, /*exact=*/true);
  Candidate c = s.timeCentric(opts.budget);
  s.noteApproxWorkSpent();
  return finish(std::move(c), opts, "lowerset-exact");
}

StrategyResult solveLowerSetApprox(const TrainingGraph &g,
                                   const SolveOptions &opts) {
  LowerSetSolver s(g, opts, /*exact=*/false);
  Candidate c = s.timeCentric(opts.budget);
  s.noteApproxWorkSpent();
  return finish(std::move(c), opts, "lowerset-approx");
}

StrategyResult solveLowerSetExactMC(const TrainingGraph &g,
                                    const SolveOptions &opts) {
  LowerSetSolver s(g, opts, /*exact=*/true);
  Candidate c = s.memoryCentric();
  s.noteApproxWorkSpent();
  return finish(std::move(c), opts, "lowerset-exact-mc");
}

StrategyResult solveLowerSetApproxMC(const TrainingGraph &g,
                                     const SolveOptions &opts) {
  LowerSetSolver s(g, opts, /*exact=*/false);
  Candidate c = s.memoryCentric();
  s.noteApproxWorkSpent();
  return finish(std::move(c), opts, "lowerset-approx-mc");
}

} // namespace remat
