//===- IndexTensorsToI64.cpp - Tensors of index stored as i64 -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Follows each tensor of index from its tensor.empty through the ops that
// carry it (inserts, loops, branches) and retypes it in place; the scalars
// going in and out are cast (Passes.td has the why).
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace remat {
#define GEN_PASS_DEF_INDEXTENSORSTOI64PASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace {
bool isIndexTensor(Type t) {
  auto ranked = dyn_cast<RankedTensorType>(t);
  return ranked && ranked.getElementType().isIndex();
}

struct Retyper {
  IRRewriter &rewriter;
  SmallVector<Value> work;
  llvm::DenseSet<Value> done;

  void retype(Value v) {
    if (!isIndexTensor(v.getType()) || !done.insert(v).second)
      return;
    auto t = cast<RankedTensorType>(v.getType());
    v.setType(t.clone(rewriter.getI64Type()));
    work.push_back(v);
  }

  /// The value an scf.yield / scf.condition operand `use` flows to.
  void followTerminator(OpOperand &use) {
    Operation *term = use.getOwner();
    Operation *parent = term->getParentOp();
    unsigned i = use.getOperandNumber();
    if (auto cond = dyn_cast<scf::ConditionOp>(term)) {
      if (i == 0)
        return;
      auto loop = cast<scf::WhileOp>(parent);
      retype(loop.getResult(i - 1));
      retype(loop.getAfterArguments()[i - 1]);
      return;
    }
    if (auto loop = dyn_cast<scf::ForOp>(parent)) {
      retype(loop.getResult(i));
      retype(loop.getRegionIterArgs()[i]);
    } else if (auto loop = dyn_cast<scf::WhileOp>(parent)) {
      retype(loop.getBeforeArguments()[i]); // the after region's yield
    } else if (isa<scf::IfOp, scf::IndexSwitchOp>(parent)) {
      retype(parent->getResult(i));
    }
  }

  LogicalResult follow(Value v) {
    for (OpOperand &use : llvm::make_early_inc_range(v.getUses())) {
      Operation *user = use.getOwner();
      if (auto insert = dyn_cast<tensor::InsertOp>(user)) {
        rewriter.setInsertionPoint(insert);
        if (insert.getScalar().getType().isIndex())
          insert.getScalarMutable().assign(arith::IndexCastOp::create(
              rewriter, insert.getLoc(), rewriter.getI64Type(),
              insert.getScalar()));
        retype(insert.getResult());
      } else if (auto extract = dyn_cast<tensor::ExtractOp>(user)) {
        if (!extract.getResult().getType().isIndex())
          continue;
        extract.getResult().setType(rewriter.getI64Type());
        rewriter.setInsertionPointAfter(extract);
        auto cast = arith::IndexCastOp::create(rewriter, extract.getLoc(),
                                               rewriter.getIndexType(),
                                               extract.getResult());
        rewriter.replaceAllUsesExcept(extract.getResult(), cast, cast);
      } else if (auto loop = dyn_cast<scf::ForOp>(user)) {
        unsigned i = use.getOperandNumber() - loop.getNumControlOperands();
        retype(loop.getRegionIterArgs()[i]);
        retype(loop.getResult(i));
      } else if (auto loop = dyn_cast<scf::WhileOp>(user)) {
        retype(loop.getBeforeArguments()[use.getOperandNumber()]);
      } else if (isa<scf::YieldOp, scf::ConditionOp>(user)) {
        followTerminator(use);
      } else if (auto select = dyn_cast<arith::SelectOp>(user)) {
        retype(select.getTrueValue());
        retype(select.getFalseValue());
        retype(select.getResult());
      } else {
        return user->emitError("carries a tensor of index that "
                               "-remat-index-tensors-to-i64 cannot follow");
      }
    }
    return success();
  }
};

struct IndexTensorsToI64Pass
    : public remat::impl::IndexTensorsToI64PassBase<IndexTensorsToI64Pass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    Retyper r{rewriter, {}, {}};
    getOperation()->walk([&](tensor::EmptyOp empty) { r.retype(empty); });
    while (!r.work.empty())
      if (failed(r.follow(r.work.pop_back_val())))
        return signalPassFailure();
  }
};
} // namespace
