//===- InlineRecompute.cpp - Dissolve remat.recompute regions -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Dialect/Remat/Remat.h"
#include "remat/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

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

struct InlineRecomputePass
    : public remat::impl::InlineRecomputePassBase<InlineRecomputePass> {
  using InlineRecomputePassBase::InlineRecomputePassBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (barriers != "none" && barriers != "iree")
      return emitError(UnknownLoc::get(context))
             << "-remat-inline-recompute: barriers='" << barriers
             << "' is not none or iree";
    // The barrier's dialect is IREE's, which remat-opt does not load: the
    // op is written in generic form (once, before any thread runs).
    if (barriers == "iree")
      context->allowUnregisteredDialects();
    return success();
  }

  void runOnOperation() override {
    SmallVector<RecomputeOp> ops;
    getOperation()->walk([&](RecomputeOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    const bool fence = barriers == "iree";
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
  }
};
} // namespace
