//===- ResultWriter.h - JSON output of remat-plan --------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One JSON object per result, sizes in the graph file's memory unit and times
// in its time unit:
//   {"feasible":true,"strategy":"none","budget":90,"peak":86.77,"time":47.42,
//    "overhead":10.04,"units":{...},"schedule":[{"run":"F1","discard":["r1"]},
//    {"free":"a1"},...]}
// Top-level keys go one per line and schedule steps one per line, so that
// FileCheck tests and diffs stay readable.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_GRAPHIO_RESULTWRITER_H
#define REMAT_GRAPHIO_RESULTWRITER_H

#include "remat/GraphIO/GraphFile.h"
#include "remat/Solver/Core/Strategy.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace remat {

/// A JSON string literal (quoted and escaped).
std::string jsonString(llvm::StringRef s);

/// One schedule step, e.g. {"run":"F1","discard":["r1"]} or {"free":"a1"}.
std::string stepJSON(const TrainingGraph &g, const Step &step);

/// The result of solve(). `budget` is std::nullopt when none was given.
/// When infeasible, peak/time/overhead are null, the schedule is empty and
/// "reason" says why.
void writeSolutionJSON(llvm::raw_ostream &os, const GraphFile &file,
                       const Solution &sol, std::optional<int64_t> budget);

/// {"strategy":...,"min_budget":...,"floor":...}: min_budget is null when
/// no budget works; floor is the peak no plan goes below (peakLowerBound:
/// the inputs, which stay on the device, and the biggest single step), so
/// how far any planner could go.
void writeMinBudgetJSON(llvm::raw_ostream &os, const GraphFile &file,
                        const std::string &strategy, int64_t minBudget,
                        int64_t floor);

} // namespace remat

#endif // REMAT_GRAPHIO_RESULTWRITER_H
