//===- ScanSlotFrontier.h - Slot counts that trade bytes for steps -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Where no model chooses the scans' slot counts with the schedule (the DPs,
// evict-greedy), each choice of counts is a whole plan to solve. Of all
// choices, only a few are worth one: more slots cost bytes and save forward
// steps, so for each total of slot bytes the choice re-running the fewest
// steps is the one to plan (the rest of the graph sees the slots' bytes,
// not how they are split between scans, where the scans' slots live at
// once, as a training step's do: forward loops, then their reversals in the
// opposite order). Those choices form a frontier, a multiple-choice knapsack
// merged scan by scan; one scan's frontier is its counts that re-run fewer
// steps than one slot less. Plain C++17.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_LOOP_SCANSLOTFRONTIER_H
#define REMAT_SOLVER_LOOP_SCANSLOTFRONTIER_H

#include "remat/Solver/Loop/ScanSlots.h"

#include <cstdint>
#include <vector>

namespace remat {

/// One choice of every scan's count: the bytes its slot buffers take
/// together and its reversals' time (each ScanSlotNode::reversalTime).
struct SlotChoicePoint {
  std::vector<int64_t> slots; ///< Per scan.
  int64_t bytes = 0;
  double reversalTime = 0;
};

/// The choices, over `counts` (per scan, the counts it may take), whose
/// reversals are faster than every choice taking no more bytes, by bytes
/// ascending (so by time descending). Bytes saturate rather than overflow.
/// At most kMaxFrontier points (evenly thinned beyond, the ends kept).
std::vector<SlotChoicePoint>
slotFrontier(const TrainingGraph &graph, const std::vector<ScanSlotNode> &scans,
             const std::vector<std::vector<int64_t>> &counts);

constexpr size_t kMaxFrontier = 1024;

/// At most this many plans are solved on the frontier beyond the ladder's.
constexpr int kFrontierPlans = 24;

/// The search of chooseScanSlots where no joint model applies: the
/// frontier over each scan's sizedCounts around its choice in `choice`,
/// where its plan may be faster. The most bytes any plan fits are found by
/// bisection over the frontier above the choice's bytes (fitting is taken
/// to be monotone in the bytes, as it is for one scan; a choice with at
/// least the slots of one in `unfit`, which no plan fits, is not planned);
/// below them, the
/// points are planned in the order of the least time any plan of them can
/// take (every node runs at least once: the program as it is), until that
/// bound reaches the best time found, at most kFrontierPlans plans. A
/// point whose program fits as it is (`asIs`) is simulated, not planned.
/// Updates `choice` (slots, time, frontierPoints, frontierChose; ties go to
/// fewer bytes).
void chooseOnFrontier(const TrainingGraph &graph, const AsIsTimeline &asIs,
                      int64_t budget, const std::vector<ScanSlotNode> &scans,
                      const PlanGraph &plan,
                      const std::vector<std::vector<int64_t>> &unfit,
                      ScanSlotChoice &choice);

} // namespace remat

#endif // REMAT_SOLVER_LOOP_SCANSLOTFRONTIER_H
