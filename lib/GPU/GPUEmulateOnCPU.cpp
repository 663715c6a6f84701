//===- GPUEmulateOnCPU.cpp - Mapped GPU IR on the CPU, for testing --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `-remat-gpu-emulate-on-cpu`: the mapped loops lose their mapping and
// thread ids become 0, so what -remat-lower-to-gpu made of a function before
// kernel outlining runs sequentially on the host; device buffers and copies
// stay gpu ops, served by libRematCudaEmulation from host memory.
//
//===----------------------------------------------------------------------===//

#include "remat/GPU/Passes.h"

#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/IR/Builders.h"

namespace remat {
#define GEN_PASS_DEF_GPUEMULATEONCPUPASS
#include "remat/GPU/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace {
struct GPUEmulateOnCPUPass
    : public remat::impl::GPUEmulateOnCPUPassBase<GPUEmulateOnCPUPass> {
  void runOnOperation() override {
    OpBuilder b(&getContext());
    WalkResult result = getOperation().walk([&](Operation *op) -> WalkResult {
      b.setInsertionPoint(op);
      Location loc = op->getLoc();
      if (isa<gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp>(op)) {
        return WalkResult::advance(); // libRematCudaEmulation.
      } else if (isa<gpu::ThreadIdOp, gpu::BlockIdOp>(op)) {
        op->getResult(0).replaceAllUsesWith(
            arith::ConstantIndexOp::create(b, loc, 0));
        op->erase();
      } else if (isa<scf::ParallelOp>(op)) {
        op->removeAttr(gpu::getMappingAttrName());
      } else if (isa_and_nonnull<gpu::GPUDialect>(op->getDialect())) {
        return op->emitError("cannot be emulated on the CPU");
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
