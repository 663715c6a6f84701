//===- Simulator.h - The one judge of schedules ---------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Replays a Schedule on a TrainingGraph, rejects invalid ones and measures
// peak memory and total time. Memory model (the rotor paper's, Sec. 3.1):
// while a node runs, memory holds every stored tensor, its stored outputs and
// its workspace; a Free step releases a tensor right away. An in-place
// node (Node::overwrites) whose run is the last read of the input it
// overwrites (the input's Free follows before the next run) holds the two
// once. Inputs are live from the start. A schedule is valid when
//  - every Run reads only live tensors and stores no tensor that is live;
//  - non-recomputable forward nodes and all backward nodes run exactly once;
//  - Free releases a live tensor that is neither an input nor required;
//  - every node runs at least once and every required output is live at
//    the end, on the device or on the host (a result offloaded and not
//    brought back is returned from host memory);
//  - Offload copies a live tensor that is not an input to the host (it
//    cannot be read or recomputed until a Prefetch brings it back);
//    Prefetch copies back a tensor that is on the host; Await names a
//    tensor whose copy to the host was issued and that is not back yet.
//
// Time: compute runs the Run steps in order; each copy direction is one
// in-order stream on the CopyLink beside it. An Offload starts when it is
// issued (the end of the previous run), its stream is free and its tensor
// is on the device, and ends `offloadTime` later; the tensor's device
// bytes count until then (during every run that starts before the end) and
// its host bytes from the issue. A Prefetch starts when issued, its stream
// is free and the offload has ended; its device bytes count from the issue
// (the buffer is allocated before the copy is enqueued), its host bytes
// until it ends. A run starts when the previous one ends and every input
// has arrived: a late prefetch stalls it. After an Await, runs also wait
// for the end of that tensor's offload (its bytes are then gone before the
// next run; the wait is the copy's stall). The time is the critical path,
// the last of compute and both streams. Without copy steps this is the sum
// of the run times, as before.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_CORE_SIMULATOR_H
#define REMAT_SOLVER_CORE_SIMULATOR_H

#include "remat/Solver/Core/CopyLink.h"
#include "remat/Solver/Core/Schedule.h"

#include <string>
#include <vector>

namespace remat {

/// One stay of a tensor on the host: its Offload and the Prefetch that
/// brings it back (none: it stays there).
struct HostCopy {
  TensorId tensor = kNone;
  int64_t bytes = 0;
  long offloadStep = -1, prefetchStep = -1;
  double offloadStart = 0, offloadEnd = 0;
  double prefetchStart = -1, prefetchEnd = -1;
  /// Compute time lost waiting for the prefetch (or for the offload, at an
  /// Await or with CopyLink::offloadsBlock).
  double stall = 0;
  /// No run waited for it and both copies ended by the end of compute.
  bool hidden = false;
  /// An Await step names it: the runs after that step wait for its
  /// offload to end.
  bool awaited = false;
};

struct SimulationResult {
  bool valid = false;
  std::string error;     ///< Why the schedule is invalid.
  long errorStep = -1;   ///< Index of the offending step, -1 at the end.
  int64_t peak = 0;      ///< Peak bytes, workspace included.
  long peakStep = -1;    ///< Step where the peak is reached (-1: initial).
  /// The critical path of compute and both copy streams; without copies,
  /// the sum of the times of all Run steps.
  double time = 0;
  /// Compute time lost waiting for prefetches.
  double stall = 0;
  /// Peak bytes on the host (copies only; graph inputs are not counted).
  int64_t hostPeak = 0;
  /// Every offload, in order.
  std::vector<HostCopy> hostCopies;
  /// Bytes stored after each step (workspace excluded), when requested.
  std::vector<int64_t> liveAfterStep;
  /// Bytes held during each step (workspace included), when requested.
  std::vector<int64_t> usageDuringStep;
  /// The tensors live while the peak step runs (its outputs included, and
  /// tensors whose offload has not ended; not an in-place node's input held
  /// in its output's storage), when requested: what the peak is made of.
  std::vector<TensorId> liveAtPeak;
};

struct SimulatorOptions {
  bool recordTimeline = false;
  bool recordLiveAtPeak = false;
  /// Times Offload and Prefetch steps; a schedule with copies is invalid
  /// when it is not usable().
  CopyLink link;
};

SimulationResult simulate(const TrainingGraph &g, const Schedule &s,
                          const SimulatorOptions &opts = {});

/// Bytes of all graph inputs: live throughout every schedule.
int64_t inputBytes(const TrainingGraph &g);

/// A peak no valid schedule goes below: the inputs plus the larger of the
/// required outputs (live together at the end) and the biggest single step
/// (a node's operands, outputs and workspace, live together while it runs,
/// an in-place node's overwritten input and first output once).
/// Where results may leave for the host (resultsMayLeave), the step alone.
int64_t peakLowerBound(const TrainingGraph &g, bool resultsMayLeave = false);

} // namespace remat

#endif // REMAT_SOLVER_CORE_SIMULATOR_H
