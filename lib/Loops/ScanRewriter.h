//===- ScanRewriter.h - The IR emitter of checkpointed scans ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Internal to lib/Loops: one reversal of a scan (ScanLoops.h) emitted
// as loops. CheckpointScans.cpp emits the offline form (T known: binomial
// checkpointing) and what both forms share (the steps, the slots, the
// interpreter); CheckpointScansOnline.cpp the forward loop of the online
// form (a loop whose trip count is known only at run time).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_LOOPS_SCANREWRITER_H
#define REMAT_LIB_LOOPS_SCANREWRITER_H

#include "remat/Analysis/ScanLoops.h"
#include "remat/Loops/CheckpointScans.h"
#include "remat/Solver/Loop/LoopReversal.h"
#include "remat/Solver/Loop/OnlineCheckpointing.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"

namespace remat::detail {

using namespace mlir;

/// Emits the IR of one reversal; `b` moves along as code is emitted.
/// The ops a rewriter creates, while they exist (erased ones are
/// forgotten); every notification goes on to `next`, the caller's listener.
/// The rewrite erases the clones it left dead (the next carry of a step run
/// only for its stacked values: the peak must not count them); its caller
/// folds the index arithmetic it emitted.
struct RecordedOps : RewriterBase::ForwardingListener {
  explicit RecordedOps(OpBuilder::Listener *next = nullptr)
      : RewriterBase::ForwardingListener(next), next(next) {}
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint previous) override {
    ops.insert(op);
    RewriterBase::ForwardingListener::notifyOperationInserted(op, previous);
  }
  void notifyOperationErased(Operation *op) override {
    ops.remove(op);
    RewriterBase::ForwardingListener::notifyOperationErased(op);
  }
  /// Erases the recorded ops that are trivially dead until none is.
  void eraseDead(RewriterBase &rewriter) {
    for (bool changed = true; changed;) {
      changed = false;
      SmallVector<Operation *> snapshot(ops.begin(), ops.end());
      for (Operation *op : llvm::reverse(snapshot)) {
        if (!ops.contains(op) || !isOpTriviallyDead(op))
          continue;
        op->walk([&](Operation *nested) { ops.remove(nested); });
        rewriter.eraseOp(op);
        changed = true;
      }
    }
  }
  llvm::SetVector<Operation *> ops;
  OpBuilder::Listener *next; ///< The caller's listener, restored after.
};

class ScanRewriter {
public:
  ScanRewriter(RewriterBase &rewriter, const ScanPair &scan, int64_t slots)
      : rewriter(rewriter), scan(scan), slots(slots),
        counts(reversalCounts(scan.online(), scan.steps, slots)),
        loc(scan.forward->getLoc()) {}

  CheckpointedScan rewrite();

private:
  struct StepValues {
    SmallVector<Value> next; ///< Carries after the step.
    SmallVector<Value> rows; ///< What the step stacks, per stack.
    SmallVector<Value> kept; ///< The kept stacks with the step's rows.
  };
  struct LoopResults {
    Operation *loop = nullptr; ///< The forward loop emitted.
    SmallVector<Value> carries, slotStacks;
    SmallVector<Value> kept; ///< The stacks kept (ScanPair::keptWhole).
    Value positions, top;
    /// Online only: the physical slot of each position (a permutation; the
    /// entries above the top are the free slots), and the trip count.
    Value slotOf, trip;
  };

  /// The location of a copy or store the rewrite adds: the scan's, named
  /// by its cost-table key.
  Location bookkeepingLoc(ScanBookkeeping kind, Type carry) {
    return NameLoc::get(
        StringAttr::get(loc.getContext(), scanBookkeepingKey(kind, carry)),
        loc);
  }

  Value index(OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }

  /// A constant derived from the slot count, recorded so that
  /// resizeCheckpointedScan can set it for another count.
  Value slotConstant(OpBuilder &b, CheckpointedScan::SlotConstant kind) {
    auto c = arith::ConstantIndexOp::create(
        b, loc, slotConstantValue(kind, scan.steps, slots, counts));
    sized.constants.push_back({c, kind});
    return c;
  }

  /// An empty buffer of `slots + rowsOffset` rows of `row`, recorded.
  Value slotBuffer(OpBuilder &b, int64_t rowsOffset, ArrayRef<int64_t> row,
                   Type element) {
    SmallVector<int64_t> shape{slots + rowsOffset};
    llvm::append_range(shape, row);
    auto empty = tensor::EmptyOp::create(b, loc, shape, element);
    sized.buffers.push_back({empty, rowsOffset});
    return empty;
  }

  /// Records how often `op`'s regions run (`kind`: the schedule fixes it,
  /// the IR cannot say; given to the analyses as RegionRuns).
  void slotRuns(Operation *op, CheckpointedScan::SlotRuns kind) {
    sized.runs.push_back({op, kind});
  }

  /// The forward body at iteration `k` (its index lower + k * step) from
  /// `carries`, without the stacking; with `kept` (the kept stacks, in
  /// order), their rows written into them as the body writes them.
  StepValues cloneStep(OpBuilder &b, Value k, ValueRange carries,
                       ValueRange kept = {});

  /// The backward body at iteration `m` from `state`, its stack reads
  /// replaced by what the step it reverses stacked (`step.rows`) or by the
  /// carries entering that step (`entering`).
  SmallVector<Value> cloneBackwardStep(OpBuilder &b, Value m, ValueRange state,
                                       const StepValues &step,
                                       ValueRange entering);

  /// `v` as a value of `type`: a loop's counter may be an integer (i32, as
  /// a frontend's scan counts) where the emitted loops count in index.
  Value asType(OpBuilder &b, Value v, Type type);

  /// lower + k * step, folded when trivial.
  Value affineIndex(OpBuilder &b, Value lower, Value k, int64_t step);

  /// The forward loop's index at its iteration k (an index), in index:
  /// lower + step * k, k itself for a loop from 0 by 1.
  Value forwardIndexAt(OpBuilder &b, Value k);

  /// Replaces the reads outside the loops (a carry's initial or final
  /// value; the kept stacks by `finalKept`) and the backward loop's
  /// results, then erases both loops and whatever only they used (the
  /// dropped stacks' initial values).
  void replaceLoops(ValueRange finalCarries, ValueRange backwardResults,
                    ValueRange finalKept, RecordedOps &created);

  /// `values` written into the buffers of `into` (the iteration arguments),
  /// so that the yield is in place.
  SmallVector<Value> copiedInto(OpBuilder &b, ValueRange values,
                                ValueRange into);

  /// Row `at` of a slot stack as the carry's type, and the stack with `row`
  /// stored there.
  Value readRow(OpBuilder &b, Value stack, Value at, Type rowType);
  Value writeRow(OpBuilder &b, Value row, Value stack, Value at);
  std::tuple<SmallVector<OpFoldResult>, SmallVector<OpFoldResult>,
             SmallVector<OpFoldResult>>
  rowAccess(OpBuilder &b, RankedTensorType stack, Value at);

  Type carryType(unsigned c) { return scan.iterArg(scan.carries[c]).getType(); }

  /// Runs `count` steps from position `from` and returns the carries.
  SmallVector<Value> emitAdvance(OpBuilder &b, Value from, Value count,
                                 ValueRange carries,
                                 CheckpointedScan::SlotRuns runs);

  SmallVector<Value> carryInits() {
    SmallVector<Value> inits;
    for (unsigned k : scan.carries)
      inits.push_back(scan.init(k));
    return inits;
  }
  /// The kept stacks' initial values (rows written before the loop).
  SmallVector<Value> keptInits() {
    SmallVector<Value> inits;
    for (auto [s, k] : llvm::enumerate(scan.stacks))
      if (scan.keptWhole[s])
        inits.push_back(scan.init(k));
    return inits;
  }

  /// Slot 0 is the carries' initial values where they are: they stay
  /// unchanged and, being read at the end, alive; the stacks hold slots
  /// 1..K-1 (a copy of a function's argument, say, would be a carry more
  /// than the unrolled program keeps). Online too, position 0 is never
  /// dropped, so physical slot 0 keeps the inits.
  SmallVector<Value> initialSlots(OpBuilder &b);

  /// The stacks' row of physical slot `slot` >= 1.
  Value rowOf(OpBuilder &b, Value slot);

  /// The carries kept in physical slot `slot` (the stacks' row, or the
  /// inits for slot 0) copied into `work`, the
  /// interpreter's working buffers, which the advance then updates in place.
  SmallVector<Value> restoreSlot(OpBuilder &b, ValueRange slotStacks,
                                 Value slot, ValueRange work);

  /// The slots' positions, slot 0 at position 0.
  Value initialPositions(OpBuilder &b, Value zero);

  /// The forward scf.while of the online form: the original condition on
  /// the counter and carries; at each step, the store OnlineCheckpoints
  /// decides, then the body minus its stacking. Iteration arguments: the
  /// counter, the carries, the slot stacks, positions, slotOf, the slots in
  /// use and the repetitions r.
  LoopResults emitOnlineForwardLoop(OpBuilder &b);

  /// OnlineCheckpoints::offer at run time, for i > 0. `state`: the slot
  /// stacks, positions, slotOf, the slots in use, r; returns them updated.
  SmallVector<Value> emitOnlineStore(OpBuilder &b, Value i, ValueRange carries,
                                     ValueRange state);

  /// The carries stored into physical slot slotOf[at], at position i: the
  /// slot stacks, positions and `slotOf` (n + 2 values).
  SmallVector<Value> storedAt(OpBuilder &b, Value i, ValueRange carries,
                              ValueRange state, Value at, Value slotOf);

  /// All slots in use: reversal::onlineDrop's choice of j; then position j
  /// dropped (those above move down, slotOf with them) and
  /// carry_i stored on top in j's physical slot.
  SmallVector<Value> emitOnlineReplace(OpBuilder &b, Value i,
                                       ValueRange carries, ValueRange state);

  LoopResults emitForwardLoop(OpBuilder &b);

  /// At i == next: the carries go to slot top+1 and next moves on by the
  /// split of the steps left with the slots left (never again once the
  /// slots are full: the split of one slot is the last step, T-1, beyond
  /// the loop). `state`: slot stacks, positions, top, next.
  SmallVector<Value> emitFirstSweepStore(OpBuilder &b, Value i,
                                         ValueRange carries, ValueRange state);

  /// The loop over the interpreter's actions, from `done` steps still to
  /// reverse and the backward loop's iteration state `state`; returns the
  /// backward loop's results. Offline: an scf.for over the actions, counted
  /// at compile time; online: an scf.while until done is 0.
  SmallVector<Value> emitInterpreter(OpBuilder &b, const LoopResults &fwdOut,
                                     Value done, ValueRange state);

  /// The physical slot of logical slot `at` (online: through slotOf).
  Value physicalSlot(OpBuilder &b, const LoopResults &fwdOut, Value at) {
    if (!fwdOut.slotOf)
      return at;
    return tensor::ExtractOp::create(b, loc, fwdOut.slotOf, ValueRange{at});
  }

  /// One interpreter action; `args`: done, top, slot stacks, positions,
  /// working buffers, the backward loop's state.
  SmallVector<Value> interpreterStep(OpBuilder &nb, ValueRange args, size_t n,
                                     size_t nState, const LoopResults &fwdOut,
                                     Value last);

  RewriterBase &rewriter;
  const ScanPair &scan;
  int64_t slots;
  LoopReversalCounts counts;
  CheckpointedScan::SlotSized sized; ///< What depends on `slots`.
  Operation *interpreterLoop = nullptr; ///< Set by emitInterpreter.
  /// A forward scf.while's counter after the loop, once replaced.
  Value counterAfter;
  Location loc;
};

} // namespace remat::detail

#endif // REMAT_LIB_LOOPS_SCANREWRITER_H
