//===- CheckmateHostCopies.cpp - Host memory as a third state -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The offload and prefetch columns per stage boundary, the host state,
// the link's time rows, and when an offload's device bytes are gone
// (CheckmateMILP.cpp, "Host copies").
//
//===----------------------------------------------------------------------===//

#include "CheckmateFormulation.h"

#include <algorithm>

namespace remat::checkmate {

/// H[x][t], on the host during stage t: H[t] = H[t-1] + OUT[t] - IN[t] -
/// NOW[t] (the copies x has; the others are 0), its bytes in `held`.
void Formulation::addHostState(TensorId x, int t,
                               std::vector<RowBuilder> &held) {
  H[x][t].col = model.addColumn(0, 1, 0, true);
  held[t].add(H[x][t], bytes(x));
  RowBuilder()
      .add(H[x][t], 1)
      .add(H[x][t - 1], -1)
      .add(OUT[x][t], -1)
      .add(IN[x][t], 1)
      .add(NOW[x][t], 1)
      .into(model, 0, 0);
}

/// A result that may leave: offloaded at one boundary after its production
/// and on the host from there to the end, else on the device to the end.
void Formulation::addLeavingResult(TensorId x,
                                   std::vector<RowBuilder> &outTime,
                                   std::vector<RowBuilder> &held) {
  const int p = producerPos(x);
  const double out = link->offloadTime(g.tensor(x).bytes) / timeScale;
  for (int t = p + 1; t < n; ++t) {
    OUT[x][t].col = model.addColumn(0, 1, 0, true);
    outTime[t].add(OUT[x][t], out);
    addHostState(x, t, held);
    RowBuilder().add(S[x][t], 1).add(H[x][t], 1).into(model, 1, 1);
  }
  RowBuilder().add(S[x][n], 1).add(hostVar(H, x, n - 1), 1).into(model, 1, 1);
}

/// The third state: for each tensor a later stage may read again, an
/// offload and two kinds of prefetch per boundary where one can help, the
/// host state from its first possible offload on, and each stage's link
/// rows.
void Formulation::addHostColumns() {
  if (!link)
    return;
  OUT.assign(g.numTensors(), std::vector<Var>(n + 1));
  IN = NOW = H = OUT;
  std::vector<RowBuilder> outTime(n), inTime(n), nowTime(n);
  // Host bytes of stage t: on the host through it, or arriving from it
  // (the host copy stays until its prefetch ends).
  std::vector<RowBuilder> held(n);
  for (TensorId x = 0; x < g.numTensors(); ++x) {
    if (g.isInput(x) || sizedTensor[x].first >= 0)
      continue;
    if (g.isRequired(x)) {
      if (leaves(x))
        addLeavingResult(x, outTime, held);
      continue;
    }
    // The last stage that may read x: any, for a reader that runs again.
    int last = -1;
    for (NodeId v : g.consumers(x))
      last = std::max(last, runsOnce(v) ? pos[v] : n - 1);
    const int p = producerPos(x);
    // Offloaded at t, prefetched at t' > t, read from t' <= last.
    if (p + 2 > last)
      continue;
    const double out = link->offloadTime(g.tensor(x).bytes) / timeScale;
    const double in = link->prefetchTime(g.tensor(x).bytes) / timeScale;
    auto binary = [&](std::vector<std::vector<Var>> &v, int t,
                      RowBuilder &time, double copy) {
      v[x][t].col = model.addColumn(0, 1, 0, true);
      time.add(v[x][t], copy);
      if (&v != &OUT)
        held[t].add(v[x][t], bytes(x));
    };
    for (int t = p + 1; t + 1 <= last; ++t)
      binary(OUT, t, outTime[t], out);
    for (int t = p + 2; t <= last; ++t) {
      if (t + 1 <= last)
        binary(IN, t, inTime[t], in);
      binary(NOW, t, nowTime[t], in);
    }
    for (int t = p + 1; t < n; ++t) {
      addHostState(x, t, held);
      if (NOW[x][t].isZero())
        continue;
      RowBuilder()
          .add(IN[x][t], 1)
          .add(NOW[x][t], 1)
          .add(H[x][t - 1], -1)
          .into(model, -milp::kInfinity, 0);
      RowBuilder()
          .add(IN[x][t], 1)
          .add(NOW[x][t], 1)
          .add(OUT[x][t], 1)
          .into(model, -milp::kInfinity, 1);
    }
  }
  if (hostBudget != kUnlimitedBudget)
    for (int t = 0; t < n; ++t)
      if (held[t].size())
        held[t].into(model, -milp::kInfinity,
                     static_cast<double>(hostBudget) / memScale);
  for (int t = 0; t < n; ++t) {
    RowBuilder compute;
    for (int i = 0; i <= t; ++i)
      compute.add(R[t][i], -g.node(order[i]).time / timeScale);
    // Stage t's compute hides its boundary's offloads ...
    if (outTime[t].size()) {
      RowBuilder row = outTime[t];
      row.append(compute).into(model, -milp::kInfinity, 0);
    }
    if (!nowTime[t].size())
      continue;
    // ... and waits for its prefetches: the first run for those it reads
    // (issued first), the stage's end for the others.
    Var wait{model.addColumn(0, milp::kInfinity, 1, false), 0};
    RowBuilder first = nowTime[t];
    first.add(wait, -1).into(model, -milp::kInfinity, 0);
    RowBuilder all = nowTime[t];
    all.append(inTime[t]).append(compute).add(wait, -1).into(
        model, -milp::kInfinity, 0);
  }
}

/// An offload's device bytes are gone before the stage's next run once the
/// runs so far cover every offload of the boundary (one in-order stream):
/// LEFT[t][x][k] = 1 only if sum OUT[t][y] offloadTime(y) <= sum_{i<=k}
/// R[t][i] time(i) (big-M on all of them), at most once per offload. Without
/// one the bytes count to the stage's end.
std::vector<std::vector<std::pair<int, TensorId>>>
Formulation::addReleases(int t) {
  std::vector<std::vector<std::pair<int, TensorId>>> left(t + 1);
  if (OUT.empty())
    return left;
  auto offload = [&](TensorId x) {
    return link->offloadTime(g.tensor(x).bytes) / timeScale;
  };
  RowBuilder copies;
  double all = 0;
  for (TensorId x = 0; x < g.numTensors(); ++x)
    if (!OUT[x][t].isZero()) {
      copies.add(OUT[x][t], offload(x));
      all += offload(x);
    }
  for (TensorId x = 0; x < g.numTensors(); ++x) {
    if (OUT[x][t].isZero())
      continue;
    RowBuilder once;
    once.add(OUT[x][t], -1);
    for (int k = 0; k < t; ++k) {
      const int col = model.addColumn(0, 1, 0, true);
      RowBuilder ended = copies;
      ended.addColumn(col, all);
      for (int i = 0; i <= k; ++i)
        ended.add(R[t][i], -g.node(order[i]).time / timeScale);
      ended.into(model, -milp::kInfinity, all);
      once.addColumn(col, 1);
      left[k].push_back({col, x});
    }
    // Or before the stage's first computation, which cannot start before a
    // tensor it reads arrives: a prefetch issued at the boundary waits for
    // no copy of its own stream, and takes at least its link time.
    for (TensorId y : computedInputs(t)) {
      if (hostVar(NOW, y, t).isZero())
        continue;
      const int col = model.addColumn(0, 1, 0, true);
      RowBuilder().addColumn(col, 1).add(NOW[y][t], -1).into(
          model, -milp::kInfinity, 0);
      RowBuilder ended = copies;
      ended.addColumn(col, all).into(
          model, -milp::kInfinity,
          all + link->prefetchTime(g.tensor(y).bytes) / timeScale);
      once.addColumn(col, 1);
      left[t - 1].push_back({col, x});
    }
    once.into(model, -milp::kInfinity, 0);
  }
  return left;
}

} // namespace remat::checkmate
