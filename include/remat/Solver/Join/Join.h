//===- Join.h - Join graphs: k chains meeting at the loss -----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Beaumont, Herrmann, Pallez, Shilova, "Optimal Memory-aware Backpropagation
// of Deep Join Networks" (2019), Definition 2. Branch j (1..k) of length
// l_j has forward steps F_i: x_i -> x_{i+1} and backward steps
// F̄_i: (x_i, x̄_{i+1}) -> x̄_i for 0 <= i < l_j; one Turn (the loss and its
// gradient) reads every x_{l_j} and produces every x̄_{l_j}. Siamese
// networks (2 or 3 equal branches) and cross-modal embeddings (a deep and a
// shallow branch) have this shape. With k = 1 it is the chain of Butt's
// thesis (Sec. 3.1.1: L'_i reads f_i and b_{i+1}), i.e. rotor's chain model
// without abar (backward steps read only their forward input).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_JOIN_JOIN_H
#define REMAT_SOLVER_JOIN_JOIN_H

#include "remat/Solver/Chain/Chain.h"
#include "remat/Solver/Core/Schedule.h"

#include <optional>
#include <string>
#include <vector>

namespace remat {

/// Step i of a branch (0-based, as in the paper): F_i and F̄_i.
struct JoinStage {
  double uf = 1, ub = 1;  ///< Times of F_i and F̄_i.
  int64_t x = 1;          ///< Bytes of x_{i+1} (F_i's output).
  int64_t xbar = 1;       ///< Bytes of x̄_{i+1} (F̄_i's gradient input).
  int64_t of = 0, ob = 0; ///< Workspace of F_i / F̄_i.
};

struct JoinBranch {
  int64_t x0 = 1;    ///< Bytes of x_0 (a graph input).
  int64_t xbar0 = 1; ///< Bytes of x̄_0 (a required output).
  std::vector<JoinStage> stages;
  int length() const { return static_cast<int>(stages.size()); }
};

struct JoinSpec {
  std::vector<JoinBranch> branches;
  double ut = 1;   ///< Time of the turn.
  int64_t ot = 0;  ///< Workspace of the turn.
  int k() const { return static_cast<int>(branches.size()); }
  std::vector<int> lengths() const;

  /// The paper's homogeneous join: unit sizes, u_f, u_b, u_t per step.
  static JoinSpec uniform(const std::vector<int> &lengths, double uf = 1,
                          double ub = 1, double ut = 1);
};

/// Branches given as rotor chains (e.g. randomJoin): x_l = a^l, x̄_l =
/// delta^l, times and workspaces per stage; abar is ignored (the join model
/// has no autograd history: F̄_i reads only x_i and x̄_{i+1}).
JoinSpec joinFromChains(const std::vector<ChainSpec> &branches, double ut = 0,
                        int64_t ot = 0);

/// Node and tensor ids of a join inside a TrainingGraph.
struct JoinView {
  JoinSpec spec;
  /// forward[j][i] = F_i, backward[j][i] = F̄_i of branch j, 0 <= i < l_j.
  std::vector<std::vector<NodeId>> forward, backward;
  NodeId turn = kNone;
  /// x[j][i] and xbar[j][i] for 0 <= i <= l_j.
  std::vector<std::vector<TensorId>> x, xbar;
};

struct JoinGraph {
  TrainingGraph graph;
  JoinView view;
};

/// The stage-level graph: inputs x_0^(j); F_i^(j) ("F<j>_<i>"), the turn
/// ("Turn", a backward node: it runs once), F̄_i^(j) ("B<j>_<i>"); the
/// x̄_0^(j) are the required outputs.
JoinGraph buildJoinGraph(const JoinSpec &spec);

/// Recognises a join in any TrainingGraph: exactly one backward node (the
/// turn) reads only forward values and inputs; each of its outputs starts a
/// chain of single-output backward nodes F̄_i reading (x_i, x̄_{i+1}) down to
/// a required x̄_0, each x_{i+1} produced by a recomputable single-input,
/// single-output forward node F_i from x_i. Every node and every required
/// output must belong to that structure. Returns std::nullopt with the
/// reason in *why otherwise.
std::optional<JoinView> recognizeJoin(const TrainingGraph &g,
                                      std::string *why = nullptr);

/// Theorem 2: the minimum number of unit slots c_min(l) of the paper's
/// pebble model (in-place turn, an output may take the slot of an input
/// that dies).
int joinMinimumSlots(const std::vector<int> &lengths);

/// The same minimum in the Simulator's model, for unit sizes (bytes): inputs
/// are never freed and a node's outputs count on top of its inputs, so
///   2k                                                   if l = 0,
///   2k + max(nz, 2 [some l_j >= 2], [some l_j = 1])      otherwise,
/// with nz the number of non-empty branches (docs/solver.md derives it).
int64_t joinMinimumBytesUnit(const std::vector<int> &lengths);

/// Which memory accounting the join DP optimises.
enum class JoinModel : uint8_t {
  /// The Simulator's (the project's truth): inputs stay, a node's outputs
  /// count on top of its inputs and workspace. Bytes, discretised into slots.
  Simulator,
  /// The paper's pebble model: sizes are slots, the turn and every step
  /// write in place over inputs that die, x_0 may be freed. Plans in this
  /// model reproduce Theorem 2 / Theorem 3; the Simulator accepts their
  /// schedules (validity, time) but measures a higher peak.
  PaperSlots,
};

struct JoinPlanOptions {
  JoinModel model = JoinModel::Simulator;
  int slots = 500;           ///< Simulator model: budget discretisation.
  int64_t maxStates = 4'000'000; ///< Give up above this many DP states.
};

struct JoinPlan {
  bool feasible = false;
  double time = 0;      ///< The DP's optimum (equals the Simulator's time).
  int64_t slotBytes = 1; ///< Bytes per slot used by the DP.
  Schedule schedule;    ///< With eager frees, on the view's graph.
  std::string reason;   ///< When infeasible.
};

/// Theorem 3's dynamic program over canonical schedules, with the segments
/// of each branch solved by Butt's chain DP (Opt_0), and reconstruction.
/// `budget` is bytes (Simulator) or slots (PaperSlots).
JoinPlan planJoin(const TrainingGraph &g, const JoinView &view, int64_t budget,
                  const JoinPlanOptions &opts = {});

} // namespace remat

#endif // REMAT_SOLVER_JOIN_JOIN_H
