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
#include "remat/Analysis/IndexExpr.h"
#include "remat/Analysis/StackRows.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace remat {
namespace {

std::optional<int64_t> tripCount(scf::ForOp loop) {
  std::optional<APInt> trips = loop.getStaticTripCount();
  return trips ? std::optional<int64_t>(trips->getSExtValue()) : std::nullopt;
}

/// The row `access` of a stack of type `stack` touches along `axis`, as
/// `loop`'s iteration number: (coefficient, constant), the row being
/// coefficient * k + constant at iteration k.
std::optional<std::pair<int64_t, int64_t>>
rowAtIteration(Operation *access, RankedTensorType stack, int64_t axis,
               scf::ForOp loop) {
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lower || !step)
    return std::nullopt;
  Value iv = loop.getInductionVar();
  IndexFacts facts = iterationFacts(iv, IndexExpr::constant(*lower), *step,
                                    tripCount(loop));
  std::optional<IndexExpr> row = wholeRow(access, stack, axis, facts);
  if (!row)
    return std::nullopt;
  int64_t c = row->coefficient(iv);
  if (c == 0 || row->termsWithCoefficients().size() != 1)
    return std::nullopt;
  return std::make_pair(c, row->constantPart());
}

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

/// The reads of `stack` (a writer's result) inside `reader`: each in the
/// reader's block, of the row the writer wrote at the same iteration, of
/// the stored value's type; none when any other use is there.
SmallVector<Operation *> rowReads(Value stack, const Stack &s,
                                  scf::ForOp reader, Type stored) {
  SmallVector<Operation *> reads;
  auto type = cast<RankedTensorType>(stack.getType());
  for (Operation *user : stack.getUsers()) {
    if (!reader->isAncestor(user))
      continue;
    bool rowRead = user->getBlock() == reader.getBody() &&
                   isa<tensor::ExtractSliceOp, tensor::ExtractOp>(user) &&
                   user->getOperand(0) == stack &&
                   user->getResult(0).getType() == stored &&
                   rowAtIteration(user, type, s.axis, reader) == s.row;
    if (!rowRead)
      return {};
    reads.push_back(user);
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

/// Whether `value` is read after `reader` by an op (or in one) that also
/// reads the reader's results: the reader's backward, which then reads the
/// reader's own stack instead. Other reads (the writer's backward) keep
/// reading the writer's.
bool usedAfter(Value value, scf::ForOp reader) {
  return llvm::any_of(value.getUsers(), [&](Operation *user) {
    Operation *at = reader->getBlock()->findAncestorOpInBlock(*user);
    return at && reader->isBeforeInBlock(at) && readsResultOf(at, reader);
  });
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
  map.map(writer.getInductionVar(), loop.getInductionVar());
  for (auto [j, k] : llvm::enumerate(carries))
    map.map(writer.getRegionIterArg(k), added[j]);
  rewriter.setInsertionPointToStart(loop.getBody());
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
    for (Operation *read : rowReads(stack, s, loop, storedValue(s.write).getType()))
      rewriter.replaceOp(read, stored);
    IRMapping writeMap = map;
    writeMap.map(writer.getRegionIterArg(s.arg), added[carries.size() + j]);
    next.push_back(rewriter.clone(*s.write, writeMap)->getResult(0));
    Value mine = loop.getResult(first + carries.size() + j);
    rewriter.replaceUsesWithIf(stack, mine, [&](OpOperand &use) {
      Operation *at = loop->getBlock()->findAncestorOpInBlock(*use.getOwner());
      return at && loop->isBeforeInBlock(at) && readsResultOf(at, loop);
    });
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
      if (tripCount(writer) != trips)
        continue;
      SmallVector<Stack> stacks = stacksOf(writer);
      SmallVector<unsigned> recomputed;
      for (auto [i, s] : llvm::enumerate(stacks)) {
        Value stack = writer.getResult(s.arg);
        Type stored = storedValue(s.write).getType();
        if (!rowReads(stack, s, reader, stored).empty() &&
            usedAfter(stack, reader))
          recomputed.push_back(i);
      }
      if (recomputed.empty())
        continue;
      scf::ForOp grown = recomputeIn(rewriter, writer, reader, stacks, recomputed);
      if (grown == reader)
        continue;
      loops[r] = reader = grown;
      ++rewritten;
    }
  }
  return rewritten;
}

} // namespace remat
