//===- OpGroups.cpp - Which ops form one planner node ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Analysis/OpGroups.h"
#include "remat/Dialect/Remat/Remat.h"

#include "remat/Analysis/CostModel.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace remat {

SmallVector<Value> valuesRead(Operation *op) {
  llvm::SetVector<Value> read(op->getOperands().begin(),
                              op->getOperands().end());
  for (Region &region : op->getRegions())
    getUsedValuesDefinedAbove(region, read);
  return read.takeVector();
}

bool isConstantValue(Operation *op) {
  return op->getNumOperands() == 0 && op->getNumRegions() == 0 &&
         op->hasTrait<OpTrait::ConstantLike>();
}

bool isFreeValue(Operation *op) {
  if (isConstantValue(op))
    return true;
  // Scalars computed from constants and the function's arguments (the
  // tensor.dim of a dynamic batch, its casts, the 1/batch of a mean): no
  // bytes, next to no time, and defined before anything the planner moves.
  // As planner nodes they would be forward values every op reads, and those
  // computed for the backward would be backward nodes ahead of the forward.
  if (op->getNumRegions() || op->getNumResults() == 0 ||
      !isMemoryEffectFree(op) ||
      llvm::any_of(op->getResultTypes(), llvm::IsaPred<ShapedType>))
    return false;
  return llvm::all_of(op->getOperands(), [](Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return isa<FunctionOpInterface>(arg.getOwner()->getParentOp());
    return isFreeValue(v.getDefiningOp());
  });
}

bool passesArgumentsOn(scf::WhileOp loop) {
  return llvm::equal(loop.getConditionOp().getArgs(),
                     loop.getBeforeArguments());
}

SmallVector<OpOperand *> destinationOperands(Operation *op) {
  SmallVector<OpOperand *> dests;
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op)) {
    for (OpOperand &init : dps.getDpsInitsMutable())
      dests.push_back(&init);
  } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
    dests.push_back(&insert.getDestMutable());
  } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
    // The iterations write into the buffers of the inits.
    for (OpOperand &init : loop.getInitArgsMutable())
      dests.push_back(&init);
  } else if (auto loop = dyn_cast<scf::WhileOp>(op);
             loop && passesArgumentsOn(loop)) {
    for (OpOperand &init : loop.getInitsMutable())
      dests.push_back(&init);
  }
  return dests;
}

Operation *absorbingUser(Operation *op) {
  if (op->getNumResults() != 1 || !op->getResult(0).hasOneUse() ||
      isFreeValue(op) || isa<RecomputeOp>(op) || !isMemoryEffectFree(op))
    return nullptr;
  OpOperand &use = *op->getResult(0).getUses().begin();
  Operation *user = use.getOwner();
  if (user->getBlock() != op->getBlock() ||
      user->hasTrait<OpTrait::IsTerminator>() || isa<RecomputeOp>(user))
    return nullptr;
  // A view's buffer is its source's, live as long as the view's readers:
  // absorbed into the view's node it would be freed when the view is made.
  if (isViewLike(user))
    return nullptr;
  if (isParameterOnly(op))
    return user;
  // A computed value a linalg op updates in place (`outs(%acc)`) stays a
  // node of its own: an accumulation chain of T updates is T nodes, each
  // reading its own step's values, not one node reading all of them.
  // Slices inserted into a computed value all at once (concatenation,
  // padding: the next slice is ready before this insert) keep forming one
  // node with it. Inserted one at a time, each slice computed after the
  // insert before it (a gradient stacked layer by layer in the backward),
  // each insert is an update in place like the accumulation above: one
  // node reading every slice would hold them all until the last insert.
  if (!isDestinationUse(use))
    return nullptr;
  // The same for a product added into a computed value in place
  // (`linalg.matmul ins(%x, %w) outs(%p)`, as addmm writes a bias or a
  // second product): %p computed into a fresh buffer, the update's other
  // operands ready before %p: one node, which a plan may re-run whole into
  // a buffer of its own rather than keep %p because it is updated in place.
  // Longer accumulation chains stay a node per update.
  if (isa<linalg::LinalgOp>(op) && isa<linalg::LinalgOp>(user) &&
      user->getNumResults() == 1 && isMemoryEffectFree(user) &&
      writesIntoFreshBuffers(op))
    return updatesOneAtATime(op, user) ? nullptr : user;
  auto insert = dyn_cast<tensor::InsertSliceOp>(user);
  if (!insert)
    return nullptr;
  return insertsOneAtATime(op, insert) ? nullptr : user;
}

bool writesIntoFreshBuffers(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && llvm::all_of(linalgOp.getDpsInits(), [&](Value init) {
    Operation *def = init.getDefiningOp();
    return def && def->getBlock() == op->getBlock() &&
           (isa<tensor::EmptyOp>(def) || absorbingUser(def) == op);
  });
}

bool updatesOneAtATime(Operation *previous, Operation *update) {
  if (update->hasAttr(RematDialect::kOwnNodeAttrName))
    return true;
  for (Value v : valuesRead(update)) {
    Operation *def = v.getDefiningOp();
    if (def && def != previous && def->getBlock() == previous->getBlock() &&
        previous->isBeforeInBlock(def))
      return true;
  }
  return false;
}

bool insertsOneAtATime(Operation *previous, tensor::InsertSliceOp insert) {
  // -remat-prepare pins what it saw: a plan may compute the slice earlier,
  // which must not merge the two nodes it planned.
  if (insert->hasAttr(RematDialect::kOwnNodeAttrName))
    return true;
  Operation *slice = insert.getSource().getDefiningOp();
  return slice && slice->getBlock() == previous->getBlock() &&
         previous->isBeforeInBlock(slice);
}

namespace {

/// The iteration argument of an enclosing loop (its buffer is the loop's).
bool isLoopIterArg(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg)
    return false;
  Operation *parent = arg.getOwner()->getParentOp();
  if (auto loop = dyn_cast<scf::WhileOp>(parent); loop && passesArgumentsOn(loop))
    return true; // The before and the after block's arguments alike.
  auto loop = dyn_cast<LoopLikeOpInterface>(parent);
  return loop && llvm::is_contained(loop.getRegionIterArgs(), arg);
}

/// A function argument One-Shot Bufferize may write into: the lowering
/// bufferizes function boundaries, where an argument is writable unless
/// marked `bufferization.writable = false`.
bool isWritableArgument(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  auto func = arg ? dyn_cast_or_null<FunctionOpInterface>(
                        arg.getOwner()->getParentOp())
                  : FunctionOpInterface();
  if (!func || !arg.getOwner()->isEntryBlock())
    return false;
  auto writable = func.getArgAttrOfType<BoolAttr>(arg.getArgNumber(),
                                                  "bufferization.writable");
  return !writable || writable.getValue();
}

/// Whether `a` and `b` lie in different regions of one scf.if: never both
/// run in an iteration.
bool inExclusiveBranches(Operation *a, Operation *b) {
  // The innermost scf.if holding both decides.
  for (Operation *p = a->getParentOp(); p; p = p->getParentOp())
    if (auto branch = dyn_cast<scf::IfOp>(p);
        branch && branch->isProperAncestor(b)) {
      Region &then = branch.getThenRegion();
      return then.isAncestor(a->getParentRegion()) !=
             then.isAncestor(b->getParentRegion());
    }
  return false;
}

/// Whether the owner of `read` and `write` reads the one where it writes
/// the other, element by element: every loop parallel, both maps the
/// identity. One-Shot Bufferize writes such an op in place into a buffer it
/// also reads (`ins(%acc, %g) outs(%acc)`).
bool readsWhereItWrites(OpOperand &read, OpOperand &write) {
  auto op = dyn_cast<linalg::LinalgOp>(read.getOwner());
  return op && op == write.getOwner() &&
         op.getNumLoops() == op.getNumParallelLoops() &&
         op.getMatchingIndexingMap(&read).isIdentity() &&
         op.getMatchingIndexingMap(&write).isIdentity();
}

/// Whether `other` ends before `writer` starts in every run of `home`
/// (the block defining the value both use): in the innermost block holding
/// both, `other`'s op comes first, and nothing between that block and
/// `home` but scf.if regions (a loop there would run `other` again after
/// the write).
bool runsBefore(Operation *other, Operation *writer, Block *home) {
  for (Block *b = writer->getBlock(); b;
       b = b->getParentOp() ? b->getParentOp()->getBlock() : nullptr) {
    Operation *o = b->findAncestorOpInBlock(*other);
    if (!o)
      continue;
    Operation *w = b->findAncestorOpInBlock(*writer);
    if (!w || o == w || !o->isBeforeInBlock(w))
      return false;
    for (Operation *p = b->getParentOp(); b != home;
         b = p->getBlock(), p = b->getParentOp())
      if (!isa<scf::IfOp>(p))
        return false;
    return true;
  }
  return false;
}

/// No use of `dest` but `write` runs after `write` does (in the same
/// iteration: loop-carried values start each iteration anew).
bool noUseAfter(Value dest, OpOperand &write) {
  Operation *writer = write.getOwner();
  for (OpOperand &use : dest.getUses()) {
    if (&use == &write || readsWhereItWrites(use, write))
      continue;
    Operation *other = use.getOwner();
    if (inExclusiveBranches(other, writer))
      continue;
    if (!runsBefore(other, writer, dest.getParentBlock()))
      return false;
  }
  return true;
}

/// The operand `result` is written into: a destination-passing op's tied
/// init, an insert's destination, a loop's init.
OpOperand *tiedInit(OpResult result) {
  Operation *op = result.getOwner();
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
    return dps.hasPureTensorSemantics() ? dps.getTiedOpOperand(result)
                                        : nullptr;
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return loop.getTiedLoopInit(result);
  if (auto loop = dyn_cast<scf::WhileOp>(op))
    return passesArgumentsOn(loop)
               ? &loop.getInitsMutable()[result.getResultNumber()]
               : nullptr;
  SmallVector<OpOperand *> dests = destinationOperands(op);
  return dests.size() == 1 && op->getNumResults() == 1 ? dests.front()
                                                        : nullptr;
}

} // namespace

namespace {

/// A read of `dest` that ends before `writer` runs: in an op before it in
/// its block, neither writing into `dest` nor passing it on (views, yields,
/// calls may alias their results to it).
bool readBefore(OpOperand &use, Operation *writer) {
  Operation *user = use.getOwner();
  if (isDestinationUse(use) || isViewLike(user) ||
      user->hasTrait<OpTrait::IsTerminator>() || isa<CallOpInterface>(user))
    return false;
  Operation *o = writer->getBlock()->findAncestorOpInBlock(*user);
  return o && o != writer && o->isBeforeInBlock(writer);
}

} // namespace

/// Whether `member` is part of `op`'s node: absorbed into it, directly or
/// through other absorbed ops.
static bool absorbedInto(Operation *member, Operation *op) {
  for (Operation *user = absorbingUser(member); user;
       user = absorbingUser(user))
    if (user == op)
      return true;
  return false;
}

/// Whether `slice` views a buffer nothing else reads: its source (through
/// further slices) is the result of an op of `op`'s block whose one user is
/// the next slice. One-Shot Bufferize then writes into that buffer, not
/// into a copy (a loop carrying a row of a collective's result, as the
/// scan reversal's peeled first step passes it).
static bool sliceOfUnsharedBuffer(tensor::ExtractSliceOp slice,
                                  Operation *op) {
  Value src = slice.getSource();
  for (int depth = 0; depth < 16; ++depth) {
    Operation *def = src.getDefiningOp();
    if (!def || def->getBlock() != op->getBlock() || !src.hasOneUse() ||
        isFreeValue(def) || absorbedInto(def, op))
      return false;
    auto inner = dyn_cast<tensor::ExtractSliceOp>(def);
    if (!inner)
      return !isViewLike(def);
    src = inner.getSource();
  }
  return false;
}

OpOperand *updatedInPlace(OpResult result, OpOrder order) {
  Operation *op = result.getOwner();
  OpOperand *init = tiedInit(result);
  if (!init)
    return nullptr;
  // Inserts of slices ready before them are part of the last one's node:
  // the node writes where the first of them writes.
  while (auto insert = init->get().getDefiningOp<tensor::InsertSliceOp>()) {
    if (!absorbedInto(insert, op))
      break;
    init = &insert.getDestMutable();
  }
  Value dest = init->get();
  // An enclosing loop's iteration argument or a writable function
  // argument: its buffer, unless the old value is still read after the
  // write.
  if (isLoopIterArg(dest) || isWritableArgument(dest))
    return noUseAfter(dest, *init) ? init : nullptr;
  Operation *def = dest.getDefiningOp();
  // A value read elsewhere too is copied before the write (the writer's own
  // element-wise reads are no other reader).
  auto onlyThisWriter = [&](OpOperand &use) {
    return &use == init || readsWhereItWrites(use, *init) ||
           (order == OpOrder::Final && readBefore(use, op));
  };
  if (!def || def->getBlock() != op->getBlock() ||
      !llvm::all_of(dest.getUses(), onlyThisWriter) || isFreeValue(def) ||
      absorbedInto(def, op))
    return nullptr;
  if (isViewLike(def)) {
    auto slice = dyn_cast<tensor::ExtractSliceOp>(def);
    if (!slice || !sliceOfUnsharedBuffer(slice, op))
      return nullptr;
  }
  // A branch both of whose paths yield one buffer: a value they yield that
  // is read outside the branch too sees the write, so bufferization copies
  // it first (a fresh buffer, as a read after a plain write).
  if (branchesWriteInto(cast<OpResult>(dest))) {
    auto branch = cast<scf::IfOp>(def);
    for (scf::YieldOp yield : {branch.thenYield(), branch.elseYield()}) {
      Value yielded =
          yield->getOperand(cast<OpResult>(dest).getResultNumber());
      for (OpOperand &use : yielded.getUses())
        if (!branch->isAncestor(use.getOwner()) &&
            !(order == OpOrder::Final && readBefore(use, op)))
          return nullptr;
    }
  }
  return init;
}

bool destinationsReach(Value v, Value buffer,
                       SmallVectorImpl<OpOperand *> &copied) {
  for (int depth = 0; depth < 256; ++depth) {
    if (v == buffer)
      return true;
    auto result = dyn_cast<OpResult>(v);
    if (!result)
      return false;
    if (auto branch = dyn_cast<scf::IfOp>(result.getOwner())) {
      const unsigned k = result.getResultNumber();
      return !branch.getElseRegion().empty() &&
             destinationsReach(branch.thenYield()->getOperand(k), buffer,
                               copied) &&
             destinationsReach(branch.elseYield()->getOperand(k), buffer,
                               copied);
    }
    OpOperand *init = tiedInit(result);
    if (!init)
      return false;
    if (!updatedInPlace(result, OpOrder::Final))
      copied.push_back(init);
    v = init->get();
  }
  return false;
}

Value branchesWriteInto(OpResult r) {
  auto branch = dyn_cast<scf::IfOp>(r.getOwner());
  if (!branch || branch.getElseRegion().empty())
    return Value();
  Value common;
  for (Region *region : {&branch.getThenRegion(), &branch.getElseRegion()}) {
    Value target = inPlaceTarget(
        region->front().getTerminator()->getOperand(r.getResultNumber()));
    if (branch->isAncestor(target.getParentRegion()->getParentOp()) ||
        (common && target != common))
      return Value();
    common = target;
  }
  return common;
}

Value inPlaceTarget(Value v, llvm::function_ref<bool(Value)> stop) {
  for (int depth = 0; depth < 256; ++depth) {
    if (stop && stop(v))
      return v;
    auto result = dyn_cast<OpResult>(v);
    if (!result)
      return v;
    if (Value target = branchesWriteInto(result)) {
      v = target;
      continue;
    }
    // A loop's result is its init's buffer only when the loop updates the
    // init in place.
    OpOperand *init = isa<scf::ForOp, scf::WhileOp>(result.getOwner())
                          ? updatedInPlace(result)
                          : tiedInit(result);
    if (!init)
      return v;
    v = init->get();
  }
  return v;
}

bool isDestinationUse(OpOperand &use) {
  return llvm::is_contained(destinationOperands(use.getOwner()), &use);
}

/// Inside a remat.recompute region a block argument stands for the
/// region's operand: a value computed outside, not a function argument (an
/// op reading it is no cheap initial value, as the op it was cloned from
/// was none).
static Value throughRecomputeArguments(Value v) {
  for (int depth = 0; depth < 256; ++depth) {
    auto arg = dyn_cast<BlockArgument>(v);
    auto region =
        arg ? dyn_cast_or_null<RecomputeOp>(arg.getOwner()->getParentOp())
            : RecomputeOp();
    if (!region)
      return v;
    v = region.getInputs()[arg.getArgNumber()];
  }
  return v;
}

bool isParameterOnly(Operation *op) {
  if (isa<tensor::EmptyOp>(op))
    return true;
  if (op->getNumResults() != 1 || op->getNumRegions() > 1 ||
      !isMemoryEffectFree(op) || isa<RecomputeOp>(op))
    return false;
  SmallVector<OpOperand *> dests = destinationOperands(op);
  if (dests.empty())
    return false;
  for (OpOperand &operand : op->getOpOperands()) {
    Value v = throughRecomputeArguments(operand.get());
    Operation *def = v.getDefiningOp();
    if (llvm::is_contained(dests, &operand)) {
      if (!def || !isParameterOnly(def))
        return false;
    } else if (def && !isFreeValue(def)) {
      return false; // Reads a computed value: not a cheap initial value.
    }
  }
  return true;
}

} // namespace remat
