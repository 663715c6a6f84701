//===- SizedParts.h - Parts of a graph planned at one of several sizes ---===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A part of a training graph whose size is itself a decision: a few tensors
// whose bytes and one node whose time depend on a choice made with the plan.
// A checkpointed scan is one (ScanSlots.h): with more slots its slot buffers
// grow and its reversal re-runs fewer steps. A strategy that takes sized
// parts (checkmate-milp, through solveSizedMILP) picks every part's choice
// and the schedule of the whole graph together, in one model; the result
// is the graph at those choices (withSizes) and a schedule the Simulator
// checks on it. Plain C++17.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_CORE_SIZEDPARTS_H
#define REMAT_SOLVER_CORE_SIZEDPARTS_H

#include "remat/Solver/Core/TrainingGraph.h"

#include <optional>
#include <string>
#include <vector>

namespace remat {

struct SizedPart {
  /// Computed tensors (not graph inputs) whose bytes depend on the choice.
  std::vector<TensorId> tensors;
  /// The node whose time depends on the choice (kNone: none).
  NodeId node = kNone;
  struct Choice {
    int64_t value = 0;          ///< What the caller calls it (a slot count).
    std::vector<int64_t> bytes; ///< Per entry of `tensors`.
    double time = 0;            ///< The node's time.
  };
  std::vector<Choice> choices; ///< At least one.
};

/// `g` with part i at its choice picks[i]: the tensors' bytes and the node's
/// time replaced.
TrainingGraph withSizes(TrainingGraph g, const std::vector<SizedPart> &parts,
                        const std::vector<int> &picks);

/// Why `parts` do not fit `g` (an id out of range, a graph input, a choice
/// with the wrong number of sizes, no choice, a tensor in two parts), or
/// std::nullopt.
std::optional<std::string> verifySizedParts(const TrainingGraph &g,
                                            const std::vector<SizedPart> &parts);

} // namespace remat

#endif // REMAT_SOLVER_CORE_SIZEDPARTS_H
