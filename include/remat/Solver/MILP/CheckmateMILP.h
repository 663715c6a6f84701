//===- CheckmateMILP.h - Exact rematerialization as a MILP ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Checkmate's formulation (Jain et al., MLSys 2020) over the project's
// TrainingGraph and the Simulator's memory model. The nodes are put in one
// topological order; stage t runs node t for the first time and may first
// recompute earlier nodes, in that order. Per tensor (not per node): held at
// the start of a stage (S), freed right after a run (FREE). Memory while a
// node runs: the inputs, the held tensors, the outputs of this stage's
// earlier runs not yet freed, its own outputs and its workspace. Backward
// nodes, random or effectful nodes and producers of required outputs run
// once; required outputs are held from their production to the end. Where
// it is coarser than the Simulator (docs/solver.md, "checkmate-milp") its
// optimum is that of a subset of schedules: an upper bound of the true
// optimum, and its bound a lower bound only within that subset.
//
// Sized parts (SizedParts.h) make their choice a variable of the same model:
// one binary per choice, the bytes a sized tensor adds above its smallest
// size counted wherever the tensor is (products with the 0/1 variables
// linearised exactly), the time its node adds at every run. The optimum is
// then the best (choices, schedule) pair, not the best schedule at each
// choice compared afterwards.
//
// With a copy link (CheckmateOptions::link) a tensor has a third state, on
// the host: offloaded and prefetched at stage boundaries, its copies timed
// per stage on the link (docs/solver.md, "checkmate-milp-offload").
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_MILP_CHECKMATEMILP_H
#define REMAT_SOLVER_MILP_CHECKMATEMILP_H

#include "remat/Solver/Core/CopyLink.h"
#include "remat/Solver/Core/Schedule.h"
#include "remat/Solver/Core/SizedParts.h"
#include "remat/Solver/Core/SolveOptions.h"
#include "remat/Solver/MILP/MILPBackend.h"

#include <optional>
#include <vector>

namespace remat {

struct CheckmateOptions {
  int64_t budget = 0;       ///< Peak bytes (the Simulator's peak).
  double seconds = 60;      ///< Solver time limit.
  int64_t maxNodes = 0;     ///< Branch-and-bound node limit (0: none).
  std::vector<NodeId> order; ///< Topological; empty: g.defaultOrder().
  /// A schedule to start from (its runs must follow `order` stage by stage
  /// to be used as the solver's incumbent; it is returned when nothing
  /// better is found). May be null.
  const Schedule *warmStart = nullptr;
  /// Parts whose size the model chooses (may be null: none). `warmPicks`
  /// are the choices the warm start is a schedule for.
  const std::vector<SizedPart> *sized = nullptr;
  std::vector<int> warmPicks;
  /// Host copies allowed over this link (null: keep or recompute only).
  /// Not with sized parts' tensors, which are never offloaded.
  const CopyLink *link = nullptr;
  /// With a link: the host bytes a stage may hold (SolveOptions::hostBudget).
  int64_t hostBudget = kUnlimitedBudget;
  /// With a link: a result may be offloaded once nothing reads it again and
  /// stay on the host to the end (SolveOptions::offloadResults).
  bool resultsMayLeave = false;
};

struct CheckmateResult {
  milp::Status status = milp::Status::Unknown;
  /// The decoded schedule (eager frees), checked by the Simulator on the
  /// graph at `picks` (with the link's copies): valid and within budget, or
  /// absent.
  std::optional<Schedule> schedule;
  std::vector<int> picks; ///< Per sized part, the choice (index) taken.
  double time = 0;   ///< Its total time (Simulator).
  double bound = -1; ///< Proven lower bound on the time within the model.
  /// The warm start fit the stage structure and was offered to the solver.
  bool warmStartUsed = false;
  int columns = 0, rows = 0;
};

/// The first-computation order of `s`: each node at its first run.
std::vector<NodeId> firstComputationOrder(const TrainingGraph &g,
                                          const Schedule &s);

CheckmateResult solveCheckmate(const TrainingGraph &g,
                               const CheckmateOptions &options,
                               milp::Backend &backend);

} // namespace remat

#endif // REMAT_SOLVER_MILP_CHECKMATEMILP_H
