//===- TensorCarries.h - A scan's scalar carries as 0-d tensors -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A scan's forward loop may carry a float scalar beside its state (a loss
// summed as it goes, in an f32). The checkpoints are rows of tensors, so
// the scan matcher takes only tensors as carries: such a scalar is carried
// as a 0-d tensor instead (tensor.from_elements of the init, tensor.extract
// of the argument at the body's start, tensor.from_elements of the value
// yielded, tensor.extract of the result after the loop). The meaning is
// unchanged. The inverse of ScalarCounters.h, which makes integer 0-d
// tensors (counters) scalars; integers are left as they are.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LOOPS_TENSORCARRIES_H
#define REMAT_LOOPS_TENSORCARRIES_H

#include "mlir/IR/Operation.h"

namespace remat {

/// Carries the float scalar iteration arguments of every loop under `root`
/// that stacks (yields, for some iteration argument, a row written into it
/// at a row that moves with the iteration) as 0-d tensors: an scf.for, or
/// an scf.while whose condition forwards its arguments unchanged, in order.
/// Returns how many it changed.
int carryFloatScalarsAsTensors(mlir::Operation *root);

} // namespace remat

#endif // REMAT_LOOPS_TENSORCARRIES_H
