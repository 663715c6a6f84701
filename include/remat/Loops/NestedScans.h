//===- NestedScans.h - A scan over a scan, unrolled outside -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A scan inside a scan (time inside layers: `lax.scan` over stacked layer
// parameters whose body is a `lax.scan` over time) hides the inner scans
// from the scan matcher: the inner forward loop is in the outer forward's
// body, its backward in the outer backward's, and what links them is a row
// of an outer stack. When the outer loops run few iterations (layers, not
// time steps), unrolling them is cheap and exposes everything: each inner
// forward loop and its backward then sit in the function's block, the
// outer stacks' rows written at constant rows and read back inside what
// one of them wrote (the layer's whole stack, or its row t read straight
// from the outer stack, [l, t] of [L, T, ...] or [T, ..., l] of
// [T, ..., L]) forward to the reads (the stacks, then unread, are erased),
// and the
// inner scans are matched and checkpointed like any other while the
// planner chooses which layer inputs to keep, as in the unrolled twin.
//
// The outer pair is an scf.for that stacks and holds a loop in its body
// (the forward) and the scf.for loops after it that read its results in
// their bodies and hold a loop too (the backward), each of a constant trip
// count of at most kMostOuterIterations. A longer outer loop is left as it
// is: its body is one node of the plan, its inner scans not checkpointed
// (-remat-fit says so in a remark).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LOOPS_NESTEDSCANS_H
#define REMAT_LOOPS_NESTEDSCANS_H

#include "mlir/IR/Operation.h"

#include <cstdint>

namespace remat {

/// The most iterations of an outer scan unrolled to expose its inner ones.
constexpr int64_t kMostOuterIterations = 16;

/// Unrolls every outer scan pair under `root` as above and forwards the
/// rows its stacks held; returns how many loops it unrolled.
int unrollScansOfScans(mlir::Operation *root);

} // namespace remat

#endif // REMAT_LOOPS_NESTEDSCANS_H
