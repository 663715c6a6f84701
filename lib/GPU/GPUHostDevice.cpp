//===- GPUHostDevice.cpp - Device buffers, host function boundaries -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `-remat-gpu-host-device`: after bufferization and buffer planning, every
// buffer a function computes moves to device memory and values cross
// function boundaries (arguments, results, calls) in host memory with
// explicit copies. The planner's frees keep their places, so the device holds
// what the plan says and no more. Host copies of offloaded values (a
// memref.alloc marked remat.host, what remat.offload bufferizes to) become
// pinned host buffers (gpu.alloc host_shared), copied with gpu.memcpy.
//
//===----------------------------------------------------------------------===//

#include "remat/GPU/BufferRoot.h"
#include "remat/GPU/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace remat {
#define GEN_PASS_DEF_GPUHOSTDEVICEPASS
#include "remat/GPU/Passes.h.inc"
} // namespace remat

using namespace mlir;
using remat::rootBuffer;

Value remat::rootBuffer(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      v = view.getViewSource();
    } else if (auto cast = dyn_cast<memref::CastOp>(def)) {
      v = cast.getSource();
    } else if (auto meta = dyn_cast<memref::ExtractStridedMetadataOp>(def)) {
      v = meta.getSource();
    } else {
      break;
    }
  }
  return v;
}

namespace {

/// The dynamic sizes of `v` (for an allocation of its shape).
SmallVector<Value> dynamicSizes(OpBuilder &b, Location loc, Value v) {
  SmallVector<Value> sizes;
  auto type = cast<MemRefType>(v.getType());
  for (auto [i, size] : llvm::enumerate(type.getShape()))
    if (ShapedType::isDynamic(size))
      sizes.push_back(memref::DimOp::create(b, loc, v, i));
  return sizes;
}

/// `type` with an identity layout (the contiguous buffer of its shape).
MemRefType contiguous(MemRefType type) {
  return MemRefType::get(type.getShape(), type.getElementType(),
                         MemRefLayoutAttrInterface(), type.getMemorySpace());
}

/// Buffers of `index` hold schedule bookkeeping the host reads and writes
/// one element at a time (the checkpoint positions of a reversed scan): they
/// stay in host memory, off the device peak.
bool isHostBookkeeping(memref::AllocOp alloc) {
  return alloc.getType().getElementType().isIndex();
}

/// The mark of a host copy's buffer (RematDialect::kHostAttrName; this
/// layer includes no remat dialect).
constexpr llvm::StringLiteral kHostBufferAttr = "remat.host";

bool isHostCopy(memref::AllocOp alloc) {
  return alloc->hasAttr(kHostBufferAttr);
}

/// One step of carriedRoot through a loop: the value `v` (a loop's result
/// or a block argument of its body) is the buffer of, or null where the loop
/// does not update that buffer in place.
Value carriedBy(Value v) {
  if (auto result = dyn_cast<OpResult>(v)) {
    if (auto loop = dyn_cast<scf::ForOp>(result.getOwner()))
      return loop.getRegionIterArgs()[result.getResultNumber()];
    if (auto loop = dyn_cast<scf::WhileOp>(result.getOwner()))
      return loop.getConditionOp().getArgs()[result.getResultNumber()];
    return {};
  }
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg)
    return {};
  Operation *parent = arg.getOwner()->getParentOp();
  if (auto loop = dyn_cast_or_null<scf::ForOp>(parent)) {
    if (arg.getArgNumber() == 0)
      return {};
    unsigned i = arg.getArgNumber() - 1;
    if (rootBuffer(loop.getYieldedValues()[i]) != arg)
      return {};
    return loop.getInitArgs()[i];
  }
  auto loop = dyn_cast_or_null<scf::WhileOp>(parent);
  if (!loop)
    return {};
  unsigned i = arg.getArgNumber();
  // The after region's argument is what the condition passes on.
  if (arg.getOwner() == loop.getAfterBody())
    return loop.getConditionOp().getArgs()[i];
  // The before region's: in place when the iteration yields the buffer the
  // condition passed on from it.
  auto after =
      dyn_cast<BlockArgument>(rootBuffer(loop.getYieldOp()->getOperand(i)));
  if (!after || after.getOwner() != loop.getAfterBody() ||
      rootBuffer(loop.getConditionOp().getArgs()[after.getArgNumber()]) != arg)
    return {};
  return loop.getInits()[i];
}

/// The allocation `v` views, looking through the iteration arguments and
/// results of the scf.for and scf.while loops that update a buffer in place
/// (each iteration yields a view of its argument), as they carry a host
/// stack (remat.offload_row): the buffer is the loop init's.
Value carriedRoot(Value v) {
  for (int depth = 0; depth < 64; ++depth) {
    v = rootBuffer(v);
    Value next = carriedBy(v);
    if (!next)
      return v;
    v = next;
  }
  return v;
}

/// Whether `v` views a pinned host buffer (a host copy, a host stack).
bool viewsHostBuffer(Value v) {
  auto alloc = carriedRoot(v).getDefiningOp<gpu::AllocOp>();
  return alloc && alloc.getHostShared();
}

/// `v`, a contiguous strided view of a pinned host buffer (a row of a host
/// stack), viewed again with an identity layout from the buffer's bytes
/// (memref.view of the i8 allocation every host buffer is made as), which
/// is what gpu.memcpy copies; null where `v` is not such a view.
Value contiguousHostView(OpBuilder &b, Location loc, Value v) {
  auto type = cast<MemRefType>(v.getType());
  auto alloc = carriedRoot(v).getDefiningOp<gpu::AllocOp>();
  auto raw =
      alloc ? dyn_cast<MemRefType>(alloc.getMemref().getType()) : MemRefType();
  Type elem = type.getElementType();
  if (!raw || !raw.getElementType().isInteger(8) || raw.getRank() != 1 ||
      !type.hasStaticShape() || !elem.isIntOrFloat() ||
      elem.getIntOrFloatBitWidth() % 8 != 0)
    return {};
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return {};
  int64_t expected = 1;
  for (int64_t i = type.getRank() - 1; i >= 0; --i) {
    if (type.getDimSize(i) != 1 && strides[i] != expected)
      return {};
    expected *= type.getDimSize(i);
  }
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, v);
  Value elemBytes =
      arith::ConstantIndexOp::create(b, loc, elem.getIntOrFloatBitWidth() / 8);
  Value bytes = arith::MulIOp::create(b, loc, meta.getOffset(), elemBytes);
  return memref::ViewOp::create(b, loc, contiguous(type), alloc.getMemref(),
                                bytes, ValueRange());
}

/// A device buffer, or with `host` a pinned host buffer the device can
/// address (gpu.alloc host_shared).
gpu::AllocOp deviceAlloc(OpBuilder &b, Location loc, MemRefType type,
                         ValueRange sizes, bool host = false) {
  return gpu::AllocOp::create(b, loc, type, /*asyncToken=*/Type(),
                              /*asyncDependencies=*/ValueRange(), sizes,
                              /*symbolOperands=*/ValueRange(),
                              host ? b.getUnitAttr() : UnitAttr());
}

/// A device buffer of `type`. Allocators round: as aligned_alloc does on
/// the CPU, a static buffer whose size is not a multiple of `alignment` is
/// requested rounded up to it (an i8 buffer viewed at offset 0), so the
/// device peak counts what the planner counts. `view` is the value of
/// `type` to use; the returned op is the allocation (the root to free).
gpu::AllocOp roundedDeviceAlloc(OpBuilder &b, Location loc, MemRefType type,
                                ValueRange sizes, int64_t alignment,
                                Value &view, bool host = false) {
  Type elem = type.getElementType();
  int64_t bits = elem.isIntOrFloat() ? elem.getIntOrFloatBitWidth() : 0;
  int64_t bytes = type.hasStaticShape() && bits % 8 == 0
                      ? type.getNumElements() * (bits / 8)
                      : 0;
  // A host buffer is always made of bytes: a row of it can then be viewed
  // contiguously (contiguousHostView).
  if (bytes == 0 || !type.getLayout().isIdentity() ||
      (!host && (alignment <= 1 || bytes % alignment == 0))) {
    gpu::AllocOp dev = deviceAlloc(b, loc, type, sizes, host);
    view = dev.getMemref();
    return dev;
  }
  alignment = std::max<int64_t>(alignment, 1);
  auto raw = MemRefType::get({(bytes + alignment - 1) / alignment * alignment},
                             b.getI8Type(), MemRefLayoutAttrInterface(),
                             type.getMemorySpace());
  gpu::AllocOp dev = deviceAlloc(b, loc, raw, {}, host);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  view = memref::ViewOp::create(b, loc, type, dev.getMemref(), zero,
                                ValueRange());
  return dev;
}

gpu::MemcpyOp memcpy(OpBuilder &b, Location loc, Value dst, Value src) {
  return gpu::MemcpyOp::create(b, loc, /*asyncToken=*/Type(), ValueRange(),
                               dst, src);
}

/// Copies the ranked device memref `device` into a fresh host buffer of
/// identity layout (through a contiguous device temporary if it is strided).
FailureOr<Value> toHost(OpBuilder &b, Location loc, Value device,
                        Operation *user) {
  auto type = dyn_cast<MemRefType>(device.getType());
  if (!type)
    return user->emitError("cannot copy an unranked memref to the host "
                           "unless it is a memref.cast of a ranked one"),
           failure();
  MemRefType hostType = contiguous(type);
  SmallVector<Value> sizes = dynamicSizes(b, loc, device);
  Value source = device;
  Value temporary;
  if (!type.getLayout().isIdentity()) {
    temporary = deviceAlloc(b, loc, hostType, sizes).getMemref();
    linalg::CopyOp::create(b, loc, device, temporary);
    source = temporary;
  }
  Value host = memref::AllocOp::create(b, loc, hostType, sizes);
  memcpy(b, loc, host, source);
  if (temporary)
    gpu::DeallocOp::create(b, loc, Type(), ValueRange(), temporary);
  return host;
}

/// Moves one function's buffers to the device in phases, each over the
/// whole function: later phases rely on earlier ones (a memref.copy is a
/// kernel once both sides are device buffers; calls and returns look for
/// gpu.dealloc), and the last one frees the device roots the others
/// collected unless something already does.
class FunctionRewriter {
public:
  FunctionRewriter(func::FuncOp func, SymbolTableCollection &symbols,
                   int64_t alignment)
      : func(func), symbols(symbols), b(func.getContext()),
        entry(func.getBody().front()), alignment(alignment) {}

  LogicalResult run() {
    if (failed(moveBuffersToDevice()) || failed(copyArgumentsToDevice()))
      return failure();
    if (failed(turnCopiesIntoKernels()))
      return failure();
    if (failed(rewriteCalls()))
      return failure();
    return returnHostCopies();
  }

private:
  LogicalResult moveBuffersToDevice();
  LogicalResult copyArgumentsToDevice();
  LogicalResult turnCopiesIntoKernels();
  LogicalResult rewriteCalls();
  LogicalResult passHostCopies(func::CallOp call,
                               SmallVectorImpl<Value> &hostCopies);
  LogicalResult copyResultsToDevice(func::CallOp call,
                                    SmallVectorImpl<Operation *> &erased);
  LogicalResult returnHostCopies();

  func::FuncOp func;
  SymbolTableCollection &symbols;
  OpBuilder b;
  Block &entry;
  /// Device allocations that are roots of buffers (freed at the returns if
  /// nothing frees them), in the entry block only.
  SmallVector<Value> deviceRoots;
  int64_t alignment; ///< Device buffers are requested rounded up to it.
};

/// memref.alloc/alloca/dealloc become gpu.alloc/dealloc; constants
/// (memref.get_global) get a device copy.
LogicalResult FunctionRewriter::moveBuffersToDevice() {
  MLIRContext *ctx = func.getContext();
  WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
    b.setInsertionPoint(op);
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (isHostBookkeeping(alloc))
        return WalkResult::advance();
      Value buffer;
      auto dev = roundedDeviceAlloc(b, op->getLoc(), alloc.getType(),
                                    alloc.getDynamicSizes(), alignment, buffer,
                                    isHostCopy(alloc));
      dev->setAttrs(DictionaryAttr::get(ctx)); // Drops `alignment`.
      alloc.replaceAllUsesWith(buffer);
      alloc.erase();
      if (dev->getBlock() == &entry)
        deviceRoots.push_back(dev.getMemref()); // What rootBuffer() finds.
      return WalkResult::advance();
    }
    if (auto alloca = dyn_cast<memref::AllocaOp>(op)) {
      if (op->getBlock() != &entry)
        return op->emitError("has no GPU lowering outside the entry block of "
                             "a function (a device stack buffer)");
      auto dev = deviceAlloc(b, op->getLoc(), alloca.getType(),
                             alloca.getDynamicSizes());
      alloca.replaceAllUsesWith(dev.getMemref());
      alloca.erase();
      deviceRoots.push_back(dev.getMemref());
      return WalkResult::advance();
    }
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      if (auto alloc = rootBuffer(dealloc.getMemref())
                           .getDefiningOp<memref::AllocOp>();
          alloc && isHostBookkeeping(alloc))
        return WalkResult::advance();
      gpu::DeallocOp::create(b, op->getLoc(), Type(), ValueRange(),
                             dealloc.getMemref());
      dealloc.erase();
      return WalkResult::advance();
    }
    if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
      if (op->getBlock() != &entry)
        return op->emitError("tensor constants are copied to the device in "
                             "the entry block only");
      b.setInsertionPointAfter(op);
      Value buffer;
      auto dev = roundedDeviceAlloc(b, op->getLoc(), global.getType(), {},
                                    alignment, buffer);
      auto copy = memcpy(b, op->getLoc(), buffer, global.getResult());
      global.getResult().replaceAllUsesExcept(buffer, copy);
      deviceRoots.push_back(dev.getMemref());
      return WalkResult::advance();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// A device copy of each memref argument, made at entry, replaces its uses.
LogicalResult FunctionRewriter::copyArgumentsToDevice() {
  b.setInsertionPointToStart(&entry);
  for (BlockArgument arg : func.getArguments()) {
    if (arg.use_empty() || !isa<BaseMemRefType>(arg.getType()))
      continue;
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type || !type.getLayout().isIdentity())
      return func.emitError() << "argument #" << arg.getArgNumber()
                              << " of type " << arg.getType()
                              << " cannot be copied to the device: function "
                                 "boundaries need ranked memrefs with identity "
                                 "layouts (bufferize with "
                                 "function-boundary-type-conversion="
                                 "identity-layout-map)";
    Location loc = arg.getLoc();
    SmallVector<Value> sizes = dynamicSizes(b, loc, arg);
    Value buffer;
    auto dev = roundedDeviceAlloc(b, loc, type, sizes, alignment, buffer);
    auto copy = memcpy(b, loc, buffer, arg);
    SmallPtrSet<Operation *, 4> keep{dev, copy};
    for (Value size : sizes)
      keep.insert(size.getDefiningOp());
    arg.replaceAllUsesExcept(buffer, keep);
    deviceRoots.push_back(dev.getMemref());
  }
  return success();
}

/// Copies between device buffers are kernels; a copy to or from a host
/// copy's pinned buffer is a gpu.memcpy.
LogicalResult FunctionRewriter::turnCopiesIntoKernels() {
  WalkResult walk = func.walk([&](memref::CopyOp copy) -> WalkResult {
    b.setInsertionPoint(copy);
    if (viewsHostBuffer(copy.getSource()) ||
        viewsHostBuffer(copy.getTarget())) {
      SmallVector<Value, 2> sides{copy.getTarget(), copy.getSource()};
      for (Value &side : sides) {
        if (cast<MemRefType>(side.getType()).getLayout().isIdentity())
          continue;
        Value strided = side;
        side = contiguousHostView(b, copy.getLoc(), strided);
        if (!side)
          return copy.emitError()
                 << "copies a strided view " << strided.getType()
                 << " to or from host memory: a host copy is one "
                    "contiguous gpu.memcpy (a row of a host stack is one)";
      }
      memcpy(b, copy.getLoc(), sides[0], sides[1]);
    } else {
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
    }
    copy.erase();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// Calls take host copies of their memref operands and give host results,
/// of which the caller makes device copies.
LogicalResult FunctionRewriter::rewriteCalls() {
  SmallVector<func::CallOp> calls;
  func.walk([&](func::CallOp call) { calls.push_back(call); });
  for (func::CallOp call : calls) {
    Location loc = call.getLoc();
    b.setInsertionPoint(call);
    SmallVector<Value> hostCopies;
    if (failed(passHostCopies(call, hostCopies)))
      return failure();
    // Device buffers freed right after the call died at their host copy.
    for (Operation *next = call->getNextNode();
         isa_and_nonnull<gpu::DeallocOp>(next);) {
      Operation *dealloc = next;
      next = next->getNextNode();
      if (rootBuffer(dealloc->getOperand(0)).getDefiningOp() != call)
        dealloc->moveBefore(call);
    }
    b.setInsertionPointAfter(call);
    SmallVector<Operation *> erased; // After all insertions (the insertion
                                     // point may be one of them).
    if (failed(copyResultsToDevice(call, erased)))
      return failure();
    for (Value host : hostCopies)
      memref::DeallocOp::create(b, loc, host);
    for (Operation *op : erased)
      op->erase();
  }
  return success();
}

/// Replaces each memref operand of `call` by a host copy (cast back to the
/// operand's type; an unranked operand is copied from its ranked source).
LogicalResult
FunctionRewriter::passHostCopies(func::CallOp call,
                                 SmallVectorImpl<Value> &hostCopies) {
  Location loc = call.getLoc();
  for (OpOperand &operand : call->getOpOperands()) {
    Value v = operand.get();
    if (!isa<BaseMemRefType>(v.getType()))
      continue;
    Value ranked = v;
    auto unranked = v.getDefiningOp<memref::CastOp>();
    bool isUnranked = isa<UnrankedMemRefType>(v.getType());
    if (isUnranked && unranked)
      ranked = unranked.getSource();
    FailureOr<Value> host = toHost(b, loc, ranked, call);
    if (failed(host))
      return failure();
    hostCopies.push_back(*host);
    Value passed = *host;
    if (passed.getType() != v.getType()) {
      if (!memref::CastOp::areCastCompatible(passed.getType(), v.getType()))
        return call.emitError()
               << "operand #" << operand.getOperandNumber() << " of type "
               << v.getType() << " cannot be passed as a host copy";
      passed = memref::CastOp::create(b, loc, v.getType(), passed);
    }
    operand.set(passed);
    if (unranked && unranked->use_empty())
      unranked.erase();
  }
  return success();
}

/// Gives each memref result of `call` a device copy that replaces its uses;
/// `erased` collects the frees of results that need none.
LogicalResult
FunctionRewriter::copyResultsToDevice(func::CallOp call,
                                      SmallVectorImpl<Operation *> &erased) {
  Location loc = call.getLoc();
  bool calleeInModule = false;
  if (auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr()))
    calleeInModule = !callee.isExternal();
  for (Value result : call.getResults()) {
    if (!isa<BaseMemRefType>(result.getType()))
      continue;
    // Only freed (or unused): no device copy, free the host buffer.
    if (llvm::all_of(result.getUsers(),
                     [](Operation *u) { return isa<gpu::DeallocOp>(u); })) {
      bool freed = !result.use_empty();
      llvm::append_range(erased, result.getUsers());
      if (freed || calleeInModule)
        memref::DeallocOp::create(b, loc, result);
      continue;
    }
    auto type = dyn_cast<MemRefType>(result.getType());
    if (!type || !type.getLayout().isIdentity())
      return call.emitError()
             << "result of type " << result.getType()
             << " cannot be copied to the device: calls need ranked "
                "memref results with identity layouts";
    SmallVector<Value> sizes = dynamicSizes(b, loc, result);
    auto dev = deviceAlloc(b, loc, type, sizes);
    SmallPtrSet<Operation *, 4> keep{dev,
                                     memcpy(b, loc, dev.getMemref(), result)};
    for (Value size : sizes)
      keep.insert(size.getDefiningOp());
    // The callee made the host buffer for us (its return copy).
    if (calleeInModule)
      keep.insert(memref::DeallocOp::create(b, loc, result));
    result.replaceAllUsesExcept(dev.getMemref(), keep);
    if (dev->getBlock() == &entry)
      deviceRoots.push_back(dev.getMemref());
  }
  return success();
}

/// Returns: host copies of memref results, then free what nothing freed
/// (entry-block device buffers: returned ones, argument copies).
LogicalResult FunctionRewriter::returnHostCopies() {
  llvm::DenseSet<Value> freed;
  func.walk(
      [&](gpu::DeallocOp d) { freed.insert(carriedRoot(d.getMemref())); });
  SmallVector<func::ReturnOp> returns;
  func.walk([&](func::ReturnOp r) { returns.push_back(r); });
  for (func::ReturnOp ret : returns) {
    b.setInsertionPoint(ret);
    for (OpOperand &operand : ret->getOpOperands()) {
      if (!isa<BaseMemRefType>(operand.get().getType()))
        continue;
      auto type = dyn_cast<MemRefType>(
          func.getResultTypes()[operand.getOperandNumber()]);
      if (!type || !type.getLayout().isIdentity())
        return func.emitError()
               << "result #" << operand.getOperandNumber() << " of type "
               << func.getResultTypes()[operand.getOperandNumber()]
               << " cannot be copied to the host: function boundaries need "
                  "ranked memrefs with identity layouts";
      FailureOr<Value> host = toHost(b, ret.getLoc(), operand.get(), ret);
      if (failed(host))
        return failure();
      operand.set(*host);
    }
    for (Value root : deviceRoots)
      if (!freed.contains(root))
        gpu::DeallocOp::create(b, ret.getLoc(), Type(), ValueRange(), root);
  }
  return success();
}

struct GPUHostDevicePass
    : public remat::impl::GPUHostDevicePassBase<GPUHostDevicePass> {
  using GPUHostDevicePassBase::GPUHostDevicePassBase;
  void runOnOperation() override {
    SymbolTableCollection symbols;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() &&
          failed(FunctionRewriter(func, symbols, alignment).run()))
        return signalPassFailure();
  }
};

} // namespace
