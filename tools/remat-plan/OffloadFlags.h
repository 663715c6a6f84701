//===- OffloadFlags.h - remat-plan's --offload and its link ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// --offload plans with host memory (the strategy offload-greedy) over a
// link given in GB/s and microseconds, converted here into the graph
// file's time unit, the only unit the solver's CopyLink knows.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TOOLS_REMAT_PLAN_OFFLOADFLAGS_H
#define REMAT_TOOLS_REMAT_PLAN_OFFLOADFLAGS_H

#include "remat/Solver/Core/CopyLink.h"
#include "remat/Support/Units.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <optional>

namespace remat {

/// Seconds in one time unit of a graph file: s, ms, us, ns; "flop" and
/// "table" (the analytic model's and calibrated tables' units, exported by
/// -remat-export-graph) count about a nanosecond each. std::nullopt for
/// any other label (the text format's "unit").
std::optional<double> secondsPerTimeUnit(llvm::StringRef unit);

class OffloadFlags {
public:
  /// Declares the flags in `category`; call before parsing.
  explicit OffloadFlags(llvm::cl::OptionCategory &category);

  /// Whether --offload was given.
  bool enabled() const;
  /// Whether --offload-results was given.
  bool resultsMayLeave() const;
  /// Whether --offload-blocking was given.
  bool blocks() const;
  /// The link in the file's time unit (--offload-blocking: copies to the
  /// host block), or an error naming the flag.
  llvm::Expected<CopyLink> link(llvm::StringRef timeUnit) const;
  /// --host-budget in bytes (a bare number in the file's memory unit),
  /// std::nullopt when not given, or an error naming the flag.
  llvm::Expected<std::optional<int64_t>> hostBudget(const Units &units) const;

private:
  llvm::cl::opt<bool> offload;
  llvm::cl::opt<bool> results;
  llvm::cl::opt<double> bandwidth;
  llvm::cl::opt<double> latency;
  llvm::cl::opt<bool> blocking;
  llvm::cl::opt<std::string> host;
};

} // namespace remat

#endif // REMAT_TOOLS_REMAT_PLAN_OFFLOADFLAGS_H
