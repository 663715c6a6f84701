//===- GraphMeasures.cpp - What auto measures on a graph once -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Chain/ChainView.h"
#include "remat/Solver/Join/Join.h"
#include "remat/Solver/LowerSet/LowerSet.h"
#include "remat/Solver/Portfolio/Auto.h"

#include <algorithm>

namespace remat {

namespace {

/// Counting lower sets is itself exponential: only up to a small cap.
constexpr int64_t kLowerSetCountCap = 20000;

} // namespace

GraphMeasures measureGraph(const TrainingGraph &g, const SolveOptions &o) {
  GraphMeasures m;
  m.n = g.numNodes();
  for (NodeId v = 0; v < g.numNodes(); ++v)
    m.nf += g.isForward(v);
  if (auto view = extractChain(g))
    m.chain = view->length();
  m.join = recognizeJoin(g).has_value();
  const int64_t cap = std::min(o.maxLowerSets, kLowerSetCountCap);
  if (m.nf <= 4096) {
    LowerSetModel model(g);
    LowerSetFamily all = allLowerSets(model, cap);
    if (all.complete)
      m.lowerSets = all.size();
  }
  return m;
}

} // namespace remat
