//===- FuseElementwise.cpp - Elementwise chains as one linalg.generic -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace remat {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace {
/// Fuses a producer into its consumer only where nothing is computed twice
/// (the producer's only reader) and no loop or branch is crossed (the
/// producer would move into a region that runs another number of times).
bool fusesWithoutDuplication(OpOperand *consumerOperand) {
  Operation *producer = consumerOperand->get().getDefiningOp();
  return producer && producer->hasOneUse() &&
         producer->getBlock() == consumerOperand->getOwner()->getBlock();
}

struct FuseElementwisePass
    : public remat::impl::FuseElementwisePassBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns,
                                                 fusesWithoutDuplication);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
