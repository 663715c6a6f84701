//===- BufferPeak.cpp - Peak bytes of the buffers a function holds --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The static counterpart of libRematRuntime's measurement: after planning,
// the order of allocs and deallocs fixes the peak, so it can be computed
// before anything runs and compared with the runtime and with the
// tensor-level prediction.
//
//===----------------------------------------------------------------------===//

#include "remat/BufferPlanning/ArenaAllocation.h"
#include "remat/BufferPlanning/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/Support/MathExtras.h"

namespace remat {
#define GEN_PASS_DEF_REPORTBUFFERPEAKPASS
#include "remat/BufferPlanning/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

struct Replay {
  int64_t peak =
      0; ///< Most bytes held at once by the function's own allocations.
  int64_t atReturn = 0; ///< Bytes still held when it returns (results, leaks).
  bool dynamic = false; ///< Some allocation had a dynamic size (not counted).
  /// Per result: bytes of the allocation returned there (0 if none).
  SmallVector<int64_t> resultBytes;
};

class BufferPeakReplay {
public:
  const Replay &replay(FunctionOpInterface func) {
    auto it = cache.find(func);
    if (it != cache.end())
      return it->second;
    cache[func] = Replay(); // Recursion counts as nothing.
    Replay r;
    int64_t live = 0;
    DenseMap<Value, int64_t> sizes;
    func->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op != func && op->hasTrait<OpTrait::IsIsolatedFromAbove>())
        return WalkResult::skip();
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        std::optional<int64_t> bytes = staticByteSize(alloc.getType(), func);
        if (!bytes) {
          r.dynamic = true;
          return WalkResult::advance();
        }
        int64_t size = *bytes;
        if (std::optional<uint64_t> a = alloc.getAlignment())
          size = static_cast<int64_t>(llvm::alignTo(size, *a));
        sizes[alloc.getResult()] = size;
        live += size;
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        live -= sizes.lookup(dealloc.getMemref());
        sizes.erase(dealloc.getMemref());
      } else if (auto call = dyn_cast<CallOpInterface>(op)) {
        auto callee =
            dyn_cast_or_null<FunctionOpInterface>(call.resolveCallable());
        if (callee && !callee.isExternal()) {
          const Replay &inner = replay(callee);
          r.peak = std::max(r.peak, live + inner.peak);
          r.dynamic |= inner.dynamic;
          // Returned buffers become the caller's; they are freed (if at
          // all) through the call's results.
          live += inner.atReturn;
          for (auto [result, bytes] :
               llvm::zip(op->getResults(), inner.resultBytes))
            if (bytes)
              sizes[result] = bytes;
        }
      }
      r.peak = std::max(r.peak, live);
      return WalkResult::advance();
    });
    r.atReturn = live;
    r.resultBytes.assign(func.getNumResults(), 0);
    for (Block &block : func.getFunctionBody())
      if (!block.empty() && block.back().hasTrait<OpTrait::ReturnLike>())
        for (auto [i, v] : llvm::enumerate(block.back().getOperands()))
          if (i < r.resultBytes.size())
            r.resultBytes[i] = sizes.lookup(v);
    return cache[func] = r;
  }

private:
  DenseMap<Operation *, Replay> cache;
};

struct ReportBufferPeakPass
    : public remat::impl::ReportBufferPeakPassBase<ReportBufferPeakPass> {
  void runOnOperation() override {
    BufferPeakReplay replay;
    getOperation()->walk([&](FunctionOpInterface func) {
      if (func.isExternal())
        return;
      const Replay &r = replay.replay(func);
      int64_t args = 0;
      for (Type type : func.getArgumentTypes())
        if (auto memref = dyn_cast<MemRefType>(type))
          args += staticByteSize(memref, func).value_or(0);
      InFlightDiagnostic diag =
          func.emitRemark()
          << "buffers peak at " << r.peak << " bytes; arguments " << args
          << " bytes; with arguments " << r.peak + args << " bytes";
      if (r.dynamic)
        diag << " (plus buffers of dynamic size)";
    });
  }
};

} // namespace
