//===- CheckpointScans.h - Binomial checkpointing of scan loops -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef REMAT_LOOPS_CHECKPOINTSCANS_H
#define REMAT_LOOPS_CHECKPOINTSCANS_H

#include "remat/Analysis/TrainingGraphBuilder.h"
#include "remat/Solver/Loop/LoopReversal.h"
#include "remat/Solver/Loop/ScanSlots.h"
#include "remat/Analysis/ScanLoops.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <string>

namespace remat {

/// What checkpointScan emitted in place of a scan's two loops.
struct CheckpointedScan {
  /// The loop that runs the steps and fills the slots (an scf.for, or an
  /// scf.while online), and the loop over the interpreter's actions.
  mlir::Operation *forward = nullptr, *interpreter = nullptr;
  int64_t slots = 0;
  /// What they execute (forward steps, advances, actions).
  LoopReversalCounts counts;
  /// The forward loop's results that hold the slots, each with
  /// `slots + rowsOffset` rows (the slot stacks: slots - 1, slot 0 being
  /// the inits; the positions: slots).
  struct SlotResult {
    unsigned result;
    int64_t rowsOffset;
  };
  llvm::SmallVector<SlotResult> slotResults;

  /// What depends on the slot count in what was emitted, so that
  /// resizeCheckpointedScan can set another count in place: the buffers
  /// holding slots (tensor.empty, `slots + rowsOffset` rows), the constants
  /// derived from the count; and the ops whose region runs the schedule
  /// fixes (addRegionRuns).
  enum class SlotConstant { Slots, SlotsLessOne, FirstSplit, Actions };
  enum class SlotRuns {
    FirstSweepStore, // the forward loop's scf.if storing a slot
    Action,          // the interpreter's scf.if: turn or store
    TurnAdvance,     // the advance before a backward step
    StoreAdvance,    // the advance before a store
    OnlineActions,   // the online interpreter's scf.while
    OnlineForward,   // the online forward scf.while (its most steps)
  };
  struct SlotSized {
    llvm::SmallVector<std::pair<mlir::Operation *, int64_t>> buffers;
    llvm::SmallVector<std::pair<mlir::Operation *, SlotConstant>> constants;
    llvm::SmallVector<std::pair<mlir::Operation *, SlotRuns>> runs;
  } sized;
  int64_t steps = 0; ///< T (online: the most steps it can run).
  bool online = false;
};

/// What a reversal of `steps` steps with `slots` slots executes: the
/// binomial schedule's (countLoopReversal), or the online rule's
/// (countOnlineReversal, `steps` its most steps).
LoopReversalCounts reversalCounts(bool online, int64_t steps, int64_t slots);

/// The value of `kind` and the region runs of `runs` for a reversal of
/// `steps` steps with `slots` slots that executes `counts`: what the emitter
/// writes and resizeCheckpointedScan rewrites.
int64_t slotConstantValue(CheckpointedScan::SlotConstant kind, int64_t steps,
                          int64_t slots, const LoopReversalCounts &counts);
llvm::SmallVector<double> slotRegionRuns(CheckpointedScan::SlotRuns kind,
                                         int64_t steps,
                                         const LoopReversalCounts &counts);

/// Adds to `runs` how often the regions of what `scan` emitted run (the
/// analysis cannot tell from the IR: see RegionRuns), keyed by the ops of
/// `copy`'s copy of it when given.
void addRegionRuns(const CheckpointedScan &scan, RegionRuns &runs,
                   const mlir::IRMapping *copy = nullptr);

/// Rewrites `scan` to keep `slots` (1 <= slots <= T) checkpoints of its
/// carries instead of its stacks (see CheckpointScans.cpp): the forward and
/// backward loops are replaced, through `rewriter` (its listener sees every
/// op created, replaced and erased).
CheckpointedScan checkpointScan(mlir::RewriterBase &rewriter,
                                const ScanPair &scan, int64_t slots);

/// Sets the slot count of what checkpointScan emitted to `slots` (1 <=
/// slots <= T), in place through `rewriter`: the slot buffers' types (and
/// every value they flow into: the loops' arguments and results, the
/// branches', the inserts'), the constants derived from the count; `scan`
/// then describes the new count (its region runs too). The same IR as
/// checkpointScan emits with `slots`, without emitting again: the planner
/// chooses the count on the rewrite at a probe count, which is then
/// resized. Failure (nothing to say to a user: an internal error) when the
/// resized IR does not verify.
mlir::LogicalResult resizeCheckpointedScan(mlir::RewriterBase &rewriter,
                                           CheckpointedScan &scan,
                                           int64_t slots);

/// What the rewrite adds beside the scan's own ops: copies of a carry
/// (into a slot's working buffer, into an iteration argument) and stores of
/// a carry into a slot stack's row.
enum class ScanBookkeeping { Copy, Store };

/// The cost-table key of such an op on a carry of type `carry`: its cost
/// depends on the type alone, so `-remat-time-nodes` times one of each per
/// carry type of the step's scans, and the rewrite names its ops so
/// (`loc(<key>(<the scan's location>))`).
std::string scanBookkeepingKey(ScanBookkeeping kind, mlir::Type carry);

/// How the caller sees a function: `graphOf` prepares a copy (in place)
/// and builds its graph as the caller's analysis does, with the runs of the
/// loops emitted in it (preparing does not replace a loop or a branch); `plan`
/// is the caller's best plan of a graph within the budget (empty: the program
/// must fit as it is, nothing else recomputed); `planSized`, where the caller's
/// strategy has a model that chooses sizes, plans the slot counts with the
/// schedule (ScanSlots.h).
struct ScanPlanning {
  using GraphOf = llvm::function_ref<mlir::FailureOr<IRTrainingGraph>(
      mlir::func::FuncOp, const RegionRuns &)>;
  GraphOf graphOf;
  const CostModel &costs;
  PlanGraph plan;
  PlanSized planSized = {};
  /// Keep the rewrite the slots were checked on (prepared by `graphOf`) as
  /// the function's body, rather than rewriting the function again.
  bool adoptChecked = false;
  /// The timeline of a copy `graphOf` prepared, as it runs (its own order's
  /// in-place writes, RecomputeRegions::Flatten: the guarantee's analysis),
  /// for whether it fits as it is; when not given, `graphOf`'s graph.
  GraphOf timelineOf = nullptr;
};

/// Checkpoints each scan at the top level of `func`, rewriting it once:
/// with `fixedSlots` > 0 that many slots; with `budget` < 0 the fewest (1);
/// else the slots chooseScanSlots (ScanSlots.h) picks on the graph of a
/// probe rewrite (one slot when nothing fits: the caller's planner then
/// names the smallest budget). Emits a remark per loop: the slots and
/// forward steps chosen, or why it is not a scan. Returns how many scans it
/// rewrote, and whether the body is the checked rewrite (adoptChecked),
/// prepared by `graphOf`; failure (with an error) when the graph cannot be
/// built. With `resizeFrom` > 0 (and `fixedSlots`), each scan is emitted
/// with that many slots and resized to `fixedSlots` (a test of the resize).
struct ScansRewritten {
  int count = 0;
  bool prepared = false;
  /// How often the regions of the loops emitted in `func` run: for the
  /// caller's analyses of the rewritten function (RegionRuns).
  RegionRuns runs;
};
mlir::FailureOr<ScansRewritten>
checkpointScansWithin(mlir::func::FuncOp func, int64_t budget,
                      const ScanPlanning &planning, int64_t fixedSlots = 0,
                      int64_t resizeFrom = 0);

} // namespace remat

#endif // REMAT_LOOPS_CHECKPOINTSCANS_H
