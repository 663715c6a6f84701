//===- ConsumedStacks.cpp - A stack written into the one it consumes ----===//
//
// See ConsumedStacks.h.
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "remat/Loops/ConsumedStacks.h"
#include "LoopCarries.h"
#include "remat/Analysis/StackRows.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace remat {
namespace {

/// A stack `loop` writes every row of, one row an iteration: its iteration
/// argument, the write, the time axis and the row at iteration k.
struct WrittenStack {
  unsigned arg;
  Operation *write;
  int64_t axis;
  std::pair<int64_t, int64_t> row;
};

/// The stack of iteration argument `k`, when `loop` writes every row of it
/// (with `fresh`: starting from a tensor.empty, and reading none of it;
/// without, it may have been rewritten so already).
std::optional<WrittenStack> writtenWhole(scf::ForOp loop, unsigned k,
                                         bool fresh = true) {
  BlockArgument arg = loop.getRegionIterArg(k);
  auto type = dyn_cast<RankedTensorType>(arg.getType());
  Operation *write =
      loop.getBody()->getTerminator()->getOperand(k).getDefiningOp();
  std::optional<int64_t> trips = tripCount(loop);
  if (!type || !type.hasStaticShape() || !write || insertDest(write) != arg ||
      (fresh && !arg.hasOneUse()) || write->getBlock() != loop.getBody() ||
      !trips ||
      (fresh && !loop.getInitArgs()[k].getDefiningOp<tensor::EmptyOp>()))
    return std::nullopt;
  std::optional<int64_t> axis = rowAxisOf(write, type);
  if (!axis || type.getDimSize(*axis) != *trips)
    return std::nullopt;
  std::optional<std::pair<int64_t, int64_t>> row =
      rowAtIteration(write, type, *axis, loop);
  // Rows 0..T-1 forward or backward: every row, once.
  if (!row || !((row->first == 1 && row->second == 0) ||
                (row->first == -1 && row->second == *trips - 1)))
    return std::nullopt;
  return WrittenStack{k, write, *axis, *row};
}

/// The reads of `consumed` in `loop`: each in the loop's block, of the row
/// `s` writes at the same iteration, its readers (no views) all before the
/// write; none when `consumed` has another use in or after the loop.
SmallVector<Operation *> consumingReads(Value consumed, scf::ForOp loop,
                                        const WrittenStack &s) {
  SmallVector<Operation *> reads;
  auto type = cast<RankedTensorType>(consumed.getType());
  Block *block = loop->getBlock();
  for (Operation *user : consumed.getUsers()) {
    Operation *at = block->findAncestorOpInBlock(*user);
    if (!at)
      return {};
    if (at != loop) {
      if (loop->isBeforeInBlock(at))
        return {}; // Read after the loop.
      continue;
    }
    bool consuming =
        user->getBlock() == loop.getBody() &&
        isa<tensor::ExtractSliceOp, tensor::ExtractOp>(user) &&
        user->getOperand(0) == consumed &&
        rowAtIteration(user, type, s.axis, loop) == s.row &&
        user->isBeforeInBlock(s.write) &&
        llvm::all_of(user->getUsers(), [&](Operation *reader) {
          return reader->getBlock() == loop.getBody() &&
                 !isa<tensor::ExtractSliceOp, tensor::CollapseShapeOp,
                      tensor::ExpandShapeOp, tensor::CastOp>(reader) &&
                 reader->isBeforeInBlock(s.write);
        });
    if (!consuming)
      return {};
    reads.push_back(user);
  }
  return reads;
}

/// Whether `stack`, when a loop's result, was written row by row in the
/// order `s` writes (a gradient stack, produced backward as it is consumed
/// backward), not the other way (a forward stack read in reverse: a scan's
/// residuals, which its checkpointing drops rather than keeps).
bool writtenInOrder(Value stack, const WrittenStack &s) {
  Operation *op = stack.getDefiningOp();
  if (isa<tensor::ExtractSliceOp, tensor::CollapseShapeOp,
          tensor::ExpandShapeOp, tensor::CastOp>(op))
    return false; // A view of another tensor: what it holds is not known here.
  auto producer = dyn_cast<scf::ForOp>(op);
  if (!producer)
    return true;
  std::optional<WrittenStack> p =
      writtenWhole(producer, cast<OpResult>(stack).getResultNumber(),
                   /*fresh=*/false);
  return p && p->axis == s.axis && p->row == s.row;
}

/// Drops the slices of `block` that take a whole tensor (the unrolled
/// outer loops forward a layer's stack so; canonicalization folds them
/// too): its rows are then read from the stack itself. Returns how many.
int dropWholeSlices(RewriterBase &rewriter, Block &block) {
  int dropped = 0;
  for (auto slice :
       llvm::make_early_inc_range(block.getOps<tensor::ExtractSliceOp>()))
    if (slice.getSourceType() == slice.getType() &&
        slice.getType().hasStaticShape() &&
        llvm::all_of(slice.getMixedOffsets(),
                     [](OpFoldResult o) { return isConstantIntValue(o, 0); }) &&
        llvm::all_of(slice.getMixedStrides(),
                     [](OpFoldResult o) { return isConstantIntValue(o, 1); })) {
      rewriter.replaceOp(slice, slice.getSource());
      ++dropped;
    }
  return dropped;
}

} // namespace

int writeIntoConsumedStacks(func::FuncOp func) {
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return 0;
  IRRewriter rewriter(func.getContext());
  const int dropped = dropWholeSlices(rewriter, func.getBody().front());
  int reused = 0;
  for (scf::ForOp loop : func.getBody().front().getOps<scf::ForOp>()) {
    for (unsigned k = 0; k < loop.getNumRegionIterArgs(); ++k) {
      std::optional<WrittenStack> s = writtenWhole(loop, k);
      if (!s)
        continue;
      Type type = loop.getRegionIterArg(k).getType();
      // A stack read in the body, computed before the loop by an op.
      Value consumed;
      for (Operation &op : *loop.getBody())
        for (Value v : op.getOperands())
          if (!consumed && v.getType() == type && v.getDefiningOp() &&
              !loop->isAncestor(v.getDefiningOp()) && writtenInOrder(v, *s) &&
              !consumingReads(v, loop, *s).empty())
            consumed = v;
      if (!consumed)
        continue;
      SmallVector<Operation *> reads = consumingReads(consumed, loop, *s);
      Value fresh = loop.getInitArgs()[k];
      BlockArgument arg = loop.getRegionIterArg(k);
      rewriter.modifyOpInPlace(
          loop, [&] { loop.getInitArgsMutable()[k].set(consumed); });
      for (Operation *read : reads)
        rewriter.modifyOpInPlace(read, [&] { read->setOperand(0, arg); });
      if (Operation *empty = fresh.getDefiningOp(); empty && empty->use_empty())
        rewriter.eraseOp(empty);
      ++reused;
    }
  }
  return reused + dropped;
}

} // namespace remat
