//===- FloorBreakdown.cpp - What the smallest budget is made of -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Transforms/FloorBreakdown.h"

#include "remat/Analysis/CostModel.h"
#include "remat/Analysis/TrainingGraphBuilder.h"
#include "remat/Solver/Core/Simulator.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace mlir;
using namespace remat;

FloorBreakdown remat::explainPeak(const IRTrainingGraph &ig,
                                  const Schedule &schedule) {
  const TrainingGraph &g = ig.graph;
  SimulatorOptions opts;
  opts.recordLiveAtPeak = true;
  SimulationResult sim = simulate(g, schedule, opts);
  FloorBreakdown floor;
  floor.total = sim.peak;
  if (!sim.valid)
    return floor;

  NodeId running = kNone;
  if (sim.peakStep >= 0 && schedule.steps()[sim.peakStep].isRun())
    running = schedule.steps()[sim.peakStep].id;
  auto isOperandOfRunning = [&](TensorId t) {
    if (running == kNone)
      return false;
    const Node &n = g.node(running);
    return llvm::is_contained(n.inputs, t) || llvm::is_contained(n.outputs, t);
  };

  auto part = [](const char *kind) {
    FloorPart p;
    p.kind = kind;
    return p;
  };
  FloorPart arguments = part("arguments"), results = part("results"),
            peakOp = part("peak-op"), backward = part("backward"),
            kept = part("kept");
  std::map<NodeId, FloorPart> pinned; // Node order: a stable listing.
  for (TensorId t : sim.liveAtPeak) {
    int64_t bytes = g.tensor(t).bytes;
    NodeId producer = g.tensor(t).producer;
    if (g.isInput(t))
      arguments.bytes += bytes;
    else if (g.isRequired(t))
      results.bytes += bytes;
    else if (isOperandOfRunning(t))
      peakOp.bytes += bytes;
    else if (!g.isForward(producer))
      backward.bytes += bytes;
    else if (!g.node(producer).recomputable)
      pinned[producer].bytes += bytes;
    else
      kept.bytes += bytes;
  }
  if (running != kNone) {
    peakOp.bytes += g.node(running).workspace;
    Operation *op = ig.primaryOp(running);
    peakOp.op = op->getName().getStringRef().str();
    peakOp.loc = costTableKey(op);
    peakOp.where = op->getLoc();
  }
  for (FloorPart *p : {&arguments, &results, &peakOp})
    if (p->bytes)
      floor.parts.push_back(*p);
  for (auto &[n, part] : pinned) {
    Operation *op = ig.primaryOp(n);
    part.kind = "not-recomputable";
    part.op = op->getName().getStringRef().str();
    part.loc = costTableKey(op);
    part.where = op->getLoc();
    part.why = static_cast<size_t>(n) < ig.keptBecause.size()
                   ? ig.keptBecause[n]
                   : "";
    floor.parts.push_back(part);
  }
  for (FloorPart *p : {&backward, &kept})
    if (p->bytes)
      floor.parts.push_back(*p);
  return floor;
}

namespace {
/// Attaches `text` at `where` when it points into a file. A location with
/// only a name (an importer's `loc("addmm_1")`) would print as
/// `<unknown>:0`: the note goes to the diagnostic's own place instead and
/// names the op.
void attachNoteAt(InFlightDiagnostic &diag, Location where,
                  const std::string &text) {
  if (where->findInstanceOf<FileLineColLoc>()) {
    diag.attachNote(where) << text;
    return;
  }
  if (auto name = where->findInstanceOf<NameLoc>())
    diag.attachNote() << "at '" << name.getName().getValue() << "': " << text;
  else
    diag.attachNote() << text;
}
} // namespace

void remat::attachFloorNotes(InFlightDiagnostic &diag,
                             const FloorBreakdown &floor) {
  for (const FloorPart &p : floor.parts) {
    std::string text;
    if (p.kind == "arguments")
      text = llvm::formatv("{0} B: the arguments (live throughout)", p.bytes);
    else if (p.kind == "results")
      text = llvm::formatv("{0} B: results and gradients already produced "
                           "(live to the end)",
                           p.bytes);
    else if (p.kind == "peak-op")
      text = llvm::formatv("{0} B: the inputs, outputs and workspace of the "
                           "op running at the peak ('{1}'), live together",
                           p.bytes, p.op);
    else if (p.kind == "not-recomputable")
      text = llvm::formatv("{0} B: kept, never recomputed: {1}", p.bytes,
                           p.why);
    else if (p.kind == "backward")
      text = llvm::formatv("{0} B: backward values in flight (gradients "
                           "not yet consumed)",
                           p.bytes);
    else
      text = llvm::formatv("{0} B: forward values the plan keeps (each "
                           "could be recomputed, at more memory elsewhere "
                           "or beyond what the strategy searches)",
                           p.bytes);
    if (p.where)
      attachNoteAt(diag, *p.where, text);
    else
      diag.attachNote() << text;
  }
}
