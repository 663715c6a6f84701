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

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace remat {

/// Why the stacks of the scan `forward` begins (ScanLoops.h) cannot move to
/// the host, or std::nullopt when they can: stacks stored whole rows along
/// one axis (the row's type, or with its unit dimension) into a
/// tensor.empty of their own (rows stored before the loop included; or a
/// fill of one that a loop of known length overwrites whole, as JAX
/// zero-fills a scan's outputs), each read back as a whole row and nowhere
/// else. On the host every stack is time-major, a row one contiguous copy.
std::optional<std::string> whyNoHostStacks(mlir::Operation *forward);

/// A scan whose stacks moved: its loops and the stacks' bytes.
struct HostStackScan {
  mlir::Operation *forward;
  mlir::Operation *backward;
  int64_t bytes;
};

/// Moves the stacks of every scan of `func` that can (whyNoHostStacks) to
/// host memory; returns those scans, in program order.
std::vector<HostStackScan> putScanStacksOnHost(mlir::func::FuncOp func);

} // namespace remat

#endif // REMAT_LOOPS_HOSTSTACKS_H
