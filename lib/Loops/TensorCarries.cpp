//===- TensorCarries.cpp - A scan's scalar carries as 0-d tensors --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// See TensorCarries.h. The loop is changed in place: the argument's and
// the result's types, the init and the yielded value wrapped, their uses
// given the scalar back.
//
//===----------------------------------------------------------------------===//

#include "remat/Loops/TensorCarries.h"
#include "StackRows.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace remat {
namespace {

/// Whether `loop` yields, for some iteration argument, one whole row
/// written into that argument at a row that moves with the iteration: it
/// stacks (ScanLoops.h reads it further). A write at a constant row (one
/// element of a carry updated) is no stack.
bool stacks(scf::ForOp loop) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [arg, yielded] :
       llvm::zip(loop.getRegionIterArgs(), yield.getOperands())) {
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

/// `v`'s uses but `except`, then given `replacement`.
void replaceUsesBut(RewriterBase &rewriter, Value v, Value replacement,
                    Operation *except) {
  rewriter.replaceUsesWithIf(v, replacement, [&](OpOperand &use) {
    return use.getOwner() != except;
  });
}

/// Carries iteration argument `k` of `loop`, a float scalar, as a 0-d
/// tensor.
void carryAsTensor(RewriterBase &rewriter, scf::ForOp loop, unsigned k) {
  BlockArgument arg = loop.getRegionIterArgs()[k];
  auto result = cast<OpResult>(loop.getResult(k));
  auto type = RankedTensorType::get({}, arg.getType());
  Location loc = loop.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  // The init, wrapped before the loop.
  rewriter.setInsertionPoint(loop);
  OpOperand &init = loop.getInitArgsMutable()[k];
  Value wrapped =
      tensor::FromElementsOp::create(rewriter, loc, type, init.get());
  // The value yielded, wrapped before the yield.
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  rewriter.setInsertionPoint(yield);
  Value next = tensor::FromElementsOp::create(rewriter, loc, type,
                                              yield.getOperand(k));
  rewriter.modifyOpInPlace(loop, [&] {
    init.set(wrapped);
    arg.setType(type);
    result.setType(type);
  });
  rewriter.modifyOpInPlace(yield, [&] { yield.setOperand(k, next); });
  // The scalar back, for the body and for what reads the result.
  rewriter.setInsertionPointToStart(loop.getBody());
  auto inBody = tensor::ExtractOp::create(rewriter, loc, arg, ValueRange{});
  replaceUsesBut(rewriter, arg, inBody, inBody);
  // (The yield's wrap reads the scalar the body computed, not the argument.)
  rewriter.setInsertionPointAfter(loop);
  auto after = tensor::ExtractOp::create(rewriter, loc, result, ValueRange{});
  replaceUsesBut(rewriter, result, after, after);
}

} // namespace

int carryFloatScalarsAsTensors(Operation *root) {
  SmallVector<scf::ForOp> loops;
  root->walk([&](scf::ForOp loop) {
    if (stacks(loop))
      loops.push_back(loop);
  });
  IRRewriter rewriter(root->getContext());
  int changed = 0;
  for (scf::ForOp loop : loops)
    for (unsigned k = 0; k < loop.getNumRegionIterArgs(); ++k)
      if (isa<FloatType>(loop.getRegionIterArgs()[k].getType())) {
        carryAsTensor(rewriter, loop, k);
        ++changed;
      }
  return changed;
}

} // namespace remat
