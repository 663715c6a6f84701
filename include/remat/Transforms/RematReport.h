//===- RematReport.h - What -remat-rematerialize decided, as JSON -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// {"functions": [{"name", "strategy" (the one that produced the schedule;
//   for auto, the winner), "budget", "peak_before", "peak_after",
//   "time_before", "time_after", "overhead", "overhead_percent",
//   "ops", "seconds": {"analysis", "solve", "rewrite", "check"},
//   "bound", "gap" (when an exact strategy proved them),
//   "stash_rings_dropped" (when a loop's stash rings were, StashRings.h),
//   "stash_rings_recomputed" (where the dropped rings' rows are computed),
//   "device_peaks" (each device's, when sizes depend on the device index),
//   "offload" (when values are copied to the host, offload=true):
//     {"host_peak" (host bytes, copies in order as the lowering runs them),
//      "device_peak_overlapped" (the plan's device peak with copies
//      overlapping compute over the link), "stall", "values": [{"op",
//      "loc", "bytes", "hidden", "returned_from_host" (a result left on
//      the host, offload-results=true), "awaited" (a run waits for its
//      copy to the host to end), "stall"}]},
//   "values": [{"op", "loc", "bytes", "decision": "kept"|"recomputed",
//               "recomputations"}]}]}
// Bytes are bytes; times are in the cost model's units (FLOPs unless a cost
// table says otherwise).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TRANSFORMS_REMATREPORT_H
#define REMAT_TRANSFORMS_REMATREPORT_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace remat {

struct ValueDecision {
  std::string op;  ///< Op name.
  std::string loc; ///< Location key (see costTableKey).
  int64_t bytes = 0;
  int recomputations = 0;
  /// For a shard collective: the time one run costs (what a re-run adds).
  std::optional<double> collectiveCost;
};

/// One part of a smallest budget (FloorBreakdown.h).
struct FloorEntry {
  /// "arguments", "results", "peak-op", "not-recomputable", "backward",
  /// "kept".
  std::string kind;
  int64_t bytes = 0;
  std::string op;  ///< For peak-op and not-recomputable: the op's name.
  std::string loc; ///< Its location key (costTableKey).
  std::string why; ///< For not-recomputable: the reason.
};

/// A value copied to the host and back (one stay): where it is made, its
/// bytes, and whether the link hides its copies (no run waits for them).
struct HostCopyDecision {
  std::string op, loc;
  int64_t bytes = 0;
  bool hidden = false;
  double stall = 0; ///< What the runs waiting for its copies lose.
  /// A result returned from its host copy (offload-results), never
  /// brought back.
  bool returnedFromHost = false;
  /// A run waits for its copy to the host to end (the plan's Await step).
  bool awaited = false;
};

/// Wall-clock seconds of each phase of the pass on one function.
struct PhaseSeconds {
  double analysis = 0, solve = 0, rewrite = 0, check = 0;
  double total() const { return analysis + solve + rewrite + check; }
};

struct FunctionReport {
  std::string name, strategy;
  int ops = 0; ///< Nodes of the planned graph.
  /// False when the function could not be fitted (its IR is unchanged);
  /// the report then has no peak/time after.
  bool fitted = false;
  /// When not fitted: the smallest budget found (-1: none).
  int64_t minimumBudget = -1;
  PhaseSeconds seconds;
  int64_t budget = 0, peakBefore = 0, peakAfter = 0;
  /// The budget was "min": `budget` is the smallest the strategy meets.
  bool budgetIsMinimum = false;
  double timeBefore = 0, timeAfter = 0;
  /// A proven lower bound on timeAfter's model and the optimality gap
  /// (checkmate-milp, or auto when it won); -1: unknown.
  double bound = -1, gap = -1;
  std::vector<ValueDecision> values;
  /// What the smallest budget is made of, when it was searched (a refusal,
  /// or budget=min); empty otherwise.
  std::vector<FloorEntry> floor;
  /// Dynamic shapes: the argument bounds the peaks are computed at
  /// ("arg0:0<=256"); the plan holds for every size up to them.
  std::string bounds;
  /// Stash rings dropped, their rows recomputed in the loop (StashRings.h).
  size_t stashRingsDropped = 0;
  /// Where the dropped rings' rows are computed (file:line:col), the layers
  /// every stage runs again in its backward slot.
  std::vector<std::string> stashRingsRecomputed;
  /// Where the rings that could have been dropped and were not are
  /// computed: the layers whose rows every stage keeps.
  std::vector<std::string> stashRingsKept;
  /// The rings are dropped on stages 0 .. stashRingStages-1 only (0: on
  /// every stage; StashRingStages.h).
  int64_t stashRingStages = 0;
  /// Each device's peak when sizes depend on the device index (the planned
  /// peak is the largest; DevicePeaks.h); empty otherwise.
  std::vector<int64_t> devicePeaks;
  /// A pipelined step's critical path before and after (PipelineTime.h),
  /// and each device's busy time after; negative: not a pipeline.
  double pipelineTimeBefore = -1, pipelineTimeAfter = -1;
  /// With rings dropped on the leading stages only: the critical path had
  /// every stage dropped them (the one plan for every stage); negative:
  /// not computed.
  double pipelineTimeEveryStage = -1;
  std::vector<double> deviceBusy;
  /// Values offloaded to the host (empty without offload=true).
  std::vector<HostCopyDecision> offloaded;
  /// With offloaded values: the host peak and the overlapped device peak
  /// ("offload" above) and the plan's total stall.
  int64_t hostPeak = 0, overlappedPeak = 0;
  double stall = 0;
  /// Scans whose stacks are kept in host memory (HostStacks.h; with
  /// offload=true): where each forward loop is, and its stacks' bytes.
  struct HostStacks {
    std::string loc;
    int64_t bytes = 0;
  };
  std::vector<HostStacks> hostStacks;
};

/// "42.0%" of `whole` (one decimal), "n/a" when `whole` is not positive: how
/// remarks and errors state peaks, budgets and overheads.
std::string percentOf(double part, double whole);

class RematReport {
public:
  FunctionReport &add(llvm::StringRef name, llvm::StringRef strategy,
                      int64_t budget);
  FunctionReport &add(FunctionReport function);
  /// A function left alone because it is not a training step.
  void addSkipped(llvm::StringRef name, llvm::StringRef reason);
  /// Writes the JSON file; false with `error` set on I/O failure.
  bool write(llvm::StringRef path, std::string &error) const;
  std::string str() const;

private:
  std::deque<FunctionReport> functions; // Stable references for add().
  std::vector<std::pair<std::string, std::string>> skipped; ///< Name, why.
};

} // namespace remat

#endif // REMAT_TRANSFORMS_REMATREPORT_H
