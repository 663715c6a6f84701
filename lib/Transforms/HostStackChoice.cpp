//===- HostStackChoice.cpp - Checkpoint a scan, or keep its stacks on host ===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Transforms/HostStackChoice.h"

#include "remat/Analysis/CostModel.h"
#include "remat/Analysis/ScanLoops.h"
#include "remat/Dialect/Remat/Remat.h"
#include "remat/Loops/HostStacks.h"
#include "remat/Transforms/HeldDiagnostics.h"
#include "remat/Transforms/Prepare.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace remat {
namespace {

/// Whether the plan with host stacks is the better one.
bool hostStacksBetter(const FunctionReport &host,
                      const FunctionReport &recomputed, bool minimum) {
  if (minimum && host.budget != recomputed.budget)
    return host.budget < recomputed.budget;
  return host.timeAfter < recomputed.timeAfter;
}

} // namespace

LogicalResult fitWithHostStacks(func::FuncOp func, const RematOptions &options,
                                RematResult &result, FitFunction fit) {
  MLIRContext *ctx = func.getContext();
  // Prepared as the planner prepares it: each stack its own tensor.empty
  // (a CSE before may have shared one between stacks).
  OwningOpRef<func::FuncOp> hosting = func.clone();
  prepareForRemat(*hosting);
  std::vector<HostStackScan> moved = putScanStacksOnHost(*hosting);
  if (moved.empty())
    return fit(func, options, result);
  // Where each forward loop is, while the copy is whole.
  std::vector<FunctionReport::HostStacks> stacks;
  llvm::DenseSet<Location> scanLoops;
  for (const HostStackScan &scan : moved) {
    stacks.push_back({costTableKey(scan.forward), scan.bytes});
    scanLoops.insert(scan.forward->getLoc());
    scanLoops.insert(scan.backward->getLoc());
  }
  const size_t scans = moved.size();
  OwningOpRef<func::FuncOp> recomputing = func.clone();
  RematResult recomputed;
  HeldDiagnostics recomputedDiags(ctx);
  bool recomputeFits = recomputedDiags.hold(
      [&] { return succeeded(fit(*recomputing, options, recomputed)); });
  // The same budget in bytes: a percentage is of the program as written.
  const FunctionReport &r = recomputed.report;
  bool budgetKnown = options.budget.minimum || r.budget > 0;
  RematResult hosted;
  HeldDiagnostics hostedDiags(ctx);
  bool hostFits = false;
  if (budgetKnown) {
    RematOptions hostOptions = options;
    if (!options.budget.minimum)
      hostOptions.budget = SizeSpec{false, false, static_cast<double>(r.budget)};
    hostFits = hostedDiags.hold(
        [&] { return succeeded(fit(*hosting, hostOptions, hosted)); });
  }
  if (!hostFits || (recomputeFits &&
                    !hostStacksBetter(hosted.report, r,
                                      options.budget.minimum))) {
    // Neither fits: the refusal says how low the stacks on the host reach
    // where that is lower.
    int64_t hostMinimum = hosted.report.minimumBudget;
    if (!recomputeFits && hostMinimum >= 0 &&
        (r.minimumBudget < 0 || hostMinimum < r.minimumBudget)) {
      if (Diagnostic *error = recomputedDiags.firstError())
        error->attachNote(func.getLoc())
            << "with the stacks of " << scans << " scan"
            << (scans == 1 ? "" : "s")
            << " in host memory (--remat-offload) the smallest budget is "
            << hostMinimum << " B";
      recomputed.report.minimumBudget = hostMinimum;
    }
    recomputedDiags.emit();
    result = std::move(recomputed);
    if (!recomputeFits)
      return failure();
    func.getBody().takeBody(recomputing->getBody());
    return success();
  }
  // The loops whose stacks moved are no scans any more: the remarks saying
  // why they are not checkpointed are not news (other loops' still are).
  hostedDiags.emit([&](const Diagnostic &d) {
    return d.getSeverity() == DiagnosticSeverity::Remark &&
           scanLoops.contains(d.getLocation()) &&
           StringRef(d.str()).starts_with("loop not checkpointed");
  });
  FunctionReport &h = hosted.report;
  h.peakBefore = r.peakBefore;
  h.timeBefore = r.timeBefore;
  h.hostStacks = stacks;
  int64_t bytes = 0;
  for (const FunctionReport::HostStacks &s : stacks)
    bytes += s.bytes;
  func.getBody().takeBody(hosting->getBody());
  InFlightDiagnostic remark = func.emitRemark();
  remark << llvm::formatv("stacks of {0} scan{1} kept in host memory ({2} B: ",
                          scans, scans == 1 ? "" : "s", bytes);
  for (auto [i, s] : llvm::enumerate(stacks))
    remark << (i ? ", " : "") << s.bytes << " B of the loop at " << s.loc;
  remark << "), a row copied out per forward step and back per read: ";
  if (!recomputeFits)
    remark << "checkpointing does not fit this budget";
  else if (options.budget.minimum && h.budget < r.budget)
    remark << llvm::formatv("a smallest budget of {0} B, checkpointing's {1} B",
                            h.budget, r.budget);
  else
    remark << llvm::formatv("{0:F0} time units, checkpointing's {1:F0}",
                            h.timeAfter, r.timeAfter);
  result = std::move(hosted);
  return success();
}

} // namespace remat
