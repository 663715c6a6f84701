//===- LoopCarries.cpp - A loop's iteration arguments, for or while -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "LoopCarries.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "remat/Analysis/OpGroups.h"
#include "remat/Analysis/StackRows.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace remat {

std::optional<Carries> carriesOf(Operation *op) {
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return Carries{loop,
                   loop.getInitArgsMutable(),
                   {},
                   loop.getRegionIterArgs(),
                   loop.getBody()->getTerminator(),
                   nullptr};
  auto loop = dyn_cast<scf::WhileOp>(op);
  if (!loop || !passesArgumentsOn(loop))
    return std::nullopt;
  return Carries{loop,
                 loop.getInitsMutable(),
                 loop.getBeforeArguments(),
                 loop.getAfterArguments(),
                 loop.getYieldOp(),
                 loop.getConditionOp()};
}

bool stacksRows(const Carries &loop) {
  for (auto [arg, yielded] : llvm::zip(loop.body, loop.yield->getOperands())) {
    Operation *write = yielded.getDefiningOp();
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!write || !type || insertDest(write) != arg)
      continue;
    std::optional<int64_t> axis = rowAxisOf(write, type);
    std::optional<IndexExpr> row =
        axis ? wholeRow(write, type, *axis) : std::nullopt;
    if (row && !row->asConstant())
      return true;
  }
  return false;
}

bool beforeOnlyPassesOn(const Carries &loop, unsigned k) {
  return loop.before.empty() ||
         llvm::all_of(loop.before[k].getUsers(),
                      [&](Operation *user) { return user == loop.condition; });
}

SmallVector<Value>
withCarries(RewriterBase &rewriter, Operation *loop, ValueRange inits,
            function_ref<SmallVector<Value>(ValueRange)> yields) {
  OpBuilder::InsertionGuard guard(rewriter);
  if (auto f = dyn_cast<scf::ForOp>(loop)) {
    FailureOr<LoopLikeOpInterface> grown = f.replaceWithAdditionalYields(
        rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
          return yields(ValueRange(args));
        });
    auto newFor = cast<scf::ForOp>(grown->getOperation());
    return SmallVector<Value>(
        newFor.getRegionIterArgs().take_back(inits.size()));
  }
  auto w = cast<scf::WhileOp>(loop);
  SmallVector<Value> operands(w.getInits());
  llvm::append_range(operands, inits);
  SmallVector<Type> types(w.getResultTypes());
  llvm::append_range(types, TypeRange(inits));
  rewriter.setInsertionPoint(w);
  auto grown = scf::WhileOp::create(rewriter, w.getLoc(), types, operands,
                                    nullptr, nullptr);
  Block *before = grown.getBeforeBody(), *after = grown.getAfterBody();
  const size_t n = w.getInits().size();
  rewriter.mergeBlocks(w.getBeforeBody(), before,
                       before->getArguments().take_front(n));
  rewriter.mergeBlocks(w.getAfterBody(), after,
                       after->getArguments().take_front(n));
  SmallVector<Value> newArgs(after->getArguments().drop_front(n));
  scf::ConditionOp cond = grown.getConditionOp();
  rewriter.modifyOpInPlace(cond, [&] {
    cond.getArgsMutable().append(before->getArguments().drop_front(n));
  });
  auto yield = cast<scf::YieldOp>(after->getTerminator());
  rewriter.setInsertionPoint(yield);
  SmallVector<Value> next = yields(newArgs);
  rewriter.modifyOpInPlace(yield,
                           [&] { yield.getResultsMutable().append(next); });
  rewriter.replaceOp(w, grown.getResults().take_front(w.getNumResults()));
  return newArgs;
}

std::optional<int64_t> tripCount(scf::ForOp loop) {
  std::optional<APInt> trips = loop.getStaticTripCount();
  return trips ? std::optional<int64_t>(trips->getSExtValue()) : std::nullopt;
}

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

void eraseUnusedChain(RewriterBase &rewriter, Operation *op) {
  while (op && op->use_empty() &&
         isa<tensor::InsertSliceOp, tensor::EmptyOp, linalg::FillOp>(op)) {
    Operation *next = nullptr;
    if (auto write = dyn_cast<tensor::InsertSliceOp>(op))
      next = write.getDest().getDefiningOp();
    if (auto fill = dyn_cast<linalg::FillOp>(op))
      next = fill.getOutputs()[0].getDefiningOp();
    rewriter.eraseOp(op);
    op = next;
  }
}

} // namespace remat
