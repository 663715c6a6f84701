//===- OffloadPlanner.cpp - Offload tensors whose copies hide -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Offload/OffloadPlanner.h"

#include "remat/Solver/Core/Simulator.h"

#include <algorithm>
#include <optional>

namespace remat {

namespace {

bool touches(const Node &n, TensorId t) {
  return std::find(n.inputs.begin(), n.inputs.end(), t) != n.inputs.end() ||
         std::find(n.outputs.begin(), n.outputs.end(), t) != n.outputs.end();
}

bool reads(const Node &n, TensorId t) {
  return std::find(n.inputs.begin(), n.inputs.end(), t) != n.inputs.end();
}

/// Where one tensor could go to the host around the peak step: offloaded
/// after step `after`, prefetched before step `before`, read at `next`
/// (both -1: a result nothing reads again, returned from the host).
struct Gap {
  long after = -1, before = -1, next = -1;
};

/// The stay of `t` across step `peak`: its last use before it (a run that
/// produces or reads it) and its next read after it, with
/// the prefetch issued as late as the compute up to that read hides it.
/// `start` holds every step's start time (copies issue when the previous
/// run ends). None when the compute in between cannot hide both copies.
/// A result (`mayLeave`) that nothing reads after the peak only leaves:
/// whether its copy ends in time is the Simulator's to say.
std::optional<Gap> gapAround(const TrainingGraph &g, const Schedule &s,
                             const std::vector<double> &start, long peak,
                             TensorId t, const CopyLink &link, bool mayStall,
                             bool mayLeave) {
  const std::vector<Step> &steps = s.steps();
  Gap gap;
  for (long i = peak - 1; i >= 0 && gap.after < 0; --i) {
    const Step &st = steps[i];
    if (st.id != t && !st.isRun())
      continue;
    if (st.isRun() && touches(g.node(st.id), t))
      gap.after = i;
    else if (!st.isRun())
      return std::nullopt; // Freed, offloaded, or back unread: leave it.
  }
  for (long i = peak + 1; i < static_cast<long>(steps.size()); ++i) {
    const Step &st = steps[i];
    if (st.isRun() && reads(g.node(st.id), t)) {
      gap.next = i;
      break;
    }
    if (!st.isRun() && st.id == t)
      return std::nullopt; // Freed before another read.
  }
  if (gap.after >= 0 && gap.next < 0 && mayLeave)
    return gap;
  if (gap.after < 0 || gap.next < 0)
    return std::nullopt;
  const int64_t bytes = g.tensor(t).bytes;
  double ready = start[gap.after] + g.node(steps[gap.after].id).time;
  // XLA's rule: the compute in between hides both copies.
  if (!mayStall && link.offloadTime(bytes) + link.prefetchTime(bytes) >
                       start[gap.next] - ready)
    return std::nullopt;
  for (long j = gap.next; j > peak; --j)
    if (steps[j].isRun() &&
        start[j] + link.prefetchTime(bytes) <= start[gap.next]) {
      gap.before = j;
      return gap;
    }
  if (!mayStall)
    return std::nullopt;
  gap.before = gap.next; // Right before the read: it waits for the copy.
  return gap;
}

/// A prefetch of `t` issued before the peak run for a read after it, which
/// holds t's device bytes through the peak: moved from step `from` to
/// before step `to`, after the peak run, as late as the compute up to the
/// read still hides it (or right before the read where stalls are allowed).
struct Delay {
  long from = -1, to = -1;
};

std::optional<Delay> delayAround(const TrainingGraph &g, const Schedule &s,
                                 const std::vector<double> &start, long peak,
                                 TensorId t, const CopyLink &link,
                                 bool mayStall) {
  const std::vector<Step> &steps = s.steps();
  Delay d;
  for (long i = peak - 1; i >= 0 && d.from < 0; --i) {
    const Step &st = steps[i];
    if (st.isRun() ? touches(g.node(st.id), t) : st.id == t && !st.isPrefetch())
      return std::nullopt;
    if (st.isPrefetch() && st.id == t)
      d.from = i;
  }
  long next = -1;
  for (long i = peak + 1; i < static_cast<long>(steps.size()) && next < 0; ++i)
    if (steps[i].isRun() && reads(g.node(steps[i].id), t))
      next = i;
  if (d.from < 0 || next < 0)
    return std::nullopt;
  const double in = link.prefetchTime(g.tensor(t).bytes);
  for (long j = next; j > peak; --j)
    if (steps[j].isRun() && start[j] + in <= start[next]) {
      d.to = j;
      return d;
    }
  if (!mayStall)
    return std::nullopt;
  d.to = next;
  return d;
}

/// Start time of every step, assuming nothing stalls (true of every
/// schedule the planner keeps).
std::vector<double> stepStarts(const TrainingGraph &g, const Schedule &s) {
  std::vector<double> start;
  start.reserve(s.size());
  double clock = 0;
  for (const Step &st : s.steps()) {
    start.push_back(clock);
    if (st.isRun())
      clock += g.node(st.id).time;
  }
  return start;
}

/// Calls `tryAwait(t)` for each tensor whose copy to the host, issued
/// before step `peak`, still holds its device bytes during that run, in
/// issue order, until one returns true; returns whether one did.
template <typename TryAwait>
bool awaitInFlight(const TrainingGraph &g, const SimulationResult &sim,
                   long peak, TryAwait tryAwait) {
  for (const HostCopy &c : sim.hostCopies) {
    if (c.offloadStep >= peak)
      break; // In issue order: the rest come later.
    const bool back = c.prefetchStep >= 0 && c.prefetchStep < peak;
    if (back || g.tensor(c.tensor).bytes == 0 ||
        !std::binary_search(sim.liveAtPeak.begin(), sim.liveAtPeak.end(),
                            c.tensor))
      continue;
    if (tryAwait(c.tensor))
      return true;
  }
  return false;
}

} // namespace

Schedule awaitEveryOffload(const Schedule &plan) {
  std::vector<Step> steps;
  steps.reserve(plan.size());
  for (const Step &s : plan.steps()) {
    steps.push_back(s);
    if (s.isOffload())
      steps.push_back(Step::await(s.id));
  }
  return Schedule(std::move(steps));
}

namespace {

using Moves = std::vector<std::pair<long, Step>>;

/// offloadUntilBudget's search: the plan so far, its simulation, and the
/// moves tried on the run at its peak.
struct PeakLowering {
  const TrainingGraph &g;
  const OffloadPlanOptions &opts;
  const SimulatorOptions &so;
  const bool mayStall;
  const double time; ///< The base plan's.
  Schedule &cur;
  SimulationResult &sim;

  /// Inserts each (position, step) before the step at that position, in
  /// list order, and drops the step at `drop` (none: -1); keeps the plan
  /// when the Simulator says the run at the peak holds less, the peak did
  /// not rise and the time is allowed.
  bool tryMoves(long peak, const Moves &moves, long drop = -1) {
    std::vector<Step> steps;
    long shift = 0;
    for (long k = 0; k <= static_cast<long>(cur.size()); ++k) {
      for (const auto &[at, step] : moves)
        if (at == k) {
          steps.push_back(step);
          shift += k <= peak;
        }
      if (k == drop)
        --shift;
      else if (k < static_cast<long>(cur.size()))
        steps.push_back(cur.steps()[k]);
    }
    Schedule next(std::move(steps));
    SimulationResult nextSim = simulate(g, next, so);
    const bool slower = mayStall ? nextSim.time >= opts.stallBelow
                                 : nextSim.stall > 0 || nextSim.time > time;
    if (!nextSim.valid || slower || nextSim.peak > sim.peak ||
        nextSim.hostPeak > opts.hostBudget ||
        nextSim.usageDuringStep[peak + shift] >= sim.usageDuringStep[peak])
      return false;
    cur = std::move(next);
    sim = std::move(nextSim);
    return true;
  }

  /// Tensors live at the peak that may leave the device, largest first.
  std::vector<TensorId> candidates(const Node &running) const {
    std::vector<TensorId> out;
    for (TensorId t : sim.liveAtPeak)
      if (!g.isInput(t) && (opts.offloadResults || !g.isRequired(t)) &&
          !touches(running, t))
        out.push_back(t);
    std::stable_sort(out.begin(), out.end(), [&](TensorId a, TensorId b) {
      return g.tensor(a).bytes > g.tensor(b).bytes;
    });
    return out;
  }

  /// The copy may end after the peak run would start: make that run wait
  /// for one of its own inputs, offloaded after its last use before and
  /// prefetched right before it, while `moves` take t away.
  bool tryWaitOnInput(long peak, const Node &running, const Moves &moves,
                      int &tries) {
    for (TensorId y : running.inputs) {
      if (g.isInput(y) || g.isRequired(y) || tries++ >= opts.triesPerPeak)
        continue;
      long last = peak - 1;
      while (last >= 0 && !(cur.steps()[last].isRun() &&
                            touches(g.node(cur.steps()[last].id), y)))
        --last;
      if (last < 0)
        continue;
      Moves both = moves;
      both.push_back({last + 1, Step::offload(y)});
      both.push_back({peak, Step::prefetch(y)});
      if (tryMoves(peak, both))
        return true;
    }
    return false;
  }

  /// Tries moving the candidates' copies around the peak run, up to the
  /// allowed tries; whether one was kept.
  bool moveOneAround(long peak, const Node &running) {
    const std::vector<TensorId> cands = candidates(running);
    const std::vector<double> start = stepStarts(g, cur);
    int tries = 0;
    for (TensorId t : cands) {
      if (g.tensor(t).bytes == 0)
        break; // Moving nothing lowers nothing.
      // Back on the device too early: brought back after the peak run.
      if (std::optional<Delay> d =
              delayAround(g, cur, start, peak, t, opts.link, mayStall)) {
        if (tries++ >= opts.triesPerPeak)
          break;
        if (tryMoves(peak, {{d->to, Step::prefetch(t)}}, d->from))
          return true;
        continue;
      }
      std::optional<Gap> gap =
          gapAround(g, cur, start, peak, t, opts.link, mayStall,
                    opts.offloadResults && g.isRequired(t));
      if (!gap)
        continue;
      if (tries++ >= opts.triesPerPeak)
        break;
      Moves moves = {{gap->after + 1, Step::offload(t)}};
      if (gap->before >= 0)
        moves.push_back({gap->before, Step::prefetch(t)});
      if (tryMoves(peak, moves))
        return true;
      if (!mayStall)
        continue;
      if (tryWaitOnInput(peak, running, moves, tries))
        return true;
    }
    return false;
  }
};

} // namespace

Schedule offloadUntilBudget(const TrainingGraph &g, const Schedule &base,
                            const OffloadPlanOptions &opts) {
  SimulatorOptions so;
  so.link = opts.link;
  so.recordTimeline = true;
  so.recordLiveAtPeak = true;
  Schedule cur = base;
  SimulationResult sim = simulate(g, cur, so);
  // Step starts are the sums of run times only while nothing stalls (with
  // stalls allowed they are estimates; the Simulator judges).
  const bool mayStall = opts.stallBelow >= 0;
  if (!sim.valid || (sim.stall > 0 && !mayStall) || !opts.link.usable())
    return base;
  PeakLowering lowering{g, opts, so, mayStall, sim.time, cur, sim};
  while (sim.peak > opts.budget) {
    const long peak = sim.peakStep;
    if (peak < 0 || !cur.steps()[peak].isRun())
      break; // The inputs alone, or a prefetch: nothing to move.
    const Node &running = g.node(cur.steps()[peak].id);
    bool kept = lowering.moveOneAround(peak, running);
    // A copy to the host still in flight holds its device bytes through
    // the peak run: make the run wait for it to end (XLA's copy-done put
    // right before it), the earliest such copy first (the shortest wait).
    if (!kept && mayStall)
      kept = awaitInFlight(g, sim, peak, [&](TensorId t) {
        return lowering.tryMoves(peak, {{peak, Step::await(t)}});
      });
    if (!kept)
      break;
  }
  return cur;
}

} // namespace remat
