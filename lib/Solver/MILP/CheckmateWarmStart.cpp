//===- CheckmateWarmStart.cpp - A schedule as the MILP's start ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Encodes a plan (the best other strategy's) as values of the model's
// columns, so the solver starts from it; plans the stage structure cannot
// express get no start.
//
//===----------------------------------------------------------------------===//

#include "CheckmateFormulation.h"

#include <algorithm>

namespace remat::checkmate {

bool Formulation::stageRuns(const Schedule &s,
                            std::vector<std::vector<char>> &run) const {
  // Stage of each run: recomputations belong to the next first computation.
  run.assign(n, std::vector<char>(n, 0));
  std::vector<char> seen(g.numNodes(), 0);
  int stage = 0, lastPos = -1;
  for (const Step &step : s.steps()) {
    if (step.isFree())
      continue;
    if (step.isCopy() || step.isAwait())
      return false; // The model has no host memory.
    if (!step.discard.empty() || stage >= n)
      return false;
    const int i = pos[step.id];
    if (!seen[step.id]) {
      if (i != stage)
        return false; // Another first-computation order.
      seen[step.id] = 1;
      run[stage][i] = 1;
      ++stage;
      lastPos = -1;
      continue;
    }
    if (i >= stage || run[stage][i] || i <= lastPos || R[stage][i].isZero())
      return false; // Out of order in its stage, or twice.
    run[stage][i] = 1;
    lastPos = i;
  }
  return stage == n;
}

std::vector<std::vector<char>> Formulation::heldAtStageStarts(
    const std::vector<std::vector<char>> &run) const {
  Schedule canonical;
  for (int t = 0; t < n; ++t)
    for (int i = 0; i <= t; ++i)
      if (run[t][i])
        canonical.run(order[i]);
  Schedule eager = canonical.withEagerFrees(g);
  std::vector<std::vector<char>> held(n + 1,
                                      std::vector<char>(g.numTensors(), 0));
  // Liveness right before the first run of each stage: a stage ends with
  // its first computation and the next starts after the frees that follow.
  std::vector<char> live(g.numTensors(), 0), ran(g.numNodes(), 0);
  int t = 0;
  bool atStageStart = true;
  for (const Step &step : eager.steps()) {
    if (step.isFree()) {
      live[step.id] = 0;
      continue;
    }
    if (atStageStart) {
      held[t] = live;
      atStageStart = false;
    }
    for (TensorId x : g.node(step.id).outputs)
      live[x] = 1;
    if (!ran[step.id]) { // The stage's first computation closes it.
      ran[step.id] = 1;
      ++t;
      atStageStart = true;
    }
  }
  held[n] = live;
  return held;
}

bool Formulation::setChoices(const std::vector<int> &picks,
                             const std::vector<std::vector<char>> &run,
                             const std::vector<std::vector<char>> &held,
                             std::vector<double> &x) const {
  auto set = [&](const Var &v, double value) {
    if (!v.isConst())
      x[v.col] = value;
    else if (v.value != value)
      return false;
    return true;
  };
  for (size_t p = 0; p < parts.size(); ++p)
    for (size_t c = 0; c < Y[p].size(); ++c)
      if (!set(Y[p][c], static_cast<int>(c) == picks[p] ? 1 : 0))
        return false;
  for (int st = 0; st < n; ++st)
    for (int i = 0; i <= st; ++i)
      if (!set(R[st][i], run[st][i]))
        return false;
  for (TensorId v = 0; v < g.numTensors(); ++v) {
    if (g.isInput(v))
      continue;
    for (int st = producerPos(v) + 1; st <= n; ++st)
      if (!set(S[v][st], held[st][v]))
        return false;
  }
  return true;
}

void Formulation::setFreesAndMemory(const std::vector<int> &picks,
                                    std::vector<double> &x) const {
  // Bytes at the warm start's choices.
  auto bytesAt = [&](TensorId v) {
    auto [p, entry] = sizedTensor[v];
    return bytes(v) + (p < 0 ? 0 : extra(p, entry, picks[p]));
  };
  // FREE as large as its bounds allow; U by its recursion.
  for (int st = 0; st < n; ++st) {
    double u = 0;
    for (int k = 0; k <= st; ++k) {
      if (k == 0) {
        for (TensorId v = 0; v < g.numTensors(); ++v)
          if (!g.isInput(v) && producerPos(v) < st)
            u += bytesAt(v) * value(S[v][st], x);
      } else {
        for (auto [col, v] : FREE[st][k - 1]) {
          bool canFree = value(R[st][k - 1], x) > 0.5 &&
                         value(S[v][st + 1], x) < 0.5;
          for (int j : readerPositions(v))
            if (j > k - 1 && j <= st && value(R[st][j], x) > 0.5)
              canFree = false;
          x[col] = canFree ? 1 : 0;
          u -= bytesAt(v) * x[col];
        }
      }
      for (TensorId v : g.node(order[k]).outputs)
        u += value(R[st][k], x) * bytesAt(v);
      x[U[st][k]] = std::max(0.0, u);
    }
  }
  // The products, now that their factors are set.
  for (const Product &prod : products)
    x[prod.col] = value(prod.factor, x) * extra(prod.part, prod.entry,
                                                picks[prod.part]);
}

std::vector<double> Formulation::encode(const Schedule &s,
                                        const std::vector<int> &picks) const {
  if (picks.size() != parts.size())
    return {};
  std::vector<std::vector<char>> run;
  if (!stageRuns(s, run))
    return {};
  // Holds: what the eager schedule of these runs has live at each stage's
  // start.
  std::vector<std::vector<char>> held = heldAtStageStarts(run);
  std::vector<double> x(model.columns.size(), 0);
  if (!setChoices(picks, run, held, x))
    return {};
  setFreesAndMemory(picks, x);
  return x;
}

} // namespace remat::checkmate
