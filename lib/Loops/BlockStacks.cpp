//===- BlockStacks.cpp - Stacks written k rows per iteration --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// See BlockStacks.h. Each loop is checked whole before anything changes:
// a stack with any access other than a block of the same shape is left
// as written.
//
//===----------------------------------------------------------------------===//

#include "remat/Loops/BlockStacks.h"
#include "LoopCarries.h"
#include "remat/Analysis/IndexExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace remat {
namespace {

/// How a flat stack is cut into blocks: `rows` rows along `axis`.
struct Blocking {
  int64_t axis = 0;
  int64_t rows = 0;
};

/// The block `slice` of `stack` touches, as the index of its first row
/// divided by the block's rows: size `cut.rows` along `cut.axis` at an
/// offset that is a multiple of it, offset 0 and the whole dimension
/// elsewhere, strides 1.
std::optional<IndexExpr> blockIndex(OffsetSizeAndStrideOpInterface slice,
                                    RankedTensorType stack, Blocking cut) {
  if (slice.getMixedOffsets().size() != static_cast<size_t>(stack.getRank()))
    return std::nullopt;
  for (int64_t d = 0; d < stack.getRank(); ++d) {
    bool along = d == cut.axis;
    if (!along && getConstantIntValue(slice.getMixedOffsets()[d]) != 0)
      return std::nullopt;
    if (getConstantIntValue(slice.getMixedSizes()[d]) !=
        (along ? cut.rows : stack.getDimSize(d)))
      return std::nullopt;
    if (getConstantIntValue(slice.getMixedStrides()[d]) != 1)
      return std::nullopt;
  }
  OpFoldResult offset = slice.getMixedOffsets()[cut.axis];
  IndexExpr first = getConstantIntValue(offset)
                        ? IndexExpr::constant(*getConstantIntValue(offset))
                        : indexExprOf(cast<Value>(offset));
  return first.dividedExactly(cut.rows);
}

/// How the write `insert` into `stack` cuts it: the first axis it writes
/// more than one row but not all of, at an offset that moves with the
/// iteration (not a constant), in blocks that tile the axis.
std::optional<Blocking> blockingOf(tensor::InsertSliceOp insert,
                                   RankedTensorType stack) {
  for (int64_t d = 0; d < stack.getRank(); ++d) {
    std::optional<int64_t> size = getConstantIntValue(insert.getMixedSizes()[d]);
    if (!size || *size <= 1 || *size == stack.getDimSize(d) ||
        stack.getDimSize(d) % *size != 0)
      continue;
    Blocking cut{d, *size};
    std::optional<IndexExpr> block = blockIndex(insert, stack, cut);
    if (block && !block->asConstant())
      return cut;
  }
  return std::nullopt;
}

/// The stack's type with its blocked axis read as [blocks, rows].
RankedTensorType blockedType(RankedTensorType stack, Blocking cut) {
  SmallVector<int64_t> shape(stack.getShape());
  shape[cut.axis] = stack.getDimSize(cut.axis) / cut.rows;
  shape.insert(shape.begin() + cut.axis + 1, cut.rows);
  return RankedTensorType::get(shape, stack.getElementType());
}

SmallVector<ReassociationIndices> blockedReassociation(RankedTensorType stack,
                                                       Blocking cut) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0, out = 0; d < stack.getRank(); ++d) {
    if (d == cut.axis) {
      groups.push_back({out, out + 1});
      out += 2;
    } else {
      groups.push_back({out++});
    }
  }
  return groups;
}

/// One stack a loop carries in blocks, and every access to rewrite.
struct BlockedStack {
  Carries loop;
  unsigned slot = 0;
  Blocking cut;
  tensor::InsertSliceOp write;
  SmallVector<tensor::ExtractSliceOp> reads;
  /// Uses of the loop's result other than block reads (a loss summing the
  /// whole stack): they read the blocked stack collapsed back, a view.
  SmallVector<OpOperand *> flatUses;
};

/// Collects the uses of `stack` that are block reads as `cut` cuts it
/// (but `except`) into `reads`; any other use goes to `others` or, when
/// `others` is null, makes the stack one this normalization leaves alone.
bool collectBlockReads(Value stack, Blocking cut, Operation *except,
                       SmallVectorImpl<tensor::ExtractSliceOp> &reads,
                       SmallVectorImpl<OpOperand *> *others) {
  auto type = cast<RankedTensorType>(stack.getType());
  for (OpOperand &use : stack.getUses()) {
    if (use.getOwner() == except)
      continue;
    auto read = dyn_cast<tensor::ExtractSliceOp>(use.getOwner());
    if (read && blockIndex(read, type, cut)) {
      reads.push_back(read);
      continue;
    }
    if (!others)
      return false;
    others->push_back(&use);
  }
  return true;
}

std::optional<BlockedStack> blockedStackAt(const Carries &loop, unsigned k) {
  auto type = dyn_cast<RankedTensorType>(loop.body[k].getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  auto write =
      loop.yield->getOperand(k).getDefiningOp<tensor::InsertSliceOp>();
  if (!write || write.getDest() != loop.body[k])
    return std::nullopt;
  std::optional<Blocking> cut = blockingOf(write, type);
  if (!cut)
    return std::nullopt;
  if (!beforeOnlyPassesOn(loop, k))
    return std::nullopt;
  BlockedStack stack{loop, k, *cut, write, {}};
  if (!collectBlockReads(loop.body[k], *cut, write, stack.reads, nullptr) ||
      !collectBlockReads(loop.loop->getResult(k), *cut, nullptr, stack.reads,
                         &stack.flatUses))
    return std::nullopt;
  return stack;
}

/// `block` (a sum of index-like terms) computed before the insertion point.
Value emitIndex(RewriterBase &rewriter, Location loc, const IndexExpr &block) {
  Value sum;
  for (auto [term, coefficient] : block.termsWithCoefficients()) {
    Value v = term;
    if (!v.getType().isIndex())
      v = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), v);
    if (coefficient != 1)
      v = arith::MulIOp::create(
          rewriter, loc, v,
          arith::ConstantIndexOp::create(rewriter, loc, coefficient));
    sum = sum ? arith::AddIOp::create(rewriter, loc, sum, v).getResult() : v;
  }
  if (!sum || block.constantPart() != 0) {
    Value c = arith::ConstantIndexOp::create(rewriter, loc, block.constantPart());
    sum = sum ? arith::AddIOp::create(rewriter, loc, sum, c).getResult() : c;
  }
  return sum;
}

/// The offsets, sizes and strides of `slice` (of the flat stack) as a row
/// of the blocked stack.
struct RowAccess {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};

RowAccess rowAccess(RewriterBase &rewriter, OffsetSizeAndStrideOpInterface slice,
                    RankedTensorType flat, Blocking cut) {
  Value row = emitIndex(rewriter, slice->getLoc(),
                        *blockIndex(slice, flat, cut));
  RowAccess access;
  for (int64_t d = 0; d < flat.getRank(); ++d) {
    access.offsets.push_back(d == cut.axis ? OpFoldResult(row)
                                           : rewriter.getIndexAttr(0));
    access.sizes.push_back(rewriter.getIndexAttr(
        d == cut.axis ? 1 : flat.getDimSize(d)));
    if (d == cut.axis) {
      access.offsets.push_back(rewriter.getIndexAttr(0));
      access.sizes.push_back(rewriter.getIndexAttr(cut.rows));
    }
  }
  access.strides.assign(access.offsets.size(), rewriter.getIndexAttr(1));
  return access;
}

/// `init` (the flat stack's initial value) in the blocked type. Block
/// writes at constant offsets into a tensor.empty (row 0 stored before the
/// loop, as layouts holding T + 1 rows write it) are rebuilt as row writes
/// into a blocked tensor.empty, so that the scan matcher still reads what
/// row they wrote; anything else is expanded (a view).
Value blockedInitOf(RewriterBase &rewriter, Value init, RankedTensorType flat,
                    Blocking cut) {
  RankedTensorType blocked = blockedType(flat, cut);
  SmallVector<tensor::InsertSliceOp> writes;
  Value base = init;
  while (auto write = base.getDefiningOp<tensor::InsertSliceOp>()) {
    std::optional<IndexExpr> block = blockIndex(write, flat, cut);
    if (!block || !block->asConstant() || !base.hasOneUse())
      break;
    writes.push_back(write);
    base = write.getDest();
  }
  Location loc = init.getLoc();
  if (!base.getDefiningOp<tensor::EmptyOp>() ||
      (!writes.empty() && !base.hasOneUse()))
    return tensor::ExpandShapeOp::create(rewriter, loc, blocked, init,
                                         blockedReassociation(flat, cut));
  Value result = tensor::EmptyOp::create(rewriter, loc, blocked.getShape(),
                                         blocked.getElementType());
  for (tensor::InsertSliceOp write : llvm::reverse(writes)) {
    RowAccess at = rowAccess(rewriter, write, flat, cut);
    result = tensor::InsertSliceOp::create(rewriter, write.getLoc(),
                                           write.getSource(), result,
                                           at.offsets, at.sizes, at.strides);
  }
  return result;
}

void retype(RewriterBase &rewriter, BlockedStack &stack) {
  Carries &loop = stack.loop;
  unsigned k = stack.slot;
  auto flat = cast<RankedTensorType>(loop.body[k].getType());
  RankedTensorType blocked = blockedType(flat, stack.cut);
  Location loc = loop.loop->getLoc();
  OpBuilder::InsertionGuard guard(rewriter);

  // The init, seen blocked.
  rewriter.setInsertionPoint(loop.loop);
  OpOperand &init = loop.inits[k];
  Value blockedInit = blockedInitOf(rewriter, init.get(), flat, stack.cut);
  Operation *oldInit = init.get().getDefiningOp();
  rewriter.modifyOpInPlace(loop.loop, [&] {
    init.set(blockedInit);
    if (!loop.before.empty())
      loop.before[k].setType(blocked);
    loop.body[k].setType(blocked);
    loop.loop->getResult(k).setType(blocked);
  });
  eraseUnusedChain(rewriter, oldInit);

  // Every access: the same block as one row of the blocked stack.
  tensor::InsertSliceOp write = stack.write;
  rewriter.setInsertionPoint(write);
  RowAccess at = rowAccess(rewriter, write, flat, stack.cut);
  rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
      write, write.getSource(), write.getDest(), at.offsets, at.sizes,
      at.strides);
  for (tensor::ExtractSliceOp read : stack.reads) {
    rewriter.setInsertionPoint(read);
    RowAccess row = rowAccess(rewriter, read, flat, stack.cut);
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        read, read.getType(), read.getSource(), row.offsets, row.sizes,
        row.strides);
  }
  if (stack.flatUses.empty())
    return;
  rewriter.setInsertionPointAfter(loop.loop);
  Value flatView = tensor::CollapseShapeOp::create(
      rewriter, loc, flat, loop.loop->getResult(k),
      blockedReassociation(flat, stack.cut));
  for (OpOperand *use : stack.flatUses)
    rewriter.modifyOpInPlace(use->getOwner(), [&] { use->set(flatView); });
}

} // namespace

int blockFlatStacks(Operation *root) {
  std::vector<BlockedStack> stacks;
  root->walk([&](Operation *op) {
    std::optional<Carries> loop = carriesOf(op);
    if (!loop)
      return;
    for (unsigned k = 0; k < loop->body.size(); ++k)
      if (std::optional<BlockedStack> stack = blockedStackAt(*loop, k))
        stacks.push_back(std::move(*stack));
  });
  IRRewriter rewriter(root->getContext());
  for (BlockedStack &stack : stacks)
    retype(rewriter, stack);
  return static_cast<int>(stacks.size());
}

} // namespace remat
