//===- GPURewrite.cpp - Upstream GPU rewrite patterns as a pass -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `-remat-gpu-rewrite`: gpu.all_reduce (from block reductions) becomes warp
// shuffles and a workgroup buffer before convert-gpu-to-nvvm. Runs before
// scf-to-cf, while a reduction every thread reaches is visibly so.
//
//===----------------------------------------------------------------------===//

#include "remat/GPU/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace remat {
#define GEN_PASS_DEF_GPUREWRITEPASS
#include "remat/GPU/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace {
struct GPURewritePass : public remat::impl::GPURewritePassBase<GPURewritePass> {
  void runOnOperation() override {
    // The rewrite handles uniform reductions only: ones every thread of the
    // block reaches, i.e. directly in a single-block kernel (the block
    // reductions of -remat-gpu-prepare-linalg, before scf-to-cf).
    getOperation().walk([](gpu::AllReduceOp reduce) {
      Region *region = reduce->getParentRegion();
      if (isa<gpu::GPUFuncOp>(region->getParentOp()) &&
          region->hasOneBlock())
        reduce.setUniform(true);
    });
    RewritePatternSet patterns(&getContext());
    populateGpuRewritePatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
