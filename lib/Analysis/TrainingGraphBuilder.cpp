//===- TrainingGraphBuilder.cpp - IR to TrainingGraph ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Analysis/TrainingGraphBuilder.h"
#include "remat/Analysis/Collectives.h"
#include "remat/Analysis/ScanLoops.h"
#include "remat/Analysis/OpGroups.h"
#include "remat/Analysis/ShapeBounds.h"
#include "remat/Dialect/Remat/Remat.h"

#include "remat/Solver/Core/Simulator.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace remat {

unsigned lossResultIndex(func::FuncOp func) {
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    if (func.getResultAttr(i, RematDialect::kLossAttrName))
      return i;
  return 0;
}

namespace {


/// Ops of `block` (and, through recompute regions, below) that the loss
/// depends on.
llvm::SmallPtrSet<Operation *, 32> forwardOps(Value loss) {
  llvm::SmallPtrSet<Operation *, 32> forward;
  SmallVector<Value> work{loss};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def || !forward.insert(def).second)
      continue;
    for (Value in : valuesRead(def))
      work.push_back(in);
  }
  return forward;
}

/// Whether `op` or an op in its regions passes messages the planner keeps
/// (point-to-point, mpi): a partner waits for it.
bool passesMessages(Operation *op) {
  return op
      ->walk([](Operation *inner) {
        return whyCommunicationKept(inner) ? WalkResult::interrupt()
                                           : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Adds to `forward` each op of `block` that passes messages before the
/// last op the loss depends on, and what it reads, so that it runs in the
/// forward pass in program order. A pipeline stage's send that the loss
/// does not read would otherwise be scheduled with the backward pass,
/// after a receive its partner's program puts later: both ranks would wait
/// forever.
void addMessagesBeforeLoss(Block &block,
                           llvm::SmallPtrSet<Operation *, 32> &forward) {
  Operation *last = nullptr;
  for (Operation &op : block.without_terminator())
    if (forward.contains(&op))
      last = &op;
  if (!last)
    return;
  for (Operation &op : block) {
    if (&op == last)
      break;
    if (forward.contains(&op) || !passesMessages(&op))
      continue;
    forward.insert(&op);
    for (Value in : valuesRead(&op))
      for (Operation *def : forwardOps(in))
        forward.insert(def);
  }
}

bool isRecomputable(Operation *op) { return !whyNotRecomputable(op); }

/// The reason a node stays, for a node made of `chain`, or "".
std::string chainKeptBecause(ArrayRef<Operation *> chain) {
  for (Operation *member : llvm::reverse(chain))
    if (std::optional<std::string> why = whyNotRecomputable(member))
      return *why;
  return "";
}

bool hasRecomputeHint(Operation *op) {
  auto policy = op->getAttrOfType<PolicyAttr>(RematDialect::kPolicyAttrName);
  return policy && policy.getValue() == Policy::Recompute;
}

class Builder {
public:
  Builder(func::FuncOp func, const CostModel &costs, RecomputeRegions mode,
          Operation *symbolScope, const RegionRuns *runs = nullptr)
      : func(func), costs(costs), mode(mode),
        symbolScope(symbolScope ? symbolScope : func->getParentOp()),
        runs(runs) {}

  FailureOr<IRTrainingGraph> build() {
    Region &body = func.getBody();
    if (body.empty())
      return func.emitError() << "remat needs a function with a body";
    if (!body.hasOneBlock())
      return func.emitError()
             << "remat supports straight-line function bodies (one block); "
                "this one has "
             << body.getBlocks().size()
             << " blocks: express control flow with structured ops (scf)";
    if (func.getNumResults() == 0)
      return func.emitError()
             << "remat needs the loss as a function result: the function "
                "returns nothing";
    Block &block = body.front();
    auto ret = dyn_cast<func::ReturnOp>(block.getTerminator());
    if (!ret)
      return func.emitError() << "expected a func.return terminator";
    Value lossValue = ret.getOperand(lossResultIndex(func));
    forward = forwardOps(lossValue);
    addMessagesBeforeLoss(block, forward);

    for (BlockArgument arg : block.getArguments()) {
      std::optional<int64_t> bytes = costs.bufferBytes(arg.getType());
      if (bytes == kTooManyBytes)
        return func.emitError() << "argument #" << arg.getArgNumber() << " ("
                                << arg.getType()
                                << ") takes more than 2^63 - 1 bytes";
      if (!bytes)
        return func.emitError() << "argument #" << arg.getArgNumber()
                                << " has a dynamic shape (" << arg.getType()
                                << "): remat needs static sizes";
      TensorId t = result.graph.addInput("arg" + std::to_string(
                                                     arg.getArgNumber()),
                                         *bytes);
      bindValue(arg, t);
    }
    if (failed(addBlock(block)))
      return failure();

    for (Value v : ret.getOperands())
      for (TensorId t : readsOf(v))
        if (!result.graph.isInput(t))
          result.graph.markRequired(t);
    result.loss = result.valueTensors.lookup(lossValue);
    result.copyOf.assign(result.graph.numNodes(), kNone);

    // Every node once, the host copies where the body has them.
    Schedule runs;
    size_t c = 0;
    for (NodeId n = 0; n < result.graph.numNodes(); ++n) {
      for (; c < hostCopies.size() && hostCopies[c].first == n; ++c)
        runs.steps().push_back(hostCopies[c].second);
      runs.run(n);
    }
    for (; c < hostCopies.size(); ++c)
      runs.steps().push_back(hostCopies[c].second);
    result.programOrder = runs.withEagerFrees(result.graph);
    return std::move(result);
  }

private:
  /// Marks node `n` as one no plan may recompute, for `why`.
  void keep(NodeId n, const char *why) {
    Node &node = result.graph.node(n);
    if (node.recomputable && node.kind == NodeKind::Forward)
      result.keptBecause[n] = why; // Sized as each node is added.
    node.recomputable = false;
  }

  void bindValue(Value v, TensorId t) {
    result.valueTensors[v] = t;
    if (static_cast<size_t>(t) >= result.tensorValues.size())
      result.tensorValues.resize(t + 1);
    if (!result.tensorValues[t])
      result.tensorValues[t] = v;
  }

  /// The tensors a reader of `v` must keep live: v's own tensor and, for a
  /// view, the tensors it views.
  SmallVector<TensorId> readsOf(Value v) {
    SmallVector<TensorId> ts;
    auto it = result.valueTensors.find(v);
    if (it == result.valueTensors.end())
      return ts;
    ts.push_back(it->second);
    auto roots = viewRoots.find(it->second);
    if (roots != viewRoots.end())
      ts.append(roots->second.begin(), roots->second.end());
    return ts;
  }

  LogicalResult addBlock(Block &block) {
    for (Operation &op : block.without_terminator()) {
      auto recompute = dyn_cast<RecomputeOp>(op);
      if (recompute && mode == RecomputeRegions::Flatten) {
        for (auto [in, arg] : llvm::zip(recompute.getInputs(),
                                        recompute.getBodyBlock().getArguments()))
          aliasValue(arg, in);
        if (failed(addBlock(recompute.getBodyBlock())))
          return failure();
        for (auto [res, yielded] :
             llvm::zip(recompute.getResults(), recompute.getYield().getValues()))
          aliasValue(res, yielded);
        continue;
      }
      if (isa<OffloadOp, PrefetchOp>(op)) {
        if (failed(addHostCopy(op)))
          return failure();
        continue;
      }
      if (isFreeValue(&op)) {
        for (Value v : op.getResults())
          bindValue(v, result.graph.addInput(
                           "cst" + std::to_string(result.graph.numTensors()),
                           0));
        continue;
      }
      if (Operation *user = absorbingUser(&op)) {
        // Part of its user's node: the user's chain gets this op's chain.
        SmallVector<Operation *, 4> &chain = pending[user];
        auto own = pending.find(&op);
        if (own != pending.end()) {
          chain.append(own->second.begin(), own->second.end());
          pending.erase(own);
        }
        chain.push_back(&op);
        continue;
      }
      SmallVector<Operation *, 4> chain;
      if (auto it = pending.find(&op); it != pending.end()) {
        chain = std::move(it->second);
        pending.erase(it);
      }
      chain.push_back(&op);
      if (failed(addNode(chain)))
        return failure();
    }
    return success();
  }

  /// A host copy is no node: an Offload or Prefetch step of the tensor it
  /// copies, before the next node; its result is that tensor again.
  LogicalResult addHostCopy(Operation &op) {
    if (op.getBlock() != &func.getBody().front())
      return op.emitError() << "host copies are planned in the function's "
                               "body only, not inside a region";
    auto it = result.valueTensors.find(op.getOperand(0));
    if (it == result.valueTensors.end())
      return op.emitError() << "copies a value the planner does not track";
    TensorId t = it->second;
    aliasValue(op.getResult(0), op.getOperand(0));
    hostCopies.emplace_back(result.graph.numNodes(),
                            isa<OffloadOp>(op) ? Step::offload(t)
                                               : Step::prefetch(t));
    return success();
  }

  void aliasValue(Value alias, Value of) {
    auto it = result.valueTensors.find(of);
    if (it != result.valueTensors.end())
      result.valueTensors[alias] = it->second;
  }

  /// One node for `chain`: absorbed initial values, then the op producing
  /// the node's results.
  LogicalResult addNode(ArrayRef<Operation *> chain) {
    Operation *op = chain.back();
    auto recompute = dyn_cast<RecomputeOp>(op);
    bool pure = true, pureCall = false;
    FailureOr<OpCost> cost = chainCost(chain, pure, pureCall);
    if (failed(cost))
      return failure();
    SmallVector<TensorId> inputs = chainInputs(chain);
    SmallVector<SmallVector<TensorId>> inPlaceOf(op->getNumResults());
    bool inPlace = resultsInPlace(op, *cost, inPlaceOf);

    bool isForward = forward.contains(op);
    std::string name = op->getName().getStringRef().str() + "#" +
                       std::to_string(result.graph.numNodes());
    NodeId n = result.graph.addNode(
        name, isForward ? NodeKind::Forward : NodeKind::Backward, cost->time,
        std::vector<TensorId>(inputs.begin(), inputs.end()),
        std::vector<int64_t>(cost->resultBytes.begin(),
                             cost->resultBytes.end()),
        cost->workspace);
    Node &node = result.graph.node(n);
    // Re-running an in-place update would read the value it overwrote.
    node.recomputable = isForward && !recompute && pure && !inPlace &&
                        (isRecomputable(op) || pureCall);
    result.keptBecause.resize(n + 1);
    if (isForward && !node.recomputable)
      result.keptBecause[n] = keptBecause(chain, inPlace, pureCall);
    node.type = op->getName().getStringRef().str();
    if (auto generic = dyn_cast<GenericOp>(op))
      if (std::optional<int64_t> k = generic.getOverwrites()) {
        auto it = result.valueTensors.find(generic.getInputs()[*k]);
        if (it != result.valueTensors.end() &&
            llvm::is_contained(node.inputs, it->second))
          node.overwrites = it->second;
      }
    result.nodeOps.emplace_back(chain.begin(), chain.end());
    for (Operation *member : chain)
      result.opNodes[member] = n;
    bindResults(op, node, inputs, inPlaceOf, isForward);
    return success();
  }

  /// The cost of `chain` as one node: its op's, plus the absorbed initial
  /// values' time and buffers, an iteration's peak for control flow, a
  /// callee's for a call. `pure`: every absorbed op may re-run; `pureCall`:
  /// the op is a call that may.
  FailureOr<OpCost> chainCost(ArrayRef<Operation *> chain, bool &pure,
                              bool &pureCall) {
    Operation *op = chain.back();
    FailureOr<OpCost> cost = costs.cost(op, symbolScope);
    if (failed(cost))
      return failure();
    auto recompute = dyn_cast<RecomputeOp>(op);
    if (recompute)
      *cost = atomicRecomputeCost(recompute);
    for (Operation *absorbed : chain.drop_back()) {
      FailureOr<OpCost> c = costs.cost(absorbed, symbolScope);
      if (failed(c))
        return failure();
      cost->time += c->time;
      cost->workspace = std::max(cost->workspace, c->workspace);
      pure &= isRecomputable(absorbed);
      // A value read as an input (not written into) is a buffer of its own
      // while the op runs.
      if (!isDestinationUse(*absorbed->getResult(0).getUses().begin()))
        cost->workspace +=
            costs.bufferBytes(absorbed->getResult(0).getType()).value_or(0);
    }
    // Control flow (loops, branches; not a linalg op's scalar body): the
    // peak of an iteration is its workspace, the iterations its time.
    if (!recompute && isa<RegionBranchOpInterface>(op)) {
      FailureOr<OpCost> inner = regionCost(op);
      if (failed(inner))
        return failure();
      cost->workspace = std::max(cost->workspace, inner->workspace);
      cost->time = inner->time;
    }
    // A call that stays (not inlined): the callee's own peak while it runs,
    // its time; re-runnable when nothing in it has effects.
    if (auto call = dyn_cast<func::CallOp>(op))
      if (failed(addCallCost(call, *cost, pureCall)))
        return failure();
    return cost;
  }

  /// The tensors `chain` reads from outside itself, each once.
  SmallVector<TensorId> chainInputs(ArrayRef<Operation *> chain) {
    llvm::SmallPtrSet<Operation *, 4> inChain(chain.begin(), chain.end());
    SmallVector<TensorId> inputs;
    for (Operation *member : chain)
      for (Value v : valuesRead(member)) {
        if (Operation *def = v.getDefiningOp(); def && inChain.contains(def))
          continue;
        for (TensorId t : readsOf(v))
          if (!llvm::is_contained(inputs, t))
            inputs.push_back(t);
      }
    return inputs;
  }

  /// Results written into a computed destination own no bytes: they are
  /// that destination's buffer, which their readers keep alive. Fills
  /// `inPlaceOf` (per result, the tensors it is written into), zeroes those
  /// results' bytes in `cost`, keeps what an in-place write forbids
  /// re-running; true when some result is written in place.
  bool resultsInPlace(Operation *op, OpCost &cost,
                      SmallVector<SmallVector<TensorId>> &inPlaceOf) {
    bool inPlace = false;
    for (OpResult r : op->getResults()) {
      Value target;
      if (OpOperand *dest = updatedInPlace(
              r, mode == RecomputeRegions::Flatten ? OpOrder::Final
                                                   : OpOrder::MayChange))
        target = dest->get();
      else if (branchesWriteInto(r))
        // The buffer both branches write into, as a value of this graph:
        // the chain's end may be an initial value absorbed into its
        // writer's node, which has no tensor of its own.
        target = inPlaceTarget(
            cast<scf::IfOp>(op).thenYield().getOperand(r.getResultNumber()),
            [&](Value v) { return result.valueTensors.contains(v); });
      if (!target)
        continue;
      inPlace = true;
      inPlaceOf[r.getResultNumber()] = readsOf(target);
      cost.resultBytes[r.getResultNumber()] = 0;
      // The destination's buffer now holds this result: a recomputed copy
      // of the destination would be a buffer more, not this one restored;
      // a reader of the old value re-run later would read the new one.
      for (TensorId t : inPlaceOf[r.getResultNumber()])
        if (NodeId producer = result.graph.tensor(t).producer;
            producer != kNone)
          keep(producer, "a later op updates its result in place (a "
                         "recomputed copy would not be the buffer it writes)");
      for (Operation *reader : target.getUsers())
        for (Operation *p = reader; p && p != op; p = p->getParentOp())
          if (auto it = result.opNodes.find(p); it != result.opNodes.end()) {
            keep(it->second, "it reads a value a later op overwrites in "
                             "place (re-run later it would read the new one)");
            break;
          }
    }
    return inPlace;
  }

  /// Why a forward node of `chain` may not be recomputed.
  std::string keptBecause(ArrayRef<Operation *> chain, bool inPlace,
                          bool pureCall) {
    Operation *op = chain.back();
    auto call = dyn_cast<func::CallOp>(op);
    return isa<RecomputeOp>(op)
               ? std::string("a recomputation already in the IR")
           : inPlace ? std::string("it updates a value in place (re-running "
                                   "it would read what it overwrote)")
           : call && !pureCall
               ? "it calls @" + call.getCallee().str() +
                     ", which has side effects or no body here"
               : chainKeptBecause(chain);
  }

  /// Binds `op`'s results to `node`'s tensors, names them, and records
  /// what keeps them alive (the buffer they were written into, what a view
  /// views) and the recompute hints among them.
  void bindResults(Operation *op, const Node &node, ArrayRef<TensorId> inputs,
                   ArrayRef<SmallVector<TensorId>> inPlaceOf, bool isForward) {
    bool view = isViewLike(op);
    for (auto [value, t] : llvm::zip(op->getResults(), node.outputs)) {
      bindValue(value, t);
      result.graph.tensor(t).name =
          node.name + (op->getNumResults() > 1
                           ? "#" + std::to_string(
                                       cast<OpResult>(value).getResultNumber())
                           : "");
      if (const auto &roots = inPlaceOf[cast<OpResult>(value).getResultNumber()];
          !roots.empty())
        viewRoots[t].append(roots.begin(), roots.end());
      if (view) // Readers of the view keep what it views alive.
        for (TensorId in : inputs)
          if (!result.graph.isInput(in))
            viewRoots[t].push_back(in);
      if (isForward && hasRecomputeHint(op))
        result.recomputeHints.push_back(t);
    }
  }

  /// The most steps a loop whose trip count the IR does not state can run:
  /// an online scan's forward loop runs at most its stacks' rows, and the
  /// loop reversing a scan as many steps as the scan's forward loop (its
  /// bounds may be the forward counter's result, known only to the scan).
  /// That forward loop is one whose stacks `op`'s body reads. A scan whose
  /// stacks are on the host (HostStacks.h) is no scan any more: its forward
  /// loop, which stores a row of a host stack it carries per step, and the
  /// loop reading that stack's rows back run at most its rows.
  static std::optional<int64_t> mostStepsAtRunTime(Operation *op) {
    if (std::optional<int64_t> rows = hostStackRows(op))
      return rows;
    auto match = matchScan(op);
    if (auto *scan = std::get_if<ScanPair>(&match); scan && scan->online())
      return scan->steps;
    llvm::SetVector<Value> read;
    getUsedValuesDefinedAbove(op->getRegions(), read);
    llvm::SmallPtrSet<Operation *, 4> tried;
    for (Value v : read) {
      Operation *loop = v.getDefiningOp();
      if (!loop || loop->getBlock() != op->getBlock() ||
          !isa<scf::ForOp, scf::WhileOp>(loop) || !tried.insert(loop).second)
        continue;
      auto forward = matchScan(loop);
      if (auto *scan = std::get_if<ScanPair>(&forward);
          scan && scan->backward == op)
        return scan->steps;
    }
    return std::nullopt;
  }

  /// The rows of the host stack `op`'s body stores into (an iteration
  /// argument) or reads from (a stack defined before `op`), if any.
  static std::optional<int64_t> hostStackRows(Operation *op) {
    std::optional<int64_t> rows;
    for (Region &region : op->getRegions())
      for (Operation &inner : region.getOps()) {
        Value stack;
        if (auto store = dyn_cast<OffloadRowOp>(inner))
          stack = store.getStack();
        else if (auto read = dyn_cast<PrefetchRowOp>(inner))
          stack = read.getStack();
        else
          continue;
        auto arg = dyn_cast<BlockArgument>(stack);
        bool carried = arg && arg.getOwner()->getParentOp() == op;
        bool before = !op->isAncestor(stack.getParentRegion()->getParentOp()) &&
                      stack.getParentRegion() != &region;
        if (isa<OffloadRowOp>(inner) ? carried : before)
          rows =
              std::max(rows.value_or(0),
                       cast<RankedTensorType>(stack.getType()).getDimSize(0));
      }
    return rows;
  }

  /// The peak of one run of each region of `op` above what is live around
  /// it (its workspace: the largest over the regions), and its time: the
  /// regions' times, times the trip count of an scf.for with constant or
  /// bounded bounds (the largest branch of an scf.if or scf.index_switch:
  /// one runs); a stacking scf.while and the loop reversing it count the
  /// most steps the while can run.
  FailureOr<OpCost> regionCost(Operation *op) {
    OpCost c;
    // The schedule that emitted the op knows how often its regions run.
    const SmallVector<double, 2> *known = nullptr;
    if (runs)
      if (auto it = runs->find(op); it != runs->end())
        known = &it->second;
    for (Region &region : op->getRegions()) {
      if (region.empty())
        continue;
      if (!region.hasOneBlock())
        return op->emitError() << "remat supports regions of one block";
      Builder inner(func, costs, mode, symbolScope, runs);
      FailureOr<SimulationResult> run = inner.simulateBlock(region.front());
      if (failed(run))
        return failure();
      int64_t peak = run->peak;
      // A branch's fresh yielded values are its results' buffers, which
      // the op's result bytes count already: not again as workspace.
      if (isa<scf::IfOp, scf::IndexSwitchOp>(op)) {
        llvm::SmallDenseSet<TensorId> fresh;
        for (Value v : region.front().getTerminator()->getOperands())
          for (TensorId t : inner.readsOf(v))
            if (!inner.result.graph.isInput(t) && fresh.insert(t).second)
              peak -= inner.result.graph.tensor(t).bytes;
        peak = std::max<int64_t>(peak, 0);
      }
      c.workspace = std::max(c.workspace, peak);
      if (known)
        c.time += run->time * (*known)[region.getRegionNumber()];
      else
        c.time = isa<scf::IfOp, scf::IndexSwitchOp>(op)
                     ? std::max(c.time, run->time)
                     : c.time + run->time;
    }
    if (known)
      return c;
    // A loop whose trip count is known only at run time, reversed or
    // reversing by a scan, counts the most steps it can run: the time of
    // the worst case, as its peak is (the stacks count whole).
    if (auto loop = dyn_cast<scf::WhileOp>(op)) {
      // A counted while (a backward loop written as j = T-1 down to 0)
      // runs its trip count.
      auto counted = matchCountedWhile(loop);
      auto *w = std::get_if<CountedWhile>(&counted);
      std::optional<int64_t> trips =
          w ? w->trips.asConstant() : std::nullopt;
      if (!trips)
        trips = mostStepsAtRunTime(op);
      if (trips)
        c.time *= static_cast<double>(std::max<int64_t>(0, *trips));
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
      std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
      std::optional<int64_t> step = getConstantIntValue(loop.getStep());
      if (!ub)
        ub = mostStepsAtRunTime(op);
      // A trip count from the device index (an asynchronous pipeline
      // stage's), or another bounded one: the most it can run.
      if (!ub)
        ub = indexUpperBound(loop.getUpperBound(), symbolScope);
      if (lb && ub && step && *step > 0)
        c.time *= static_cast<double>(std::max<int64_t>(
            0, (*ub - *lb + *step - 1) / *step));
    }
    return c;
  }

  /// The callee's time and, as workspace, its peak above its arguments
  /// less the results the node already owns (they are live at its return,
  /// so the peak is at least their sum). A callee with no body (external)
  /// or one already being costed (recursion) keeps the op's own cost and
  /// is listed in opaqueCalls: its memory inside is unknown.
  LogicalResult addCallCost(func::CallOp call, OpCost &cost, bool &pure) {
    auto callee =
        symbolScope ? SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                          symbolScope, call.getCalleeAttr())
                    : nullptr;
    if (!callee || callee.isExternal() || !callee.getBody().hasOneBlock() ||
        !activeCalls().insert(callee).second) {
      result.opaqueCalls.push_back(call);
      return success();
    }
    Builder inner(callee, costs, mode, symbolScope);
    FailureOr<SimulationResult> run =
        inner.simulateBlock(callee.getBody().front());
    activeCalls().erase(callee);
    if (failed(run))
      return failure();
    int64_t results = 0;
    for (int64_t b : cost.resultBytes)
      results += b;
    cost.time = run->time;
    cost.workspace = std::max(cost.workspace, run->peak - results);
    pure = !callee.getBody()
                .walk([](Operation *inner) {
                  if (inner->hasTrait<OpTrait::IsTerminator>() ||
                      isRecomputable(inner))
                    return WalkResult::advance();
                  return WalkResult::interrupt();
                })
                .wasInterrupted();
    return success();
  }

  /// Callees being costed, by every Builder of this thread: a recursive
  /// call is not costed again.
  static llvm::SmallPtrSet<Operation *, 4> &activeCalls() {
    static thread_local llvm::SmallPtrSet<Operation *, 4> active;
    return active;
  }

  /// Program order of `block` as a graph of its own: values from outside
  /// (arguments, captures) are live around it and cost nothing here; what
  /// the terminator passes on stays live to the end.
  FailureOr<SimulationResult> simulateBlock(Block &block) {
    if (failed(addBlock(block)))
      return failure();
    for (Value v : block.getTerminator()->getOperands())
      for (TensorId t : readsOf(v))
        if (!result.graph.isInput(t))
          result.graph.markRequired(t);
    Schedule runs;
    for (NodeId n = 0; n < result.graph.numNodes(); ++n)
      runs.run(n);
    SimulationResult sim =
        simulate(result.graph, runs.withEagerFrees(result.graph));
    if (!sim.valid)
      return block.getParentOp()->emitError()
             << "internal error: the body's program order is not a valid "
                "schedule: "
             << sim.error;
    return sim;
  }

  /// An existing recomputation as one node: the time of its ops, and a
  /// workspace covering every value it creates beyond its results (an upper
  /// bound of its internal peak).
  OpCost atomicRecomputeCost(RecomputeOp op) {
    OpCost c;
    int64_t inner = 0;
    op.getBodyBlock().walk([&](Operation *inside) {
      if (inside == op.getOperation() || isa<YieldOp>(inside))
        return;
      if (inside->getParentOp() != op.getOperation())
        return; // Nested regions are part of their parent op's cost.
      if (FailureOr<OpCost> ic = costs.cost(inside, symbolScope);
          succeeded(ic)) {
        c.time += ic->time;
        for (int64_t b : ic->resultBytes)
          inner += b;
      }
    });
    int64_t out = 0;
    for (Value r : op.getResults()) {
      int64_t b = costs.bufferBytes(r.getType()).value_or(0);
      c.resultBytes.push_back(b);
      out += b;
    }
    c.workspace = std::max<int64_t>(0, inner - out);
    return c;
  }

  func::FuncOp func;
  const CostModel &costs;
  RecomputeRegions mode;
  Operation *symbolScope; ///< Where callees are looked up (may be null).
  const RegionRuns *runs; ///< Known runs of emitted loops (may be null).
  IRTrainingGraph result;
  llvm::SmallPtrSet<Operation *, 32> forward;
  llvm::DenseMap<TensorId, SmallVector<TensorId>> viewRoots;
  /// Absorbed ops waiting for the op whose node they join.
  llvm::DenseMap<Operation *, SmallVector<Operation *, 4>> pending;
  /// Host copies in body order, each with the node it comes before.
  std::vector<std::pair<NodeId, Step>> hostCopies;
};

} // namespace

/// Why the values `block` returns are not a loss and its gradients, or
/// std::nullopt when they are: at least one besides the loss is computed,
/// outside the loss's own computation, from what that computation made.
static std::optional<std::string> whyNoGradient(Block &block,
                                                ValueRange results,
                                                unsigned lossIndex) {
  llvm::SmallPtrSet<Operation *, 32> forward =
      forwardOps(results[lossIndex]);
  // Backward ops: outside the loss's computation, reading what it computed
  // (directly or through other backward ops). Constants and parameter
  // initialisation read nothing of it.
  llvm::SmallPtrSet<Operation *, 32> backward;
  for (Operation &op : block.without_terminator()) {
    if (forward.contains(&op))
      continue;
    for (Value v : valuesRead(&op)) {
      Operation *def = v.getDefiningOp();
      if (def && (forward.contains(def) || backward.contains(def))) {
        backward.insert(&op);
        break;
      }
    }
  }
  for (auto [i, v] : llvm::enumerate(results)) {
    if (i == lossIndex)
      continue;
    Operation *def = v.getDefiningOp();
    if (def && backward.contains(def))
      return std::nullopt; // A gradient.
  }
  return std::string("it returns no value computed from its loss's "
                     "computation besides the loss (no gradient)");
}

scf::ForOp microBatchLoop(func::FuncOp func) {
  if (func.isExternal() || !func.getBody().hasOneBlock() ||
      func.getNumResults() < 2)
    return {};
  auto ret = dyn_cast<func::ReturnOp>(func.getBody().front().getTerminator());
  if (!ret)
    return {};
  unsigned lossIndex = lossResultIndex(func);
  auto loss = dyn_cast<OpResult>(ret.getOperand(lossIndex));
  auto loop = loss ? dyn_cast<scf::ForOp>(loss.getOwner()) : scf::ForOp();
  if (!loop || loop->getBlock() != &func.getBody().front())
    return {};
  bool returnsMore = llvm::any_of(
      llvm::enumerate(ret.getOperands()), [&](auto indexed) {
        return indexed.index() != lossIndex &&
               indexed.value().getDefiningOp() == loop.getOperation();
      });
  if (!returnsMore)
    return {};
  Block &body = *loop.getBody();
  if (whyNoGradient(body, body.getTerminator()->getOperands(),
                    loss.getResultNumber()))
    return {};
  return loop;
}

std::optional<std::string> whyNotRecomputable(Operation *op) {
  if (auto policy =
          op->getAttrOfType<PolicyAttr>(RematDialect::kPolicyAttrName))
    if (policy.getValue() == Policy::Keep)
      return std::string("marked #remat.policy<keep>");
  if (std::optional<std::string> why = whyCommunicationKept(op))
    return why;
  if (auto generic = dyn_cast<GenericOp>(op)) {
    if (generic.getRandom())
      return "'" + generic.getName().str() +
             "' draws random numbers (a re-run would draw new ones)";
    return std::nullopt;
  }
  if (isMemoryEffectFree(op))
    return std::nullopt;
  if (!op->isRegistered())
    return "unknown op '" + op->getName().getStringRef().str() +
           "' (unregistered: its side effects are unknown; a remat.op with a "
           "remat.cost declares a pure framework op)";
  return "'" + op->getName().getStringRef().str() +
         "' has side effects (reads or writes memory)";
}

std::optional<std::string> whyNotATrainingStep(func::FuncOp func) {
  if (func.isExternal())
    return std::string("it is a declaration");
  if (func.getNumResults() == 0)
    return std::string("it returns nothing (a training step returns its "
                       "loss and gradients)");
  if (!func.getBody().hasOneBlock())
    return std::nullopt; // buildTrainingGraph explains what is wrong.
  auto ret = dyn_cast<func::ReturnOp>(func.getBody().front().getTerminator());
  if (!ret)
    return std::nullopt;
  // A loss is a scalar (or a vector of per-example losses): without
  // remat.loss, a first result of rank 2 or more (an inference function's
  // batch x classes output) says this is not a training step.
  unsigned lossIndex = lossResultIndex(func);
  if (!func.getResultAttr(lossIndex, RematDialect::kLossAttrName)) {
    Type first = func.getResultTypes()[0];
    auto shaped = dyn_cast<ShapedType>(first);
    if (shaped && shaped.hasRank() && shaped.getRank() >= 2)
      return "its loss cannot be told: the first result (" +
             llvm::formatv("{0}", first).str() +
             ") is not a scalar or a vector; mark the loss with "
             "{remat.loss} on its result";
  }
  std::optional<std::string> why = whyNoGradient(
      func.getBody().front(), ret.getOperands(), lossResultIndex(func));
  if (why && microBatchLoop(func))
    return std::nullopt; // Its body is the step (MicroBatch.h).
  return why;
}

FailureOr<IRTrainingGraph> buildTrainingGraph(func::FuncOp func,
                                              const CostModel &costs,
                                              RecomputeRegions regions,
                                              Operation *symbolScope,
                                              const RegionRuns *runs) {
  if (!hasDynamicShapes(func))
    return Builder(func, costs, regions, symbolScope, runs).build();
  // Sizes at their bounds (ShapeBounds.h): the graph of the bounded copy,
  // its ops and values mapped back to `func`'s.
  FailureOr<BoundedCopy> bounded =
      boundedCopy(func, symbolScope ? symbolScope : func->getParentOp());
  if (failed(bounded))
    return failure();
  RegionRuns copyRuns; // Keyed by the copy's ops.
  if (runs)
    for (auto [copy, original] : bounded->originalOps)
      if (auto it = runs->find(original); it != runs->end())
        copyRuns[copy] = it->second;
  FailureOr<IRTrainingGraph> g =
      Builder(*bounded->copy, costs, regions,
              symbolScope ? symbolScope : func->getParentOp(), &copyRuns)
          .build();
  if (failed(g))
    return failure();
  auto op = [&](Operation *o) { return bounded->originalOps.lookup(o); };
  auto value = [&](Value v) { return bounded->originalValues.lookup(v); };
  for (auto &ops : g->nodeOps)
    for (Operation *&o : ops)
      o = op(o);
  llvm::DenseMap<Operation *, NodeId> opNodes;
  for (auto [o, n] : g->opNodes)
    opNodes[op(o)] = n;
  g->opNodes = std::move(opNodes);
  llvm::DenseMap<Value, TensorId> valueTensors;
  for (auto [v, t] : g->valueTensors)
    valueTensors[value(v)] = t;
  g->valueTensors = std::move(valueTensors);
  for (Value &v : g->tensorValues)
    v = value(v);
  for (Operation *&o : g->opaqueCalls)
    o = op(o);
  return g;
}

std::optional<int64_t> functionPeak(func::FuncOp func, const CostModel &costs,
                                    RecomputeRegions regions,
                                    Operation *symbolScope) {
  FailureOr<IRTrainingGraph> g =
      buildTrainingGraph(func, costs, regions, symbolScope);
  if (failed(g))
    return std::nullopt;
  SimulationResult sim = g->simulateProgram();
  return sim.valid ? std::optional<int64_t>(sim.peak) : std::nullopt;
}

} // namespace remat
