//===- ResultWriter.cpp ---------------------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/GraphIO/ResultWriter.h"

#include "llvm/Support/JSON.h"

namespace remat {

std::string jsonString(llvm::StringRef s) {
  std::string text = llvm::json::isUTF8(s) ? s.str() : llvm::json::fixUTF8(s);
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::json::Value(std::move(text));
  return out;
}

std::string stepJSON(const TrainingGraph &g, const Step &step) {
  if (step.isFree())
    return "{\"free\": " + jsonString(g.tensor(step.id).name) + "}";
  if (step.isCopy() || step.isAwait())
    return std::string(step.isOffload() ? "{\"offload\": "
                       : step.isAwait() ? "{\"await\": "
                                        : "{\"prefetch\": ") +
           jsonString(g.tensor(step.id).name) + "}";
  std::string s = "{\"run\": " + jsonString(g.node(step.id).name);
  if (!step.discard.empty()) {
    s += ", \"discard\": [";
    for (size_t i = 0; i < step.discard.size(); ++i)
      s += (i ? ", " : "") + jsonString(g.tensor(step.discard[i]).name);
    s += "]";
  }
  return s + "}";
}

namespace {

/// Byte counts in bytes are exact integers (a double keeps 12 digits and
/// would round sizes above 10^12 B); other units are decimals.
std::string memory(const GraphFile &f, int64_t bytes) {
  if (f.units.bytesPerUnit == 1)
    return std::to_string(bytes);
  return formatNumber(static_cast<double>(bytes) / f.units.bytesPerUnit);
}

/// What a plan with host copies moves: for strategies that plan them
/// (remat-plan --offload), even when they moved nothing.
void writeOffloadJSON(llvm::raw_ostream &os, const GraphFile &file,
                      const SimulationResult &sim) {
  const TrainingGraph &g = file.graph;
  os << "  \"offload\": {\n";
  os << "    \"device_peak\": " << memory(file, sim.peak) << ",\n";
  os << "    \"host_peak\": " << memory(file, sim.hostPeak) << ",\n";
  os << "    \"stall\": " << formatNumber(sim.stall) << ",\n";
  os << "    \"tensors\": [";
  for (size_t i = 0; i < sim.hostCopies.size(); ++i) {
    const HostCopy &c = sim.hostCopies[i];
    os << (i ? ",\n      " : "\n      ")
       << "{\"tensor\": " << jsonString(g.tensor(c.tensor).name)
       << ", \"bytes\": " << memory(file, c.bytes)
       << ", \"hidden\": " << (c.hidden ? "true" : "false")
       << (c.awaited ? ", \"awaited\": true" : "") << ", \"offload\": ["
       << formatNumber(c.offloadStart) << ", " << formatNumber(c.offloadEnd)
       << "], \"prefetch\": ";
    if (c.prefetchStep < 0)
      os << "null";
    else
      os << "[" << formatNumber(c.prefetchStart) << ", "
         << formatNumber(c.prefetchEnd) << "]";
    os << ", \"stall\": " << formatNumber(c.stall) << "}";
  }
  os << (sim.hostCopies.empty() ? "]\n" : "\n    ]\n") << "  },\n";
}

std::string unitsJSON(const GraphFile &f) {
  return "{\"time\": " + jsonString(f.units.time) +
         ", \"memory\": " + jsonString(f.units.memory) + "}";
}

} // namespace

void writeSolutionJSON(llvm::raw_ostream &os, const GraphFile &file,
                       const Solution &sol, std::optional<int64_t> budget) {
  const TrainingGraph &g = file.graph;
  os << "{\n  \"feasible\": " << (sol.feasible ? "true" : "false") << ",\n";
  os << "  \"strategy\": " << jsonString(sol.strategy) << ",\n";
  if (!sol.chosen.empty() && sol.chosen != sol.strategy)
    os << "  \"chosen\": " << jsonString(sol.chosen) << ",\n";
  os << "  \"budget\": "
     << (budget && *budget != kUnlimitedBudget ? memory(file, *budget)
                                               : std::string("null"))
     << ",\n";
  if (sol.feasible) {
    os << "  \"peak\": " << memory(file, sol.sim.peak) << ",\n";
    os << "  \"time\": " << formatNumber(sol.sim.time) << ",\n";
    os << "  \"overhead\": " << formatNumber(sol.sim.time - g.baseTime())
       << ",\n";
    // What an exact strategy proved: no schedule of its model is faster
    // than the bound; the gap is how far this one may be from optimal.
    if (sol.bound >= 0) {
      os << "  \"bound\": " << formatNumber(sol.bound) << ",\n";
      os << "  \"gap\": " << formatNumber(sol.gap) << ",\n";
    }
    const StrategyInfo *info = findStrategy(sol.strategy);
    if (sol.schedule.hasCopies() || (info && info->plansHostCopies))
      writeOffloadJSON(os, file, sol.sim);
  } else {
    os << "  \"peak\": null,\n  \"time\": null,\n  \"overhead\": null,\n";
    os << "  \"reason\": " << jsonString(sol.reason) << ",\n";
  }
  os << "  \"units\": " << unitsJSON(file) << ",\n";
  const auto &steps = sol.schedule.steps();
  if (!sol.feasible || steps.empty()) {
    os << "  \"schedule\": []\n}\n";
    return;
  }
  os << "  \"schedule\": [\n";
  for (size_t i = 0; i < steps.size(); ++i)
    os << "    " << stepJSON(g, steps[i]) << (i + 1 < steps.size() ? "," : "")
       << "\n";
  os << "  ]\n}\n";
}

void writeMinBudgetJSON(llvm::raw_ostream &os, const GraphFile &file,
                        const std::string &strategy, int64_t minBudget,
                        int64_t floor) {
  os << "{\n  \"strategy\": " << jsonString(strategy) << ",\n";
  os << "  \"min_budget\": "
     << (minBudget < 0 ? std::string("null") : memory(file, minBudget))
     << ",\n";
  os << "  \"floor\": " << memory(file, floor) << ",\n";
  os << "  \"units\": " << unitsJSON(file) << "\n}\n";
}

} // namespace remat
