//===- FlattenSliceUpdates.cpp - Slices updated where they were cut -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Transforms/FlattenSliceUpdates.h"
#include "remat/Dialect/Remat/Remat.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace remat {

namespace {

/// Whether `op` has unit strides and constant offsets, and keeps its rank
/// (its slice's type has the destination's rank).
bool isPlainSlice(OffsetSizeAndStrideOpInterface op, RankedTensorType slice,
                  RankedTensorType whole) {
  return slice.getRank() == whole.getRank() && op.hasUnitStride() &&
         llvm::all_of(op.getMixedOffsets(), [](OpFoldResult o) {
           return getConstantIntValue(o).has_value();
         });
}

/// Gives `to` the remat.* attributes of `from`, whose place it takes. Its
/// result is the whole tensor, not the slice: a remat.cost's bytes, the
/// size of `from`'s result, are dropped (the type says them).
void keepAnnotations(Operation *from, Operation *to) {
  to->setDiscardableAttrs(from->getDiscardableAttrDictionary());
  if (auto cost = from->getAttrOfType<CostAttr>(RematDialect::kCostAttrName))
    to->setAttr(RematDialect::kCostAttrName,
                CostAttr::get(to->getContext(), cost.getTime(), /*bytes=*/0,
                              cost.getWorkspace()));
}

SmallVector<int64_t> constantOffsets(OffsetSizeAndStrideOpInterface op) {
  SmallVector<int64_t> offsets;
  for (OpFoldResult o : op.getMixedOffsets())
    offsets.push_back(*getConstantIntValue(o));
  return offsets;
}

} // namespace

LogicalResult flattenSliceUpdate(RewriterBase &rewriter,
                                 tensor::InsertSliceOp outer) {
  Value whole = outer.getDest();
  if (!isPlainSlice(outer, outer.getSourceType(), outer.getDestType()))
    return failure();
  // The chain, from the insert `outer` reads back to the first one, which
  // writes into the slice.
  SmallVector<tensor::InsertSliceOp> chain;
  Value link = outer.getSource();
  tensor::ExtractSliceOp slice;
  while (!slice) {
    Operation *def = link.getDefiningOp();
    if (!link.hasOneUse() || !def || def->getBlock() != outer->getBlock())
      return failure();
    if ((slice = link.getDefiningOp<tensor::ExtractSliceOp>()))
      break;
    auto insert = link.getDefiningOp<tensor::InsertSliceOp>();
    if (!insert ||
        !isPlainSlice(insert, insert.getSourceType(), insert.getDestType()))
      return failure();
    chain.push_back(insert);
    link = insert.getDest();
  }
  // The slice must be cut from `outer`'s destination where `outer` writes
  // it back. Other readers of the destination are fine: they read the old
  // value either way (bufferization copies it for the first insert, as for
  // any insert into a value read again).
  auto sameSlice = [](OffsetSizeAndStrideOpInterface a,
                      OffsetSizeAndStrideOpInterface b) {
    return a.isSameAs(b, [](OpFoldResult x, OpFoldResult y) {
      return isEqualConstantIntOrValue(x, y);
    });
  };
  if (chain.empty() || slice.getSource() != whole ||
      slice.getType() != outer.getSourceType() || !sameSlice(slice, outer))
    return failure();

  // Each insert of the chain, first to last, now into the whole tensor at
  // the sum of the offsets, where it was.
  const SmallVector<int64_t> base = constantOffsets(outer);
  Value current = whole;
  for (tensor::InsertSliceOp insert : llvm::reverse(chain)) {
    SmallVector<OpFoldResult> offsets;
    for (auto [b, o] : llvm::zip_equal(base, constantOffsets(insert)))
      offsets.push_back(rewriter.getIndexAttr(b + o));
    rewriter.setInsertionPoint(insert);
    current = tensor::InsertSliceOp::create(
        rewriter, insert.getLoc(), insert.getSource(), current, offsets,
        insert.getMixedSizes(), insert.getMixedStrides());
    keepAnnotations(insert, current.getDefiningOp());
  }
  rewriter.replaceOp(outer, current);
  for (tensor::InsertSliceOp insert : chain)
    rewriter.eraseOp(insert);
  rewriter.eraseOp(slice);
  return success();
}

unsigned flattenSliceUpdates(Operation *root) {
  IRRewriter rewriter(root->getContext());
  // An insert overwritten whole by the next one at the same place is left
  // unused by canonicalization, but still reads the link before it (which
  // then has two uses): such dead slices go first, last to first.
  SmallVector<Operation *> slices;
  root->walk([&](Operation *op) {
    if (isa<tensor::InsertSliceOp, tensor::ExtractSliceOp>(op))
      slices.push_back(op);
  });
  for (Operation *op : llvm::reverse(slices))
    if (isOpTriviallyDead(op))
      rewriter.eraseOp(op);
  // The links and the slice of a chain come before its insert in the block
  // (checked), so they are visited, and erased, before it is.
  SmallVector<tensor::InsertSliceOp> inserts;
  root->walk([&](tensor::InsertSliceOp op) { inserts.push_back(op); });
  unsigned rewritten = 0;
  for (tensor::InsertSliceOp outer : inserts)
    rewritten += succeeded(flattenSliceUpdate(rewriter, outer));
  return rewritten;
}

} // namespace remat
