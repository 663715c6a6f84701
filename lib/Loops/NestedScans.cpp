//===- NestedScans.cpp - A scan over a scan, unrolled outside -------------===//
//
// See NestedScans.h. After unrolling, a read of an outer stack inside the
// region one insert wrote (a layer's whole stack at its constant row, or a
// row of it at an index the inner loop computes) reads the value inserted
// there: the chain of inserts the unrolled forward wrote is walked back past
// inserts provably elsewhere.
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "remat/Loops/NestedScans.h"
#include "LoopCarries.h"
#include "remat/Analysis/IndexExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace remat {
namespace {

bool holdsLoop(scf::ForOp loop) {
  return loop.getBody()
      ->walk([](Operation *op) {
        return isa<scf::ForOp, scf::WhileOp>(op) ? WalkResult::interrupt()
                                                 : WalkResult::advance();
      })
      .wasInterrupted();
}

bool shortEnough(scf::ForOp loop) {
  std::optional<int64_t> trips = tripCount(loop);
  return trips && *trips <= kMostOuterIterations;
}

/// Whether an op in `loop`'s body reads a result of `forward`.
bool readsResultsOf(scf::ForOp loop, scf::ForOp forward) {
  return loop.getBody()
      ->walk([&](Operation *op) {
        for (Value v : op->getOperands())
          if (v.getDefiningOp() == forward)
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// The outer scans' loops in `block`: each forward that stacks and holds a
/// loop, with the loops after it that read it and hold one, when all are
/// short; of longer ones, a remark.
SmallVector<scf::ForOp> outerLoops(Block &block) {
  SmallVector<scf::ForOp> unroll;
  for (Operation &op : block) {
    auto forward = dyn_cast<scf::ForOp>(op);
    if (!forward || !holdsLoop(forward) || !stacksRows(*carriesOf(forward)))
      continue;
    SmallVector<scf::ForOp> pair{forward};
    for (Operation *next = forward->getNextNode(); next;
         next = next->getNextNode())
      if (auto loop = dyn_cast<scf::ForOp>(next);
          loop && holdsLoop(loop) && readsResultsOf(loop, forward))
        pair.push_back(loop);
    if (pair.size() == 1)
      continue;
    if (llvm::all_of(pair, shortEnough)) {
      unroll.append(pair);
      continue;
    }
    std::optional<int64_t> trips = tripCount(forward);
    InFlightDiagnostic remark = forward.emitRemark()
                                << "the loops nested in this scan are not "
                                   "checkpointed: it runs ";
    if (trips)
      remark << *trips << " iterations, more than the "
             << kMostOuterIterations << " unrolled to expose them";
    else
      remark << "a number of iterations known at run time (unrolling "
                "exposes them when at most "
             << kMostOuterIterations << ")";
    remark << "; its body is planned as one node";
  }
  return unroll;
}

/// The constant offset of `slice` along `dim`, if it is one.
std::optional<int64_t> constantOffset(OffsetSizeAndStrideOpInterface slice,
                                      unsigned dim) {
  OpFoldResult ofr = slice.getMixedOffsets()[dim];
  if (std::optional<int64_t> c = getConstantIntValue(ofr))
    return c;
  return indexExprOf(cast<Value>(ofr)).asConstant();
}

bool unitStrides(OffsetSizeAndStrideOpInterface slice) {
  return llvm::all_of(slice.getMixedStrides(), [](OpFoldResult s) {
    return getConstantIntValue(s) == 1;
  });
}

/// Where a read slice lies against the region an insert wrote.
enum class Overlap { Inside, Disjoint, Unknown };

/// Per dimension: constant offsets compare as intervals; a dynamic offset
/// (a row index inside a loop) lies inside a dimension the insert wrote
/// whole, or at the very offset the insert wrote at. One disjoint
/// dimension makes the slices disjoint.
Overlap overlapOf(tensor::ExtractSliceOp read, tensor::InsertSliceOp insert) {
  if (!unitStrides(read) || !unitStrides(insert) ||
      ShapedType::isDynamicShape(read.getStaticSizes()) ||
      ShapedType::isDynamicShape(insert.getStaticSizes()) ||
      !insert.getDestType().hasStaticShape())
    return Overlap::Unknown;
  ArrayRef<int64_t> readSizes = read.getStaticSizes();
  ArrayRef<int64_t> writtenSizes = insert.getStaticSizes();
  ArrayRef<int64_t> whole = insert.getDestType().getShape();
  bool inside = true;
  for (unsigned d = 0; d < whole.size(); ++d) {
    std::optional<int64_t> r = constantOffset(read, d);
    std::optional<int64_t> w = constantOffset(insert, d);
    if (r && w) {
      if (*r + readSizes[d] <= *w || *w + writtenSizes[d] <= *r)
        return Overlap::Disjoint;
      inside &= *w <= *r && *r + readSizes[d] <= *w + writtenSizes[d];
      continue;
    }
    bool wholeDim = w == 0 && writtenSizes[d] == whole[d];
    bool sameOffset = read.getMixedOffsets()[d] == insert.getMixedOffsets()[d];
    inside &= wholeDim || (sameOffset && readSizes[d] <= writtenSizes[d]);
  }
  return inside ? Overlap::Inside : Overlap::Unknown;
}

/// `read`'s offset minus `insert`'s along `dim`, at the read.
OpFoldResult offsetWithin(RewriterBase &rewriter, tensor::ExtractSliceOp read,
                          tensor::InsertSliceOp insert, unsigned dim) {
  OpFoldResult r = read.getMixedOffsets()[dim];
  std::optional<int64_t> w = constantOffset(insert, dim);
  if (w == 0)
    return r;
  if (std::optional<int64_t> rc = constantOffset(read, dim); rc && w)
    return rewriter.getIndexAttr(*rc - *w);
  Location loc = read.getLoc();
  Value rv = getValueOrCreateConstantIndexOp(rewriter, loc, r);
  Value wv = getValueOrCreateConstantIndexOp(rewriter, loc,
                                             insert.getMixedOffsets()[dim]);
  return arith::SubIOp::create(rewriter, loc, rv, wv).getResult();
}

/// What `read` reads from the value `insert` stored, the read lying inside
/// the region it wrote: the value itself, or a slice of it (the insert's
/// dropped unit dimensions left out).
Value readOfInserted(RewriterBase &rewriter, tensor::ExtractSliceOp read,
                     tensor::InsertSliceOp insert) {
  RankedTensorType stored = insert.getSourceType();
  if (read.getMixedOffsets() == insert.getMixedOffsets() &&
      read.getStaticSizes() == insert.getStaticSizes() &&
      read.getType() == stored)
    return insert.getSource();
  std::optional<llvm::SmallDenseSet<unsigned>> dropped =
      computeRankReductionMask(insert.getStaticSizes(), stored.getShape());
  if (!dropped)
    return Value();
  SmallVector<int64_t> shape;
  for (unsigned d = 0; d < read.getStaticSizes().size(); ++d)
    if (!dropped->contains(d))
      shape.push_back(read.getStaticSizes()[d]);
  if (isRankReducedType(RankedTensorType::get(shape, stored.getElementType()),
                        read.getType()) != SliceVerificationResult::Success)
    return Value();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(read);
  SmallVector<OpFoldResult> offsets, sizes, strides;
  for (unsigned d = 0; d < read.getStaticSizes().size(); ++d) {
    if (dropped->contains(d))
      continue;
    offsets.push_back(offsetWithin(rewriter, read, insert, d));
    sizes.push_back(rewriter.getIndexAttr(read.getStaticSizes()[d]));
    strides.push_back(rewriter.getIndexAttr(1));
  }
  return tensor::ExtractSliceOp::create(rewriter, read.getLoc(), read.getType(),
                                        insert.getSource(), offsets, sizes,
                                        strides)
      .getResult();
}

/// What `read` reads, when an insert of the chain it reads from wrote a
/// region holding the slice it reads and the inserts after it wrote
/// elsewhere: the unrolled outer stacks' rows (a layer's whole stack at
/// row l) read back whole, or a row of them (row t of layer l's stack).
Value insertedValue(RewriterBase &rewriter, tensor::ExtractSliceOp read) {
  Value source = read.getSource();
  while (auto insert = source.getDefiningOp<tensor::InsertSliceOp>()) {
    switch (overlapOf(read, insert)) {
    case Overlap::Disjoint:
      source = insert.getDest();
      continue;
    case Overlap::Inside:
      return readOfInserted(rewriter, read, insert);
    case Overlap::Unknown:
      return Value();
    }
  }
  return Value();
}

void forwardInsertedRows(RewriterBase &rewriter, Block &block) {
  SmallVector<tensor::ExtractSliceOp> reads;
  block.walk([&](tensor::ExtractSliceOp read) { reads.push_back(read); });
  for (tensor::ExtractSliceOp read : reads)
    if (Value value = insertedValue(rewriter, read))
      rewriter.replaceOp(read, value);
}

/// Erases the ops of `block` (and of its nested regions) left without
/// uses, last first, so a chain of unread inserts goes whole.
void eraseUnused(RewriterBase &rewriter, Block &block) {
  SmallVector<Operation *> ops;
  block.walk([&](Operation *op) { ops.push_back(op); });
  for (Operation *op : llvm::reverse(ops))
    if (op->getBlock() && isOpTriviallyDead(op))
      rewriter.eraseOp(op);
}

/// Moves each stack the unrolled loops fill row by row from a fresh
/// buffer (tensor.empty, linalg.fill, the first row's insert) to just
/// before the first read of that insert: a backward over layers writes each
/// layer's weight gradient into a stack made before its first layer, which
/// would hold the whole stack through every layer's backward where the
/// unrolled twin assembles it at the end. Only the first row waits longer.
void assembleStacksLate(RewriterBase &rewriter, Block &block) {
  SmallVector<linalg::FillOp> fills(block.getOps<linalg::FillOp>());
  for (linalg::FillOp fill : fills) {
    auto empty = fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
    if (!empty || !empty->hasOneUse() || fill->use_empty())
      continue;
    // Each first insert and the first op of the block reading it.
    SmallVector<std::pair<Operation *, Operation *>> moves;
    for (Operation *user : fill->getUsers()) {
      auto insert = dyn_cast<tensor::InsertSliceOp>(user);
      if (!insert || insert->getBlock() != &block ||
          insert.getDest() != fill.getResult(0) ||
          insert.getSourceType().getNumElements() >=
              insert.getDestType().getNumElements())
        break;
      Operation *firstUser = nullptr;
      for (Operation *reader : insert->getUsers()) {
        Operation *at = block.findAncestorOpInBlock(*reader);
        if (!at) {
          firstUser = nullptr;
          break;
        }
        if (!firstUser || at->isBeforeInBlock(firstUser))
          firstUser = at;
      }
      if (!firstUser)
        break;
      moves.push_back({insert, firstUser});
    }
    if (moves.size() != static_cast<size_t>(llvm::range_size(fill->getUsers())))
      continue;
    Operation *earliest = nullptr;
    for (auto [insert, firstUser] : moves) {
      rewriter.moveOpBefore(insert, firstUser);
      if (!earliest || insert->isBeforeInBlock(earliest))
        earliest = insert;
    }
    rewriter.moveOpBefore(empty, earliest);
    rewriter.moveOpBefore(fill, earliest);
  }
}

} // namespace

int unrollScansOfScans(Operation *root) {
  int unrolled = 0;
  IRRewriter rewriter(root->getContext());
  root->walk([&](FunctionOpInterface function) {
    if (function.isExternal() || !function.getFunctionBody().hasOneBlock())
      return;
    Block &block = function.getFunctionBody().front();
    SmallVector<scf::ForOp> loops = outerLoops(block);
    for (scf::ForOp loop : loops)
      if (succeeded(loopUnrollFull(loop)))
        ++unrolled;
    if (loops.empty())
      return;
    forwardInsertedRows(rewriter, block);
    eraseUnused(rewriter, block);
    assembleStacksLate(rewriter, block);
  });
  return unrolled;
}

} // namespace remat
