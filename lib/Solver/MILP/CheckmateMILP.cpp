//===- CheckmateMILP.cpp - Rematerialization as a MILP --------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Variables (t: stage, i/k: positions in the order, x: a computed tensor):
//   R[t][i]     node i runs in stage t (1 on the diagonal, 0 above it and
//               for nodes that run once, off the diagonal);
//   S[t][x]     x is held at the start of stage t (t = n: at the end);
//   FREE[t][x][k]  x is freed right after node k runs in stage t (k: x's
//               producer or a reader);
//   U[t][k]     bytes held while node k runs in stage t (inputs excluded).
// Rows:
//   R[t][j] <= R[t][p] + S[t][x]       j reads x, produced by p (p < j);
//   S[t+1][x] <= S[t][x] + R[t][p]     held only if held or produced;
//   R[t][p] + S[t][x] <= 1             no run stores a live tensor;
//   FREE[t][x][k] <= R[t][k], <= 1 - S[t+1][x], <= 1 - R[t][j] for every
//               reader j of x after k in the stage (only upper bounds: a
//               smaller FREE only overestimates memory);
//   U[t][0] = sum S[t][x] |x| + R[t][0] |out 0|,
//   U[t][k] = U[t][k-1] - sum FREE[t][x][k-1] |x| + R[t][k] |out k|,
//   U[t][k] + R[t][k] ws(k) <= budget - inputs.
// Objective: sum R[t][i] time(i). Memory is scaled by the room left after
// the inputs and times by the base time, for the solver's tolerances.
//
// Decoding runs each stage's nodes in order and frees eagerly
// (Schedule::withEagerFrees). Every tensor the model holds at a run is live
// there, or freed earlier by the eager frees, which are the lowest for the
// run sequence: the Simulator's peak never exceeds the model's. The
// Simulator still checks every decoded schedule.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/MILP/CheckmateMILP.h"
#include "remat/Solver/Core/Simulator.h"

#include <algorithm>
#include <cmath>

namespace remat {
namespace {

/// A 0/1 quantity of the model: a constant, or a column.
struct Var {
  int col = -1;
  double value = 0;
  bool isConst() const { return col < 0; }
  bool isZero() const { return col < 0 && value == 0; }
  bool isOne() const { return col < 0 && value == 1; }
};

/// A linear row under construction: constants fold into the bounds.
class RowBuilder {
public:
  RowBuilder &add(const Var &v, double coef) {
    if (v.isConst())
      constant += coef * v.value;
    else if (coef != 0) {
      row.index.push_back(v.col);
      row.value.push_back(coef);
    }
    return *this;
  }
  RowBuilder &addColumn(int col, double coef) {
    row.index.push_back(col);
    row.value.push_back(coef);
    return *this;
  }
  /// Adds lower <= expr <= upper; a row without columns is dropped (it is
  /// a fact of the order, checked by the caller's construction).
  void into(milp::Model &m, double lower, double upper) {
    if (row.index.empty())
      return;
    row.lower = lower - constant;
    row.upper = upper - constant;
    m.rows.push_back(std::move(row));
  }

private:
  milp::Row row;
  double constant = 0;
};

class Formulation {
public:
  Formulation(const TrainingGraph &g, std::vector<NodeId> order,
              int64_t budget)
      : g(g), order(std::move(order)), n(static_cast<int>(this->order.size())),
        budget(budget) {
    pos.assign(g.numNodes(), -1);
    for (int i = 0; i < n; ++i)
      pos[this->order[i]] = i;
    const int64_t room = budget - inputBytes(g);
    feasible = room >= 0;
    memScale = std::max<double>(1, static_cast<double>(room));
    timeScale = std::max(1e-300, g.baseTime());
    if (!feasible)
      return;
    addRunColumns();
    addHoldColumns();
    addDependencies();
    addPersistence();
    addExclusivity();
    addMemory();
  }

  bool feasible = true;
  milp::Model model;

  /// The solver's values for `s` when its runs fit the stage structure
  /// (each stage: recomputations in order, then its first computation),
  /// else empty.
  std::vector<double> encode(const Schedule &s) const;
  /// The runs the solution selects, in stage order, with eager frees.
  Schedule decode(const std::vector<double> &x) const {
    Schedule s;
    for (int t = 0; t < n; ++t)
      for (int i = 0; i <= t; ++i)
        if (value(R[t][i], x) > 0.5)
          s.run(order[i]);
    return s.withEagerFrees(g);
  }
  /// The objective's constant part and scale: time = constant + scale * obj.
  double timeOf(double objective) const {
    return fixedTime + timeScale * objective;
  }

private:
  static double value(const Var &v, const std::vector<double> &x) {
    return v.isConst() ? v.value : x[v.col];
  }
  bool runsOnce(NodeId v) const {
    const Node &node = g.node(v);
    if (node.kind == NodeKind::Backward || !node.recomputable)
      return true;
    for (TensorId t : node.outputs)
      if (g.isRequired(t))
        return true; // Held to the end once produced: never again.
    return false;
  }
  int producerPos(TensorId x) const { return pos[g.tensor(x).producer]; }
  double bytes(TensorId x) const { return g.tensor(x).bytes / memScale; }
  double outBytes(int i) const {
    double b = 0;
    for (TensorId x : g.node(order[i]).outputs)
      b += bytes(x);
    return b;
  }
  /// Distinct computed tensors node i reads.
  std::vector<TensorId> computedInputs(int i) const {
    std::vector<TensorId> in;
    for (TensorId x : g.node(order[i]).inputs)
      if (!g.isInput(x) && std::find(in.begin(), in.end(), x) == in.end())
        in.push_back(x);
    return in;
  }
  /// Positions of x's readers, ascending.
  std::vector<int> readerPositions(TensorId x) const {
    std::vector<int> r;
    for (NodeId v : g.consumers(x))
      r.push_back(pos[v]);
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    return r;
  }

  void addRunColumns() {
    R.assign(n, {});
    for (int t = 0; t < n; ++t) {
      R[t].resize(t + 1);
      for (int i = 0; i < t; ++i)
        if (!runsOnce(order[i]))
          R[t][i].col = model.addColumn(
              0, 1, g.node(order[i]).time / timeScale, true);
      R[t][t].value = 1;
      fixedTime += g.node(order[t]).time; // The diagonal: the base time.
    }
  }

  void addHoldColumns() {
    S.assign(g.numTensors(), {});
    for (TensorId x = 0; x < g.numTensors(); ++x) {
      if (g.isInput(x))
        continue;
      const int p = producerPos(x);
      S[x].resize(n + 1);
      for (int t = p + 1; t <= n; ++t) {
        if (g.isRequired(x))
          S[x][t].value = 1;
        else
          S[x][t].col = model.addColumn(0, 1, 0, true);
      }
    }
  }

  void addDependencies() {
    for (int q = 0; q < n; ++q)
      for (TensorId x : computedInputs(q)) {
        const int p = producerPos(x);
        for (int t = q; t < n; ++t)
          if (!R[t][q].isZero())
            RowBuilder()
                .add(R[t][q], 1)
                .add(R[t][p], -1)
                .add(S[x][t], -1)
                .into(model, -milp::kInfinity, 0);
      }
  }

  void addPersistence() {
    for (TensorId x = 0; x < g.numTensors(); ++x) {
      if (g.isInput(x) || g.isRequired(x))
        continue;
      const int p = producerPos(x);
      for (int t = p; t < n; ++t)
        RowBuilder()
            .add(S[x][t + 1], 1)
            .add(S[x][t], -1)
            .add(R[t][p], -1)
            .into(model, -milp::kInfinity, 0);
    }
  }

  void addExclusivity() {
    for (TensorId x = 0; x < g.numTensors(); ++x) {
      if (g.isInput(x))
        continue;
      const int p = producerPos(x);
      for (int t = p + 1; t < n; ++t)
        if (!R[t][p].isZero() && !S[x][t].isZero())
          RowBuilder().add(R[t][p], 1).add(S[x][t], 1).into(model, -milp::kInfinity, 1);
    }
  }

  /// FREE columns of stage t: the tensors freed right after position k.
  std::vector<std::vector<std::pair<int, TensorId>>> addFrees(int t);
  void addMemory();

  const TrainingGraph &g;
  std::vector<NodeId> order;
  int n;
  int64_t budget;
  std::vector<int> pos;
  double memScale = 1, timeScale = 1, fixedTime = 0;
  std::vector<std::vector<Var>> R; ///< R[t][i], i <= t.
  std::vector<std::vector<Var>> S; ///< S[x][t], t <= n.
  /// FREE[t][k]: (column, tensor) pairs freed after position k in stage t.
  std::vector<std::vector<std::vector<std::pair<int, TensorId>>>> FREE;
  std::vector<std::vector<int>> U; ///< U[t][k] columns.
};

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
  U.resize(n);
  for (int t = 0; t < n; ++t) {
    FREE[t] = addFrees(t);
    U[t].resize(t + 1);
    for (int k = 0; k <= t; ++k) {
      U[t][k] = model.addColumn(0, milp::kInfinity, 0, false);
      RowBuilder row;
      row.addColumn(U[t][k], 1).add(R[t][k], -outBytes(k));
      if (k == 0) {
        for (TensorId x = 0; x < g.numTensors(); ++x)
          if (!g.isInput(x) && producerPos(x) < t)
            row.add(S[x][t], -bytes(x));
      } else {
        row.addColumn(U[t][k - 1], -1);
        for (auto [col, x] : FREE[t][k - 1])
          row.addColumn(col, bytes(x));
      }
      row.into(model, 0, 0);
      const double ws = g.node(order[k]).workspace / memScale;
      RowBuilder().addColumn(U[t][k], 1).add(R[t][k], ws).into(
          model, -milp::kInfinity, cap);
    }
  }
}

std::vector<double> Formulation::encode(const Schedule &s) const {
  // Stage of each run: recomputations belong to the next first computation.
  std::vector<std::vector<char>> run(n, std::vector<char>(n, 0));
  std::vector<char> seen(g.numNodes(), 0);
  int stage = 0, lastPos = -1;
  for (const Step &step : s.steps()) {
    if (step.isFree())
      continue;
    if (!step.discard.empty() || stage >= n)
      return {};
    const int i = pos[step.id];
    if (!seen[step.id]) {
      if (i != stage)
        return {}; // Another first-computation order.
      seen[step.id] = 1;
      run[stage][i] = 1;
      ++stage;
      lastPos = -1;
      continue;
    }
    if (i >= stage || run[stage][i] || i <= lastPos || R[stage][i].isZero())
      return {}; // Out of order in its stage, or twice.
    run[stage][i] = 1;
    lastPos = i;
  }
  if (stage != n)
    return {};
  // Holds: what the eager schedule of these runs has live at each stage's
  // start.
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

  std::vector<double> x(model.columns.size(), 0);
  auto set = [&](const Var &v, double value) {
    if (!v.isConst())
      x[v.col] = value;
    else if (v.value != value)
      return false;
    return true;
  };
  for (int st = 0; st < n; ++st)
    for (int i = 0; i <= st; ++i)
      if (!set(R[st][i], run[st][i]))
        return {};
  for (TensorId v = 0; v < g.numTensors(); ++v) {
    if (g.isInput(v))
      continue;
    for (int st = producerPos(v) + 1; st <= n; ++st)
      if (!set(S[v][st], held[st][v]))
        return {};
  }
  // FREE as large as its bounds allow; U by its recursion.
  for (int st = 0; st < n; ++st) {
    double u = 0;
    for (int k = 0; k <= st; ++k) {
      if (k == 0) {
        for (TensorId v = 0; v < g.numTensors(); ++v)
          if (!g.isInput(v) && producerPos(v) < st)
            u += bytes(v) * value(S[v][st], x);
      } else {
        for (auto [col, v] : FREE[st][k - 1]) {
          bool canFree = value(R[st][k - 1], x) > 0.5 &&
                         value(S[v][st + 1], x) < 0.5;
          for (int j : readerPositions(v))
            if (j > k - 1 && j <= st && value(R[st][j], x) > 0.5)
              canFree = false;
          x[col] = canFree ? 1 : 0;
          u -= bytes(v) * x[col];
        }
      }
      u += value(R[st][k], x) * outBytes(k);
      x[U[st][k]] = std::max(0.0, u);
    }
  }
  return x;
}

} // namespace

std::vector<NodeId> firstComputationOrder(const TrainingGraph &g,
                                          const Schedule &s) {
  std::vector<NodeId> order;
  std::vector<char> seen(g.numNodes(), 0);
  for (const Step &step : s.steps())
    if (step.isRun() && step.id >= 0 && step.id < g.numNodes() &&
        !seen[step.id]) {
      seen[step.id] = 1;
      order.push_back(step.id);
    }
  return order;
}

CheckmateResult solveCheckmate(const TrainingGraph &g,
                               const CheckmateOptions &options,
                               milp::Backend &backend) {
  CheckmateResult result;
  std::vector<NodeId> order =
      options.order.empty() ? g.defaultOrder() : options.order;
  if (static_cast<int>(order.size()) != g.numNodes())
    return result; // Not a permutation of the nodes.
  Formulation f(g, order, options.budget);
  result.columns = static_cast<int>(f.model.columns.size());
  result.rows = static_cast<int>(f.model.rows.size());

  // The warm start is the answer to beat, whether or not it fits the model.
  std::optional<Schedule> warm;
  if (options.warmStart) {
    Schedule w = options.warmStart->withEagerFrees(g);
    SimulationResult sim = simulate(g, w);
    if (sim.valid && sim.peak <= options.budget) {
      warm = w;
      result.schedule = w;
      result.time = sim.time;
    }
  }
  if (!f.feasible) {
    result.status = milp::Status::Infeasible;
    return result;
  }
  milp::Params params;
  params.seconds = options.seconds;
  params.maxNodes = options.maxNodes;
  if (warm)
    params.start = f.encode(*warm);
  result.warmStartUsed = !params.start.empty();
  milp::Result r = backend.solve(f.model, params);
  result.status = r.status;
  if (std::isfinite(r.bound))
    result.bound = f.timeOf(r.bound);
  if (r.values.empty())
    return result;
  Schedule s = f.decode(r.values);
  SimulationResult sim = simulate(g, s);
  if (!sim.valid || sim.peak > options.budget)
    return result; // Numerical slack: never return an invalid schedule.
  if (!result.schedule || sim.time < result.time) {
    result.schedule = std::move(s);
    result.time = sim.time;
  }
  return result;
}

} // namespace remat
