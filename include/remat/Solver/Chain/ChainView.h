//===- ChainView.h - Any training graph seen as a chain of stages --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The chain strategies (revolve, chain-rotor, chain-precise) plan on a
// ChainSpec (rotor notation, Beaumont et al. 2024, Sec. 3.1) and speak in
// chain-level operations F_all / F_ck / F_none / B. This header connects them
// to arbitrary TrainingGraphs:
//  - extractChain groups the forward nodes into stages at single-tensor cut
//    points, assigns every backward node to a stage and measures the stage
//    parameters (u_f, u_b, a, abar, delta, o_f, o_b);
//  - expandChainSchedule turns a chain-level operation sequence back into a
//    Schedule of the original graph.
// For a graph built by buildChainGraph the round trip is exact: the extracted
// ChainSpec is the original one (abar clamped to >= a) and expanded schedules
// have exactly the memory the chain model predicts. For op-level graphs the
// model over-estimates (see docs/solver.md), so plans stay within budget.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_CHAIN_CHAINVIEW_H
#define REMAT_SOLVER_CHAIN_CHAINVIEW_H

#include "remat/Solver/Chain/Chain.h"
#include "remat/Solver/Core/Schedule.h"

#include <optional>
#include <string>
#include <vector>

namespace remat {

/// The chain-level operations of rotor's Table 1, shared by every chain
/// strategy. FAll stores abar^l, FCheck stores a^l and keeps its input,
/// FNone stores a^l and lets a^{l-1} die. FCheck and FNone expand to the same
/// steps: whether a^{l-1} dies follows from the rest of the sequence (eager
/// frees), so the distinction is documentation for readers of a plan.
enum class ChainOp : uint8_t { FAll, FCheck, FNone, Backward };

struct ChainStep {
  ChainOp op;
  int stage; ///< 1..L+1 (L+1 is the loss stage).
  bool operator==(const ChainStep &o) const {
    return op == o.op && stage == o.stage;
  }
};

using ChainOps = std::vector<ChainStep>;

/// "Fck1 Fn2 Fall3 B3 ..." (rotor's notation, for messages and tests).
std::string chainOpsString(const ChainOps &ops);
/// Sum of u_f / u_b over the operations: the makespan of the sequence.
double chainOpsTime(const ChainSpec &chain, const ChainOps &ops);

struct ChainView {
  /// Stages 1..L and the loss stage (spec.loss), measured on the graph.
  ChainSpec spec;
  /// forward[l] / backward[l]: the stage's nodes in execution order,
  /// l in 1..L+1 (index 0 unused).
  std::vector<std::vector<NodeId>> forward, backward;
  /// cut[l] = a^l for l in 1..L (cut[0] = kNone: a^0 is all graph inputs).
  std::vector<TensorId> cut;
  /// Per stage: F_ck / F_none run the stage's single node with its non-cut
  /// outputs discarded. Only for stage-level nodes (one forward node whose
  /// extra outputs only its single backward node reads, and no op type, as
  /// buildChainGraph and the chain file format make them); op-level nodes
  /// always store every result and rely on eager frees instead.
  std::vector<char> discard;
  int length() const { return spec.length(); }
};

/// The chain view of `g`, or std::nullopt (with the reason in *why) when `g`
/// has no single-tensor cut point, is malformed, or is cyclic. Stages are
/// merged where a backward node reads values of several stages, where
/// gradients flow between non-adjacent stages, and from any stage holding a
/// non-recomputable forward node or a required forward value (the loss) to
/// the end, so that the loss stage, which every chain strategy runs exactly
/// once, absorbs them.
/// Op-level graphs: with `moveOutputReaders`, a stage whose backward reads
/// no value of the stage but its output a^l (exp, relu) gets its backward
/// moved up to stage l+1, where a^l is the input (then B^l needs no F_all^l:
/// ChainStage::tape = false), and a stage left without backward joins the
/// one before it. That is what reversing exp chains optimally takes, but it
/// coarsens the stages of ResNets (their relu stages disappear), so
/// solveViaChain plans on both views. With maxStages > 0, longer chains are
/// coarsened: adjacent stages merge, the pair with the least forward +
/// backward time first, until at most maxStages stages (plus the loss
/// stage) remain.
std::optional<ChainView> extractChain(const TrainingGraph &g,
                                      std::string *why = nullptr,
                                      int maxStages = 0,
                                      bool moveOutputReaders = true);

/// The view of buildChainGraph(spec) without extracting it: one node per
/// stage and direction, r^l discarded by F_ck / F_none. Works for op-level
/// specs too (o_b < 0, no tape), whose chain graphs do not verify.
ChainView chainGraphView(const ChainGraph &cg, const ChainSpec &spec);

/// The schedule of `g` that performs the chain-level `ops`, with eager frees.
/// The ops are expected to be a valid chain sequence (every B^l preceded by
/// F_all^l); the Simulator judges the result.
Schedule expandChainSchedule(const TrainingGraph &g, const ChainView &view,
                             const ChainOps &ops);

/// The least peak of any valid schedule of `g` that runs the view's backward
/// groups each as one uninterrupted block, B^{L+1}'s first and B^1's last, as
/// the expansion of every chain plan does: none on this view, whatever its
/// DP or budget, peaks lower (ChainFloor.cpp has the argument).
int64_t backwardBlockFloor(const TrainingGraph &g, const ChainView &view);

} // namespace remat

#endif // REMAT_SOLVER_CHAIN_CHAINVIEW_H
