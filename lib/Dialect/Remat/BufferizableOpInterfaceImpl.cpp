//===- BufferizableOpInterfaceImpl.cpp - remat ops in One-Shot Bufferize --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A host copy is a new allocation: remat.offload's in host memory (marked
// remat.host, which the GPU lowering allocates as pinned host memory),
// remat.prefetch's in the memory every other buffer lives in. Both read
// their operand and write nothing of it. A host stack's rows
// (remat.host_empty, remat.offload_row, remat.prefetch_row) bufferize the
// same way, a row being a subview of the stack's host buffer.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/BufferizableOpInterfaceImpl.h"
#include "remat/Dialect/Remat/Remat.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;

namespace remat {
namespace {

/// The buffer type of a new allocation of `value`'s tensor type.
FailureOr<BufferLikeType> freshBufferType(Value value) {
  return cast<BufferLikeType>(
      getMemRefTypeWithStaticIdentityLayout(cast<TensorType>(value.getType())));
}

/// An op whose result is a new buffer of the result's own type (static
/// shape, identity layout), whatever its operands' buffers are.
template <typename Concrete, typename OpT>
struct NewResultBuffer
    : public BufferizableOpInterface::ExternalModel<Concrete, OpT> {
  bool bufferizesToAllocation(Operation *, Value) const { return true; }
  FailureOr<BufferLikeType> getBufferType(Operation *, Value value,
                                          const BufferizationOptions &,
                                          const BufferizationState &,
                                          SmallVector<Value> &) const {
    return freshBufferType(value);
  }
};

/// An op whose result is a copy of what it reads into a new buffer: it reads
/// its operands, writes none of them, and aliases nothing.
template <typename Concrete, typename OpT>
struct CopyIntoNewBuffer : public NewResultBuffer<Concrete, OpT> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }
};

template <typename CopyOp>
struct HostCopyInterface
    : public CopyIntoNewBuffer<HostCopyInterface<CopyOp>, CopyOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    Value input = op->getOperand(0);
    FailureOr<Value> source = getBuffer(rewriter, input, options, state);
    if (failed(source))
      return failure();
    auto tensorType = cast<RankedTensorType>(input.getType());
    MemRefType type = cast<MemRefType>(
        getMemRefTypeWithStaticIdentityLayout(tensorType));
    SmallVector<Value> sizes;
    for (auto [i, size] : llvm::enumerate(tensorType.getShape()))
      if (ShapedType::isDynamic(size))
        sizes.push_back(memref::DimOp::create(rewriter, op->getLoc(), *source,
                                              static_cast<int64_t>(i)));
    FailureOr<Value> copy =
        options.createAlloc(rewriter, op->getLoc(), type, sizes);
    if (failed(copy))
      return failure();
    if (isa<OffloadOp>(op))
      copy->getDefiningOp()->setAttr(RematDialect::kHostAttrName,
                                     rewriter.getUnitAttr());
    memref::CopyOp::create(rewriter, op->getLoc(), *source, *copy);
    replaceOpWithBufferizedValues(rewriter, op, *copy);
    return success();
  }
};

/// Row `row` of `stack`'s buffer along its leading dimension, as a
/// rank-reduced subview (contiguous: every other dimension is whole).
Value rowView(RewriterBase &rewriter, Location loc, Value stack, Value row) {
  auto type = cast<MemRefType>(stack.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0));
  offsets[0] = row;
  SmallVector<OpFoldResult> sizes{rewriter.getIndexAttr(1)};
  for (int64_t size : type.getShape().drop_front())
    sizes.push_back(rewriter.getIndexAttr(size));
  SmallVector<OpFoldResult> strides(type.getRank(), rewriter.getIndexAttr(1));
  auto rowType = memref::SubViewOp::inferRankReducedResultType(
      type.getShape().drop_front(), type, offsets, sizes, strides);
  return memref::SubViewOp::create(rewriter, loc, cast<MemRefType>(rowType),
                                   stack, offsets, sizes, strides);
}

struct HostEmptyInterface
    : public NewResultBuffer<HostEmptyInterface, HostEmptyOp> {
  bool resultBufferizesToMemoryWrite(Operation *, OpResult,
                                     const AnalysisState &) const {
    return false; // Uninitialized, as tensor.empty.
  }
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &) const {
    auto type = cast<MemRefType>(getMemRefTypeWithStaticIdentityLayout(
        cast<TensorType>(op->getResult(0).getType())));
    FailureOr<Value> buffer =
        options.createAlloc(rewriter, op->getLoc(), type, ValueRange());
    if (failed(buffer))
      return failure();
    buffer->getDefiningOp()->setAttr(RematDialect::kHostAttrName,
                                     rewriter.getUnitAttr());
    replaceOpWithBufferizedValues(rewriter, op, *buffer);
    return success();
  }
};

struct OffloadRowInterface
    : public BufferizableOpInterface::ExternalModel<OffloadRowInterface,
                                                    OffloadRowOp> {
  // The stack is read too: the rows not written keep what they hold.
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *op, OpOperand &operand,
                               const AnalysisState &) const {
    return &operand == &cast<OffloadRowOp>(op).getStackMutable();
  }
  AliasingValueList getAliasingValues(Operation *op, OpOperand &operand,
                                      const AnalysisState &) const {
    if (&operand != &cast<OffloadRowOp>(op).getStackMutable())
      return {};
    return {{op->getResult(0), BufferRelation::Equivalent}};
  }
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto offload = cast<OffloadRowOp>(op);
    FailureOr<Value> value =
        getBuffer(rewriter, offload.getValue(), options, state);
    FailureOr<Value> stack =
        getBuffer(rewriter, offload.getStack(), options, state);
    if (failed(value) || failed(stack))
      return failure();
    Value row = rowView(rewriter, op->getLoc(), *stack, offload.getRow());
    memref::CopyOp::create(rewriter, op->getLoc(), *value, row);
    replaceOpWithBufferizedValues(rewriter, op, *stack);
    return success();
  }
};

struct PrefetchRowInterface
    : public CopyIntoNewBuffer<PrefetchRowInterface, PrefetchRowOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto prefetch = cast<PrefetchRowOp>(op);
    FailureOr<Value> stack =
        getBuffer(rewriter, prefetch.getStack(), options, state);
    if (failed(stack))
      return failure();
    auto type = cast<MemRefType>(
        getMemRefTypeWithStaticIdentityLayout(prefetch.getResult().getType()));
    FailureOr<Value> copy =
        options.createAlloc(rewriter, op->getLoc(), type, ValueRange());
    if (failed(copy))
      return failure();
    Value row = rowView(rewriter, op->getLoc(), *stack, prefetch.getRow());
    memref::CopyOp::create(rewriter, op->getLoc(), row, *copy);
    replaceOpWithBufferizedValues(rewriter, op, *copy);
    return success();
  }
};

} // namespace

void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, RematDialect *) {
    OffloadOp::attachInterface<HostCopyInterface<OffloadOp>>(*ctx);
    PrefetchOp::attachInterface<HostCopyInterface<PrefetchOp>>(*ctx);
    HostEmptyOp::attachInterface<HostEmptyInterface>(*ctx);
    OffloadRowOp::attachInterface<OffloadRowInterface>(*ctx);
    PrefetchRowOp::attachInterface<PrefetchRowInterface>(*ctx);
  });
}

} // namespace remat
