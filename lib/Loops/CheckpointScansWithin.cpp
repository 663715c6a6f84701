//===- CheckpointScansSearch.cpp - How many checkpoints fit a budget ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The peak of a function grows with the checkpoints its scans keep, so the
// most slots within a budget is found by binary search over rewritten
// copies, measured by the caller's own analysis (the one whose guarantee it
// then checks).
//
//===----------------------------------------------------------------------===//

#include "remat/Loops/LoopReversal.h"
#include "remat/Loops/OnlineCheckpointing.h"
#include "remat/Loops/CheckpointScans.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace remat {
namespace {

/// A copy of `func` whose scan at top-level op `index` keeps `slots`.
OwningOpRef<func::FuncOp> rewrittenCopy(func::FuncOp func, unsigned index,
                                        int64_t slots) {
  OwningOpRef<func::FuncOp> copy(func.clone());
  auto it = copy->getBody().front().begin();
  std::advance(it, index);
  IRRewriter rewriter(copy->getContext());
  checkpointScan(rewriter, std::get<ScanPair>(matchScan(&*it)), slots);
  return copy;
}

/// The most slots in [1, steps] whose peak fits; 1 when none does.
FailureOr<int64_t> mostSlotsWithin(func::FuncOp func, unsigned index,
                                   int64_t steps, int64_t budget,
                                   FunctionPeak peakOf) {
  int64_t lo = 1, hi = steps; // The answer lies in [lo, hi].
  while (lo < hi) {
    int64_t mid = lo + (hi - lo + 1) / 2;
    OwningOpRef<func::FuncOp> copy = rewrittenCopy(func, index, mid);
    std::optional<int64_t> peak = peakOf(*copy);
    if (!peak)
      return failure();
    if (*peak <= budget)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

} // namespace

FailureOr<int> checkpointScansWithin(func::FuncOp func, int64_t budget,
                                     FunctionPeak peakOf,
                                     int64_t fixedSlots) {
  // The loops as they are now: the rewrite's own loops are not candidates.
  SmallVector<Operation *> loops;
  for (Operation &op : func.getBody().front())
    if (isa<scf::ForOp, scf::WhileOp>(op))
      loops.push_back(&op);
  llvm::SmallPtrSet<Operation *, 4> backwardLoops;
  int rewritten = 0;
  for (Operation *loop : loops) {
    if (backwardLoops.contains(loop))
      continue; // Erased with its forward loop.
    auto match = matchScan(loop);
    if (auto *why = std::get_if<std::string>(&match)) {
      loop->emitRemark() << "loop not checkpointed: " << *why;
      continue;
    }
    const ScanPair &scan = std::get<ScanPair>(match);
    backwardLoops.insert(scan.backward);
    const unsigned index = std::distance(
        func.getBody().front().begin(), loop->getIterator());
    FailureOr<int64_t> slots =
        fixedSlots > 0 ? FailureOr<int64_t>(std::min(fixedSlots, scan.steps))
                       : mostSlotsWithin(func, index, scan.steps, budget,
                                         peakOf);
    if (failed(slots))
      return failure();
    if (scan.online()) {
      LoopReversalCounts counts = countOnlineReversal(scan.steps, *slots);
      loop->emitRemark() << llvm::formatv(
          "{5} of at most {0} steps checkpointed online with {1} slots "
          "of {2} B (stacks of {3} B dropped): the fewest forward steps for "
          "{1} checkpoints while it runs at most {4} steps; {6} forward "
          "steps if it runs all {0}",
          scan.steps, *slots, scan.carryBytes, scan.stackBytes,
          binomialBeta(*slots, 2) - 1,
          isa<scf::WhileOp>(loop) ? "while loop" : "loop to a run-time bound",
          counts.forwardSteps);
    } else {
      LoopReversalCounts counts = countLoopReversal(scan.steps, *slots);
      loop->emitRemark() << llvm::formatv(
          "scan of {0} steps checkpointed with {1} slots of {2} B (stacks of "
          "{3} B dropped): {4} forward steps (the minimum for {1} checkpoints "
          "plus one), {5} reversal actions",
          scan.steps, *slots, scan.carryBytes, scan.stackBytes,
          counts.forwardSteps, counts.actions);
    }
    IRRewriter rewriter(loop->getContext());
    checkpointScan(rewriter, scan, *slots);
    ++rewritten;
  }
  return rewritten;
}

} // namespace remat
