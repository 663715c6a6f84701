//===- TrainingGraphBuilder.h - IR to TrainingGraph -------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Builds the solver's TrainingGraph from a func.func on tensors: one node per
// op of the (single-block) body, together with the initial values it writes
// into (see OpGroups.h), one tensor per SSA result, the function arguments
// and constants as graph inputs and the returned values as required outputs.
// Forward = the ops the loss depends on (the first result, or the result
// marked `remat.loss`); backward = the rest. The program order of the body
// (with frees after last uses) is a Schedule of that graph, so the Simulator
// computes the lifetime timeline of the IR as it stands.
//
// Views (extract_slice, reshapes, casts) own no bytes; every reader of a
// view also reads the view's source, so the source lives as long as any view
// of it. Ops with memory effects or randomness, and ops marked
// `#remat.policy<keep>`, are not recomputable.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_ANALYSIS_TRAININGGRAPHBUILDER_H
#define REMAT_ANALYSIS_TRAININGGRAPHBUILDER_H

#include "remat/Analysis/CostModel.h"
#include "remat/Solver/Core/Schedule.h"
#include "remat/Solver/Core/Simulator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>
#include <vector>

namespace remat {

enum class RecomputeRegions {
  /// Each existing remat.recompute is one non-recomputable node: what the
  /// planner and the materializer work on (a recomputation is never
  /// recomputed again).
  Atomic,
  /// The ops inside remat.recompute regions are nodes of their own, block
  /// arguments alias the op's inputs and results alias the yielded values:
  /// the exact timeline of the IR.
  Flatten,
};

struct IRTrainingGraph {
  TrainingGraph graph;
  /// Node -> its ops in program order; the last one produces the node's
  /// results, the others are its absorbed initial values.
  std::vector<llvm::SmallVector<mlir::Operation *, 4>> nodeOps;
  llvm::DenseMap<mlir::Operation *, NodeId> opNodes; ///< Every op of a node.
  llvm::DenseMap<mlir::Value, TensorId> valueTensors; ///< Every SSA value.
  std::vector<mlir::Value> tensorValues;    ///< Tensor -> defining value.
  /// The body's current order, with eager frees; a remat.offload or
  /// remat.prefetch in the body is an Offload or Prefetch step of the
  /// tensor it copies (simulate it with simulateProgram()).
  Schedule programOrder;
  TensorId loss = kNone;
  /// Forward tensors whose ops carry #remat.policy<recompute>.
  std::vector<TensorId> recomputeHints;
  /// Nodes added to the graph after building (by applyRecomputeHints) that
  /// stand for a copy of another node's op: copyOf[n] is that node, or kNone.
  std::vector<NodeId> copyOf;
  /// Inputs of a node that were redirected from the tensor its op reads in
  /// the IR to another one (a copy): node -> (IR tensor -> graph tensor).
  llvm::DenseMap<NodeId, llvm::DenseMap<TensorId, TensorId>> redirected;
  /// Calls whose callee could not be analysed (no body, recursion): their
  /// nodes count the results only, not what the callee allocates inside.
  std::vector<mlir::Operation *> opaqueCalls;
  /// Forward node -> why no plan may recompute it ("" when it may): an
  /// unknown op, a side effect, randomness, an in-place update...
  std::vector<std::string> keptBecause;

  /// The Simulator's result for programOrder, its memory as the lowering
  /// holds it: an offloaded buffer is gone before the next op, a copy back
  /// held from its issue (CopyLink::inOrder()).
  SimulationResult simulateProgram(SimulatorOptions opts = {}) const {
    opts.link = CopyLink::inOrder();
    return simulate(graph, programOrder, opts);
  }

  mlir::Operation *primaryOp(NodeId n) const { return nodeOps[n].back(); }
  bool isCopy(NodeId n) const {
    return static_cast<size_t>(n) < copyOf.size() && copyOf[n] != kNone;
  }
  /// The graph tensor node `n` reads where its op reads IR tensor `t`.
  TensorId inputFor(NodeId n, TensorId t) const {
    auto it = redirected.find(n);
    if (it == redirected.end())
      return t;
    auto jt = it->second.find(t);
    return jt == it->second.end() ? t : jt->second;
  }
};

/// Why `op` may not be recomputed (a side effect, randomness, an unknown
/// op, remat.policy = keep), or std::nullopt when it may.
std::optional<std::string> whyNotRecomputable(mlir::Operation *op);

/// Fails with diagnostics (multi-block bodies, dynamic shapes without a
/// cost, a function without results).
/// Why `func` is not a training step, or std::nullopt when it is one: it
/// returns its loss (the result marked remat.loss, else the first) and at
/// least one other result computed, outside the loss's own computation,
/// from what that computation made (a gradient). Drivers returning nothing,
/// eval functions returning the loss alone and init functions returning
/// parameters are not steps.
/// The result index holding the loss: the one marked remat.loss, else 0.
unsigned lossResultIndex(mlir::func::FuncOp func);

/// A function whose loss and gradients are results of one scf.for (gradient
/// accumulation over micro-batches) is a step when the loop's body is one:
/// its yielded loss has gradients beside it.
std::optional<std::string> whyNotATrainingStep(mlir::func::FuncOp func);

/// That loop, when `func` is such a micro-batch step; null otherwise.
mlir::scf::ForOp microBatchLoop(mlir::func::FuncOp func);

/// How often each region of an op runs per run of the op, where the IR
/// cannot say: the loops a rewrite emits with a schedule it fixed at compile
/// time (a checkpointed scan's interpreter: which branch an action takes,
/// how far an advance goes). The pass that emitted them knows
/// (CheckpointedScan) and gives it to its analyses; the IR carries nothing.
/// Without an entry, a loop's regions run its trip count where the IR
/// bounds it, else once, and an scf.if costs its larger branch.
using RegionRuns =
    llvm::DenseMap<mlir::Operation *, llvm::SmallVector<double, 2>>;

/// `symbolScope` is where callees of func.call are looked up (their bodies
/// are costed); default: the function's parent. A copy detached from its
/// module (the planner's) passes the module. `runs`: see RegionRuns.
mlir::FailureOr<IRTrainingGraph> buildTrainingGraph(
    mlir::func::FuncOp func, const CostModel &costs, RecomputeRegions regions,
    mlir::Operation *symbolScope = nullptr, const RegionRuns *runs = nullptr);

/// The peak of `func`'s program order by the lifetime analysis (the graph
/// above, simulated); std::nullopt when the graph cannot be built.
std::optional<int64_t> functionPeak(mlir::func::FuncOp func,
                                    const CostModel &costs,
                                    RecomputeRegions regions,
                                    mlir::Operation *symbolScope = nullptr);

} // namespace remat

#endif // REMAT_ANALYSIS_TRAININGGRAPHBUILDER_H
