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
// Then a scalar carry of an scf.for that counts with the loop (yields
// itself plus a constant) is read in the body as what it is at iteration
// k, init + c * k, k = (iv - lower) / step: IREE's input conversion of a
// `fori_loop` keeps JAX's counter beside the induction variable, and only
// the induction variable tells the scan matcher which row is written.
// Unread after the loop, such a carry is then yielded unchanged, for the
// canonicalizer to drop.

#include "remat/Loops/ScalarCounters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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

/// `v` (integer or index) as `type` (integer or index).
Value castInteger(OpBuilder &b, Location loc, Value v, Type type) {
  Type from = v.getType();
  if (from == type)
    return v;
  if (isa<IndexType>(from) || isa<IndexType>(type))
    return arith::IndexCastOp::create(b, loc, type, v);
  if (from.getIntOrFloatBitWidth() < type.getIntOrFloatBitWidth())
    return arith::ExtSIOp::create(b, loc, type, v);
  return arith::TruncIOp::create(b, loc, type, v);
}

/// The constant c where the loop yields `arg + c` (or `c + arg`) for its
/// carry `arg`.
std::optional<APInt> countingStep(scf::ForOp loop, BlockArgument arg) {
  Value next = loop.getTiedLoopYieldedValue(arg)->get();
  auto add = next.getDefiningOp<arith::AddIOp>();
  if (!add)
    return std::nullopt;
  Value other = add.getLhs() == arg   ? add.getRhs()
                : add.getRhs() == arg ? add.getLhs()
                                      : Value();
  APInt c;
  if (!other || !matchPattern(other, m_ConstantInt(&c)))
    return std::nullopt;
  return c;
}

/// The body's reads of each counting carry as init + c * k (wrapping, as the
/// adds wrap). Returns how many carries it rewrote.
int readCountersAsIterations(scf::ForOp loop) {
  APInt lower, step;
  if (!matchPattern(loop.getLowerBound(), m_ConstantInt(&lower)) ||
      !matchPattern(loop.getStep(), m_ConstantInt(&step)) ||
      !step.isStrictlyPositive())
    return 0;
  int rewritten = 0;
  Location loc = loop.getLoc();
  OpBuilder before(loop);
  OpBuilder b = OpBuilder::atBlockBegin(loop.getBody());
  Value k; // (iv - lower) / step, in the induction variable's type.
  for (BlockArgument arg : loop.getRegionIterArgs()) {
    Type type = arg.getType();
    if (!type.isSignlessIntOrIndex())
      continue;
    std::optional<APInt> c = countingStep(loop, arg);
    if (!c || (arg.hasOneUse() &&
               loop.getTiedLoopYieldedValue(arg)->get().hasOneUse()))
      continue; // Read by nothing but its own increment and the yield.
    if (!k) {
      k = loop.getInductionVar();
      if (!lower.isZero())
        k = arith::SubIOp::create(b, loc, k, loop.getLowerBound());
      if (!step.isOne())
        k = arith::DivUIOp::create(b, loc, k, loop.getStep());
    }
    Value times = castInteger(b, loc, k, type);
    if (!c->isOne())
      times = arith::MulIOp::create(
          b, loc, times,
          arith::ConstantOp::create(before, loc,
                                    before.getIntegerAttr(type, *c)));
    Value now = arith::AddIOp::create(b, loc, loop.getTiedLoopInit(arg)->get(),
                                      times);
    OpOperand *yielded = loop.getTiedLoopYieldedValue(arg);
    Operation *increment = yielded->get().getDefiningOp();
    arg.replaceUsesWithIf(now, [&](OpOperand &use) {
      return use.getOwner() != increment;
    });
    // The body's reads of the next count too (init + c * (k + 1)): the
    // increment is then read by the yield alone.
    if (!increment->hasOneUse()) {
      b.setInsertionPoint(increment);
      Value nextNow = arith::AddIOp::create(
          b, loc, now, increment->getOperand(increment->getOperand(0) == arg));
      increment->getResult(0).replaceUsesWithIf(nextNow, [&](OpOperand &use) {
        return use.getOwner() != loop.getBody()->getTerminator();
      });
      b.setInsertionPointAfter(now.getDefiningOp());
    }
    // Unread after the loop, the carry counts for nothing: yielded as it
    // came, canonicalization drops it (a carry is kept only in tensors of
    // a static shape by the checkpoints).
    if (loop.getTiedLoopResult(arg).use_empty())
      yielded->set(arg);
    ++rewritten;
  }
  return rewritten;
}

} // namespace

int readLoopCountersAsIterations(Operation *root) {
  SmallVector<scf::ForOp> loops;
  root->walk([&](scf::ForOp loop) { loops.push_back(loop); });
  int rewritten = 0;
  for (scf::ForOp loop : loops)
    rewritten += readCountersAsIterations(loop);
  return rewritten;
}

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
