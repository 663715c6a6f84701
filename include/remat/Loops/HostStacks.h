//===- HostStacks.h - A scan's stacks kept in host memory -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The third choice for a scan's stored values (issue 51), beside keeping
// its stacks on the device and checkpointing its carries: keep the stacks in
// host memory. Each forward iteration copies the row it stores to the host
// (remat.offload_row into a remat.host_empty stack), each read copies its
// row back (remat.prefetch_row), so the device holds no row of the stack
// beyond the one in flight and nothing is recomputed: JAX's offloaded scan
// residuals. Meaning and values are unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LOOPS_HOSTSTACKS_H
#define REMAT_LOOPS_HOSTSTACKS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>
#include <string>

namespace remat {

/// Why the stacks of the scan `forward` begins (ScanLoops.h) cannot move to
/// the host, or std::nullopt when they can: a forward loop of known length
/// (an scf.for, or a counted scf.while) whose stacks are stored whole rows
/// along their leading dimension (time-major; the row's type, or with a
/// leading unit dimension) into a tensor.empty of their own (rows stored
/// before the loop included; or a fill of one that the loop overwrites
/// whole, as JAX zero-fills a scan's outputs), each read back as a whole
/// row and nowhere else.
std::optional<std::string> whyNoHostStacks(mlir::Operation *forward);

/// Moves the stacks of every scan of `func` that can (whyNoHostStacks) to
/// host memory; returns how many scans.
int putScanStacksOnHost(mlir::func::FuncOp func);

} // namespace remat

#endif // REMAT_LOOPS_HOSTSTACKS_H
