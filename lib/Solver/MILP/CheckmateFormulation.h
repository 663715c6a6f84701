//===- CheckmateFormulation.h - The Checkmate MILP, built -----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The model solveCheckmate hands the MILP backend, and its translation from
// and to Schedules (CheckmateMILP.cpp describes its variables and rows).
// Private to lib/Solver/MILP: CheckmateFormulation.cpp builds the keep and
// recompute part, CheckmateHostCopies.cpp the third state, and
// CheckmateWarmStart.cpp encodes a schedule as a starting point.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_SOLVER_MILP_CHECKMATEFORMULATION_H
#define REMAT_LIB_SOLVER_MILP_CHECKMATEFORMULATION_H

#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/MILP/CheckmateMILP.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace remat::checkmate {

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

class Formulation {
public:
  /// The model of `graph` in `order` at `budget`, with host copies over
  /// `link` when it is given; `feasible` is false when the inputs alone
  /// exceed the budget (no model then).
  Formulation(const TrainingGraph &graph, std::vector<NodeId> order,
              int64_t budget, const std::vector<SizedPart> &parts,
              const CopyLink *link, int64_t hostBudget = kUnlimitedBudget,
              bool resultsMayLeave = false);

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
  Schedule decode(const std::vector<double> &x) const;
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
  /// Each stage's runs in `s` (recomputations, then the first computation
  /// that closes it); false where `s` does not fit the stages.
  bool stageRuns(const Schedule &s, std::vector<std::vector<char>> &run) const;
  /// What the eager schedule of `run` holds at each stage's start.
  std::vector<std::vector<char>>
  heldAtStageStarts(const std::vector<std::vector<char>> &run) const;
  /// Sets Y, R and S to the warm start's values; false where a constant
  /// disagrees.
  bool setChoices(const std::vector<int> &picks,
                  const std::vector<std::vector<char>> &run,
                  const std::vector<std::vector<char>> &held,
                  std::vector<double> &x) const;
  /// Sets FREE, U and the products, which follow from Y, R and S.
  void setFreesAndMemory(const std::vector<int> &picks,
                         std::vector<double> &x) const;
  double mostExtra(int p, int entry) const {
    double most = 0;
    for (size_t c = 0; c < parts[p].choices.size(); ++c)
      most = std::max(most, extra(p, entry, static_cast<int>(c)));
    return most;
  }

  /// One binary per choice, one choice per part. A sized node runs at least
  /// once: its least time is in the base, what the choice adds is on Y.
  void addChoiceColumns();

  /// A column equal to `factor` (a column) times what part p's choice adds
  /// to `entry`: bounded from below where the product is held memory or
  /// time, from above where it is freed memory.
  int productColumn(int p, int entry, const Var &factor, bool freed,
                    double objective);

  /// Adds `coef` times (`factor` x the bytes tensor x's choice adds) to
  /// `row`; nothing for a tensor of one size.
  void addExtraBytes(RowBuilder &row, TensorId x, const Var &factor,
                     double coef, bool freed);

  void addRunColumns();

  void addHoldColumns();

  /// The third state: for each tensor a later stage may read again, an
  /// offload and two kinds of prefetch per boundary where one can help, the
  /// host state from its first possible offload on, and each stage's link
  /// rows.
  void addHostColumns();

  void addDependencies();

  void addPersistence();

  void addExclusivity();

  /// FREE columns of stage t: the tensors freed right after position k.
  std::vector<std::vector<std::pair<int, TensorId>>> addFrees(int t);
  /// LEFT columns of stage t: the offloads of boundary t gone after
  /// position k.
  std::vector<std::vector<std::pair<int, TensorId>>> addReleases(int t);
  void addMemory();
  void addLeavingResult(TensorId x, std::vector<RowBuilder> &outTime,
                        std::vector<RowBuilder> &held);
  void addHostState(TensorId x, int t, std::vector<RowBuilder> &held);

  const TrainingGraph smallest; ///< The graph at the sized parts' least.
  const TrainingGraph &g;
  const std::vector<SizedPart> &parts;
  std::vector<NodeId> order;
  int n;
  int64_t budget;
  const CopyLink *link; ///< Null: no host copies.
  int64_t hostBudget; ///< Host bytes a stage may hold.
  /// Results may leave for the host (with a link): held on the device or
  /// on the host from their production to the end.
  bool resultsLeave;
  bool leaves(TensorId x) const { return resultsLeave && g.isRequired(x); }
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

} // namespace remat::checkmate

#endif // REMAT_LIB_SOLVER_MILP_CHECKMATEFORMULATION_H
