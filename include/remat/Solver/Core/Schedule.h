//===- Schedule.h - An execution order with explicit frees ----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The single result type of every strategy: an ordered list of steps. A Run
// step executes a node (a forward node may run several times: that is a
// recomputation); a Free step releases a tensor. Run steps may discard some
// outputs: they are computed inside the node but never stored (the rotor
// paper's F_ck / F_none on a chain stage, whose autograd history is dropped).
// Discarding is meant for stage-level graphs; op-level graphs from the IR
// materialize every result.
//
// Offload and Prefetch steps move a tensor to host memory and back over a
// copy link that runs beside compute (Simulator.h has the time model): an
// Offload starts a device-to-host copy of a live tensor, whose device bytes
// are released when the copy ends; a Prefetch starts the copy back, whose
// device bytes are held from that step on. Strategies that do not offload
// never emit them. An Await step makes the runs after it wait until the
// copy to the host of its tensor has ended (XLA's copy-done): the device
// bytes are gone before the next run starts, at the price of a stall where
// the copy is slower than the compute before it.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_CORE_SCHEDULE_H
#define REMAT_SOLVER_CORE_SCHEDULE_H

#include "remat/Solver/Core/TrainingGraph.h"

#include <string>
#include <vector>

namespace remat {

struct Step {
  enum class Kind : uint8_t { Run, Free, Offload, Prefetch, Await };
  Kind kind = Kind::Run;
  int32_t id = kNone; ///< NodeId for Run, TensorId for the other kinds.
  std::vector<TensorId> discard; ///< Run only: outputs not stored.

  static Step run(NodeId n, std::vector<TensorId> discard = {}) {
    return Step{Kind::Run, n, std::move(discard)};
  }
  static Step free(TensorId t) { return Step{Kind::Free, t, {}}; }
  static Step offload(TensorId t) { return Step{Kind::Offload, t, {}}; }
  static Step prefetch(TensorId t) { return Step{Kind::Prefetch, t, {}}; }
  static Step await(TensorId t) { return Step{Kind::Await, t, {}}; }
  bool isRun() const { return kind == Kind::Run; }
  bool isFree() const { return kind == Kind::Free; }
  bool isOffload() const { return kind == Kind::Offload; }
  bool isPrefetch() const { return kind == Kind::Prefetch; }
  /// The next runs wait for the end of this tensor's copy to the host.
  bool isAwait() const { return kind == Kind::Await; }
  /// Offload or Prefetch: a step of the copy link.
  bool isCopy() const { return isOffload() || isPrefetch(); }
  bool operator==(const Step &o) const {
    return kind == o.kind && id == o.id && discard == o.discard;
  }
};

class Schedule {
public:
  Schedule() = default;
  explicit Schedule(std::vector<Step> steps) : steps_(std::move(steps)) {}

  void run(NodeId n, std::vector<TensorId> discard = {}) {
    steps_.push_back(Step::run(n, std::move(discard)));
  }
  void free(TensorId t) { steps_.push_back(Step::free(t)); }
  void offload(TensorId t) { steps_.push_back(Step::offload(t)); }
  void prefetch(TensorId t) { steps_.push_back(Step::prefetch(t)); }
  /// Whether some step is an Offload or a Prefetch (an Await needs one).
  bool hasCopies() const;
  void append(const Schedule &other);

  const std::vector<Step> &steps() const { return steps_; }
  std::vector<Step> &steps() { return steps_; }
  size_t size() const { return steps_.size(); }
  bool empty() const { return steps_.empty(); }

  /// How many times each node runs.
  std::vector<int> runCounts(const TrainingGraph &g) const;

  /// Returns this schedule's Run steps with Free steps inserted as early as
  /// possible: each stored tensor is freed right after its last read before
  /// it is produced again (or right after it is produced when nothing reads
  /// it). Inputs and required outputs are never freed. Existing Free steps
  /// are dropped first, so strategies may emit runs only. Copy steps are
  /// kept in place: an Offload ends the tensor's device life like a last
  /// read (it is not freed before it), a Prefetch starts a new one like a
  /// run producing it; an Await stays where it is.
  Schedule withEagerFrees(const TrainingGraph &g) const;

  /// Human-readable rendering, one step per line ("run F3", "free a3",
  /// "offload a3", "await a3", "prefetch a3").
  std::string str(const TrainingGraph &g) const;

  bool operator==(const Schedule &o) const { return steps_ == o.steps_; }

private:
  std::vector<Step> steps_;
};

/// The schedule without rematerialization: every node once in the graph's
/// default order (forward, then backward), with eager frees.
Schedule keepEverythingSchedule(const TrainingGraph &g);

/// `nodes` (backward nodes run back to back; inputs from outside the group
/// are live) in a topological order that keeps memory low: greedily the
/// ready node whose outputs minus the tensors it frees (their last reader
/// in the group, no reader outside it) are smallest. A weight transpose then
/// runs right before the matmul that consumes it instead of next to the
/// other transposes. Groups above `maxSize` nodes keep their order.
std::vector<NodeId> lowMemoryOrder(const TrainingGraph &g,
                                   const std::vector<NodeId> &nodes,
                                   size_t maxSize = 4096);

} // namespace remat

#endif // REMAT_SOLVER_CORE_SCHEDULE_H
