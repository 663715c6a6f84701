//===- RecomputeHints.h - Enforce #remat.policy<recompute> ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A value marked #remat.policy<recompute> must not stay live from the forward
// into the backward pass. Enforced on the graph, so every strategy honours
// it: the backward readers of the value read a copy of its op instead (a
// backward node, run once where the backward pass needs it), and copies of
// hinted values read the copies of hinted inputs. The original then dies in
// the forward pass. Hints that cannot hold (side effects, randomness, a
// returned value) are errors at the op.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TRANSFORMS_RECOMPUTEHINTS_H
#define REMAT_TRANSFORMS_RECOMPUTEHINTS_H

#include "remat/Analysis/TrainingGraphBuilder.h"

namespace remat {

mlir::LogicalResult applyRecomputeHints(IRTrainingGraph &graph);

} // namespace remat

#endif // REMAT_TRANSFORMS_RECOMPUTEHINTS_H
