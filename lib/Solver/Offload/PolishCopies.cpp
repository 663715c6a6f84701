//===- PolishCopies.cpp - Local moves of a plan's host copies -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Offload/PolishCopies.h"

#include "remat/Solver/Core/Simulator.h"

#include <algorithm>
#include <vector>

namespace remat {

namespace {

/// How far a copy step is moved, in steps, each way.
constexpr long kPolishShift = 4;
/// Candidates times schedule steps at most (each candidate is simulated in
/// time linear in the steps): a plan of 5,000 steps (a ResNet-50) gets 40
/// candidates, one of up to 97 steps OffloadPlanOptions::swapTries.
constexpr long kPolishWork = 200'000;
/// What a repair (offloadUntilBudget on a candidate) counts as: several
/// simulations at each peak it lowers.
constexpr long kRepairCost = 8;

/// `steps` with the step at `from` moved to index `to` of the result.
std::vector<Step> moved(const std::vector<Step> &steps, long from, long to) {
  std::vector<Step> out = steps;
  Step s = out[from];
  out.erase(out.begin() + from);
  out.insert(out.begin() + to, s);
  return out;
}

/// `steps` without the offload at `i` and the prefetch of the same tensor
/// that ends its stay on the host (none: a result returned from there).
std::vector<Step> withoutStay(const std::vector<Step> &steps, long i) {
  std::vector<Step> out;
  out.reserve(steps.size());
  bool ended = false;
  for (long k = 0; k < static_cast<long>(steps.size()); ++k) {
    if (k == i)
      continue;
    if (!ended && k > i && steps[k].id == steps[i].id) {
      if (steps[k].isAwait())
        continue; // Waits for the copy that goes.
      if (steps[k].isPrefetch()) {
        ended = true;
        continue;
      }
    }
    out.push_back(steps[k]);
  }
  return out;
}

} // namespace

Schedule polishCopies(const TrainingGraph &g, const Schedule &plan,
                      const OffloadPlanOptions &opts) {
  if (!plan.hasCopies() || !opts.link.usable())
    return plan;
  SimulatorOptions so;
  so.link = opts.link;
  SimulationResult best = simulate(g, plan, so);
  if (!best.valid || best.peak > opts.budget || best.hostPeak > opts.hostBudget)
    return plan;
  Schedule cur = plan;
  const long tries = std::min<long>(
      opts.swapTries,
      std::max<long>(64, kPolishWork / std::max<long>(1, plan.size())));
  long sims = 0;
  // Keeps `steps` (frees placed eagerly) when the Simulator finds it
  // valid, within both budgets and faster; with `repair`, a plan over the
  // budget first gets offloadUntilBudget's copies (stalls allowed while it
  // stays faster than the best plan).
  auto tryPlan = [&](const std::vector<Step> &steps, bool repair = false) {
    ++sims;
    Schedule next = Schedule(steps).withEagerFrees(g);
    if (repair) {
      sims += kRepairCost - 1;
      OffloadPlanOptions meet = opts;
      meet.stallBelow = best.time;
      next = offloadUntilBudget(g, next, meet);
    }
    SimulationResult r = simulate(g, next, so);
    if (!r.valid || r.peak > opts.budget || r.hostPeak > opts.hostBudget ||
        r.time >= best.time - 1e-9)
      return false;
    cur = std::move(next);
    best = std::move(r);
    return true;
  };
  bool improved = true;
  while (improved && sims < tries) {
    improved = false;
    // A copy: a kept candidate replaces `cur` while its steps are read.
    const std::vector<Step> steps = cur.steps();
    const long n = static_cast<long>(steps.size());
    for (long i = 0; i < n && !improved && sims < tries; ++i) {
      if (!steps[i].isCopy() && !steps[i].isAwait())
        continue;
      // A wait dropped where the plan then still fits.
      if (steps[i].isAwait()) {
        std::vector<Step> without = steps;
        without.erase(without.begin() + i);
        if ((improved = tryPlan(without)))
          break;
      }
      // A stay dropped: the plan as it is, or with copies of other
      // tensors where it is then over the budget.
      if (steps[i].isOffload() &&
          ((improved = tryPlan(withoutStay(steps, i))) ||
           (improved = tryPlan(withoutStay(steps, i), /*repair=*/true))))
        break;
      for (long d = 1; d <= kPolishShift && !improved; ++d)
        for (long to : {i - d, i + d})
          if (to >= 0 && to < n && sims < tries &&
              (improved = tryPlan(moved(steps, i, to))))
            break;
    }
  }
  // Awaits that buy nothing (the copy ends before the run anyway, or the
  // bytes are not needed): dropped, so the report names only real waits
  // (within the same work bound: a simulation each).
  long drops = std::max<long>(64, kPolishWork / std::max<long>(1, cur.size()));
  for (long i = static_cast<long>(cur.size()) - 1; i >= 0 && drops > 0; --i) {
    if (!cur.steps()[i].isAwait())
      continue;
    --drops;
    std::vector<Step> without = cur.steps();
    without.erase(without.begin() + i);
    Schedule next(std::move(without));
    SimulationResult r = simulate(g, next, so);
    if (r.valid && r.peak <= opts.budget && r.hostPeak <= opts.hostBudget &&
        r.time <= best.time + 1e-9) {
      cur = std::move(next);
      best = std::move(r);
    }
  }
  return cur;
}

} // namespace remat
