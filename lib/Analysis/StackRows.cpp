//===- StackRows.cpp - Whole-row accesses of a stacked tensor -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/StackRows.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace remat {
namespace {

/// Whether `access` (a slice of `stack`) touches one whole row along
/// `axis`: offset 0 and the whole dimension on every other axis, size 1 on
/// it, strides 1.
bool isWholeRowSlice(OffsetSizeAndStrideOpInterface slice,
                     RankedTensorType stack, int64_t axis) {
  if (slice.getMixedOffsets().size() != static_cast<size_t>(stack.getRank()) ||
      axis >= stack.getRank())
    return false;
  for (auto [d, ofr] : llvm::enumerate(slice.getMixedOffsets()))
    if (int64_t(d) != axis && getConstantIntValue(ofr) != 0)
      return false;
  for (auto [d, ofr] : llvm::enumerate(slice.getMixedSizes()))
    if (getConstantIntValue(ofr) !=
        (int64_t(d) == axis ? 1 : stack.getDimSize(d)))
      return false;
  return llvm::all_of(slice.getMixedStrides(), [](OpFoldResult s) {
    return getConstantIntValue(s) == 1;
  });
}

} // namespace

std::optional<IndexExpr> wholeRow(Operation *access, RankedTensorType stack,
                                  int64_t axis, const IndexFacts &facts) {
  if (isa<tensor::InsertOp, tensor::ExtractOp>(access)) {
    ValueRange indices = isa<tensor::InsertOp>(access)
                             ? cast<tensor::InsertOp>(access).getIndices()
                             : cast<tensor::ExtractOp>(access).getIndices();
    if (stack.getRank() != 1 || indices.size() != 1 || axis != 0)
      return std::nullopt;
    return indexExprOf(indices[0], facts);
  }
  auto slice = dyn_cast<OffsetSizeAndStrideOpInterface>(access);
  if (!slice || !isWholeRowSlice(slice, stack, axis))
    return std::nullopt;
  OpFoldResult row = slice.getMixedOffsets()[axis];
  if (std::optional<int64_t> c = getConstantIntValue(row))
    return IndexExpr::constant(*c);
  return indexExprOf(cast<Value>(row), facts);
}

std::optional<int64_t> rowAxisOf(Operation *write, RankedTensorType stack) {
  auto slice = dyn_cast<OffsetSizeAndStrideOpInterface>(write);
  if (!slice)
    return wholeRow(write, stack, 0) ? std::optional<int64_t>(0)
                                     : std::nullopt;
  std::optional<int64_t> axis;
  for (int64_t d = 0; d < stack.getRank(); ++d) {
    if (!isWholeRowSlice(slice, stack, d))
      continue;
    if (!getConstantIntValue(slice.getMixedOffsets()[d]))
      return d;
    if (!axis)
      axis = d;
  }
  return axis;
}

Type rowValueType(Operation *access) {
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(access))
    return insert.getSourceType();
  if (auto insert = dyn_cast<tensor::InsertOp>(access))
    return insert.getScalar().getType();
  return access->getResult(0).getType();
}

Value storedValue(Operation *insert) {
  if (auto slice = dyn_cast<tensor::InsertSliceOp>(insert))
    return slice.getSource();
  return cast<tensor::InsertOp>(insert).getScalar();
}

Value insertDest(Operation *insert) {
  if (auto slice = dyn_cast<tensor::InsertSliceOp>(insert))
    return slice.getDest();
  if (auto scalar = dyn_cast<tensor::InsertOp>(insert))
    return scalar.getDest();
  return Value();
}

} // namespace remat
