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
struct InlineRecomputePass
    : public remat::impl::InlineRecomputePassBase<InlineRecomputePass> {
  void runOnOperation() override {
    SmallVector<RecomputeOp> ops;
    getOperation()->walk([&](RecomputeOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    // Post-order walk: nested recomputations are inlined into their parent's
    // region before the parent itself is inlined.
    for (RecomputeOp op : ops) {
      YieldOp yield = op.getYield();
      SmallVector<Value> results(yield.getValues());
      rewriter.eraseOp(yield);
      rewriter.inlineBlockBefore(&op.getBodyBlock(), op, op.getInputs());
      rewriter.replaceOp(op, results);
    }
  }
};
} // namespace
