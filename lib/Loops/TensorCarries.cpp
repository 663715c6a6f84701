//===- TensorCarries.cpp - A scan's scalar carries as 0-d tensors --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// See TensorCarries.h. The loop is changed in place: the arguments' and
// the result's types, the init and the yielded value wrapped, their uses
// given the scalar back.
//
//===----------------------------------------------------------------------===//

#include "remat/Loops/TensorCarries.h"
#include "LoopCarries.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace remat {
namespace {

/// `v`'s uses that `keep` does not hold, given `replacement`.
void replaceUsesBut(RewriterBase &rewriter, Value v, Value replacement,
                    llvm::function_ref<bool(OpOperand &)> keep) {
  rewriter.replaceUsesWithIf(v, replacement,
                             [&](OpOperand &use) { return !keep(use); });
}

/// Gives the block argument `arg` (now a 0-d tensor) its scalar back at the
/// block's start, for every use but those `keep` holds.
void unwrapAtStart(RewriterBase &rewriter, BlockArgument arg, Location loc,
                   llvm::function_ref<bool(OpOperand &)> keep) {
  rewriter.setInsertionPointToStart(arg.getOwner());
  auto scalar = tensor::ExtractOp::create(rewriter, loc, arg, ValueRange{});
  replaceUsesBut(rewriter, arg, scalar, [&](OpOperand &use) {
    return use.getOwner() == scalar || keep(use);
  });
}

/// Carries iteration argument `k` of the loop, a float scalar, as a 0-d
/// tensor.
void carryAsTensor(RewriterBase &rewriter, Carries &loop, unsigned k) {
  auto result = cast<OpResult>(loop.loop->getResult(k));
  auto type = RankedTensorType::get({}, result.getType());
  Location loc = loop.loop->getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  // The init, wrapped before the loop.
  rewriter.setInsertionPoint(loop.loop);
  OpOperand &init = loop.inits[k];
  Value wrapped =
      tensor::FromElementsOp::create(rewriter, loc, type, init.get());
  // The value yielded, wrapped before the yield.
  rewriter.setInsertionPoint(loop.yield);
  Value next = tensor::FromElementsOp::create(rewriter, loc, type,
                                              loop.yield->getOperand(k));
  rewriter.modifyOpInPlace(loop.loop, [&] {
    init.set(wrapped);
    if (!loop.before.empty())
      loop.before[k].setType(type);
    loop.body[k].setType(type);
    result.setType(type);
  });
  rewriter.modifyOpInPlace(loop.yield,
                           [&] { loop.yield->setOperand(k, next); });
  // The scalar back, for the regions and for what reads the result; a
  // while's condition forwards the tensor (its k-th forwarded value).
  auto none = [](OpOperand &) { return false; };
  if (!loop.before.empty())
    unwrapAtStart(rewriter, loop.before[k], loc, [&](OpOperand &use) {
      return &use == &loop.condition.getArgsMutable()[k];
    });
  unwrapAtStart(rewriter, loop.body[k], loc, none);
  // (The yield's wrap reads the scalar the body computed, not the argument.)
  rewriter.setInsertionPointAfter(loop.loop);
  auto after = tensor::ExtractOp::create(rewriter, loc, result, ValueRange{});
  replaceUsesBut(rewriter, result, after,
                 [&](OpOperand &use) { return use.getOwner() == after; });
}

} // namespace

int carryFloatScalarsAsTensors(Operation *root) {
  SmallVector<Carries> loops;
  root->walk([&](Operation *op) {
    if (std::optional<Carries> loop = carriesOf(op); loop && stacksRows(*loop))
      loops.push_back(*loop);
  });
  IRRewriter rewriter(root->getContext());
  int changed = 0;
  for (Carries &loop : loops)
    for (unsigned k = 0; k < loop.body.size(); ++k)
      if (isa<FloatType>(loop.body[k].getType())) {
        carryAsTensor(rewriter, loop, k);
        ++changed;
      }
  return changed;
}

} // namespace remat
