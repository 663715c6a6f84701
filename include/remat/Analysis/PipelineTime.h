//===- PipelineTime.h - A pipelined step's critical path ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The planner's time is the sum of a step's ops: right for one device, and
// for SPMD steps whose ranks run the same ops in lock-step. In a pipeline
// the ranks wait for each other: stage s's backward of a micro-batch waits
// for stage s + 1's, and a stage with nothing to do idles (the bubbles). Its
// step time is the critical path of every device's ops and the messages
// between them, and recomputation on a device that would idle anyway costs
// none of it. This runs the step's control flow on every device (the
// device index, loop counters and the integer arithmetic on them known,
// what PyTorch's and JAX's pipeline schedules decide with), lists each
// device's ops between its messages, and replays them together:
//  - an op takes its cost-model time on its device;
//  - `shard.send` takes its time, and its message is there when it ends
//    (MPICH sends these sizes eagerly);
//  - `shard.recv` waits for the matching message (in order, per pair of
//    devices) and then takes its time;
//  - `shard.shift` is a send to the next device along its axis and a
//    receive from the previous one;
//  - the other collectives end for every device of their group together,
//    their time after the last one arrives.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_ANALYSIS_PIPELINETIME_H
#define REMAT_ANALYSIS_PIPELINETIME_H

#include "remat/Analysis/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>
#include <string>
#include <vector>

namespace remat {

struct PipelineTime {
  /// When the last device finishes (the cost model's units).
  double criticalPath = 0;
  /// Per device (linear index order): when it finishes, and the time of its
  /// own ops (the rest is waiting).
  std::vector<double> finish, busy;
};

/// The critical path of `func` when it is a pipelined step: it passes
/// tensors between devices (`shard.send`/`shard.recv`/`shard.shift`) and
/// reads the device index of one grid of at most kMaxDevicePeaks devices.
/// std::nullopt for any other function, and where the replay cannot be made
/// (a trip count or a branch not decided by the known integers, a size
/// without a bound, devices waiting for each other forever, a message never
/// received, more than a few million ops run): then `whyNot`, when given,
/// says which (empty for a function that is no pipeline), and `hangs`
/// whether it is that some device waits forever (the step hangs when run).
std::optional<PipelineTime> pipelineTime(mlir::func::FuncOp func,
                                         const CostModel &costs,
                                         mlir::Operation *symbolScope = nullptr,
                                         std::string *whyNot = nullptr,
                                         bool *hangs = nullptr);

} // namespace remat

#endif // REMAT_ANALYSIS_PIPELINETIME_H
