//===- CopyInsteadOfRecompute.cpp -----------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Offload/CopyInsteadOfRecompute.h"

#include "remat/Solver/Core/Simulator.h"

#include <algorithm>
#include <optional>

namespace remat {

namespace {

bool reads(const Node &n, TensorId t) {
  return std::find(n.inputs.begin(), n.inputs.end(), t) != n.inputs.end();
}

/// Whether run `s` stores `t`.
bool stores(const TrainingGraph &g, const Step &s, TensorId t) {
  const Node &n = g.node(s.id);
  return std::find(n.outputs.begin(), n.outputs.end(), t) != n.outputs.end() &&
         std::find(s.discard.begin(), s.discard.end(), t) == s.discard.end();
}

/// Whether a step of `ev` after `i` uses the instance of `t` that `i`
/// stored: a read or a copy before `t` is stored again.
bool usedAfter(const TrainingGraph &g, const std::vector<Step> &ev, size_t i,
               TensorId t) {
  for (size_t k = i + 1; k < ev.size(); ++k) {
    if (!ev[k].isRun()) { // A copy, or an await of one.
      if (ev[k].id == t)
        return true;
      continue;
    }
    if (reads(g.node(ev[k].id), t))
      return true;
    if (stores(g, ev[k], t))
      return false;
  }
  return g.isRequired(t);
}

/// Drops recomputations none of whose outputs is used (they fed a
/// recomputation that is gone), in one backward pass: `needed[t]` says a
/// later step uses the instance of t that is current at that point, so a
/// dropped run's inputs are needed no more, and a chain of them goes too.
void dropDeadRecomputations(const TrainingGraph &g, std::vector<Step> &ev) {
  std::vector<char> again(ev.size(), 0), ran(g.numNodes(), 0);
  for (size_t k = 0; k < ev.size(); ++k)
    if (ev[k].isRun()) {
      again[k] = ran[ev[k].id];
      ran[ev[k].id] = 1;
    }
  std::vector<char> needed(g.numTensors(), 0), drop(ev.size(), 0);
  for (TensorId t : g.requiredOutputs())
    needed[t] = 1;
  for (size_t k = ev.size(); k-- > 0;) {
    const Step &s = ev[k];
    if (!s.isRun()) {
      // An offload uses the instance; a prefetch makes a new one; an await
      // waits for an offload before it.
      if (s.isCopy())
        needed[s.id] = s.isOffload();
      continue;
    }
    const Node &n = g.node(s.id);
    drop[k] = again[k] && std::none_of(n.outputs.begin(), n.outputs.end(),
                                       [&](TensorId t) {
                                         return stores(g, s, t) && needed[t];
                                       });
    if (drop[k])
      continue;
    for (TensorId t : n.outputs)
      if (stores(g, s, t))
        needed[t] = 0;
    for (TensorId t : n.inputs)
      needed[t] = 1;
  }
  size_t kept = 0;
  for (size_t k = 0; k < ev.size(); ++k)
    if (!drop[k])
      ev[kept++] = ev[k];
  ev.resize(kept);
}

/// `ev` without recomputation `i`: each output it stored and something
/// reads later comes from the node's previous run instead, kept on the
/// device (`runsBefore` < 0) or offloaded after its last use before `i` and
/// prefetched `runsBefore` runs before its next read. None when an output's
/// earlier instance is not on the device before `i`, or copies of it
/// already stand in the way.
std::optional<std::vector<Step>> withoutRun(const TrainingGraph &g,
                                            const std::vector<Step> &ev,
                                            size_t i, int runsBefore) {
  // Steps to insert: before[k] go in front of event k, after[k] behind it.
  std::vector<std::vector<Step>> before(ev.size() + 1), after(ev.size());
  for (TensorId t : g.node(ev[i].id).outputs) {
    if (!stores(g, ev[i], t) || !usedAfter(g, ev, i, t))
      continue;
    long last = -1; // The earlier instance's last use.
    for (long k = static_cast<long>(i) - 1; k >= 0 && last < 0; --k) {
      if (!ev[k].isRun()) {
        if (ev[k].id == t)
          return std::nullopt;
      } else if (reads(g.node(ev[k].id), t) || stores(g, ev[k], t)) {
        last = k;
      }
    }
    long reader = -1;
    for (size_t k = i + 1; k < ev.size() && reader < 0; ++k) {
      if (!ev[k].isRun()) {
        if (ev[k].id == t)
          return std::nullopt;
      } else if (reads(g.node(ev[k].id), t)) {
        reader = static_cast<long>(k);
      }
    }
    if (last < 0 || reader < 0)
      return std::nullopt;
    if (runsBefore < 0)
      continue; // Kept on the device.
    long at = reader;
    for (int r = 0; r < runsBefore; ++r) {
      do
        --at;
      while (at > last && !ev[at].isRun());
      if (at <= last)
        return std::nullopt;
    }
    after[last].push_back(Step::offload(t));
    before[at].push_back(Step::prefetch(t));
  }
  std::vector<Step> out;
  for (size_t k = 0; k < ev.size(); ++k) {
    out.insert(out.end(), before[k].begin(), before[k].end());
    if (k != i)
      out.push_back(ev[k]);
    out.insert(out.end(), after[k].begin(), after[k].end());
  }
  dropDeadRecomputations(g, out);
  return out;
}

/// Prefetch positions tried: kept on the device (-1), then that many runs
/// before the read.
constexpr int kRunsBefore[] = {-1, 0, 1, 2, 3, 4, 6, 8, 12};

/// offloadUntilBudget's candidates per peak when a trade needs copies of
/// other tensors to stay within budget.
constexpr int kTriesPerPeak = 16;

} // namespace

Schedule copyInsteadOfRecompute(const TrainingGraph &g, const Schedule &plan,
                                const OffloadPlanOptions &opts) {
  SimulatorOptions so;
  so.link = opts.link;
  SimulationResult sim = simulate(g, plan, so);
  if (!sim.valid || sim.peak > opts.budget)
    return plan;
  Schedule best = plan;
  double bestTime = sim.time;
  // No plan beats every node once with nothing stalling.
  double floor = 0;
  for (const Node &n : g.nodes())
    floor += n.time;
  int tries = 0;
  for (bool improved = bestTime > floor; improved && tries < opts.swapTries;) {
    improved = false;
    std::vector<Step> ev;
    for (const Step &s : best.steps())
      if (!s.isFree())
        ev.push_back(s);
    std::vector<char> ran(g.numNodes(), 0);
    for (size_t i = 0; i < ev.size() && !improved && tries < opts.swapTries;
         ++i) {
      if (!ev[i].isRun())
        continue;
      if (!ran[ev[i].id]) {
        ran[ev[i].id] = 1;
        continue;
      }
      // The best of the positions for this recomputation.
      for (int runsBefore : kRunsBefore) {
        std::optional<std::vector<Step>> cand =
            withoutRun(g, ev, i, runsBefore);
        if (!cand)
          continue;
        ++tries;
        Schedule s = Schedule(std::move(*cand)).withEagerFrees(g);
        SimulationResult r = simulate(g, s, so);
        if (r.valid && r.peak > opts.budget && r.time < bestTime) {
          // Over the budget without the recomputation: copies of others,
          // stalling a little if still faster, may bring it back.
          OffloadPlanOptions o = opts;
          o.stallBelow = bestTime;
          o.triesPerPeak = kTriesPerPeak;
          tries += kTriesPerPeak; // At least that many simulations.
          s = offloadUntilBudget(g, s, o);
          r = simulate(g, s, so);
        }
        if (r.valid && r.peak <= opts.budget &&
            r.hostPeak <= opts.hostBudget &&
            r.time < bestTime - 1e-9 * std::max(1.0, bestTime)) {
          best = std::move(s);
          bestTime = r.time;
          improved = true;
        }
      }
    }
  }
  return best;
}

} // namespace remat
