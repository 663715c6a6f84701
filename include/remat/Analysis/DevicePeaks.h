//===- DevicePeaks.h - The peak of a sharded step on each device -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every device runs the same program, planned at its sizes' bounds: the
// peak the planner predicts is at least every device's. Where a size
// depends on the device index (a 1F1B stage's ring of 2 (P - s) - 1 rows),
// the other devices hold less, and where a branch on it chooses what a
// device does (a stage that recomputes where the others read back), each
// device holds only its own choice's buffers while the bounds combine
// every choice's; this is each device's peak, by the same lifetime
// analysis, with the device index replaced by that device's and what it
// decides folded.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_ANALYSIS_DEVICEPEAKS_H
#define REMAT_ANALYSIS_DEVICEPEAKS_H

#include "remat/Analysis/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <vector>

namespace remat {

/// At most this many devices are analysed one by one.
constexpr int64_t kMaxDevicePeaks = 64;

/// The one grid the device indexes of `func` read, looked up from `func`
/// and then from `symbolScope`; null when they read none, several grids or
/// one not found. `indexes` gets the index ops.
mlir::shard::GridOp
indexedGrid(mlir::func::FuncOp func, mlir::Operation *symbolScope,
            llvm::SmallVectorImpl<mlir::Operation *> &indexes);

/// A copy of `func` as device `device` (linear, row-major over
/// `gridShape`) runs it: each device index a constant, the integer
/// arithmetic it feeds folded and each scf.if it decides replaced by the
/// branch taken.
mlir::OwningOpRef<mlir::func::FuncOp>
onDevice(mlir::func::FuncOp func, llvm::ArrayRef<int64_t> gridShape,
         int64_t device);

/// The peak of `func` on each device (linear index order) of the one grid
/// its device indexes (`shard.process_linear_index`,
/// `shard.process_multi_index`) read, when it has dynamic sizes: empty
/// when it has none, when they read several grids or one of unknown or more
/// than kMaxDevicePeaks devices, or when a device's copy cannot be analysed.
/// `symbolScope`: where the grid is found (default: the function's parent).
std::vector<int64_t> devicePeaks(mlir::func::FuncOp func, const CostModel &costs,
                                 mlir::Operation *symbolScope = nullptr);

} // namespace remat

#endif // REMAT_ANALYSIS_DEVICEPEAKS_H
