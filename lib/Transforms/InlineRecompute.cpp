//===- InlineRecompute.cpp - Dissolve remat.recompute regions -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Dialect/Remat/Remat.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"

namespace remat {
#define GEN_PASS_DEF_INLINERECOMPUTEPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {
constexpr llvm::StringLiteral kBarrierOp = "util.optimization_barrier";

/// `value` through a barrier of its own, created at the rewriter's point.
Value barrier(RewriterBase &rewriter, Location loc, Value value) {
  OperationState state(loc, kBarrierOp);
  state.addOperands(value);
  state.addTypes(value.getType());
  return rewriter.create(state)->getResult(0);
}

/// Every result of a linalg op in `func`'s own body (not in a loop's)
/// behind a barrier of its own, but a fill's: IREE then places each op in
/// an execution partition of its own, in the order written, each result in
/// a buffer freed after its last use, as remat's plan frees it (its
/// partitions otherwise pack their results into one buffer, freed when the
/// last of them dies). Fills stay unfenced: IREE 3.13 computed wrong
/// results with a fill fenced (the accumulator of the op that reads it).
void fenceEveryOp(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<linalg::LinalgOp> ops;
  for (Operation &op : func.getBody().getOps())
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(&op);
        linalgOp && !isa<linalg::FillOp>(&op))
      ops.push_back(linalgOp);
  for (linalg::LinalgOp op : ops) {
    rewriter.setInsertionPointAfter(op);
    for (Value result : op->getResults()) {
      Value fence = barrier(rewriter, op.getLoc(), result);
      rewriter.replaceAllUsesExcept(result, fence, fence.getDefiningOp());
    }
  }
}

/// Each tensor that a branch of an `scf.if` inside a loop computes and
/// yields, behind a barrier of its own. IREE packs the results of one
/// execution partition into one buffer, and its VM (3.13) passes such a
/// buffer to two arguments of the branch's merge block, moving it out of
/// the register that the other argument keeps (iree-org/iree#24753): a
/// checkpointed scan's reversal, whose branches compute several gradient
/// accumulators at once, then stops at run time (`OUT_OF_RANGE; indirect
/// buffer reference slot 0 ...` in `hal.command_buffer.copy_buffer`). Fenced
/// one by one, the values are placed in buffers of their own.
void fenceBranchYields(RewriterBase &rewriter, Operation *root) {
  SmallVector<scf::YieldOp> yields;
  root->walk([&](scf::IfOp branch) {
    if (!branch->getParentOfType<LoopLikeOpInterface>())
      return;
    for (Region &region : branch->getRegions())
      if (!region.empty())
        yields.push_back(cast<scf::YieldOp>(region.front().getTerminator()));
  });
  for (scf::YieldOp yield : yields) {
    rewriter.setInsertionPoint(yield);
    for (OpOperand &operand : yield->getOpOperands()) {
      Value value = operand.get();
      Operation *def = value.getDefiningOp();
      // Values passed through the branch keep the buffer they came in.
      if (!isa<TensorType>(value.getType()) || !def ||
          def->getParentRegion() != yield->getParentRegion())
        continue;
      Value fence = barrier(rewriter, yield.getLoc(), value);
      rewriter.modifyOpInPlace(yield, [&] { operand.set(fence); });
    }
  }
}

struct InlineRecomputePass
    : public remat::impl::InlineRecomputePassBase<InlineRecomputePass> {
  using InlineRecomputePassBase::InlineRecomputePassBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (barriers != "none" && barriers != "iree" && barriers != "iree-ordered")
      return emitError(UnknownLoc::get(context))
             << "-remat-inline-recompute: barriers='" << barriers
             << "' is not none, iree or iree-ordered";
    // The barrier's dialect is IREE's, which remat-opt does not load: the
    // op is written in generic form (once, before any thread runs).
    if (barriers != "none")
      context->allowUnregisteredDialects();
    return success();
  }

  void runOnOperation() override {
    SmallVector<RecomputeOp> ops;
    getOperation()->walk([&](RecomputeOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    const bool fence = barriers != "none";
    // Functions whose plan recomputes: the ones whose order iree-ordered
    // keeps (elsewhere IREE's own fusion and packing are kept).
    llvm::SetVector<func::FuncOp> recomputing;
    for (RecomputeOp op : ops)
      if (auto func = op->getParentOfType<func::FuncOp>())
        recomputing.insert(func);
    // Post-order walk: nested recomputations are inlined into their parent's
    // region before the parent itself is inlined.
    for (RecomputeOp op : ops) {
      rewriter.setInsertionPoint(op);
      SmallVector<Value> inputs(op.getInputs());
      if (fence)
        for (Value &v : inputs)
          v = barrier(rewriter, op.getLoc(), v);
      YieldOp yield = op.getYield();
      SmallVector<Value> results(yield.getValues());
      rewriter.eraseOp(yield);
      rewriter.inlineBlockBefore(&op.getBodyBlock(), op, inputs);
      if (fence)
        for (Value &v : results)
          v = barrier(rewriter, op.getLoc(), v);
      rewriter.replaceOp(op, results);
    }
    if (barriers == "iree-ordered")
      for (func::FuncOp func : recomputing)
        fenceEveryOp(rewriter, func);
    if (fence)
      fenceBranchYields(rewriter, getOperation());
  }
};
} // namespace
