//===- ReaderRows.cpp - A scan's rows recomputed in the scan reading them -===//
//
// See ReaderRows.h. A writer is an scf.for without loops inside whose body
// has no side effects; its stacks are the iteration arguments it yields one
// whole row written into, at a row that moves with the iteration; the others
// are its carries, which must not read a stack. The reader, a later scf.for
// of as many iterations, reads row k of a stack at its iteration k, in its
// own block, as the value the writer stored (same type).
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "remat/Loops/ReaderRows.h"
#include "LoopCarries.h"
#include "remat/Analysis/IndexExpr.h"
#include "remat/Analysis/StackRows.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace remat {
namespace {

/// A writer's stack: its iteration argument, the row write its body yields
/// for it, the time axis and the row at iteration k.
struct Stack {
  unsigned arg;
  Operation *write;
  int64_t axis;
  std::pair<int64_t, int64_t> row;
};

/// The stacks of `writer` (empty when it is no writer: loops inside, side
/// effects, or a carry computed from a stack).
SmallVector<Stack> stacksOf(scf::ForOp writer) {
  SmallVector<Stack> stacks;
  bool pure = true;
  writer.getBody()->walk([&](Operation *op) {
    if (isa<scf::ForOp, scf::WhileOp>(op) ||
        (!isa<scf::YieldOp>(op) && !isMemoryEffectFree(op)))
      pure = false;
  });
  if (!pure)
    return stacks;
  auto yield = cast<scf::YieldOp>(writer.getBody()->getTerminator());
  for (auto [k, arg] : llvm::enumerate(writer.getRegionIterArgs())) {
    Operation *write = yield.getOperand(k).getDefiningOp();
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!write || !type || insertDest(write) != arg || !arg.hasOneUse())
      continue;
    std::optional<int64_t> axis = rowAxisOf(write, type);
    if (!axis)
      continue;
    if (auto row = rowAtIteration(write, type, *axis, writer))
      stacks.push_back({static_cast<unsigned>(k), write, *axis, *row});
  }
  return stacks;
}

/// The ops of `writer`'s body that compute `roots`, in body order, and
/// whether they read only the induction variable, carries and values
/// defined outside the loop (no stack).
std::optional<SmallVector<Operation *>>
sliceOf(scf::ForOp writer, ArrayRef<Value> roots,
        const llvm::SmallDenseSet<unsigned> &stackArgs) {
  Block *body = writer.getBody();
  llvm::SmallPtrSet<Operation *, 32> in;
  SmallVector<Value> work(roots.begin(), roots.end());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == body && arg.getArgNumber() > 0 &&
          stackArgs.contains(arg.getArgNumber() - 1))
        return std::nullopt;
      continue;
    }
    Operation *op = v.getDefiningOp();
    if (op->getBlock() != body || !in.insert(op).second)
      continue;
    llvm::append_range(work, op->getOperands());
    llvm::SetVector<Value> above;
    for (Region &region : op->getRegions())
      getUsedValuesDefinedAbove(region, above);
    llvm::append_range(work, above);
  }
  SmallVector<Operation *> ordered;
  for (Operation &op : *body)
    if (in.contains(&op))
      ordered.push_back(&op);
  return ordered;
}

/// A writer's stack and the slices of it along its time axis (the
/// layer's output hs[1:T+1] of a stack holding h_0 at row 0): each with the
/// stack row its row 0 is.
SmallVector<std::pair<Value, int64_t>> viewsOf(Value stack, int64_t axis) {
  SmallVector<std::pair<Value, int64_t>> views{{stack, 0}};
  auto type = cast<RankedTensorType>(stack.getType());
  for (Operation *user : stack.getUsers()) {
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!slice || slice.getSource() != stack ||
        slice.getType().getRank() != type.getRank())
      continue;
    bool alongAxis = true;
    std::optional<int64_t> offset;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      std::optional<int64_t> o =
          getConstantIntValue(slice.getMixedOffsets()[d]);
      std::optional<int64_t> size =
          getConstantIntValue(slice.getMixedSizes()[d]);
      std::optional<int64_t> stride =
          getConstantIntValue(slice.getMixedStrides()[d]);
      if (!o || !size || stride != 1)
        alongAxis = false;
      else if (d == axis)
        offset = o;
      else if (*o != 0 || *size != type.getDimSize(d))
        alongAxis = false;
    }
    if (alongAxis && offset)
      views.push_back({slice.getResult(), *offset});
  }
  return views;
}

/// The reads of `stack` (a writer's result, or a view of it) inside
/// `reader`: each in the reader's block, of the row the writer wrote at the
/// same iteration, of the stored value's type; none when any other use is
/// there.
SmallVector<Operation *> rowReads(Value stack, const Stack &s,
                                  scf::ForOp reader, Type stored) {
  SmallVector<Operation *> reads;
  for (auto [view, offset] : viewsOf(stack, s.axis)) {
    auto type = cast<RankedTensorType>(view.getType());
    std::pair<int64_t, int64_t> row{s.row.first, s.row.second - offset};
    for (Operation *user : view.getUsers()) {
      if (!reader->isAncestor(user))
        continue;
      bool rowRead = user->getBlock() == reader.getBody() &&
                     isa<tensor::ExtractSliceOp, tensor::ExtractOp>(user) &&
                     user->getOperand(0) == view &&
                     user->getResult(0).getType() == stored &&
                     rowAtIteration(user, type, s.axis, reader) == row;
      if (!rowRead)
        return {};
      reads.push_back(user);
    }
  }
  return reads;
}

/// Whether `op` (or an op nested in it) reads a result of `loop`.
bool readsResultOf(Operation *op, scf::ForOp loop) {
  return op
      ->walk([&](Operation *inner) {
        return llvm::any_of(inner->getOperands(),
                            [&](Value v) { return v.getDefiningOp() == loop; })
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether `use` is after `reader`, in an op (or in one) that also reads
/// the reader's results: the reader's backward, which then reads the
/// reader's own stack instead. Other reads (the writer's backward) keep
/// reading the writer's. `usedAfter`: whether `stack` or a view of it has
/// such a use.
bool readAfter(OpOperand &use, scf::ForOp reader) {
  Operation *at = reader->getBlock()->findAncestorOpInBlock(*use.getOwner());
  return at && reader->isBeforeInBlock(at) && readsResultOf(at, reader);
}

bool usedAfter(Value stack, int64_t axis, scf::ForOp reader) {
  return llvm::any_of(viewsOf(stack, axis), [&](auto view) {
    return llvm::any_of(view.first.getUses(),
                        [&](OpOperand &use) { return readAfter(use, reader); });
  });
}

/// `at` + `by`, folded where `at` is a constant.
OpFoldResult shifted(RewriterBase &rewriter, Location loc, OpFoldResult at,
                     int64_t by) {
  if (by == 0)
    return at;
  if (std::optional<int64_t> c = getConstantIntValue(at))
    return rewriter.getIndexAttr(*c + by);
  Value step = arith::ConstantIndexOp::create(rewriter, loc, by);
  return arith::AddIOp::create(rewriter, loc, cast<Value>(at), step)
      .getResult();
}

/// Rewrites `reader` to recompute the rows of `recomputed` (stacks of
/// `writer`) as above; returns the new loop.
scf::ForOp recomputeIn(RewriterBase &rewriter, scf::ForOp writer,
                       scf::ForOp reader, ArrayRef<Stack> stacks,
                       ArrayRef<unsigned> recomputed) {
  auto yield = cast<scf::YieldOp>(writer.getBody()->getTerminator());
  llvm::SmallDenseSet<unsigned> stackArgs;
  for (const Stack &s : stacks)
    stackArgs.insert(s.arg);
  SmallVector<unsigned> carries;
  for (unsigned k = 0; k < writer.getNumRegionIterArgs(); ++k)
    if (!stackArgs.contains(k))
      carries.push_back(k);
  // What the reader computes again: the carries' next values and, per
  // recomputed stack, its write's operands but the stack.
  SmallVector<Value> roots;
  for (unsigned k : carries)
    roots.push_back(yield.getOperand(k));
  for (unsigned i : recomputed)
    for (Value v : stacks[i].write->getOperands())
      if (v != insertDest(stacks[i].write))
        roots.push_back(v);
  std::optional<SmallVector<Operation *>> slice =
      sliceOf(writer, roots, stackArgs);
  if (!slice)
    return reader;
  SmallVector<Value> inits;
  for (unsigned k : carries)
    inits.push_back(writer.getInitArgs()[k]);
  for (unsigned i : recomputed)
    inits.push_back(writer.getInitArgs()[stacks[i].arg]);
  const unsigned first = reader.getNumRegionIterArgs();
  FailureOr<LoopLikeOpInterface> grown = reader.replaceWithAdditionalYields(
      rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
      [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
        return SmallVector<Value>(args.begin(), args.end());
      });
  auto loop = cast<scf::ForOp>(grown->getOperation());
  ValueRange added = loop.getRegionIterArgs().drop_front(first);
  IRMapping map;
  rewriter.setInsertionPointToStart(loop.getBody());
  Value index = loop.getInductionVar();
  if (int64_t apart = *getConstantIntValue(writer.getLowerBound()) -
                      *getConstantIntValue(loop.getLowerBound())) {
    Value by = arith::ConstantIndexOp::create(rewriter, loop.getLoc(), apart);
    index = arith::AddIOp::create(rewriter, loop.getLoc(), index, by);
  }
  map.map(writer.getInductionVar(), index);
  for (auto [j, k] : llvm::enumerate(carries))
    map.map(writer.getRegionIterArg(k), added[j]);
  for (Operation *op : *slice)
    rewriter.clone(*op, map);
  auto loopYield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  SmallVector<Value> next;
  for (unsigned k : carries)
    next.push_back(map.lookupOrDefault(yield.getOperand(k)));
  for (auto [j, i] : llvm::enumerate(recomputed)) {
    const Stack &s = stacks[i];
    Value stack = writer.getResult(s.arg);
    Value stored = map.lookupOrDefault(storedValue(s.write));
    for (Operation *read :
         rowReads(stack, s, loop, storedValue(s.write).getType()))
      rewriter.replaceOp(read, stored);
    IRMapping writeMap = map;
    writeMap.map(writer.getRegionIterArg(s.arg), added[carries.size() + j]);
    next.push_back(rewriter.clone(*s.write, writeMap)->getResult(0));
    Value mine = loop.getResult(first + carries.size() + j);
    auto after = [&](OpOperand &use) { return readAfter(use, loop); };
    // The views first: a slice of the writer's stack read after the loop
    // becomes the same slice of the reader's, taken after it.
    for (auto [view, offset] : viewsOf(stack, s.axis)) {
      if (view == stack ||
          llvm::none_of(view.getUses(), [&](OpOperand &u) { return after(u); }))
        continue;
      SmallVector<OpOperand *> uses;
      for (OpOperand &u : view.getUses())
        if (after(u))
          uses.push_back(&u);
      Value mineView;
      for (OpOperand *u : uses) {
        // A row read of the slice reads the stack's row `offset` further.
        if (auto read = dyn_cast<tensor::ExtractSliceOp>(u->getOwner());
            read && read.getSource() == view) {
          rewriter.setInsertionPoint(read);
          SmallVector<OpFoldResult> offsets = read.getMixedOffsets();
          offsets[s.axis] =
              shifted(rewriter, read.getLoc(), offsets[s.axis], offset);
          rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
              read, read.getType(), mine, offsets, read.getMixedSizes(),
              read.getMixedStrides());
          continue;
        }
        if (!mineView) {
          rewriter.setInsertionPointAfter(loop);
          Operation *clone = rewriter.clone(*view.getDefiningOp());
          rewriter.modifyOpInPlace(clone, [&] { clone->setOperand(0, mine); });
          mineView = clone->getResult(0);
        }
        rewriter.modifyOpInPlace(u->getOwner(), [&] { u->set(mineView); });
      }
    }
    rewriter.replaceUsesWithIf(stack, mine, after);
  }
  rewriter.modifyOpInPlace(loopYield, [&] {
    loopYield.getResultsMutable().slice(first, next.size()).assign(next);
  });
  return loop;
}

} // namespace

int recomputeRowsInReaders(func::FuncOp func) {
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return 0;
  IRRewriter rewriter(func.getContext());
  SmallVector<scf::ForOp> loops(func.getBody().front().getOps<scf::ForOp>());
  int rewritten = 0;
  for (size_t r = 1; r < loops.size(); ++r) {
    scf::ForOp reader = loops[r];
    std::optional<int64_t> trips = tripCount(reader);
    if (!trips)
      continue;
    for (size_t w = 0; w < r; ++w) {
      scf::ForOp writer = loops[w];
      // The writer's step is cloned with the writer's index at the
      // reader's iteration: the same step, the lower bounds apart.
      if (tripCount(writer) != trips ||
          !getConstantIntValue(writer.getLowerBound()) ||
          !getConstantIntValue(reader.getLowerBound()) ||
          getConstantIntValue(writer.getStep()) !=
              getConstantIntValue(reader.getStep()) ||
          !writer.getInductionVar().getType().isIndex() ||
          !reader.getInductionVar().getType().isIndex())
        continue;
      SmallVector<Stack> stacks = stacksOf(writer);
      SmallVector<unsigned> recomputed;
      for (auto [i, s] : llvm::enumerate(stacks)) {
        Value stack = writer.getResult(s.arg);
        Type stored = storedValue(s.write).getType();
        if (!rowReads(stack, s, reader, stored).empty() &&
            usedAfter(stack, s.axis, reader))
          recomputed.push_back(i);
      }
      if (recomputed.empty())
        continue;
      scf::ForOp grown =
          recomputeIn(rewriter, writer, reader, stacks, recomputed);
      if (grown == reader)
        continue;
      loops[r] = reader = grown;
      ++rewritten;
    }
  }
  return rewritten;
}

} // namespace remat
