//===- ConsumedStacks.h - Written into the stack it consumes ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A backward loop over time reads row t of the gradient stack the layer
// above produced and writes row t of its own (the gradient of its input):
// two stacks of T rows, live together through the loop. Each row of the
// first is read at the iteration that writes the same row of the second,
// and never after, so the second can be written into the first: the loop
// starts from the consumed stack instead of a fresh one, and reads its rows
// from its own iteration argument, before that iteration's write. Where the
// loop writes every row of the stack, what it started from does not matter;
// one stack's bytes are saved, as the unrolled twin saves them by freeing
// each row as it is consumed.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LOOPS_CONSUMEDSTACKS_H
#define REMAT_LOOPS_CONSUMEDSTACKS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace remat {

/// Rewrites, in `func`'s body, each scf.for whose iteration argument is a
/// stack it writes every row of (from a tensor.empty), one row an iteration,
/// and which reads a stack of the same type computed before it, dead after
/// it, only at the row it writes at the same iteration, each read's readers
/// coming before that write: the loop then writes into the read stack.
/// Returns how many rewrites it made (stacks reused, and slices taking a
/// whole tensor replaced by the tensor, which the search looks through).
int writeIntoConsumedStacks(mlir::func::FuncOp func);

} // namespace remat

#endif // REMAT_LOOPS_CONSUMEDSTACKS_H
