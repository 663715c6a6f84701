//===- ChenStrategies.cpp - chen-sqrt and chen-greedy --------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Chen et al. 2016, "Training deep nets with sublinear memory cost": cut the
// forward graph into segments at articulation points, keep only the values
// at the cuts, and recompute each segment once, right before its backward.
// In lower-set terms (Kusumoto et al. 2019, Sec. 2) this is the canonical
// strategy of a sequence L_{v1} < L_{v2} < ... < V where every L_vi (v and
// all its ancestors) has the single boundary node v: every later forward
// node depends on the earlier ones only through v's outputs. Both strategies
// build such a sequence and use the lower-set canonical schedule.
//  - chen-sqrt: about sqrt(c + 1) segments of equal forward memory, c the
//    number of candidate cuts (Chen's sqrt(n) split points of n layers).
//  - chen-greedy (Chen's memory planning with budget): walk the candidates
//    in order and cut once the forward memory since the last cut exceeds a
//    threshold b; try a grid of thresholds and keep the fastest schedule
//    whose simulated peak fits the budget.
// Graphs with long skips (auxiliary heads, U-Net) have few candidates; the
// lowerset strategies cover them.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/LowerSet/LowerSet.h"
#include "remat/Solver/Baselines/BaselineStrategies.h"

#include <algorithm>
#include <cmath>

namespace remat {

namespace {

/// Candidate cuts: nodes v whose L_v has boundary {v}, nested in order.
std::vector<int> articulationChain(const LowerSetModel &m) {
  std::vector<int> chain;
  for (int v = 0; v < m.size(); ++v) {
    if (m.succ(v).empty())
      continue; // A sink: nothing after it to cut from.
    const uint64_t *l = m.ancestors(v);
    bool single = true;
    for (int w = 0; w < m.words() && single; ++w)
      for (uint64_t bits = l[w]; bits && single; bits &= bits - 1) {
        int u = w * 64 + __builtin_ctzll(bits);
        if (u == v)
          continue;
        for (int s : m.succ(u))
          if (!setHas(l, s)) {
            single = false;
            break;
          }
      }
    // Nodes with no path between them (independent inputs) are not nested;
    // keep the chain of those that are.
    if (single && (chain.empty() || setHas(l, chain.back())))
      chain.push_back(v);
  }
  return chain;
}

std::vector<NodeSet> sequenceOf(const LowerSetModel &m,
                                const std::vector<int> &cuts) {
  std::vector<NodeSet> seq;
  for (int v : cuts)
    seq.emplace_back(m.ancestors(v), m.ancestors(v) + m.words());
  seq.push_back(m.fullSet());
  return seq;
}

StrategyResult fromSchedule(const LowerSetModel &m, Schedule s,
                            const SolveOptions &opts, const char *what) {
  StrategyResult r;
  SimulationResult sim = simulate(m.graph(), s);
  if (sim.valid && sim.peak > opts.budget) {
    r.reason = std::string(what) + " reaches a peak of " +
               std::to_string(sim.peak) + " bytes, above the budget";
    return r;
  }
  r.feasible = true; // solve() reports an invalid schedule as a bug.
  r.schedule = std::move(s);
  return r;
}

int64_t memOf(const LowerSetModel &m, int v) {
  int64_t bytes = 0;
  const uint64_t *l = m.ancestors(v);
  for (int u = 0; u < m.size(); ++u)
    if (setHas(l, u))
      bytes += m.mem(u);
  return bytes;
}

} // namespace

StrategyResult solveChenSqrt(const TrainingGraph &g, const SolveOptions &opts) {
  LowerSetModel m(g);
  std::vector<int> chain = articulationChain(m);
  int64_t total = 0;
  for (int v = 0; v < m.size(); ++v)
    total += m.mem(v);
  const int k = std::max(
      1, static_cast<int>(std::lround(std::sqrt(double(chain.size() + 1)))));
  std::vector<int> cuts;
  int j = 1;
  for (int v : chain) {
    int64_t mv = memOf(m, v);
    if (j < k && mv * k >= total * j) {
      cuts.push_back(v);
      while (j < k && mv * k >= total * j)
        ++j;
    }
  }
  return fromSchedule(m, m.canonicalSchedule(sequenceOf(m, cuts)), opts,
                      "chen-sqrt");
}

StrategyResult solveChenGreedy(const TrainingGraph &g,
                               const SolveOptions &opts) {
  LowerSetModel m(g);
  std::vector<int> chain = articulationChain(m);
  std::vector<int64_t> prefix;
  for (int v : chain)
    prefix.push_back(memOf(m, v));
  int64_t total = 0, smallest = -1;
  for (int v = 0; v < m.size(); ++v) {
    total += m.mem(v);
    if (m.mem(v) > 0 && (smallest < 0 || m.mem(v) < smallest))
      smallest = m.mem(v);
  }
  // Thresholds b: a geometric grid from the smallest value to all of V
  // (b = 0 cuts at every candidate, b = total never cuts).
  std::vector<int64_t> thresholds{0};
  for (double b = std::max<int64_t>(1, smallest); b < double(total); b *= 1.15)
    thresholds.push_back(static_cast<int64_t>(b));
  thresholds.push_back(total);

  std::vector<std::vector<int>> tried;
  Schedule best;
  double bestTime = 0;
  int64_t lowestPeak = -1;
  for (int64_t b : thresholds) {
    std::vector<int> cuts;
    int64_t since = 0;
    for (size_t i = 0; i < chain.size(); ++i)
      if (prefix[i] - since > b) {
        cuts.push_back(chain[i]);
        since = prefix[i];
      }
    if (std::find(tried.begin(), tried.end(), cuts) != tried.end())
      continue;
    tried.push_back(cuts);
    Schedule s = m.canonicalSchedule(sequenceOf(m, cuts));
    SimulationResult sim = simulate(g, s);
    if (!sim.valid)
      return fromSchedule(m, std::move(s), opts, "chen-greedy"); // A bug.
    if (lowestPeak < 0 || sim.peak < lowestPeak)
      lowestPeak = sim.peak;
    if (sim.peak <= opts.budget && (best.empty() || sim.time < bestTime)) {
      best = std::move(s);
      bestTime = sim.time;
    }
  }
  if (best.empty() && g.numNodes() > 0) {
    StrategyResult r;
    r.reason = "chen-greedy: the lowest peak over all thresholds is " +
               std::to_string(lowestPeak) + " bytes, above the budget";
    return r;
  }
  StrategyResult r;
  r.feasible = true;
  r.schedule = std::move(best);
  return r;
}

} // namespace remat
