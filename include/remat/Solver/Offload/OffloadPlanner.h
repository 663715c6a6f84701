//===- OffloadPlanner.h - Offload tensors whose copies hide ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The scalable offload rule (XLA's host offload in HloRematerialization):
// move a tensor to the host across a stretch of compute only when that
// compute hides both of its copies. Applied to any schedule without copies
// (keep-everything, a recompute plan), it lowers the peak until the budget
// holds or no tensor at the peak can go.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_OFFLOAD_OFFLOADPLANNER_H
#define REMAT_SOLVER_OFFLOAD_OFFLOADPLANNER_H

#include "remat/Solver/Core/CopyLink.h"
#include "remat/Solver/Core/Schedule.h"
#include "remat/Solver/Core/SolveOptions.h"

#include <cstdint>

namespace remat {

struct OffloadPlanOptions {
  int64_t budget = 0;
  CopyLink link;
  /// Candidates tried (each one simulation) at one peak before giving up.
  int triesPerPeak = 64;
  /// At least 0: copies may stall (prefetched right before their read when
  /// no run hides them) while the plan stays faster than this; else every
  /// kept plan runs at its base's speed, nothing stalling.
  double stallBelow = -1;
  /// copyInsteadOfRecompute: candidates simulated at most.
  int swapTries = 2048;
  /// Results may leave for the host once nothing reads them again, and are
  /// returned from there (SolveOptions::offloadResults).
  bool offloadResults = false;
  /// Host bytes the plan may hold at once (SolveOptions::hostBudget): a
  /// pair that would hold more is not kept.
  int64_t hostBudget = kUnlimitedBudget;
};

/// `base` with Offload/Prefetch pairs added while its peak is above the
/// budget: at the peak run, the largest live tensor that the run does not
/// touch, offloaded right after its last use before the peak and
/// prefetched as late as the compute before its next read still hides the
/// copy. A pair is kept only when the Simulator says the run at the peak
/// holds fewer bytes, the peak did not rise and nothing stalls: the
/// Simulator's two in-order streams are the link's timeline, so a copy
/// booked earlier delays the next one on the same stream and two copies
/// never both assume the whole bandwidth. Returns the last schedule kept:
/// valid, as fast as `base` (no stall), peaking at most as high; whether it
/// meets the budget is the caller's check. `base` may have copies, none of
/// them stalling (else it is returned as it is).
Schedule offloadUntilBudget(const TrainingGraph &g, const Schedule &base,
                            const OffloadPlanOptions &opts);

/// `plan` with an Await right after each of its offloads: on a link whose
/// copies to the host overlap, it runs as `plan` runs where they block
/// (CopyLink::offloadsBlock), the same peak and time.
Schedule awaitEveryOffload(const Schedule &plan);

} // namespace remat

#endif // REMAT_SOLVER_OFFLOAD_OFFLOADPLANNER_H
