//===- ScalarCounters.cpp - Loop counters held in 0-d tensors -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Two rewrites, both meaning-preserving: the loops' 0-d integer carries
// become scalars (upstream's SCF structural type conversion; the edges get
// tensor.from_elements and tensor.extract), then each pure rank-0 linalg op
// on integers becomes its body's scalar ops. The extracts of
// from_elements and of constants that remain fold away in the same greedy
// run, so `linalg.generic {addi} ins(%i, %c1)` becomes `arith.addi %i, %c1`.

#include "remat/Loops/ScalarCounters.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace remat {
namespace {

/// tensor<i32>, tensor<i1>, tensor<index>: a counter, a condition, an index.
bool isIntegerScalarTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 0 && !tensor.getEncoding() &&
         isa<IntegerType, IndexType>(tensor.getElementType());
}

bool carriesIntegerScalarTensor(Operation *op) {
  auto any = [](TypeRange types) {
    return llvm::any_of(types, isIntegerScalarTensor);
  };
  if (auto loop = dyn_cast<scf::WhileOp>(op))
    return any(loop.getInits().getTypes()) || any(loop.getResultTypes());
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return any(loop.getInitArgs().getTypes());
  return false;
}

/// A pure linalg.generic or linalg.map whose operands and results are all
/// 0-d integer tensors, as its body's scalar ops on the extracted operands.
struct ScalarizeRankZeroLinalg
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<linalg::GenericOp, linalg::MapOp>(op.getOperation()) ||
        !op.hasPureTensorSemantics() ||
        !llvm::all_of(op->getOperandTypes(), isIntegerScalarTensor) ||
        !llvm::all_of(op->getResultTypes(), isIntegerScalarTensor))
      return rewriter.notifyMatchFailure(op, "not a rank-0 integer op");
    Block *body = op.getBlock();
    for (Operation &inner : body->without_terminator())
      if (inner.getNumRegions() != 0 || isa<linalg::IndexOp>(inner) ||
          !isPure(&inner))
        return rewriter.notifyMatchFailure(op, "body not pure scalar ops");
    // The body's arguments stand for the inputs then the inits (a generic;
    // linalg.map in MLIR 22), or for the inputs alone (older linalg.map).
    SmallVector<Value> read(op->getOperands());
    if (body->getNumArguments() == op.getNumDpsInputs())
      read.resize(op.getNumDpsInputs());
    if (read.size() != body->getNumArguments())
      return rewriter.notifyMatchFailure(op, "unexpected block arguments");

    Location loc = op.getLoc();
    IRMapping scalars;
    for (auto [arg, source] : llvm::zip(body->getArguments(), read))
      if (!arg.use_empty())
        scalars.map(arg, tensor::ExtractOp::create(rewriter, loc, source,
                                                   ValueRange{}));
    for (Operation &inner : body->without_terminator())
      rewriter.clone(inner, scalars);
    SmallVector<Value> results;
    for (auto [yielded, type] :
         llvm::zip(body->getTerminator()->getOperands(), op->getResultTypes()))
      results.push_back(tensor::FromElementsOp::create(
          rewriter, loc, type, scalars.lookupOrDefault(yielded)));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Scalars for the 0-d integer tensors, every other type as it is.
struct ScalarCounterTypes : public TypeConverter {
  ScalarCounterTypes() {
    addConversion([](Type type) { return type; });
    addConversion([](RankedTensorType type) -> Type {
      return isIntegerScalarTensor(type) ? type.getElementType() : type;
    });
    addSourceMaterialization([](OpBuilder &builder, Type type,
                                ValueRange inputs, Location loc) -> Value {
      if (inputs.size() != 1 || !isIntegerScalarTensor(type))
        return Value();
      return tensor::FromElementsOp::create(builder, loc, type, inputs);
    });
    addTargetMaterialization([](OpBuilder &builder, Type type,
                                ValueRange inputs, Location loc) -> Value {
      if (inputs.size() != 1 || !isIntegerScalarTensor(inputs[0].getType()))
        return Value();
      return tensor::ExtractOp::create(builder, loc, inputs[0], ValueRange{});
    });
  }
};

LogicalResult scalarizeFunction(Operation *function) {
  MLIRContext *context = function->getContext();
  ScalarCounterTypes types;
  ConversionTarget target(*context);
  RewritePatternSet loopPatterns(context);
  scf::populateSCFStructuralTypeConversionsAndLegality(types, loopPatterns,
                                                       target);
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  if (failed(applyPartialConversion(function, target, std::move(loopPatterns))))
    return failure();

  RewritePatternSet scalarPatterns(context);
  scalarPatterns.add<ScalarizeRankZeroLinalg>(context);
  tensor::ExtractOp::getCanonicalizationPatterns(scalarPatterns, context);
  return applyPatternsGreedily(function, std::move(scalarPatterns));
}

} // namespace

LogicalResult scalarizeTensorCounters(Operation *root, bool &changed) {
  SmallVector<Operation *> functions;
  root->walk([&](FunctionOpInterface function) {
    bool hasCounter = function
                          ->walk([](Operation *op) {
                            return carriesIntegerScalarTensor(op)
                                       ? WalkResult::interrupt()
                                       : WalkResult::advance();
                          })
                          .wasInterrupted();
    if (hasCounter)
      functions.push_back(function);
  });
  for (Operation *function : functions) {
    // The conversion rolls back when it fails (an op it cannot convert
    // holds such a tensor): the loops then stay as written, each planned as
    // one node, which is no reason to refuse the step.
    if (failed(scalarizeFunction(function))) {
      function->emitRemark(
          "loop counters held in 0-d tensors left as they are (converting "
          "them to scalars failed): their loops are planned as one node each");
      continue;
    }
    changed = true;
  }
  return success();
}

} // namespace remat
