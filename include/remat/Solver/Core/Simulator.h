//===- Simulator.h - The one judge of schedules ---------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Replays a Schedule on a TrainingGraph, rejects invalid ones and measures
// peak memory and total time. Memory model (the rotor paper's, Sec. 3.1):
// while a node runs, memory holds every stored tensor, its stored outputs and
// its workspace; a Free step releases a tensor right away. Inputs are live
// from the start. A schedule is valid when
//  - every Run reads only live tensors and stores no tensor that is live;
//  - non-recomputable forward nodes and all backward nodes run exactly once;
//  - Free releases a live tensor that is neither an input nor required;
//  - every node runs at least once and every required output is live at
//    the end.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_CORE_SIMULATOR_H
#define REMAT_SOLVER_CORE_SIMULATOR_H

#include "remat/Solver/Core/Schedule.h"

#include <string>
#include <vector>

namespace remat {

struct SimulationResult {
  bool valid = false;
  std::string error;     ///< Why the schedule is invalid.
  long errorStep = -1;   ///< Index of the offending step, -1 at the end.
  int64_t peak = 0;      ///< Peak bytes, workspace included.
  long peakStep = -1;    ///< Step where the peak is reached (-1: initial).
  double time = 0;       ///< Sum of the times of all Run steps.
  /// Bytes stored after each step (workspace excluded), when requested.
  std::vector<int64_t> liveAfterStep;
  /// Bytes held during each step (workspace included), when requested.
  std::vector<int64_t> usageDuringStep;
  /// The tensors live while the peak step runs (its outputs included),
  /// when requested: what the peak is made of.
  std::vector<TensorId> liveAtPeak;
};

struct SimulatorOptions {
  bool recordTimeline = false;
  bool recordLiveAtPeak = false;
};

SimulationResult simulate(const TrainingGraph &g, const Schedule &s,
                          const SimulatorOptions &opts = {});

/// Bytes of all graph inputs: live throughout every schedule.
int64_t inputBytes(const TrainingGraph &g);

/// A peak no valid schedule goes below: the inputs plus the larger of the
/// required outputs (live together at the end) and the biggest single step
/// (a node's operands, outputs and workspace, live together while it runs).
int64_t peakLowerBound(const TrainingGraph &g);

} // namespace remat

#endif // REMAT_SOLVER_CORE_SIMULATOR_H
