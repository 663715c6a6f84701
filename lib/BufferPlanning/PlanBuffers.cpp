//===- PlanBuffers.cpp - Free buffers after their last use, or pack them --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/BufferPlanning/ArenaAllocation.h"
#include "remat/BufferPlanning/BufferLiveness.h"
#include "remat/BufferPlanning/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/MathExtras.h"

namespace remat {
#define GEN_PASS_DEF_PLANBUFFERSPASS
#include "remat/BufferPlanning/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

/// The buffers of one function, analysed before any function changes.
struct FunctionBuffers {
  FunctionOpInterface func;
  SmallVector<BufferInfo> buffers; // In program order.
};

/// Whether `use` hands the buffer to external functions that keep no alias
/// of it: a cast to an unranked memref passed only to calls of declarations
/// (the runtime's receive, -remat-lower-collectives).
bool passedToRuntimeOnly(Operation *user) {
  auto cast = dyn_cast<memref::CastOp>(user);
  if (!cast || !isa<UnrankedMemRefType>(cast.getType()))
    return false;
  return llvm::all_of(cast->getUsers(), [&](Operation *call) {
    auto callOp = dyn_cast<CallOpInterface>(call);
    auto callee = callOp ? dyn_cast_or_null<FunctionOpInterface>(
                               callOp.resolveCallable())
                         : FunctionOpInterface();
    return callee && callee.isExternal() &&
           call->getBlock() == cast->getBlock();
  });
}

/// The view ops a branch may yield its allocation through: the memref.cast
/// bufferization adds to match the result's layout, and the reshapes a
/// tensor.expand_shape or collapse_shape of a fresh tensor bufferizes to (a
/// recomputed row of a ring of 4-d rows is the expand_shape of a matmul).
bool isYieldedView(Operation *op) {
  return isa_and_nonnull<memref::CastOp, memref::ExpandShapeOp,
                         memref::CollapseShapeOp>(op);
}

/// Whether `yielded` is an allocation made in a branch only to be yielded
/// as its result `i` (directly, or through isYieldedView's ops, each used
/// once by the next): used in its block by linalg ops, copies and the
/// runtime's calls, which keep no alias, and by that yield once.
bool madeToBeYielded(Value yielded, scf::YieldOp yield, unsigned i) {
  Operation *passedOn = yield;
  while (Operation *view = yielded.getDefiningOp()) {
    if (!isYieldedView(view))
      break;
    if (!view->hasOneUse() || view->getBlock() != yield->getBlock() ||
        *view->getUsers().begin() != passedOn)
      return false;
    passedOn = view;
    yielded = view->getOperand(0);
  }
  auto alloc = yielded.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != yield->getBlock())
    return false;
  for (OpOperand &use : alloc->getUses()) {
    Operation *user = use.getOwner();
    if (user == passedOn ? user == yield && use.getOperandNumber() != i
                         : user->getBlock() != yield->getBlock() ||
                               !(isa<linalg::LinalgOp, memref::CopyOp>(user) ||
                                 passedToRuntimeOnly(user)))
      return false;
  }
  return true;
}

/// The allocation behind `yielded` (madeToBeYielded's).
Operation *allocationOf(Value yielded) {
  while (isYieldedView(yielded.getDefiningOp()))
    yielded = yielded.getDefiningOp()->getOperand(0);
  return yielded.getDefiningOp();
}

/// Results of an scf.if (or scf.index_switch) whose every branch yields a
/// buffer it made for it
/// (what a branch choosing a fresh initial value bufferizes to on every
/// path, -remat-prepare's giveBranchResultsOneBuffer): the result owns
/// whichever was made, so it is the buffer to free in the parent block;
/// the branches' allocations are not freed themselves. `owned` collects
/// those.
void branchResultsOwningBuffers(Operation *branch, SmallVector<Value> &roots,
                                llvm::SmallPtrSetImpl<Operation *> &owned) {
  SmallVector<scf::YieldOp> yields;
  for (Region &region : branch->getRegions()) {
    if (region.empty())
      return; // An scf.if without else: the result is not made on a path.
    yields.push_back(cast<scf::YieldOp>(region.front().getTerminator()));
  }
  for (OpResult r : branch->getResults()) {
    unsigned i = r.getResultNumber();
    if (!isa<MemRefType>(r.getType()) ||
        !llvm::all_of(yields, [&](scf::YieldOp yield) {
          return madeToBeYielded(yield.getOperand(i), yield, i);
        }))
      continue;
    for (scf::YieldOp yield : yields)
      owned.insert(allocationOf(yield.getOperand(i)));
    roots.push_back(r);
  }
}

FunctionBuffers analyzeFunction(FunctionOpInterface func,
                                CallSummaries &calls) {
  FunctionBuffers result{func, {}};
  SmallVector<Value> roots;
  llvm::SmallPtrSet<Operation *, 8> ownedByBranch;
  func->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op != func && op->hasTrait<OpTrait::IsIsolatedFromAbove>())
      return WalkResult::skip(); // Planned as a function of its own, if any.
    // Before the branches' own ops, which the walk visits next.
    if (isa<scf::IfOp, scf::IndexSwitchOp>(op))
      branchResultsOwningBuffers(op, roots, ownedByBranch);
    if (auto alloc = dyn_cast<memref::AllocOp>(op))
      if (!ownedByBranch.contains(op))
        roots.push_back(alloc.getResult());
    // Fresh buffers returned by a callee belong to the caller.
    if (auto call = dyn_cast<CallOpInterface>(op))
      if (const CallSummary *summary = calls.lookup(call))
        for (auto [i, fresh] : llvm::enumerate(summary->resultFresh))
          if (fresh)
            roots.push_back(op->getResult(i));
    return WalkResult::advance();
  });
  const BufferAliases &aliases = calls.aliases(func);
  for (Value root : roots)
    result.buffers.push_back(analyzeBuffer(root, aliases, calls));
  return result;
}

struct PlanBuffersPass : public remat::impl::PlanBuffersPassBase<PlanBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    if (alignment < 1 || !llvm::isPowerOf2_64(alignment)) {
      emitError(getOperation().getLoc())
          << "remat-plan-buffers: alignment must be a power of two, got "
          << static_cast<int64_t>(alignment);
      return signalPassFailure();
    }
    // Analyse every function first: the summaries of callees describe the
    // IR before any function is rewritten.
    CallSummaries calls;
    SmallVector<FunctionBuffers> functions;
    getOperation()->walk([&](FunctionOpInterface func) {
      if (!func.isExternal())
        functions.push_back(analyzeFunction(func, calls));
    });
    for (FunctionBuffers &f : functions)
      if (failed(plan(f)))
        return signalPassFailure();
  }

  LogicalResult plan(FunctionBuffers &f);
  void freeAfterLastUse(const BufferInfo &info,
                        DenseMap<Operation *, Operation *> &lastInserted);
};

LogicalResult PlanBuffersPass::plan(FunctionBuffers &f) {
  SmallVector<BufferInfo> inArena, freedEarly;
  for (BufferInfo &info : f.buffers) {
    Location loc = info.root.getLoc();
    switch (info.escape) {
    case Escape::None:
      (arena && isArenaCandidate(info, f.func) ? inArena : freedEarly)
          .push_back(info);
      break;
    case Escape::Returned:
    case Escape::Freed:
      if (remarks)
        emitRemark(loc) << "buffer not freed here: " << describe(info.escape);
      break;
    default: {
      // Not freed at all: say so rather than leak silently.
      InFlightDiagnostic diag = emitWarning(loc)
                                << "buffer is " << describe(info.escape)
                                << "; -remat-plan-buffers does not free it";
      diag.attachNote(info.escapeOp->getLoc()) << "escapes here";
      break;
    }
    }
  }

  if (!inArena.empty()) {
    SmallVector<Location> locs;
    for (const BufferInfo &info : inArena)
      locs.push_back(info.root.getLoc());
    FailureOr<ArenaSummary> summary = placeInArena(f.func, inArena, alignment);
    if (failed(summary))
      return failure();
    const arena::Plan &p = summary->plan;
    int64_t inPlace = llvm::count(p.inPlace, true);
    emitRemark(f.func.getLoc())
        << "arena of " << p.arenaSize << " bytes for " << inArena.size()
        << " buffers (sum " << p.sumOfSizes << " bytes); at most "
        << p.lowerBound << " bytes live at once, " << inPlace
        << " written in place";
    if (remarks)
      for (auto [i, loc] : llvm::enumerate(locs))
        emitRemark(loc) << "placed in the arena at offset " << p.offsets[i]
                        << (p.inPlace[i] ? ", in place of its input" : "");
  }

  DenseMap<Operation *, Operation *> lastInserted;
  for (const BufferInfo &info : freedEarly) {
    freeAfterLastUse(info, lastInserted);
    if (remarks)
      emitRemark(info.root.getLoc()) << "freed after its last use";
  }
  return success();
}

void PlanBuffersPass::freeAfterLastUse(
    const BufferInfo &info, DenseMap<Operation *, Operation *> &lastInserted) {
  Operation *def = info.root.getDefiningOp();
  if (sinkAllocs && info.firstUse && isa<memref::AllocOp>(def) &&
      def->isBeforeInBlock(info.firstUse))
    def->moveBefore(info.firstUse);
  // Frees after the same op keep the order of their allocations.
  Operation *anchor = info.lastUse ? info.lastUse : def;
  Operation *after = lastInserted.lookup(anchor);
  OpBuilder builder(def->getContext());
  builder.setInsertionPointAfter(after ? after : anchor);
  lastInserted[anchor] =
      memref::DeallocOp::create(builder, def->getLoc(), info.root);
}

} // namespace
