//===- NestedScans.cpp - A scan over a scan, unrolled outside -------------===//
//
// See NestedScans.h. After unrolling, a read of a row of an outer stack at a
// constant row is the value inserted at that row: the chain of inserts the
// unrolled forward wrote is walked back past inserts at other rows.
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "remat/Loops/NestedScans.h"
#include "LoopCarries.h"
#include "remat/Analysis/IndexExpr.h"

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

std::optional<int64_t> tripCount(scf::ForOp loop) {
  std::optional<APInt> trips = loop.getStaticTripCount();
  return trips ? std::optional<int64_t>(trips->getSExtValue()) : std::nullopt;
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

/// The constant offsets of `slice`, when all are.
std::optional<SmallVector<int64_t>>
constantOffsets(OffsetSizeAndStrideOpInterface slice) {
  SmallVector<int64_t> offsets;
  for (OpFoldResult ofr : slice.getMixedOffsets()) {
    std::optional<int64_t> c = getConstantIntValue(ofr);
    if (!c)
      c = indexExprOf(cast<Value>(ofr)).asConstant();
    if (!c)
      return std::nullopt;
    offsets.push_back(*c);
  }
  return offsets;
}

/// Whether two slices of one tensor with these offsets and static sizes
/// share no element.
bool disjoint(ArrayRef<int64_t> offsetsA, ArrayRef<int64_t> sizesA,
              ArrayRef<int64_t> offsetsB, ArrayRef<int64_t> sizesB) {
  for (size_t d = 0; d < offsetsA.size(); ++d)
    if (offsetsA[d] + sizesA[d] <= offsetsB[d] ||
        offsetsB[d] + sizesB[d] <= offsetsA[d])
      return true;
  return false;
}

bool unitStrides(OffsetSizeAndStrideOpInterface slice) {
  return llvm::all_of(slice.getMixedStrides(), [](OpFoldResult s) {
    return getConstantIntValue(s) == 1;
  });
}

/// What `read` reads, when an insert of the chain it reads from wrote
/// exactly that slice (of the same type) and the inserts after it wrote
/// elsewhere.
Value insertedValue(tensor::ExtractSliceOp read) {
  auto offsets = constantOffsets(read);
  if (!offsets || !unitStrides(read) || ShapedType::isDynamicShape(read.getStaticSizes()))
    return Value();
  ArrayRef<int64_t> sizes = read.getStaticSizes();
  Value source = read.getSource();
  while (auto insert = source.getDefiningOp<tensor::InsertSliceOp>()) {
    auto written = constantOffsets(insert);
    if (!written || !unitStrides(insert) ||
        ShapedType::isDynamicShape(insert.getStaticSizes()))
      return Value();
    if (*written == *offsets && insert.getStaticSizes() == sizes)
      return insert.getSourceType() == read.getType() ? insert.getSource()
                                                      : Value();
    if (!disjoint(*written, insert.getStaticSizes(), *offsets, sizes))
      return Value();
    source = insert.getDest();
  }
  return Value();
}

void forwardInsertedRows(RewriterBase &rewriter, Block &block) {
  SmallVector<tensor::ExtractSliceOp> reads;
  block.walk([&](tensor::ExtractSliceOp read) { reads.push_back(read); });
  for (tensor::ExtractSliceOp read : reads)
    if (Value value = insertedValue(read))
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
  });
  return unrolled;
}

} // namespace remat
