//===- StashRingStages.h - Stash rings dropped on some stages only -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A plan per stage for a pipeline step whose stash rings are sized from the
// stage index (an asynchronous 1F1B step: stage s holds min(P - s, M)
// micro-batches). The plan that fits the budget drops rings on every stage,
// chosen for the stage that holds the most; a stage that holds fewer rows
// may fit with them kept. Measured under MPI (docs/distributed.md), the
// recomputation of a later stage is on the pipeline's critical path, so
// keeping its rings is faster; and keeping them on fewer stages never adds
// work to any stage. This finds the fewest leading stages that must drop
// the rings for every device's peak (DevicePeaks.h) to stay within the
// budget.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TRANSFORMS_STASHRINGSTAGES_H
#define REMAT_TRANSFORMS_STASHRINGSTAGES_H

#include "remat/Analysis/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>
#include <utility>
#include <vector>

namespace remat {

/// Rings to drop: (the loop's index in walk order, its iteration arguments).
using RingsByLoop =
    llvm::SmallVector<std::pair<size_t, llvm::SmallVector<unsigned>>>;

struct StagePlan {
  /// The step (prepared) with the rings dropped on stages 0 .. stages-1.
  mlir::OwningOpRef<mlir::func::FuncOp> func;
  int64_t stages = 0;
  /// Every device's peak.
  std::vector<int64_t> peaks;
};

/// `written` with `rings` dropped on the fewest leading stages (fewer than
/// all) that keep every device's peak within `budget`; std::nullopt when
/// none does, when the step reads no one-dimensional stage index before its
/// loops, or when a ring is not of the form StashRings.h's
/// recomputeStashRingsWhere takes (with its `share`).
std::optional<StagePlan> dropRingsOnLeadingStages(mlir::func::FuncOp written,
                                                  const RingsByLoop &rings,
                                                  int64_t budget,
                                                  const CostModel &costs,
                                                  mlir::Operation *scope,
                                                  bool share = true);

} // namespace remat

#endif // REMAT_TRANSFORMS_STASHRINGSTAGES_H
