//===- Collectives.h - What the planner knows of shard collectives -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A per-rank SPMD step (what upstream `shard-partition` emits, or a program
// written per rank) communicates through `shard` collectives on a
// `shard.grid`. The planner treats each as a node like any other, priced by a
// bandwidth-latency model of the ring algorithms the runtime
// (libRematMpiRuntime) runs, with the runtime's temporaries as workspace.
// Every rank runs the same plan, computed from the rank-independent program,
// so re-running a collective is safe; one under rank-dependent control flow
// is not (ranks could disagree and hang), nor is communication the model
// does not know (mpi.send, a call into a communication library).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_ANALYSIS_COLLECTIVES_H
#define REMAT_ANALYSIS_COLLECTIVES_H

#include "mlir/IR/Operation.h"

#include <cstdint>
#include <optional>
#include <string>

namespace remat {

/// The collectives the runtime implements (CollectiveABI.h's codes).
enum class CollectiveKind { AllReduce, AllGather, ReduceScatter, AllSlice,
                            AllToAll, Shift };

/// The code of `kind` in the runtime's ABI (CollectiveABI.h).
int64_t collectiveABIKind(CollectiveKind kind);

/// One shard collective, as the cost model and the lowering see it.
struct CollectiveInfo {
  CollectiveKind kind;
  llvm::SmallVector<int64_t> gridShape; ///< The whole grid.
  llvm::SmallVector<int64_t> gridAxes;  ///< The group's axes, in order.
  int64_t groupSize = 1;                ///< Devices in one group.
  int64_t inBytes = 0, outBytes = 0;    ///< Exact tensor bytes.
  int64_t elemBytes = 0;
  int64_t inElems = 0, outElems = 0;
  int64_t axis = 0;  ///< gather / scatter / slice / split axis; shift:
                     ///< the grid axis it shifts along.
  int64_t axis2 = 0; ///< all_to_all's concat axis.
  /// shift: the signed offset along `axis` and whether it wraps. Its group
  /// is the devices along `axis` only (gridAxes = {axis}): the other
  /// grouping axes change no device's partner.
  int64_t offset = 0;
  bool rotate = false;
  /// Whether the runtime moves the blocks without packing them
  /// (remat_collective_blocks_contiguous, for a contiguous input).
  bool contiguousBlocks = true;
};

/// The info of `op` when it is a shard collective the runtime implements
/// (all_reduce, all_gather, reduce_scatter, all_slice, all_to_all, shift)
/// on a grid found from `op` or else from `symbolScope` (the module of a
/// detached copy), with static shapes; std::nullopt otherwise.
std::optional<CollectiveInfo>
collectiveInfo(mlir::Operation *op, mlir::Operation *symbolScope = nullptr);

/// Bytes one device sends in `c` with ring algorithms: all-gather
/// (n-1)/n of the output, reduce-scatter and all-to-all (n-1)/n of the
/// input, all-reduce 2(n-1)/n; all-slice none; shift its input (the most
/// any device sends), none when no device has a partner.
double collectiveBytesSent(const CollectiveInfo &c);
/// Message steps of one device: n-1 (all-reduce: 2(n-1)); all-slice none;
/// shift one (none without partners).
int64_t collectiveSteps(const CollectiveInfo &c);

/// The default price of a message step and of a byte sent, in the analytic
/// model's units (one per arithmetic operation, about a nanosecond on the
/// CPU path): a few microseconds of latency and about 2 GB/s, MPICH's
/// shared-memory transport on one host. A calibrated cost table
/// (-remat-time-nodes under mpiexec) replaces them per op.
constexpr double kCollectiveStepCost = 2000;
constexpr double kCollectiveByteCost = 0.5;

/// Time of `c`: steps * step cost + bytes sent * byte cost, plus one
/// operation per element reduced or copied.
double collectiveTime(const CollectiveInfo &c);

/// Time of a `shard.send` or `shard.recv` (one message step and its bytes,
/// as a shift's), or nullopt for another op or a tensor of unknown size.
std::optional<double> pointToPointTime(mlir::Operation *op);

/// Bytes of temporaries the runtime allocates while `c` runs: its one
/// allocation, rounded up as the runtime requests it.
int64_t collectiveWorkspace(const CollectiveInfo &c);

/// The op whose control depends on the device index and decides whether
/// (or how often) `op` runs, or nullptr: an enclosing scf.if, scf.for,
/// scf.while or scf.index_switch (another region op: any of its operands),
/// or a conditional branch between the blocks of an enclosing region, whose
/// condition, bounds or selector is computed from `shard.process_linear_index`,
/// `shard.process_multi_index` or `mpi.comm_rank` (through loop-carried
/// values, what regions yield and function arguments); for `op` in a
/// function, also the same around each of its call sites. A communication
/// op under such control runs on some devices only: the others never meet
/// it and the ones that do wait for them forever.
mlir::Operation *deviceDependentControl(mlir::Operation *op);

/// Why `op` must not be re-run because of how it communicates, or nullopt:
/// a shard collective (or an op holding one) under control flow that
/// depends on the device index; `shard.send` and `shard.recv` (their
/// partner runs them once) and ops holding them; an op of the `mpi` dialect
/// or another communication op the model does not price.
std::optional<std::string> whyCommunicationKept(mlir::Operation *op);

} // namespace remat

#endif // REMAT_ANALYSIS_COLLECTIVES_H
