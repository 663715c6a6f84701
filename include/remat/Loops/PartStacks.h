//===- PartStacks.h - Stacks written in several parts per iteration -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A loop may stack several values per iteration into one tensor, each at
// a constant index of a part axis: `stack[i, j]` for each of a pipeline
// stage's layers j, as a `[T, L, B, W]` tensor written in L parts per
// iteration. Each part is written into the one before, not into the
// iteration argument, so the scan matcher (ScanLoops.h) sees state, not a
// stack. Such a stack is L stacks side by side: this normalization splits
// the iteration argument into one per part (`[T, 1, B, W]` each, the part
// axis kept), each written once per iteration into its own argument, and
// rewrites every read of a part, in the loop and after it, as a read of
// that part's stack. The meaning and the bytes are unchanged.
//
// A loop is left as it is unless: the value yielded for the argument is a
// chain of at least two `tensor.insert_slice`s, each into the one before,
// the first into the argument, the last yielded for it alone; on one axis
// every write has a constant offset and size (stride 1) and the writes'
// ranges there are disjoint (the parts); every write also has an offset
// that is not a constant (it moves with the iteration); and every other
// use of the argument, of each value of the chain (a read between two
// writes, or after the last: a ring read back in the same iteration) and
// of the loop's result is a `tensor.extract_slice` within one part. A read
// of the whole packed tensor (a loss over every part at once) keeps it
// whole.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LOOPS_PARTSTACKS_H
#define REMAT_LOOPS_PARTSTACKS_H

#include "mlir/IR/Operation.h"

namespace remat {

/// Splits every stack written in parts, as above, of every loop under
/// `root` (scf.for, or an scf.while whose condition forwards its arguments
/// unchanged, in order). Returns how many stacks it split.
int splitPartStacks(mlir::Operation *root);

} // namespace remat

#endif // REMAT_LOOPS_PARTSTACKS_H
