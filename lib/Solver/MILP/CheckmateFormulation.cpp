//===- CheckmateFormulation.cpp - Keep and recompute as rows --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The columns and rows of the two-state model (CheckmateMILP.cpp), the
// sized parts' choices, and the decoding of a solution into a Schedule.
//
//===----------------------------------------------------------------------===//

#include "CheckmateFormulation.h"

#include <algorithm>

namespace remat::checkmate {

namespace {
/// `g` with every sized tensor at its fewest bytes and every sized node at
/// its least time: the model adds what a choice adds above them.
TrainingGraph atSmallest(TrainingGraph g, const std::vector<SizedPart> &parts) {
  for (const SizedPart &p : parts) {
    for (size_t j = 0; j < p.tensors.size(); ++j) {
      int64_t least = p.choices.front().bytes[j];
      for (const SizedPart::Choice &c : p.choices)
        least = std::min(least, c.bytes[j]);
      g.tensor(p.tensors[j]).bytes = least;
    }
    if (p.node != kNone) {
      double least = p.choices.front().time;
      for (const SizedPart::Choice &c : p.choices)
        least = std::min(least, c.time);
      g.node(p.node).time = least;
    }
  }
  return g;
}
} // namespace

Formulation::Formulation(const TrainingGraph &graph, std::vector<NodeId> order,
            int64_t budget, const std::vector<SizedPart> &parts,
            const CopyLink *link, int64_t hostBudget,
            bool resultsMayLeave)
    : smallest(atSmallest(graph, parts)), g(smallest), parts(parts),
      order(std::move(order)), n(static_cast<int>(this->order.size())),
      budget(budget), link(link), hostBudget(hostBudget),
      resultsLeave(resultsMayLeave && link) {
  pos.assign(g.numNodes(), -1);
  for (int i = 0; i < n; ++i)
    pos[this->order[i]] = i;
  const int64_t room = budget - inputBytes(g);
  feasible = room >= 0;
  memScale = std::max<double>(1, static_cast<double>(room));
  timeScale = std::max(1e-300, g.baseTime());
  if (!feasible)
    return;
  addChoiceColumns();
  addRunColumns();
  addHoldColumns();
  addHostColumns();
  addDependencies();
  addPersistence();
  addExclusivity();
  addMemory();
}


/// The runs the solution selects, in stage order, each stage after its
/// boundary's copies, with eager frees.
Schedule Formulation::decode(const std::vector<double> &x) const {
  Schedule s;
  for (int t = 0; t < n; ++t) {
    for (TensorId v = 0; v < static_cast<TensorId>(OUT.size()); ++v)
      if (value(OUT[v][t], x) > 0.5)
        s.offload(v);
    // Those read in this stage first: the stream is in order.
    for (TensorId v = 0; v < static_cast<TensorId>(NOW.size()); ++v)
      if (value(NOW[v][t], x) > 0.5)
        s.prefetch(v);
    for (TensorId v = 0; v < static_cast<TensorId>(IN.size()); ++v)
      if (value(IN[v][t], x) > 0.5)
        s.prefetch(v);
    for (int i = 0; i <= t; ++i)
      if (value(R[t][i], x) > 0.5)
        s.run(order[i]);
  }
  return s.withEagerFrees(g);
}

/// One binary per choice, one choice per part. A sized node runs at least
/// once: its least time is in the base, what the choice adds is on Y.
void Formulation::addChoiceColumns() {
  sizedTensor.assign(g.numTensors(), {-1, -1});
  sizedNode.assign(g.numNodes(), -1);
  Y.resize(parts.size());
  for (size_t p = 0; p < parts.size(); ++p) {
    const int ip = static_cast<int>(p);
    for (size_t j = 0; j < parts[p].tensors.size(); ++j)
      sizedTensor[parts[p].tensors[j]] = {ip, static_cast<int>(j)};
    const int timeEntry = static_cast<int>(parts[p].tensors.size());
    if (parts[p].node != kNone)
      sizedNode[parts[p].node] = ip;
    const size_t m = parts[p].choices.size();
    Y[p].resize(m);
    if (m == 1) { // Its one size is the base: nothing to add.
      Y[p][0].value = 1;
      continue;
    }
    RowBuilder one;
    for (size_t c = 0; c < m; ++c) {
      const double cost = parts[p].node != kNone
                              ? extra(ip, timeEntry, static_cast<int>(c))
                              : 0;
      Y[p][c].col = model.addColumn(0, 1, cost, true);
      one.add(Y[p][c], 1);
    }
    one.into(model, 1, 1);
  }
}

/// A column equal to `factor` (a column) times what part p's choice adds
/// to `entry`: bounded from below where the product is held memory or
/// time, from above where it is freed memory.
int Formulation::productColumn(int p, int entry, const Var &factor, bool freed,
                  double objective) {
  const double most = mostExtra(p, entry);
  const int col = model.addColumn(0, most, objective, false);
  RowBuilder sum;
  sum.addColumn(col, 1);
  for (size_t c = 0; c < Y[p].size(); ++c)
    sum.add(Y[p][c], -extra(p, entry, static_cast<int>(c)));
  if (!freed) {
    sum.add(factor, -most).into(model, -most, milp::kInfinity);
  } else {
    sum.into(model, -milp::kInfinity, 0);
    RowBuilder().addColumn(col, 1).add(factor, -most).into(
        model, -milp::kInfinity, 0);
  }
  products.push_back({col, p, entry, factor});
  return col;
}

/// Adds `coef` times (`factor` x the bytes tensor x's choice adds) to
/// `row`; nothing for a tensor of one size.
void Formulation::addExtraBytes(RowBuilder &row, TensorId x, const Var &factor,
                   double coef, bool freed) {
  auto [p, entry] = sizedTensor[x];
  if (p < 0 || factor.isZero() || mostExtra(p, entry) <= 0)
    return;
  if (factor.isOne()) {
    for (size_t c = 0; c < Y[p].size(); ++c)
      row.add(Y[p][c], coef * extra(p, entry, static_cast<int>(c)));
    return;
  }
  row.addColumn(productColumn(p, entry, factor, freed, 0), coef);
}

void Formulation::addRunColumns() {
  R.assign(n, {});
  for (int t = 0; t < n; ++t) {
    R[t].resize(t + 1);
    for (int i = 0; i < t; ++i)
      if (!runsOnce(order[i])) {
        R[t][i].col = model.addColumn(
            0, 1, g.node(order[i]).time / timeScale, true);
        // A recomputation of a sized node costs what its choice adds too.
        if (const int p = sizedNode[order[i]];
            p >= 0 && mostExtra(p, parts[p].tensors.size()) > 0)
          productColumn(p, static_cast<int>(parts[p].tensors.size()),
                        R[t][i], /*freed=*/false, 1);
      }
    R[t][t].value = 1;
    fixedTime += g.node(order[t]).time; // The diagonal: the base time.
  }
}

void Formulation::addHoldColumns() {
  S.assign(g.numTensors(), {});
  for (TensorId x = 0; x < g.numTensors(); ++x) {
    if (g.isInput(x))
      continue;
    const int p = producerPos(x);
    S[x].resize(n + 1);
    for (int t = p + 1; t <= n; ++t) {
      if (g.isRequired(x) && !leaves(x))
        S[x][t].value = 1;
      else
        S[x][t].col = model.addColumn(0, 1, 0, true);
    }
  }
}

void Formulation::addDependencies() {
  for (int q = 0; q < n; ++q)
    for (TensorId x : computedInputs(q)) {
      const int p = producerPos(x);
      for (int t = q; t < n; ++t)
        if (!R[t][q].isZero())
          RowBuilder()
              .add(R[t][q], 1)
              .add(R[t][p], -1)
              .add(S[x][t], -1)
              .add(hostVar(NOW, x, t), -1)
              .into(model, -milp::kInfinity, 0);
    }
}

void Formulation::addPersistence() {
  for (TensorId x = 0; x < g.numTensors(); ++x) {
    if (g.isInput(x) || (g.isRequired(x) && !leaves(x)))
      continue;
    const int p = producerPos(x);
    for (int t = p; t < n; ++t)
      RowBuilder()
          .add(S[x][t + 1], 1)
          .add(hostVar(OUT, x, t + 1), 1)
          .add(S[x][t], -1)
          .add(R[t][p], -1)
          .add(hostVar(IN, x, t), -1)
          .add(hostVar(NOW, x, t), -1)
          .into(model, -milp::kInfinity, 0);
  }
}

void Formulation::addExclusivity() {
  for (TensorId x = 0; x < g.numTensors(); ++x) {
    if (g.isInput(x))
      continue;
    const int p = producerPos(x);
    for (int t = p + 1; t < n; ++t) {
      if (R[t][p].isZero())
        continue;
      // Neither while it is held, nor on the host, nor arriving.
      for (const Var &v : {S[x][t], hostVar(H, x, t), hostVar(IN, x, t),
                           hostVar(NOW, x, t)})
        if (!v.isZero())
          RowBuilder().add(R[t][p], 1).add(v, 1).into(model,
                                                       -milp::kInfinity, 1);
    }
  }
}

std::vector<std::vector<std::pair<int, TensorId>>>
Formulation::addFrees(int t) {
  std::vector<std::vector<std::pair<int, TensorId>>> frees(t + 1);
  for (TensorId x = 0; x < g.numTensors(); ++x) {
    if (g.isInput(x))
      continue;
    const int p = producerPos(x);
    if (p > t || S[x][t + 1].isOne())
      continue;
    std::vector<int> readers = readerPositions(x);
    std::vector<int> candidates{p};
    for (int r : readers)
      if (r <= t)
        candidates.push_back(r);
    for (int k : candidates) {
      if (R[t][k].isZero())
        continue;
      int col = model.addColumn(0, 1, 0, false);
      auto upper = [&](const Var &v, double coef, double rhs) {
        RowBuilder().addColumn(col, 1).add(v, coef).into(model, -milp::kInfinity, rhs);
      };
      upper(R[t][k], -1, 0);            // FREE <= R[t][k]
      upper(S[x][t + 1], 1, 1);         // FREE <= 1 - S[t+1][x]
      if (!hostVar(OUT, x, t + 1).isZero())
        upper(hostVar(OUT, x, t + 1), 1, 1); // Held until its offload.
      for (int j : readers)
        if (j > k && j <= t)
          upper(R[t][j], 1, 1);         // FREE <= 1 - R[t][j]
      frees[k].push_back({col, x});
    }
  }
  return frees;
}

void Formulation::addMemory() {
  const double cap = static_cast<double>(budget - inputBytes(g)) / memScale;
  FREE.resize(n);
  LEFT.resize(n);
  U.resize(n);
  for (int t = 0; t < n; ++t) {
    FREE[t] = addFrees(t);
    LEFT[t] = addReleases(t);
    U[t].resize(t + 1);
    for (int k = 0; k <= t; ++k) {
      U[t][k] = model.addColumn(0, milp::kInfinity, 0, false);
      RowBuilder row;
      row.addColumn(U[t][k], 1).add(R[t][k], -outBytes(k));
      for (TensorId x : g.node(order[k]).outputs)
        addExtraBytes(row, x, R[t][k], -1, /*freed=*/false);
      if (k == 0) {
        for (TensorId x = 0; x < g.numTensors(); ++x)
          if (!g.isInput(x) && producerPos(x) < t) {
            row.add(S[x][t], -bytes(x));
            addExtraBytes(row, x, S[x][t], -1, /*freed=*/false);
            // Leaving or arriving: held through the whole stage.
            row.add(hostVar(OUT, x, t), -bytes(x));
            row.add(hostVar(IN, x, t), -bytes(x));
            row.add(hostVar(NOW, x, t), -bytes(x));
          }
      } else {
        row.addColumn(U[t][k - 1], -1);
        for (auto [col, x] : FREE[t][k - 1]) {
          row.addColumn(col, bytes(x));
          addExtraBytes(row, x, Var{col, 0}, 1, /*freed=*/true);
        }
        for (auto [col, x] : LEFT[t][k - 1])
          row.addColumn(col, bytes(x));
      }
      row.into(model, 0, 0);
      const double ws = g.node(order[k]).workspace / memScale;
      RowBuilder().addColumn(U[t][k], 1).add(R[t][k], ws).into(
          model, -milp::kInfinity, cap);
    }
  }
}

} // namespace remat::checkmate
