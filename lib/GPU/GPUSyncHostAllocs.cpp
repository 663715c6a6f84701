//===- GPUSyncHostAllocs.cpp - host_shared allocations without tokens -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `-remat-gpu-sync-host-allocs`: gpu-async-region makes every gpu.alloc
// asynchronous, but gpu-to-llvm lowers a host_shared one (a host copy's
// pinned buffer) only when it is synchronous. A fresh host buffer waits for
// nothing on the device, so it is allocated at once and the ops that used
// its token use its dependency instead: the device's work goes on (waiting
// for the dependencies, as this pass first did, synchronized the host with
// the device once per offloaded value).
//
//===----------------------------------------------------------------------===//

#include "remat/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace remat {
#define GEN_PASS_DEF_GPUSYNCHOSTALLOCSPASS
#include "remat/GPU/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace {
struct GPUSyncHostAllocsPass
    : public remat::impl::GPUSyncHostAllocsPassBase<GPUSyncHostAllocsPass> {
  void runOnOperation() override {
    SmallVector<gpu::AllocOp> allocs;
    getOperation().walk([&](gpu::AllocOp alloc) {
      if (alloc.getHostShared() && alloc.getAsyncToken())
        allocs.push_back(alloc);
    });
    IRRewriter rewriter(&getContext());
    for (gpu::AllocOp alloc : allocs) {
      Location loc = alloc.getLoc();
      rewriter.setInsertionPoint(alloc);
      auto sync = gpu::AllocOp::create(
          rewriter, loc, alloc.getMemref().getType(), Type(), ValueRange(),
          alloc.getDynamicSizes(), alloc.getSymbolOperands(),
          rewriter.getUnitAttr());
      // The token the allocation would have passed on: its one dependency,
      // else all of them joined (a new stream waiting for theirs).
      ValueRange deps = alloc.getAsyncDependencies();
      Value token = deps.size() == 1
                        ? deps.front()
                        : gpu::WaitOp::create(
                              rewriter, loc,
                              gpu::AsyncTokenType::get(&getContext()), deps)
                              .getAsyncToken();
      rewriter.replaceOp(alloc, {sync.getMemref(), token});
    }
  }
};
} // namespace
