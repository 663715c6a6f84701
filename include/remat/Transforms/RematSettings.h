//===- RematSettings.h - What -remat-rematerialize is told to do ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The settings of -remat-rematerialize and -remat-fit as plain values, and
// their check. RematOptionDecls.h declares them as options; this header
// keeps MLIR's option machinery out of the code that only passes them on.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TRANSFORMS_REMATSETTINGS_H
#define REMAT_TRANSFORMS_REMATSETTINGS_H

#include "remat/Solver/Core/CopyLink.h"
#include "remat/Solver/Core/SolveOptions.h"
#include "remat/Support/AllocAlignment.h"

#include <optional>
#include <string>
#include <vector>

namespace remat {

struct RematSettings {
  std::string budget; ///< "2GiB", "60%"; required.
  std::string strategy = "auto";
  std::string report;    ///< JSON report file ("": none).
  std::string costTable; ///< Measured per-op costs ("": the FLOP model).
  std::vector<std::string> functions; ///< Empty: every training step.
  /// "argK:D=N": bounds of dynamic argument dimensions (ShapeBounds.h).
  std::vector<std::string> dimBounds;
  /// How the target rounds allocations (bytes, a power of two): every
  /// buffer counts its size rounded up to it (AllocAlignment.h).
  int64_t alignment = kDefaultAllocAlignment;
  /// Slots of every scan's checkpoints (0: chosen with the plan).
  int64_t scanSlots = 0;
  /// Host offload: the planner may copy values to the host and back
  /// (issue 51), over a link of this bandwidth (GB/s) and latency (us).
  bool offload = false;
  /// With offload: results (gradients) may be returned from host memory.
  bool offloadResults = false;
  double linkBandwidth = CopyLinkOptionText::kBandwidthGBps;
  double linkLatency = CopyLinkOptionText::kLatencyUs;
  /// With offload: the host bytes a plan may hold ("8GiB"; "": unbounded).
  std::string hostBudget;
  /// With offload: copies to the host block what runs after them, as
  /// -remat-lower-to-gpu runs them (CopyLink::offloadsBlock).
  bool offloadBlocking = false;
  /// The strategies' options (allStrategyOptions()); the per-function
  /// fields (budget, cache, note) are set by the pass.
  SolveOptions solve;
};

/// What is wrong with `settings` (budget syntax, strategy name, an option out
/// of range), naming the option; std::nullopt when nothing is. Checked
/// before any input is read.
std::optional<std::string> checkRematSettings(const RematSettings &settings);

} // namespace remat

#endif // REMAT_TRANSFORMS_REMATSETTINGS_H
