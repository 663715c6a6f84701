//===- RematReport.cpp - What -remat-rematerialize decided, as JSON -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Transforms/RematReport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace remat {

std::string percentOf(double part, double whole) {
  return whole > 0 ? llvm::formatv("{0:F1}%", 100.0 * part / whole).str()
                   : std::string("n/a");
}

FunctionReport &RematReport::add(llvm::StringRef name,
                                 llvm::StringRef strategy, int64_t budget) {
  FunctionReport &f = functions.emplace_back();
  f.name = name.str();
  f.strategy = strategy.str();
  f.budget = budget;
  return f;
}

FunctionReport &RematReport::add(FunctionReport function) {
  return functions.emplace_back(std::move(function));
}

namespace {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

Array valuesJson(const FunctionReport &f) {
  Array values;
  for (const ValueDecision &v : f.values)
    values.push_back(
        Object{{"op", v.op},
               {"loc", v.loc},
               {"bytes", v.bytes},
               {"decision", v.recomputations ? "recomputed" : "kept"},
               {"recomputations", v.recomputations},
               {"collective_cost",
                v.collectiveCost ? Value(*v.collectiveCost) : Value(nullptr)}});
  return values;
}

/// The fields every function has.
Object summaryJson(const FunctionReport &f) {
  double overhead = f.timeAfter - f.timeBefore;
  auto ifFitted = [&](Value v) -> Value {
    return f.fitted ? std::move(v) : Value(nullptr);
  };
  return Object{
      {"name", f.name},
      {"fitted", f.fitted},
      {"strategy", f.strategy},
      {"budget", f.budget},
      {"minimum_budget", f.fitted || f.minimumBudget < 0
                             ? Value(nullptr)
                             : Value(f.minimumBudget)},
      {"peak_before", f.peakBefore},
      {"peak_after", ifFitted(f.peakAfter)},
      {"time_before", f.timeBefore},
      {"time_after", ifFitted(f.timeAfter)},
      {"overhead", ifFitted(overhead)},
      {"overhead_percent",
       ifFitted(f.timeBefore > 0 ? 100.0 * overhead / f.timeBefore : 0.0)},
      {"ops", f.ops},
      {"seconds", Object{{"analysis", f.seconds.analysis},
                         {"solve", f.seconds.solve},
                         {"rewrite", f.seconds.rewrite},
                         {"check", f.seconds.check}}},
      {"values", valuesJson(f)}};
}

// The sections below are present only where they apply.

/// Devices that hold less than the largest (DevicePeaks.h).
void addDevicePeaks(Object &o, const FunctionReport &f) {
  if (f.devicePeaks.empty())
    return;
  Array peaks;
  for (int64_t p : f.devicePeaks)
    peaks.push_back(p);
  o["device_peaks"] = std::move(peaks);
}

/// A pipeline's critical path (PipelineTime.h).
void addPipelineTime(Object &o, const FunctionReport &f) {
  if (f.pipelineTimeBefore < 0)
    return;
  o["pipeline_time_before"] = f.pipelineTimeBefore;
  if (!f.fitted || f.pipelineTimeAfter < 0)
    return;
  o["pipeline_time_after"] = f.pipelineTimeAfter;
  o["pipeline_overhead_percent"] =
      f.pipelineTimeBefore > 0
          ? 100.0 * (f.pipelineTimeAfter - f.pipelineTimeBefore) /
                f.pipelineTimeBefore
          : 0.0;
  Array busy;
  for (double b : f.deviceBusy)
    busy.push_back(b);
  o["device_busy_after"] = std::move(busy);
}

/// Per device (a pipeline's stage): the layers whose rows it recomputes and
/// the ones it keeps (the rings are dropped on devices below
/// stash_ring_stages, or on every one).
Array stashRingPlans(const FunctionReport &f) {
  Array plans;
  for (size_t d = 0; d < f.deviceBusy.size(); ++d) {
    bool drops =
        f.stashRingStages == 0 || static_cast<int64_t>(d) < f.stashRingStages;
    Array recomputed, keptHere;
    for (const std::string &p : f.stashRingsRecomputed)
      (drops ? recomputed : keptHere).push_back(p);
    for (const std::string &p : f.stashRingsKept)
      keptHere.push_back(p);
    plans.push_back(Object{{"device", static_cast<int64_t>(d)},
                           {"recomputed", std::move(recomputed)},
                           {"kept", std::move(keptHere)}});
  }
  return plans;
}

/// Loops whose stash rings were dropped (StashRings.h).
void addStashRings(Object &o, const FunctionReport &f) {
  if (!f.stashRingsDropped)
    return;
  o["stash_rings_dropped"] = static_cast<int64_t>(f.stashRingsDropped);
  Array producers;
  for (const std::string &p : f.stashRingsRecomputed)
    producers.push_back(p);
  o["stash_rings_recomputed"] = std::move(producers);
  Array kept;
  for (const std::string &p : f.stashRingsKept)
    kept.push_back(p);
  o["stash_rings_kept"] = std::move(kept);
  if (f.stashRingStages)
    o["stash_ring_stages"] = f.stashRingStages;
  if (f.pipelineTimeEveryStage >= 0)
    o["pipeline_time_every_stage"] = f.pipelineTimeEveryStage;
  if (!f.deviceBusy.empty())
    o["device_plans"] = stashRingPlans(f);
}

/// What makes up the smallest budget (FloorBreakdown.h).
void addFloor(Object &o, const FunctionReport &f) {
  if (f.floor.empty())
    return;
  Array parts;
  for (const FloorEntry &e : f.floor) {
    Object part{{"kind", e.kind}, {"bytes", e.bytes}};
    if (!e.op.empty())
      part["op"] = e.op;
    if (!e.loc.empty())
      part["loc"] = e.loc;
    if (!e.why.empty())
      part["why"] = e.why;
    parts.push_back(std::move(part));
  }
  o["floor"] = std::move(parts);
}

/// Values copied to the host and back (offload=true).
void addOffload(Object &o, const FunctionReport &f) {
  if (f.offloaded.empty())
    return;
  Array copies;
  for (const HostCopyDecision &c : f.offloaded)
    copies.push_back(Object{{"op", c.op},
                            {"loc", c.loc},
                            {"bytes", c.bytes},
                            {"hidden", c.hidden},
                            {"returned_from_host", c.returnedFromHost},
                            {"awaited", c.awaited},
                            {"stall", c.stall}});
  o["offload"] = Object{{"host_peak", f.hostPeak},
                        {"device_peak_overlapped", f.overlappedPeak},
                        {"stall", f.stall},
                        {"values", std::move(copies)}};
}

/// Scans whose stacks live in host memory (HostStacks.h).
void addHostStacks(Object &o, const FunctionReport &f) {
  if (f.hostStacks.empty())
    return;
  Array loops;
  int64_t bytes = 0;
  for (const FunctionReport::HostStacks &h : f.hostStacks) {
    loops.push_back(Object{{"loc", h.loc}, {"bytes", h.bytes}});
    bytes += h.bytes;
  }
  o["host_stacks"] =
      Object{{"scans", static_cast<int64_t>(f.hostStacks.size())},
             {"bytes", bytes},
             {"loops", std::move(loops)}};
}

Value functionJson(const FunctionReport &f) {
  Object o = summaryJson(f);
  addDevicePeaks(o, f);
  addPipelineTime(o, f);
  addStashRings(o, f);
  addFloor(o, f);
  addOffload(o, f);
  addHostStacks(o, f);
  // --remat-budget=min: "budget" is the smallest the strategy meets.
  if (f.budgetIsMinimum)
    o["budget_requested"] = "min";
  // Dynamic shapes: the peaks are at these bounds and hold below them.
  if (!f.bounds.empty())
    o["bounds"] = f.bounds;
  // What an exact strategy proved about the time after (checkmate-milp).
  if (f.fitted && f.bound >= 0) {
    o["bound"] = f.bound;
    o["gap"] = f.gap;
  }
  return o;
}

} // namespace

std::string RematReport::str() const {
  llvm::json::Array funcs;
  for (const FunctionReport &f : functions)
    funcs.push_back(functionJson(f));
  llvm::json::Array skippedFuncs;
  for (const auto &[name, reason] : skipped)
    skippedFuncs.push_back(
        llvm::json::Object{{"name", name}, {"reason", reason}});
  llvm::json::Object root{{"functions", std::move(funcs)}};
  if (!skippedFuncs.empty()) // Absent otherwise: reports stay as they were.
    root["skipped"] = std::move(skippedFuncs);
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)));
  return out;
}

void RematReport::addSkipped(llvm::StringRef name, llvm::StringRef reason) {
  skipped.emplace_back(name.str(), reason.str());
}

bool RematReport::write(llvm::StringRef path, std::string &error) const {
  // Through a temporary file renamed on success: a failed write leaves an
  // existing report untouched.
  llvm::Error e = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
    os << str() << "\n";
    return llvm::Error::success();
  });
  if (!e)
    return true;
  error = ("cannot write report '" + path + "': " + llvm::toString(std::move(e)))
              .str();
  return false;
}

} // namespace remat
