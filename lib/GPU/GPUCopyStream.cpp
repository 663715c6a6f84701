//===- GPUCopyStream.cpp - Host copies on streams of their own ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `-remat-gpu-copy-stream`: gpu-async-region puts every GPU op of a block on
// one token chain, so a host copy (a gpu.memcpy to or from a host_shared
// buffer) runs in order with the kernels and hides nothing. Each one of at
// least `min-bytes` (smaller ones cost more on a stream of their own than
// they hide: docs/gpu.md) gets a stream of its own here (gpu-to-llvm makes a
// new stream of every `gpu.wait async`, waiting on events of its dependencies'
// streams), and the ops that need it to have ended wait for it: a free of one
// of its buffers on its stream, anything else that touches them behind a host
// `gpu.wait` (which gpu-to-llvm lowers to a synchronize and a destroy of
// the stream, so no stream outlives its copy's block).
//
//===----------------------------------------------------------------------===//

#include "remat/GPU/BufferRoot.h"
#include "remat/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace remat {
#define GEN_PASS_DEF_GPUCOPYSTREAMPASS
#include "remat/GPU/Passes.h.inc"
} // namespace remat

using namespace mlir;
using remat::rootBuffer;

namespace {

bool isHostBuffer(Value root) {
  auto alloc = root.getDefiningOp<gpu::AllocOp>();
  return alloc && alloc.getHostShared();
}

/// A copy still running on its stream: its token (the last op on that
/// stream) and the buffers it reads and writes.
struct RunningCopy {
  Value token;
  Value roots[2];
};

/// Whether `op` (or an op in its regions) reads or writes a view of
/// `root`. Ops that only make a view compute addresses: not a touch.
bool touches(Operation *op, Value root) {
  bool found = false;
  op->walk([&](Operation *inner) {
    if (isa<ViewLikeOpInterface, memref::CastOp,
            memref::ExtractStridedMetadataOp>(inner))
      return WalkResult::advance();
    for (Value operand : inner->getOperands())
      if (isa<BaseMemRefType>(operand.getType()) &&
          rootBuffer(operand) == root) {
        found = true;
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return found;
}

/// Whether `copy` moves at least `minBytes` bytes (a dynamic shape may).
bool copiesAtLeast(gpu::MemcpyOp copy, uint64_t minBytes) {
  auto type = cast<MemRefType>(copy.getSrc().getType());
  if (minBytes == 0 || !type.hasStaticShape())
    return true;
  uint64_t bytes = static_cast<uint64_t>(type.getNumElements()) *
                   llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  return bytes >= minBytes;
}

/// A host copy the pass moves: async, after the token of an op of its own
/// block (gpu-to-llvm records the event a new stream waits on right after
/// that op, and destroys it after the wait: once per run of the block), of
/// at least `minBytes` bytes.
bool isMovableHostCopy(gpu::MemcpyOp copy, uint64_t minBytes) {
  if (!copy.getAsyncToken() || copy.getAsyncDependencies().size() != 1 ||
      !copiesAtLeast(copy, minBytes))
    return false;
  Operation *dep = copy.getAsyncDependencies().front().getDefiningOp();
  if (!dep || dep->getBlock() != copy->getBlock())
    return false;
  return isHostBuffer(rootBuffer(copy.getSrc())) ||
         isHostBuffer(rootBuffer(copy.getDst()));
}

class CopyStreams {
public:
  CopyStreams(MLIRContext *ctx, uint64_t minBytes)
      : rewriter(ctx), minBytes(minBytes) {}

  void run(Block &block) {
    running.clear();
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (op.hasTrait<OpTrait::IsTerminator>())
        break;
      if (auto dealloc = dyn_cast<gpu::DeallocOp>(op);
          dealloc && freeAfterCopy(dealloc))
        continue;
      waitBefore(&op);
      if (auto copy = dyn_cast<gpu::MemcpyOp>(op);
          copy && isMovableHostCopy(copy, minBytes))
        moveToOwnStream(copy);
    }
    SmallVector<Value> tokens;
    for (const RunningCopy &c : running)
      tokens.push_back(c.token);
    if (!tokens.empty() && block.mightHaveTerminator()) {
      rewriter.setInsertionPoint(block.getTerminator());
      gpu::WaitOp::create(rewriter, block.getTerminator()->getLoc(), Type(),
                          tokens);
    }
  }

private:
  IRRewriter rewriter;
  uint64_t minBytes;
  SmallVector<RunningCopy> running;

  /// The copy leaves the chain: a new stream after its dependency; the
  /// ops that used its token use that dependency.
  void moveToOwnStream(gpu::MemcpyOp copy) {
    Location loc = copy.getLoc();
    Value dep = copy.getAsyncDependencies().front();
    rewriter.setInsertionPoint(copy);
    auto tokenType = gpu::AsyncTokenType::get(copy.getContext());
    Value stream =
        gpu::WaitOp::create(rewriter, loc, tokenType, ValueRange{dep})
            .getAsyncToken();
    auto moved = gpu::MemcpyOp::create(rewriter, loc, tokenType,
                                       ValueRange{stream}, copy.getDst(),
                                       copy.getSrc());
    rewriter.replaceOp(copy, dep);
    running.push_back({moved.getAsyncToken(),
                       {rootBuffer(moved.getSrc()), rootBuffer(moved.getDst())}});
  }

  /// A free of a buffer a copy still uses goes on the copy's stream, after
  /// it. True when `dealloc` was moved.
  bool freeAfterCopy(gpu::DeallocOp dealloc) {
    if (!dealloc.getAsyncToken() || dealloc.getAsyncDependencies().size() != 1)
      return false;
    Value root = rootBuffer(dealloc.getMemref());
    for (RunningCopy &c : running) {
      if (c.roots[0] != root && c.roots[1] != root)
        continue;
      rewriter.setInsertionPoint(dealloc);
      auto moved = gpu::DeallocOp::create(
          rewriter, dealloc.getLoc(), dealloc.getAsyncToken().getType(),
          ValueRange{c.token}, dealloc.getMemref());
      rewriter.replaceOp(dealloc, dealloc.getAsyncDependencies().front());
      c.token = moved.getAsyncToken();
      return true;
    }
    return false;
  }

  /// The host waits for every running copy whose buffers `op` touches.
  void waitBefore(Operation *op) {
    SmallVector<Value> tokens;
    llvm::erase_if(running, [&](const RunningCopy &c) {
      if (!touches(op, c.roots[0]) && !touches(op, c.roots[1]))
        return false;
      tokens.push_back(c.token);
      return true;
    });
    if (tokens.empty())
      return;
    rewriter.setInsertionPoint(op);
    gpu::WaitOp::create(rewriter, op->getLoc(), Type(), tokens);
  }
};

struct GPUCopyStreamPass
    : public remat::impl::GPUCopyStreamPassBase<GPUCopyStreamPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *block) {
      if (llvm::any_of(*block, [&](Operation &op) {
            auto copy = dyn_cast<gpu::MemcpyOp>(op);
            return copy && isMovableHostCopy(copy, minBytes);
          }))
        blocks.push_back(block);
    });
    CopyStreams streams(&getContext(), minBytes);
    for (Block *block : blocks)
      streams.run(*block);
  }
};

} // namespace
