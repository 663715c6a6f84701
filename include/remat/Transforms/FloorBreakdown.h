//===- FloorBreakdown.h - What the smallest budget is made of ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A refused budget names the smallest one the strategy meets; this says why
// it is that high. At the peak of the plan for that budget, every live byte
// is put in one part: the arguments, the results and gradients as
// produced, the inputs and outputs of the op running at the peak, values of
// ops no plan may recompute (each named with its location and the reason),
// backward values in flight, and forward values the plan chose to keep.
// The parts add up to the smallest budget exactly (the Simulator's peak).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TRANSFORMS_FLOORBREAKDOWN_H
#define REMAT_TRANSFORMS_FLOORBREAKDOWN_H

#include "remat/Solver/Core/Schedule.h"
#include "remat/Transforms/RematReport.h"

#include "mlir/IR/Diagnostics.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace remat {

struct IRTrainingGraph;

/// A FloorEntry (RematReport.h, as the report writes it) and where its op
/// is, for notes.
struct FloorPart : FloorEntry {
  std::optional<mlir::Location> where;
};

struct FloorBreakdown {
  int64_t total = 0; ///< The peak: the sum of the parts.
  std::vector<FloorPart> parts;
};

/// The parts of the peak of `schedule` on `ig` (valid schedules only).
FloorBreakdown explainPeak(const IRTrainingGraph &ig,
                           const Schedule &schedule);

/// One note per part on `diag`, at the op's location where there is one.
void attachFloorNotes(mlir::InFlightDiagnostic &diag,
                      const FloorBreakdown &floor);

} // namespace remat

#endif // REMAT_TRANSFORMS_FLOORBREAKDOWN_H
