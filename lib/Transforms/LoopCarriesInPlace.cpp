//===- LoopCarriesInPlace.cpp - Yields that bufferize in place ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Transforms/LoopCarriesInPlace.h"
#include "remat/Analysis/OpGroups.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

namespace remat {
#define GEN_PASS_DEF_LOOPCARRIESINPLACEPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace remat {

namespace {

/// Calls `fn(yield, iterArgs)` for every loop under `root` whose iteration
/// arguments are the buffers of its carries.
template <typename Fn> void forEachLoopBody(Operation *root, Fn fn) {
  root->walk([&](scf::ForOp loop) {
    fn(cast<scf::YieldOp>(loop.getBody()->getTerminator()),
       ValueRange(loop.getRegionIterArgs()));
  });
  // The body's argument k of such a while is the iteration's buffer k.
  root->walk([&](scf::WhileOp loop) {
    if (passesArgumentsOn(loop))
      fn(loop.getYieldOp(), ValueRange(loop.getAfterArguments()));
  });
}

/// Erases `op` and the initial values it wrote into, when nothing uses them.
void eraseDeadInit(Operation *op) {
  while (op && op->use_empty() && isParameterOnly(op)) {
    Operation *next = nullptr;
    if (auto fill = dyn_cast<linalg::FillOp>(op))
      next = fill.getOutputs()[0].getDefiningOp();
    op->erase();
    op = next;
  }
}

/// Whether `op` runs once per iteration of the loop body holding `arg`: in
/// that body, or in branches (scf.if) of it.
bool inBodyOrBranches(Operation *op, Value arg) {
  Operation *loop = arg.getParentBlock()->getParentOp();
  if (!loop) // A loop still being built.
    return false;
  for (Operation *p = op->getParentOp(); p != loop; p = p->getParentOp())
    if (!p || !isa<scf::IfOp>(p))
      return false;
  return true;
}

/// Makes the value `yielded` passes on (an operand of a loop body's
/// terminator, or of a branch's within it) be written into `arg`: through
/// both branches of an scf.if, instead of a copy at the end, or by the op
/// computing it.
void writeYieldedInPlace(OpOperand &yielded, Value arg) {
  Value v = yielded.get();
  if (auto branch = v.getDefiningOp<scf::IfOp>();
      branch && inBodyOrBranches(branch, arg)) {
    unsigned k = cast<OpResult>(v).getResultNumber();
    // A path yielding a buffer made outside tensor land (a received
    // tensor) cannot write into the argument: then no path does, each
    // keeps a buffer of its own that the result owns, and the carry is
    // copied into the argument at the end (LoopCarriesInPlacePass).
    for (Region &region : branch->getRegions())
      if (!region.empty() && region.front()
                                 .getTerminator()
                                 ->getOperand(k)
                                 .getDefiningOp<bufferization::ToTensorOp>())
        return;
    for (Region &region : branch->getRegions())
      if (!region.empty())
        writeYieldedInPlace(region.front().getTerminator()->getOpOperand(k),
                            arg);
    return;
  }
  // A copy into the argument at the end (LoopCarriesInPlacePass's, or the
  // scan rewriter's) goes when the value itself can be written there.
  auto copy = v.getDefiningOp<linalg::CopyOp>();
  if (copy && copy.getOutputs()[0] == arg && v.hasOneUse() &&
      copy.getInputs()[0].hasOneUse()) {
    Value copied = copy.getInputs()[0];
    OpOperand &into = copy.getDpsInitsMutable()[0];
    yielded.set(copied);
    into.set(copied); // The copy is no use of `arg` while it is decided.
    if (writeInPlaceIntoCarry(copied, arg)) {
      copy->erase();
      return;
    }
    into.set(arg);
    yielded.set(v);
    return;
  }
  if (inPlaceTarget(v) != arg)
    writeInPlaceIntoCarry(v, arg);
}

/// `dest`, a destination written while its old value is still read after
/// the write, copied right before the op of its own block that holds the
/// write (a tensor.empty and a linalg.copy: on every path, so that the
/// copy is one buffer); its reads from there on read the copy, the writes
/// into it and the values yielded on are left. Shapes must be static.
void copyOldValueBefore(OpOperand &dest) {
  Value old = dest.get();
  auto type = dyn_cast<RankedTensorType>(old.getType());
  Block *home = old.getParentBlock();
  Operation *anchor = home->findAncestorOpInBlock(*dest.getOwner());
  if (!type || !anchor)
    return;
  SmallVector<OpOperand *> reads;
  for (OpOperand &use : old.getUses()) {
    Operation *user = use.getOwner();
    Operation *at = home->findAncestorOpInBlock(*user);
    if (!at || at->isBeforeInBlock(anchor) || isDestinationUse(use) ||
        isa<scf::YieldOp>(user))
      continue;
    reads.push_back(&use);
  }
  if (reads.empty())
    return;
  OpBuilder b(anchor);
  Location loc = dest.getOwner()->getLoc();
  // Of the old value's sizes (tensor.dim of it where they are dynamic: the
  // bounds analysis then bounds the copy as it bounds the value).
  Value empty = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, old), type.getElementType());
  Value copied = linalg::CopyOp::create(b, loc, old, empty).getResult(0);
  for (OpOperand *use : reads)
    use->set(copied);
}

/// For carry `arg` (yielding `yielded`): the writes into it on one path of
/// an scf.if whose old value is read after them, made in place by
/// copyOldValueBefore.
void copyOldValuesOfBranchWrites(Value yielded, Value arg, Block *body) {
  SmallVector<OpOperand *> copies;
  if (!destinationsReach(yielded, arg, copies))
    return;
  llvm::SetVector<OpOperand *> inBranches;
  for (OpOperand *dest : copies)
    if (dest->getOwner()->getBlock() != body)
      inBranches.insert(dest);
  for (OpOperand *dest : inBranches)
    copyOldValueBefore(*dest);
}

} // namespace

bool writeInPlaceIntoCarry(Value v, Value arg) {
  auto result = dyn_cast<OpResult>(v);
  auto op = result ? dyn_cast<linalg::LinalgOp>(result.getOwner())
                   : linalg::LinalgOp();
  if (!op || v.getType() != arg.getType() || !op.hasPureTensorSemantics() ||
      !inBodyOrBranches(op, arg))
    return false;
  OpOperand *init = op.getDpsInitOperand(result.getResultNumber());
  Value old = init->get();
  Operation *def = old.getDefiningOp();
  if (!def)
    return false;
  if (isa<tensor::EmptyOp>(def)) {
    // The op writes every element without reading its init.
    init->set(arg);
    if (inPlaceTarget(v) == arg && updatedInPlace(result)) {
      eraseDeadInit(def);
      return true;
    }
    init->set(old);
    return false;
  }
  auto fill = dyn_cast<linalg::FillOp>(def);
  if (!fill || !fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
    return false;
  // The same fill, into the argument, right before the op: the old value
  // must be dead there (the op reads the fill, not the argument).
  OpBuilder b(op);
  auto inArg = linalg::FillOp::create(b, fill.getLoc(), fill.getInputs(),
                                      ValueRange{arg});
  inArg->setDiscardableAttrs(fill->getDiscardableAttrDictionary());
  init->set(inArg.getResult(0));
  if (inPlaceTarget(v) == arg &&
      updatedInPlace(cast<OpResult>(inArg.getResult(0)))) {
    eraseDeadInit(fill);
    return true;
  }
  init->set(old);
  inArg->erase();
  return false;
}

void writeLoopCarriesInPlace(Operation *root) {
  forEachLoopBody(root, [](scf::YieldOp yield, ValueRange iterArgs) {
    for (auto [k, arg] : llvm::enumerate(iterArgs))
      if (isa<RankedTensorType>(arg.getType())) {
        writeYieldedInPlace(yield->getOpOperand(k), arg);
        copyOldValuesOfBranchWrites(yield.getOperand(k), arg,
                                    yield->getBlock());
      }
  });
}

namespace {

struct LoopCarriesInPlacePass
    : public remat::impl::LoopCarriesInPlacePassBase<LoopCarriesInPlacePass> {
  void runOnOperation() override {
    bool failed = false;
    forEachLoopBody(getOperation(),
                    [&](scf::YieldOp yield, ValueRange iterArgs) {
                      failed |= !succeeded(writeIntoIterArgs(yield, iterArgs));
                    });
    if (failed)
      signalPassFailure();
  }

  /// Ends the iteration with a copy of each yielded tensor that is not
  /// written in place into its iteration argument, and cannot be: a value
  /// of its own, or the argument written where its old value is still read
  /// after the write (One-Shot Bufferize writes a copy of it there). On one
  /// path of an scf.if a copy that path alone made would be neither the
  /// argument's buffer nor one every path made, so nothing would free it:
  /// there the old value is copied instead, before the op holding the
  /// branch (copyOldValueBefore), and the write is in place on every path.
  /// Where that does not make it so: an error that says what to do.
  static LogicalResult writeIntoIterArgs(scf::YieldOp yield,
                                         ValueRange iterArgs) {
    OpBuilder b(yield);
    for (auto [k, arg] : llvm::enumerate(iterArgs)) {
      Value v = yield.getOperand(k);
      if (!isa<RankedTensorType>(arg.getType()))
        continue;
      copyOldValuesOfBranchWrites(v, arg, yield->getBlock());
      SmallVector<OpOperand *> copies;
      auto inBranch = [&](OpOperand *dest) {
        return dest->getOwner()->getBlock() != yield->getBlock();
      };
      if (destinationsReach(v, arg, copies)) {
        if (copies.empty()) // Written in place: the argument's buffer.
          continue;
        if (llvm::any_of(copies, inBranch))
          return yield->getParentOp()->emitError()
                 << "iteration argument #" << k
                 << " is written in a branch (scf.if) while its old value is "
                    "still read after the write: bufferization would copy it "
                    "on that path only, and the loop would not keep one "
                    "buffer for it; read the old value before the write, or "
                    "have every path of the branch yield a copy of its own "
                    "(linalg.copy into a tensor.empty)";
      } else if (writeInPlaceIntoCarry(v, arg)) {
        continue;
      }
      yield.setOperand(
          k, linalg::CopyOp::create(b, yield.getLoc(), v, arg).getResult(0));
    }
    return success();
  }
};

} // namespace
} // namespace remat
