//===- Materialize.h - Turn a Schedule into IR ------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The one materializer every strategy goes through. Given the graph of a
// function (built with RecomputeRegions::Atomic) and a valid Schedule of it,
// reorders the body so that
//  - each node's first run is its original op, moved to its place in the
//    schedule;
//  - every later run of a forward node is a clone; consecutive recomputations
//    become one `remat.recompute` op placed where the schedule runs them
//    (right before the backward ops that need them), reading the newest
//    copies of what they start from and yielding what is used later;
//  - every use reads the newest copy of its value, and a view of a value
//    that has a newer copy (prefetched or recomputed) is made again of it;
//  - an Offload step is a `remat.offload` of the newest copy, placed where
//    the schedule issues it; a Prefetch step a `remat.prefetch` of that
//    host copy, which later uses read; a result whose last step is an
//    Offload is returned from its host copy.
// Free steps have no IR form: values die at their last use, which is where
// the schedule frees them.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TRANSFORMS_MATERIALIZE_H
#define REMAT_TRANSFORMS_MATERIALIZE_H

#include "remat/Analysis/TrainingGraphBuilder.h"

namespace remat {

/// Statistics of a materialization, for remarks and reports.
struct MaterializeResult {
  int recomputeOps = 0;  ///< remat.recompute ops created.
  int clonedOps = 0;     ///< Ops cloned into them.
  int hostCopies = 0;    ///< remat.offload ops created (one per stay).
};

mlir::FailureOr<MaterializeResult>
materializeSchedule(mlir::func::FuncOp func, const IRTrainingGraph &graph,
                    const Schedule &schedule);

} // namespace remat

#endif // REMAT_TRANSFORMS_MATERIALIZE_H
