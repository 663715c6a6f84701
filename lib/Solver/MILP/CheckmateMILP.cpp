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
// Sized parts (SizedParts.h): Y[p][c] = 1 when part p takes choice c (one
// per part). The graph is modelled at each sized tensor's fewest bytes and
// each sized node's least time; what choice c adds above them, E_p =
// sum_c Y[p][c] e_c <= e_max, enters every term the tensor or node is in as
// a product with that term's 0/1 quantity q (S, R or FREE), linearised:
//   memory held, time:  P >= E_p - e_max (1 - q), P >= 0 (exact: the model
//                       wants P small);
//   memory freed:       Q <= E_p, Q <= e_max q, Q >= 0 (exact: it wants Q
//                       large).
// A sized node's first run (the diagonal) adds E_p itself.
//
// Host copies (CheckmateOptions::link): boundary t comes before stage t's
// first run. OUT[t][x] offloads x there; its device bytes count in stage t
// until LEFT[t][x][k] says they are gone after run k: the runs so far cover
// all of the boundary's offloads (one in-order stream; big-M rows), or the
// stage's first computation waits for a prefetch at least that long. Stage
// t's compute must cover them all (the Simulator releases them before stage
// t+1). A prefetch at boundary t holds x's bytes from stage t: IN[t][x]
// makes it readable from stage t+1, NOW[t][x] in stage t itself (issued
// first). W[t], a stall in the objective, is at least the NOW copies' link
// time, and at least all of the boundary's prefetches' minus the stage's
// compute. H[t][x] (on the host during stage t) is exact, because the
// Simulator refuses to recompute a tensor that is on the host:
//   H[t] = H[t-1] + OUT[t] - IN[t] - NOW[t], IN + NOW <= H[t-1],
//   IN + NOW + OUT <= 1;
//   S[t+1] + OUT[t+1] <= S[t] + R[t][p] + IN[t] + NOW[t] (persistence);
//   R[t][j] <= R[t][p] + S[t][x] + NOW[t][x]            (dependencies);
//   R[t][p] + H[t] <= 1, R[t][p] + IN[t] <= 1, R[t][p] + NOW[t] <= 1;
//   FREE[t][x] <= 1 - OUT[t+1];
//   sum OUT[t][x] offloadTime(x) <= sum R[t][i] time(i).
// It is a linearisation: per-stage link time instead of the streams'
// timeline, copies issued at stage boundaries only; the Simulator judges
// and times the decoded plan.
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
  RowBuilder &append(const RowBuilder &other) {
    row.index.insert(row.index.end(), other.row.index.begin(),
                     other.row.index.end());
    row.value.insert(row.value.end(), other.row.value.begin(),
                     other.row.value.end());
    constant += other.constant;
    return *this;
  }
  size_t size() const { return row.index.size(); }
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

class Formulation {
public:
  Formulation(const TrainingGraph &graph, std::vector<NodeId> order,
              int64_t budget, const std::vector<SizedPart> &parts,
              const CopyLink *link)
      : smallest(atSmallest(graph, parts)), g(smallest), parts(parts),
        order(std::move(order)), n(static_cast<int>(this->order.size())),
        budget(budget), link(link) {
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

  bool feasible = true;
  milp::Model model;

  /// The solver's values for `s` when its runs fit the stage structure
  /// (each stage: recomputations in order, then its first computation),
  /// else empty.
  std::vector<double> encode(const Schedule &s,
                             const std::vector<int> &picks) const;
  /// The choice the solution takes for each sized part.
  std::vector<int> picks(const std::vector<double> &x) const {
    std::vector<int> out(parts.size(), 0);
    for (size_t p = 0; p < parts.size(); ++p)
      for (size_t c = 0; c < Y[p].size(); ++c)
        if (value(Y[p][c], x) > 0.5)
          out[p] = static_cast<int>(c);
    return out;
  }
  /// The runs the solution selects, in stage order, each stage after its
  /// boundary's copies, with eager frees.
  Schedule decode(const std::vector<double> &x) const {
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
  /// OUT, IN or H of tensor x at stage t; the constant 0 where it has none.
  static Var hostVar(const std::vector<std::vector<Var>> &v, TensorId x,
                     int t) {
    return static_cast<size_t>(x) < v.size() ? v[x][t] : Var{};
  }
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

  /// What choice c of part p adds to its entry `entry`: tensor `entry`'s
  /// bytes, or (entry = its number of tensors) its node's time, scaled.
  double extra(int p, int entry, int c) const {
    const SizedPart &part = parts[p];
    if (entry < static_cast<int>(part.tensors.size()))
      return (part.choices[c].bytes[entry] -
              g.tensor(part.tensors[entry]).bytes) /
             memScale;
    return (part.choices[c].time - g.node(part.node).time) / timeScale;
  }
  double mostExtra(int p, int entry) const {
    double most = 0;
    for (size_t c = 0; c < parts[p].choices.size(); ++c)
      most = std::max(most, extra(p, entry, static_cast<int>(c)));
    return most;
  }

  /// One binary per choice, one choice per part. A sized node runs at least
  /// once: its least time is in the base, what the choice adds is on Y.
  void addChoiceColumns() {
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
  int productColumn(int p, int entry, const Var &factor, bool freed,
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
  void addExtraBytes(RowBuilder &row, TensorId x, const Var &factor,
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

  void addRunColumns() {
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

  /// The third state: for each tensor a later stage may read again, an
  /// offload and two kinds of prefetch per boundary where one can help, the
  /// host state from its first possible offload on, and each stage's link
  /// rows.
  void addHostColumns() {
    if (!link)
      return;
    OUT.assign(g.numTensors(), std::vector<Var>(n + 1));
    IN = NOW = H = OUT;
    std::vector<RowBuilder> outTime(n), inTime(n), nowTime(n);
    for (TensorId x = 0; x < g.numTensors(); ++x) {
      if (g.isInput(x) || g.isRequired(x) || sizedTensor[x].first >= 0)
        continue;
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
      };
      for (int t = p + 1; t + 1 <= last; ++t)
        binary(OUT, t, outTime[t], out);
      for (int t = p + 2; t <= last; ++t) {
        if (t + 1 <= last)
          binary(IN, t, inTime[t], in);
        binary(NOW, t, nowTime[t], in);
      }
      for (int t = p + 1; t < n; ++t) {
        H[x][t].col = model.addColumn(0, 1, 0, true);
        RowBuilder()
            .add(H[x][t], 1)
            .add(H[x][t - 1], -1)
            .add(OUT[x][t], -1)
            .add(IN[x][t], 1)
            .add(NOW[x][t], 1)
            .into(model, 0, 0);
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
                .add(hostVar(NOW, x, t), -1)
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
            .add(hostVar(OUT, x, t + 1), 1)
            .add(S[x][t], -1)
            .add(R[t][p], -1)
            .add(hostVar(IN, x, t), -1)
            .add(hostVar(NOW, x, t), -1)
            .into(model, -milp::kInfinity, 0);
    }
  }

  void addExclusivity() {
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

  /// FREE columns of stage t: the tensors freed right after position k.
  std::vector<std::vector<std::pair<int, TensorId>>> addFrees(int t);
  /// LEFT columns of stage t: the offloads of boundary t gone after
  /// position k.
  std::vector<std::vector<std::pair<int, TensorId>>> addReleases(int t);
  void addMemory();

  const TrainingGraph smallest; ///< The graph at the sized parts' least.
  const TrainingGraph &g;
  const std::vector<SizedPart> &parts;
  std::vector<NodeId> order;
  int n;
  int64_t budget;
  const CopyLink *link; ///< Null: no host copies.
  std::vector<int> pos;
  double memScale = 1, timeScale = 1, fixedTime = 0;
  std::vector<std::vector<Var>> R; ///< R[t][i], i <= t.
  std::vector<std::vector<Var>> S; ///< S[x][t], t <= n.
  /// FREE[t][k]: (column, tensor) pairs freed after position k in stage t.
  std::vector<std::vector<std::vector<std::pair<int, TensorId>>>> FREE;
  /// LEFT[t][k]: (column, tensor) pairs whose offload ends after position k.
  std::vector<std::vector<std::vector<std::pair<int, TensorId>>>> LEFT;
  std::vector<std::vector<int>> U; ///< U[t][k] columns.
  std::vector<std::vector<Var>> Y; ///< Y[p][c]: part p takes choice c.
  /// By tensor, by stage: OUT (offload at boundary t), IN (prefetch at
  /// boundary t, read from stage t + 1), NOW (prefetch at boundary t, read
  /// in stage t), H (on the host during stage t); empty without a link.
  std::vector<std::vector<Var>> OUT, IN, NOW, H;
  /// By tensor: (part, index in its tensors), {-1, -1} when not sized.
  std::vector<std::pair<int, int>> sizedTensor;
  std::vector<int> sizedNode; ///< By node: its part, or -1.
  /// The product columns: col = factor x what part p's choice adds to entry.
  struct Product {
    int col, part, entry;
    Var factor;
  };
  std::vector<Product> products;
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

std::vector<double> Formulation::encode(const Schedule &s,
                                        const std::vector<int> &picks) const {
  if (picks.size() != parts.size())
    return {};
  // Stage of each run: recomputations belong to the next first computation.
  std::vector<std::vector<char>> run(n, std::vector<char>(n, 0));
  std::vector<char> seen(g.numNodes(), 0);
  int stage = 0, lastPos = -1;
  for (const Step &step : s.steps()) {
    if (step.isFree())
      continue;
    if (step.isCopy())
      return {}; // The model has no host memory.
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
  for (size_t p = 0; p < parts.size(); ++p)
    for (size_t c = 0; c < Y[p].size(); ++c)
      if (!set(Y[p][c], static_cast<int>(c) == picks[p] ? 1 : 0))
        return {};
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
  static const std::vector<SizedPart> kNoParts;
  const std::vector<SizedPart> &parts =
      options.sized ? *options.sized : kNoParts;
  if (verifySizedParts(g, parts))
    return result; // The caller's parts do not fit the graph.
  Formulation f(g, order, options.budget, parts, options.link);
  SimulatorOptions so; // The Simulator times the plan's copies on the link.
  if (options.link)
    so.link = *options.link;
  result.columns = static_cast<int>(f.model.columns.size());
  result.rows = static_cast<int>(f.model.rows.size());

  // The warm start is the answer to beat, whether or not it fits the model.
  std::optional<Schedule> warm;
  if (options.warmStart &&
      (parts.empty() || options.warmPicks.size() == parts.size())) {
    const std::vector<int> &picks =
        parts.empty() ? std::vector<int>{} : options.warmPicks;
    TrainingGraph at = withSizes(g, parts, picks);
    Schedule w = options.warmStart->withEagerFrees(at);
    SimulationResult sim = simulate(at, w, so);
    if (sim.valid && sim.peak <= options.budget) {
      warm = w;
      result.schedule = w;
      result.picks = picks;
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
    params.start = f.encode(*warm, result.picks);
  result.warmStartUsed = !params.start.empty();
  milp::Result r = backend.solve(f.model, params);
  result.status = r.status;
  if (std::isfinite(r.bound))
    result.bound = f.timeOf(r.bound);
  if (r.values.empty())
    return result;
  std::vector<int> picks = f.picks(r.values);
  TrainingGraph at = withSizes(g, parts, picks);
  Schedule s = f.decode(r.values);
  SimulationResult sim = simulate(at, s, so);
  if (!sim.valid || sim.peak > options.budget)
    return result; // Numerical slack: never return an invalid schedule.
  if (!result.schedule || sim.time < result.time) {
    result.schedule = std::move(s);
    result.picks = std::move(picks);
    result.time = sim.time;
  }
  return result;
}

} // namespace remat
