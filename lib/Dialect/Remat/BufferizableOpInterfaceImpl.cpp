//===- BufferizableOpInterfaceImpl.cpp - remat ops in One-Shot Bufferize --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A host copy is a new allocation: remat.offload's in host memory (marked
// remat.host, which the GPU lowering allocates as pinned host memory),
// remat.prefetch's in the memory every other buffer lives in. Both read
// their operand and write nothing of it.
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

template <typename CopyOp>
struct HostCopyInterface
    : public BufferizableOpInterface::ExternalModel<HostCopyInterface<CopyOp>,
                                                    CopyOp> {
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
  bool bufferizesToAllocation(Operation *, Value) const { return true; }

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

} // namespace

void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, RematDialect *) {
    OffloadOp::attachInterface<HostCopyInterface<OffloadOp>>(*ctx);
    PrefetchOp::attachInterface<HostCopyInterface<PrefetchOp>>(*ctx);
  });
}

} // namespace remat
