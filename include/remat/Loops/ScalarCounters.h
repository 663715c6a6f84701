//===- ScalarCounters.h - Loop counters held in 0-d tensors -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// StableHLO has no scalars: a `while` carries its counter as `tensor<i32>`,
// and after `stablehlo-legalize-to-linalg` and
// `stablehlo-legalize-control-flow` the counter of a `lax.scan` or
// `fori_loop` is an scf.while argument of type tensor<i32>, compared and
// incremented by linalg.generic ops of rank 0 and read by tensor.extract.
// The scan matcher reads counters as integers; this normalization makes
// them so, with the meaning unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LOOPS_SCALARCOUNTERS_H
#define REMAT_LOOPS_SCALARCOUNTERS_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"

namespace remat {

/// In every function under `root` whose scf loops carry a 0-d tensor of
/// integers (or index, or i1): such carries become scalars (the loops',
/// their conditions' and yields' types converted by upstream's SCF
/// structural type conversion, tensor.from_elements / tensor.extract at the
/// edges), and pure rank-0 linalg ops on integers become the scalar ops of
/// their bodies, so that `%i + 1` and `%i < 64` read as they would have been
/// written on an i32. Float 0-d tensors (a loss) are left as they are; so
/// is a function whose conversion fails (rolled back, with a remark). Sets
/// `changed` when a function changed.
mlir::LogicalResult scalarizeTensorCounters(mlir::Operation *root,
                                            bool &changed);

/// In every scf.for under `root` with constant lower bound and step: a
/// scalar carry the loop yields plus a constant c (a counter kept beside the
/// induction variable, as IREE's input conversion keeps a `fori_loop`'s) is
/// read in the body as init + c * k, k = (iv - lower) / step: the same
/// value, wrapping as the adds wrap, now a function of the induction
/// variable. The carry stays for its increment and the loop's result;
/// where that result is unread, the carry is yielded unchanged instead
/// (canonicalization then drops it).
/// Returns how many carries it rewrote.
int readLoopCountersAsIterations(mlir::Operation *root);

} // namespace remat

#endif // REMAT_LOOPS_SCALARCOUNTERS_H
