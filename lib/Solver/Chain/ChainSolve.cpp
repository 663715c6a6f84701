//===- ChainSolve.cpp - Memory slots and the chain-strategy glue ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Chain/ChainSolvers.h"

#include <algorithm>
#include <limits>

namespace remat {

// Sizes in slots saturate at kSlotCap: the rotor DPs add up to 5 of them in
// an int (7 fit; at 2^29, 4 overflowed, found by UBSan). The slots are
// fewer, so M < kSlotCap and a saturated size still never fits.
static constexpr int64_t kSlotCap = int64_t(1) << 28;

int SlotChain::slotsOf(int64_t bytes) const {
  // Ceil for both signs (C++ division truncates towards zero).
  int64_t s = bytes / q + (bytes > 0 && bytes % q != 0);
  return static_cast<int>(std::max(-kSlotCap, std::min(s, kSlotCap)));
}

SlotChain discretiseChain(const ChainSpec &chain, int64_t budget, int slots) {
  SlotChain c;
  const int L = chain.length();
  c.n = L + 1;
  int64_t avail = budget - chain.a0;
  if (avail < 0)
    return c;
  int64_t S = std::min<int64_t>(std::max(1, slots), kSlotCap - 1);
  c.q = std::max<int64_t>(1, avail / S + (avail % S != 0));
  c.M = static_cast<int>(avail / c.q);
  // Round up: the sum of rounded sizes bounds the sum of real sizes.
  auto up = [&](int64_t bytes) { return c.slotsOf(std::max<int64_t>(0, bytes)); };
  c.A.assign(c.n + 1, 0);
  c.Abar.assign(c.n + 1, 0);
  c.D.assign(c.n + 1, 0);
  c.OF.assign(c.n + 1, 0);
  c.OB.assign(c.n + 1, 0);
  c.UF.assign(c.n + 1, 0);
  c.UB.assign(c.n + 1, 0);
  c.Tape.assign(c.n + 1, 1);
  c.A[0] = up(chain.a0);
  c.D[0] = up(chain.delta0);
  for (int l = 1; l <= c.n; ++l) {
    const ChainStage &st = l <= L ? chain.stages[l - 1] : chain.loss;
    c.A[l] = l <= L ? up(st.a) : 0;
    // buildChainGraph stores a^l and r^l = max(0, abar - a): abar >= a.
    c.Abar[l] = up(std::max(st.a, st.abar));
    c.D[l] = l <= L ? up(st.delta) : 0;
    c.OF[l] = up(st.of);
    c.OB[l] = c.slotsOf(st.ob);
    c.Tape[l] = st.tape || l == c.n;
    c.UF[l] = st.uf;
    c.UB[l] = st.ub;
  }
  return c;
}

StrategyResult solveViaChain(const TrainingGraph &g, const SolveOptions &opts,
                             const std::string &name,
                             const ChainPlanner &planner, bool raiseBudget) {
  StrategyResult res;
  std::string why;
  std::optional<ChainView> view = extractChain(g, &why, opts.maxChainStages);
  if (!view) {
    res.reason = name + " is not applicable: " + why;
    return res;
  }
  res = solveViaChain(g, *view, opts, name, planner, raiseBudget);
  // Moving output readers up a stage helps exp-like chains and hurts
  // ResNets (coarser stages): also plan on the view without it, when it
  // differs, and keep the faster schedule (the lower peak on ties).
  std::optional<ChainView> plain =
      extractChain(g, nullptr, opts.maxChainStages, false);
  if (!plain || (plain->length() == view->length() &&
                 plain->backward == view->backward))
    return res;
  StrategyResult other = solveViaChain(g, *plain, opts, name, planner,
                                       raiseBudget);
  if (!other.feasible)
    return res;
  if (!res.feasible)
    return other;
  SimulationResult a = simulate(g, res.schedule), b = simulate(g, other.schedule);
  if (a.valid && (!b.valid || a.time < b.time ||
                  (a.time == b.time && a.peak <= b.peak)))
    return res;
  return other;
}

namespace {

/// A chain plan for one chain budget, expanded and simulated on the graph.
struct Probe {
  bool planned = false, fits = false;
  ChainPlan plan;
  Schedule sched;
  SimulationResult sim;
};

StrategyResult scheduleResult(Schedule sched) {
  StrategyResult res;
  res.feasible = true;
  res.schedule = std::move(sched);
  return res;
}

StrategyResult failedResult(std::string reason) {
  StrategyResult res;
  res.reason = std::move(reason);
  return res;
}

/// solveViaChain on a view: plans for chain budgets (the budget the chain
/// model plans within) until the real peak fits the budget, then raises the
/// chain budget while plans still fit, keeping the fastest that fits.
class ChainBudgetSearch {
public:
  ChainBudgetSearch(const TrainingGraph &g, const ChainView &view,
                    const SolveOptions &opts, const std::string &name,
                    const ChainPlanner &planner, bool raiseBudget)
      : g(g), view(view), opts(opts), name(name), planner(planner),
        raiseBudget(raiseBudget), B(opts.budget) {}

  StrategyResult run();

private:
  Probe probe(int64_t chainBudget);
  void keep(Probe &p);
  StrategyResult lowerChainBudget(Probe p, int64_t budget);
  bool findLeastPlanned(int64_t &lo, std::string &reason);
  void raiseChainBudget(int64_t lo);

  const TrainingGraph &g;
  const ChainView &view;
  const SolveOptions &opts;
  const std::string &name;
  const ChainPlanner &planner;
  const bool raiseBudget;
  const int64_t B;
  int64_t modelPeak = 0;
  int64_t resolution = 1;
  int maxProbes = 1;
  int probes = 0;
  Probe best; ///< The fastest plan that fits so far.
};

/// Whether the plan's B steps come in chain order, B^{L+1} first, each at
/// most once: the chain model's own order (B^l reads delta^l, which B^{l+1}
/// produces), which viaChainFloor relies on.
bool backwardsInChainOrder(const ChainOps &ops) {
  int last = std::numeric_limits<int>::max();
  for (const ChainStep &st : ops)
    if (st.op == ChainOp::Backward) {
      if (st.stage >= last)
        return false;
      last = st.stage;
    }
  return true;
}

Probe ChainBudgetSearch::probe(int64_t chainBudget) {
  Probe p;
  ++probes;
  p.plan = planner(g, view, chainBudget);
  if (!p.plan.note.empty() && opts.note)
    opts.note(name + ": " + p.plan.note);
  if (p.plan.feasible && !backwardsInChainOrder(p.plan.ops)) {
    p.plan.feasible = false; // Never observed: every DP plans in this order.
    p.plan.reason = name + ": internal error: the plan's backward steps are "
                           "out of chain order";
  }
  if (!p.plan.feasible)
    return p;
  p.planned = true;
  p.sched = expandChainSchedule(g, view, p.plan.ops);
  p.sim = simulate(g, p.sched);
  p.fits = !p.sim.valid || p.sim.peak <= B; // Invalid: solve() reports it.
  return p;
}

void ChainBudgetSearch::keep(Probe &p) {
  if (p.fits && (!best.fits || !p.sim.valid || p.sim.time < best.sim.time))
    best = std::move(p);
}

StrategyResult ChainBudgetSearch::run() {
  // More memory than the chain model needs without rematerialization only
  // coarsens the slots: plan with the model's no-remat peak at most.
  ChainGraph cg = buildChainGraph(view.spec);
  modelPeak = simulate(cg.graph, keepEverythingSchedule(cg.graph)).peak;

  // With memory for the whole program nothing beats running every node
  // once; the slot DPs cannot always see it (sizes round up to slots, so the
  // keep-everything plan may not fit the discretised no-remat peak).
  // Revolve (raiseBudget = false) is a baseline that always recomputes.
  if (raiseBudget) {
    Schedule all = keepEverythingSchedule(g);
    if (simulate(g, all).peak <= B)
      return scheduleResult(std::move(all));
  }
  int64_t lo = std::min(B, modelPeak);
  Probe first = probe(lo);
  if (first.planned && !first.sim.valid) // A bug; solve() reports it.
    return scheduleResult(std::move(first.sched));
  if (first.planned && !first.fits)
    return lowerChainBudget(std::move(first), lo);
  // Op-level graphs: the model over-estimates (conservative stage peaks and
  // held inputs), so plans for chain budgets above the real one may still
  // fit. Search the chain budget, bisecting to about 1% of the budget and
  // within opts.chainProbes plans.
  resolution = std::max<int64_t>(1, B / 100);
  maxProbes = raiseBudget ? std::max(1, opts.chainProbes) : 1;
  std::string reason = first.plan.reason;
  if (!first.planned) {
    if (!findLeastPlanned(lo, reason))
      return failedResult(reason);
  } else {
    keep(first);
  }
  raiseChainBudget(lo);
  return scheduleResult(std::move(best.sched));
}

/// The model under-estimated (a safety net: tests find it never does):
/// lower the chain budget by the excess, a few times.
StrategyResult ChainBudgetSearch::lowerChainBudget(Probe p, int64_t budget) {
  for (int attempt = 0; attempt < 3 && p.planned && !p.fits; ++attempt) {
    budget -= p.sim.peak - B;
    if (opts.note)
      opts.note(name + ": the chain model under-estimated the peak (" +
                std::to_string(p.sim.peak) + " bytes); planning again with " +
                std::to_string(budget) + " bytes");
    p = probe(budget);
  }
  if (!p.fits)
    return failedResult(p.planned ? name + ": no plan within budget after "
                                           "lowering the chain budget"
                                  : p.plan.reason);
  return scheduleResult(std::move(p.sched));
}

/// No plan at lo at all: the least chain budget with a plan is the most
/// frugal one; bisect for it between lo and the model's peak. On success
/// it becomes lo (and its plan the best); otherwise `reason` (the planner's
/// at lo) says why not.
bool ChainBudgetSearch::findLeastPlanned(int64_t &lo, std::string &reason) {
  int64_t hi = modelPeak;
  Probe top;
  if (lo < modelPeak && probes < maxProbes)
    top = probe(hi);
  if (!top.planned)
    return false;
  Probe least = std::move(top);
  while (hi - lo > resolution && probes < maxProbes) {
    int64_t mid = lo + (hi - lo) / 2;
    Probe p = probe(mid);
    if (p.planned)
      hi = mid, least = std::move(p);
    else
      lo = mid;
  }
  if (!least.fits) {
    reason += " (with " + std::to_string(probes) +
              " chain budgets up to the chain model's peak, the least "
              "real peak is " +
              std::to_string(least.sim.peak) + " bytes)";
    return false;
  }
  lo = hi;
  keep(least);
  return true;
}

/// lo fits; raise the chain budget while plans still fit.
void ChainBudgetSearch::raiseChainBudget(int64_t lo) {
  int64_t hi = modelPeak + 1; // Unknown from lo + 1 on.
  if (lo < modelPeak && probes < maxProbes) {
    Probe p = probe(modelPeak);
    if (p.fits)
      lo = modelPeak;
    else
      hi = modelPeak;
    keep(p);
  }
  while (hi - lo > resolution && probes < maxProbes) {
    int64_t mid = lo + (hi - lo) / 2;
    Probe p = probe(mid);
    if (p.fits)
      lo = mid;
    else
      hi = mid;
    keep(p);
  }
}

} // namespace

StrategyResult solveViaChain(const TrainingGraph &g, const ChainView &view,
                             const SolveOptions &opts, const std::string &name,
                             const ChainPlanner &planner, bool raiseBudget) {
  return ChainBudgetSearch(g, view, opts, name, planner, raiseBudget).run();
}

} // namespace remat
