//===- CheckpointScansWithin.cpp - Each scan's slots, chosen with the plan ===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The scans of a function are rewritten once, at a probe count (2 slots),
// in a copy of it; the caller builds the graph of a copy of that (folded,
// prepared), where each scan is a node whose slot buffers and forward steps
// are resized for any count (ScanSlots.h), and the caller's planner solves
// the whole graph at the counts worth trying. The rewrite is then resized
// in place to the counts of the fastest plan (resizeCheckpointedScan: the
// emitter runs once per scan) and checked on a copy, which becomes the
// function's body (adoptChecked; otherwise the resized rewrite does).
//
//===----------------------------------------------------------------------===//

#include "remat/Loops/CheckpointScans.h"
#include "remat/Solver/Loop/LoopReversal.h"
#include "remat/Solver/Loop/OnlineCheckpointing.h"
#include "remat/Solver/Core/Simulator.h"

#include "ScanRewriter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/FoldUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace remat {
namespace {

/// The slot count the scratch copy is rewritten with: every slot buffer
/// then has rows, so the tensors holding them are found by their bytes.
constexpr int64_t kProbeSlots = 2;

/// Marks the ops of a probe rewrite, to find them again after the caller
/// prepared the scratch copy (which is then dropped).
constexpr llvm::StringLiteral kProbeForward = "remat_scan_probe_forward";
constexpr llvm::StringLiteral kProbeReversal = "remat_scan_probe_reversal";

struct FoundScan {
  ScanPair pair;
  unsigned index; ///< Of the forward loop in the function's block.
};

/// The scans of `func`'s block, forward loops in order; a remark at every
/// other loop naming why it is not one.
SmallVector<FoundScan, 2> findScans(func::FuncOp func) {
  SmallVector<FoundScan, 2> scans;
  llvm::SmallPtrSet<Operation *, 4> backwardLoops;
  unsigned index = 0;
  for (Operation &op : func.getBody().front()) {
    const unsigned at = index++;
    if (!isa<scf::ForOp, scf::WhileOp>(op) || backwardLoops.contains(&op))
      continue;
    auto match = matchScan(&op);
    if (auto *why = std::get_if<std::string>(&match)) {
      op.emitRemark() << "loop not checkpointed: " << *why;
      continue;
    }
    backwardLoops.insert(std::get<ScanPair>(match).backward);
    scans.push_back({std::get<ScanPair>(match), at});
  }
  return scans;
}

/// The forward loop of scan `i` of a copy of the function the scans were
/// found in (same block positions before any rewrite).
Operation *opAt(func::FuncOp func, unsigned index) {
  auto it = func.getBody().front().begin();
  std::advance(it, index);
  return &*it;
}

/// The time of one forward step as the cost model counts it: the body the
/// rewrite clones at every advance (the stacking left out).
double stepTime(const ScanPair &scan, const CostModel &costs) {
  double time = 0;
  for (Operation &op : scan.body()->without_terminator())
    if (!llvm::is_contained(scan.inserts, &op))
      if (FailureOr<OpCost> c = costs.cost(&op); succeeded(c))
        time += c->time;
  return time;
}

/// The rewrite emits its index arithmetic as the reversal rules are
/// written (a constant per use, `r + 1 - 1`). Folded (the pipeline's
/// canonicalize ran before the rewrite, not after), the output reads as if
/// written by hand. Only once every scan of the function is rewritten: the
/// constants move to the function's entry, which shifts the block
/// positions the scans are found at.
void foldIndexArithmetic(func::FuncOp func, detail::RecordedOps &emitted) {
  MLIRContext *ctx = func.getContext();
  SmallVector<Operation *> ops;
  for (Operation *op : emitted.ops)
    if (isa_and_nonnull<arith::ArithDialect>(op->getDialect()) &&
        !op->getParentOfType<linalg::LinalgOp>() &&
        llvm::all_of(op->getResultTypes(), [](Type t) {
          return t.isIndex() || t.isSignlessInteger();
        }))
      ops.push_back(op);
  RewritePatternSet patterns(ctx);
  ctx->getLoadedDialect<arith::ArithDialect>()->getCanonicalizationPatterns(
      patterns);
  for (RegisteredOperationName name : ctx->getRegisteredOperationsByDialect(
           arith::ArithDialect::getDialectNamespace()))
    name.getCanonicalizationPatterns(patterns, ctx);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  config.setListener(&emitted);
  (void)applyOpPatternsGreedily(ops, std::move(patterns), config);
  // One constant per value, at the function's entry (the driver above
  // uniques only the constants it makes): the function's own first.
  OperationFolder folder(ctx, &emitted);
  llvm::SetVector<Operation *> constants;
  for (Operation &op : func.getBody().front())
    if (isa<arith::ConstantOp>(op))
      constants.insert(&op);
  for (Operation *op : emitted.ops)
    if (isa<arith::ConstantOp>(op) && !op->getParentOfType<linalg::LinalgOp>())
      constants.insert(op);
  for (Operation *op : constants)
    folder.insertKnownConstant(op);
}

/// A copy of `func` with scan i rewritten at slots[i], as the emitter left
/// it (neither folded nor prepared): resized in place to each count
/// checked, and in the end the function's body or the source of it.
struct Emitted {
  OwningOpRef<func::FuncOp> func;
  std::vector<CheckpointedScan> scans;
  detail::RecordedOps ops; ///< Everything the rewrites emitted.
};
std::unique_ptr<Emitted> emittedCopy(func::FuncOp func,
                                     ArrayRef<FoundScan> scans,
                                     ArrayRef<int64_t> slots) {
  auto emitted = std::make_unique<Emitted>();
  emitted->func = func.clone();
  emitted->scans.resize(scans.size());
  IRRewriter rewriter(func.getContext(), &emitted->ops);
  // Last scan first: the rewrite moves only what follows its forward loop.
  for (size_t i = scans.size(); i-- > 0;) {
    ScanPair pair =
        std::get<ScanPair>(matchScan(opAt(*emitted->func, scans[i].index)));
    emitted->scans[i] = checkpointScan(rewriter, pair, slots[i]);
  }
  return emitted;
}

/// Sets scan i of `emitted` to slots[i] slots.
LogicalResult resize(Emitted &emitted, ArrayRef<int64_t> slots) {
  IRRewriter rewriter(emitted.func->getContext(), &emitted.ops);
  for (auto [scan, k] : llvm::zip(emitted.scans, slots))
    if (failed(resizeCheckpointedScan(rewriter, scan, k)))
      return failure();
  return success();
}

/// A copy of `emitted`, its index arithmetic folded, its emitted loops
/// marked, prepared and analysed by the caller's `graphOf`.
struct Scratch {
  OwningOpRef<func::FuncOp> func;
  std::vector<CheckpointedScan> emitted;
  RegionRuns runs; ///< Of the loops emitted in `func`.
  IRTrainingGraph graph;
  /// The program as it runs (ScanPlanning::timelineOf), when given.
  std::optional<IRTrainingGraph> timeline;
  const IRTrainingGraph &asIs() const { return timeline ? *timeline : graph; }
};
FailureOr<Scratch> analysedCopy(const Emitted &source,
                                const ScanPlanning &planning) {
  Scratch scratch;
  IRMapping map;
  func::FuncOp sourceFunc = *source.func;
  scratch.func = sourceFunc.clone(map);
  scratch.emitted = source.scans;
  Builder b(sourceFunc.getContext());
  for (auto [i, out] : llvm::enumerate(scratch.emitted)) {
    addRegionRuns(out, scratch.runs, &map);
    out.sized = {}; // Of the source, not of this copy.
    out.forward = map.lookup(out.forward);
    out.interpreter = map.lookup(out.interpreter);
    out.forward->setAttr(kProbeForward, b.getI64IntegerAttr(i));
    out.interpreter->setAttr(kProbeReversal, b.getI64IntegerAttr(i));
  }
  detail::RecordedOps emitted;
  for (Operation *op : source.ops.ops)
    emitted.ops.insert(map.lookup(op));
  foldIndexArithmetic(*scratch.func, emitted);
  FailureOr<IRTrainingGraph> built =
      planning.graphOf(*scratch.func, scratch.runs);
  if (failed(built))
    return failure();
  scratch.graph = std::move(*built);
  if (planning.timelineOf) {
    FailureOr<IRTrainingGraph> timeline =
        planning.timelineOf(*scratch.func, scratch.runs);
    if (failed(timeline))
      return failure();
    scratch.timeline = std::move(*timeline);
  }
  // The emitted loops again, after the caller's preparation.
  for (CheckpointedScan &out : scratch.emitted)
    out.forward = out.interpreter = nullptr;
  for (Operation &op : scratch.func->getBody().front()) {
    if (auto i = op.getAttrOfType<IntegerAttr>(kProbeForward))
      scratch.emitted[i.getInt()].forward = &op;
    if (auto i = op.getAttrOfType<IntegerAttr>(kProbeReversal))
      scratch.emitted[i.getInt()].interpreter = &op;
  }
  return scratch;
}

/// Each scan of `func` as a node of `graph`, a graph of its rewrite at the
/// probe count (`scratch`), or failure when its slot buffers are not found.
FailureOr<std::vector<ScanSlotNode>> slotNodes(ArrayRef<FoundScan> scans,
                                               const Scratch &scratch,
                                               const IRTrainingGraph &graph,
                                               const ScanPlanning &planning) {
  std::vector<ScanSlotNode> nodes(scans.size());
  for (size_t i = 0; i < scans.size(); ++i) {
    const CheckpointedScan &probe = scratch.emitted[i];
    ScanSlotNode &node = nodes[i];
    node.steps = scans[i].pair.steps;
    node.online = scans[i].pair.online();
    node.probeSlots = probe.slots;
    node.stepTime = stepTime(scans[i].pair, planning.costs);
    node.alignment = planning.costs.allocAlignment();
    auto reversal = probe.interpreter ? graph.opNodes.find(probe.interpreter)
                                      : graph.opNodes.end();
    if (!probe.forward || reversal == graph.opNodes.end())
      return failure();
    node.reversal = reversal->second;
    // A slot buffer is the loop's result or its init, whichever owns the
    // bytes (an init written in place: the init; both when it is not).
    for (const CheckpointedScan::SlotResult &slot : probe.slotResults) {
      OpResult result = probe.forward->getResult(slot.result);
      auto type = dyn_cast<RankedTensorType>(result.getType());
      std::optional<int64_t> bytes = type ? typeBytes(type) : std::nullopt;
      if (type && type.getDimSize(0) == 0)
        continue; // No row at the probe: a scan of one step, one slot.
      if (!type || !bytes || type.getDimSize(0) < 0)
        return failure();
      ScanSlotNode::Storage storage;
      storage.rowBytes = *bytes / type.getDimSize(0);
      storage.rowsOffset = slot.rowsOffset;
      const int64_t probeBytes = node.storageBytes(storage, node.probeSlots);
      Value init = probe.forward->getOperand(
          isa<scf::ForOp>(probe.forward)
              ? cast<scf::ForOp>(probe.forward).getNumControlOperands() +
                    slot.result
              : slot.result);
      bool found = false;
      for (Value v : {Value(result), init}) {
        auto t = graph.valueTensors.find(v);
        if (t == graph.valueTensors.end() ||
            graph.graph.tensor(t->second).bytes != probeBytes ||
            llvm::any_of(node.storage,
                         [&](const auto &s) { return s.tensor == t->second; }))
          continue;
        storage.tensor = t->second;
        node.storage.push_back(storage);
        found = true;
      }
      if (!found)
        return failure();
    }
  }
  return nodes;
}

/// Whether `func` with its scans at `slots` fits `budget` by the caller's
/// analysis (as it is, or planned by `plan` when given), with the rewrite
/// checked; how many bytes it exceeds it by as it is otherwise.
struct Check {
  bool fits = false;
  int64_t over = 0;
  Scratch rewrite;
};
FailureOr<Check> checkSlots(const Emitted &emitted,
                            const ScanPlanning &planning, int64_t budget,
                            bool planned) {
  FailureOr<Scratch> scratch = analysedCopy(emitted, planning);
  if (failed(scratch))
    return failure();
  Check check;
  SimulationResult asIs =
      simulate(scratch->asIs().graph, scratch->asIs().programOrder);
  check.fits = (asIs.valid && asIs.peak <= budget) ||
               (planned && planning.plan(scratch->graph.graph));
  check.over = check.fits ? 0 : asIs.valid ? asIs.peak - budget : -1;
  check.rewrite = std::move(*scratch);
  return check;
}

/// The stacks the rewrite drops, and those it keeps for their reads after
/// the loop.
std::string stacksNote(const ScanPair &scan) {
  if (scan.keptBytes == 0)
    return llvm::formatv("stacks of {0} B dropped", scan.stackBytes).str();
  if (scan.stackBytes == 0)
    return llvm::formatv("stacks of {0} B kept for their reads after the "
                         "loop, none dropped",
                         scan.keptBytes)
        .str();
  return llvm::formatv("stacks of {0} B dropped, {1} B kept for their reads "
                       "after the loop",
                       scan.stackBytes, scan.keptBytes)
      .str();
}

/// Says in `remark` (at the scan's forward loop) what the reversal with
/// `slots` executes (`counts`), and why that many.
void describeScan(InFlightDiagnostic &remark, const ScanPair &scan,
                  bool isWhile, int64_t slots,
                  const LoopReversalCounts &counts, StringRef why) {
  if (scan.online()) {
    remark << llvm::formatv(
        "{5} of at most {0} steps checkpointed online with {1} slots "
        "of {2} B ({3}): the fewest forward steps for "
        "{1} checkpoints while it runs at most {4} steps; {6} forward "
        "steps if it runs all {0}",
        scan.steps, slots, scan.carryBytes, stacksNote(scan),
        binomialBeta(slots, 2) - 1,
        isWhile ? "while loop" : "loop to a run-time bound",
        counts.forwardSteps);
  } else {
    remark << llvm::formatv(
        "scan of {0} steps checkpointed with {1} slots of {2} B ({3}): {4} "
        "forward steps (the minimum for {1} checkpoints plus one), {5} "
        "reversal actions",
        scan.steps, slots, scan.carryBytes, stacksNote(scan),
        counts.forwardSteps, counts.actions);
  }
  if (!why.empty())
    remark << "; " << why;
}

/// Rewrites scan `found` of `func` with `slots`, with its remark.
void rewriteScan(func::FuncOp func, const FoundScan &found, int64_t slots,
                 StringRef why, detail::RecordedOps &emitted,
                 RegionRuns &runs) {
  IRRewriter rewriter(func.getContext(), &emitted);
  // Made and read before the rewrite, which erases the loop.
  InFlightDiagnostic remark = found.pair.forward->emitRemark();
  const bool isWhile = isa<scf::WhileOp>(found.pair.forward);
  CheckpointedScan out = checkpointScan(rewriter, found.pair, slots);
  addRegionRuns(out, runs);
  describeScan(remark, found.pair, isWhile, slots, out.counts, why);
}

/// Takes the checked rewrite's body as `func`'s: the IR the analysis
/// checked is the IR returned.
void adoptRewrite(func::FuncOp func, Scratch &checked) {
  func.getBody().takeBody(checked.func->getBody());
  func.walk([](Operation *op) {
    op->removeAttr(kProbeForward);
    op->removeAttr(kProbeReversal);
  });
}

/// What the joint model of slots and schedule did for scan i, if it ran,
/// or the search of its frontier where no such model applies.
std::string sizedNote(const ScanSlotChoice &choice, size_t i) {
  if (i < choice.sizedCounts.size())
    return llvm::formatv("; then {0} counts and the schedule in one model: "
                         "{1}",
                         choice.sizedCounts[i],
                         choice.sizedChose ? "its choice was faster"
                                           : "no faster choice")
        .str();
  if (choice.frontierPoints > 0) {
    const int n = choice.frontierPoints;
    const char *what = choice.slots.size() > 1
                           ? (n == 1 ? "choice of the scans' counts"
                                     : "choices of the scans' counts")
                           : (n == 1 ? "count" : "counts");
    return llvm::formatv("; then {0} more {1} compared, re-running the fewest "
                         "steps for their bytes: {2}",
                         n, what,
                         choice.frontierChose ? "one was faster"
                                              : "no faster choice")
        .str();
  }
  return "";
}

/// The rewrite does not verify at other counts than the probe's.
InFlightDiagnostic resizeError(func::FuncOp func) {
  return func.emitError() << "internal error: the checkpointed scans of @"
                          << func.getSymName()
                          << " do not verify with other slot counts; give "
                             "-remat-checkpoint-scans slots=K";
}

/// Fewer slots where the rewrite at `slots` is `over` bytes over: the counts
/// that fit as it is while `planned`, else fewer by the bytes over (half
/// where those are unknown).
std::vector<int64_t> fewerSlots(const std::vector<int64_t> &slots,
                                const std::vector<ScanSlotNode> &nodes,
                                int64_t over, bool planned,
                                const ScanSlotChoice &choice) {
  std::vector<int64_t> fewer = slots;
  for (size_t i = 0; i < slots.size(); ++i) {
    int64_t perSlot = 0;
    for (const ScanSlotNode::Storage &s : nodes[i].storage)
      perSlot += s.rowBytes;
    int64_t by = over > 0 && perSlot > 0 ? (over + perSlot - 1) / perSlot
                                         : slots[i] / 2;
    fewer[i] = planned && choice.asIsSlots[i] > 0 &&
                       choice.asIsSlots[i] < slots[i]
                   ? choice.asIsSlots[i]
                   : std::max<int64_t>(1, slots[i] - std::max<int64_t>(by, 1));
  }
  return fewer;
}

/// Why each scan has its count, where the model chose it or the rewrite
/// took fewer.
void explainSlots(const std::vector<int64_t> &slots,
                  const ScanSlotChoice &choice, int64_t budget,
                  const ScanPlanning &planning,
                  std::vector<std::string> &why) {
  for (size_t i = 0; i < slots.size(); ++i) {
    if (slots[i] != choice.slots[i])
      why[i] = llvm::formatv("fewer than the {0} the model of the scan "
                             "chose: the rewrite with them exceeds {1} B",
                             choice.slots[i], budget)
                   .str();
    else if (planning.plan && choice.feasible)
      why[i] = llvm::formatv("the slots of the fastest plan of the whole "
                             "function within {0} B ({1} with nothing "
                             "else recomputed; {2} plans compared{3})",
                             budget, choice.asIsSlots[i], choice.plansSolved,
                             sizedNote(choice, i))
                   .str();
  }
}

/// Chooses the counts within `budget` by the model of the rewrite at the
/// probe counts (into `emitted`), then checks them on the rewrite itself:
/// where the model was wrong (a temporary of the emitted loops that grows
/// with the slots), fewer slots. `checked` is the rewrite that fit.
LogicalResult chooseByModel(func::FuncOp func, ArrayRef<FoundScan> scans,
                            int64_t budget, const ScanPlanning &planning,
                            std::vector<int64_t> &slots,
                            std::vector<std::string> &why,
                            std::unique_ptr<Emitted> &emitted,
                            std::optional<Scratch> &checked) {
  auto internalError = [&] {
    return func.emitError()
           << "internal error: the scans of @" << func.getSymName()
           << " could not be modelled from their rewrite at " << kProbeSlots
           << " slots; give -remat-checkpoint-scans slots=K";
  };
  std::vector<int64_t> probe;
  for (const FoundScan &scan : scans)
    probe.push_back(std::min(kProbeSlots, scan.pair.steps));
  emitted = emittedCopy(func, scans, probe);
  FailureOr<Scratch> scratch = analysedCopy(*emitted, planning);
  if (failed(scratch))
    return failure();
  FailureOr<std::vector<ScanSlotNode>> nodes =
      slotNodes(scans, *scratch, scratch->graph, planning);
  FailureOr<std::vector<ScanSlotNode>> asIsNodes =
      scratch->timeline
          ? slotNodes(scans, *scratch, *scratch->timeline, planning)
          : nodes;
  if (failed(nodes) || failed(asIsNodes))
    return internalError();
  const AsIsTimeline asIs{scratch->asIs().graph, scratch->asIs().programOrder,
                          *asIsNodes};
  ScanSlotChoice choice = chooseScanSlots(
      scratch->graph.graph, scratch->graph.programOrder, budget, *nodes,
      planning.plan, planning.planSized, &asIs);
  slots = choice.slots;
  // The model is checked on the rewrite itself. Where it was wrong (a
  // temporary of the emitted loops that grows with the slots), fewer
  // slots: the count that fits as it is, then fewer by the bytes over.
  bool planned = static_cast<bool>(planning.plan);
  for (int attempt = 0; choice.feasible && attempt < 8; ++attempt) {
    if (failed(resize(*emitted, slots)))
      return resizeError(func);
    FailureOr<Check> fits = checkSlots(*emitted, planning, budget, planned);
    if (failed(fits))
      return failure();
    if (fits->fits) {
      checked = std::move(fits->rewrite);
      break;
    }
    std::vector<int64_t> fewer =
        fewerSlots(slots, *nodes, fits->over, planned, choice);
    if (fewer == slots)
      break;
    slots = fewer;
    planned = false; // From here on, the counts that fit as it is.
  }
  explainSlots(slots, choice, budget, planning, why);
  return success();
}

/// Takes the emitted rewrite at `slots` (or the checked one, where the
/// planning adopts it) into `func`, with a remark per scan.
FailureOr<ScansRewritten>
adoptEmitted(func::FuncOp func, ArrayRef<FoundScan> scans,
             const std::vector<int64_t> &slots,
             const std::vector<std::string> &why, Emitted &emitted,
             std::optional<Scratch> &checked, const ScanPlanning &planning) {
  const int count = static_cast<int>(scans.size());
  if (failed(resize(emitted, slots)))
    return resizeError(func);
  // Last scan first (the order the rewrite takes them in).
  for (size_t i = scans.size(); i-- > 0;) {
    const ScanPair &scan = scans[i].pair;
    InFlightDiagnostic remark = scan.forward->emitRemark();
    describeScan(remark, scan, isa<scf::WhileOp>(scan.forward), slots[i],
                 emitted.scans[i].counts, why[i]);
  }
  // The body moves (takeBody): its ops, the runs' keys, stay.
  if (checked && planning.adoptChecked) {
    adoptRewrite(func, *checked);
    return ScansRewritten{count, /*prepared=*/true, std::move(checked->runs)};
  }
  ScansRewritten out{count, /*prepared=*/false, {}};
  for (const CheckpointedScan &scan : emitted.scans)
    addRegionRuns(scan, out.runs);
  func.getBody().takeBody(emitted.func->getBody());
  foldIndexArithmetic(func, emitted.ops);
  return out;
}

} // namespace

FailureOr<ScansRewritten> checkpointScansWithin(func::FuncOp func,
                                                int64_t budget,
                                                const ScanPlanning &planning,
                                                int64_t fixedSlots,
                                                int64_t resizeFrom) {
  SmallVector<FoundScan, 2> scans = findScans(func);
  if (scans.empty())
    return ScansRewritten{};
  const int count = static_cast<int>(scans.size());
  std::vector<int64_t> slots(scans.size(), 1);
  std::vector<std::string> why(scans.size());
  std::unique_ptr<Emitted> emitted; // The rewrite at the probe counts.
  std::optional<Scratch> checked;   // A copy of it at `slots`, checked.
  if (fixedSlots > 0) {
    std::vector<int64_t> first(scans.size());
    for (size_t i = 0; i < scans.size(); ++i) {
      slots[i] = std::min(fixedSlots, scans[i].pair.steps);
      first[i] = std::min(resizeFrom, scans[i].pair.steps);
    }
    if (resizeFrom > 0)
      emitted = emittedCopy(func, scans, first);
  } else if (budget >= 0) {
    if (failed(chooseByModel(func, scans, budget, planning, slots, why,
                             emitted, checked)))
      return failure();
  }
  if (emitted)
    return adoptEmitted(func, scans, slots, why, *emitted, checked, planning);
  // No probe (a fixed count, or the fewest): rewritten once with them.
  // Last scan first: the rewrite moves only what follows its forward loop.
  detail::RecordedOps direct;
  ScansRewritten out{count, /*prepared=*/false, {}};
  for (size_t i = scans.size(); i-- > 0;)
    rewriteScan(func, scans[i], slots[i], why[i], direct, out.runs);
  foldIndexArithmetic(func, direct);
  return out;
}

} // namespace remat
