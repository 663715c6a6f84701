//===- Materialize.cpp - Turn a Schedule into IR --------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Transforms/Materialize.h"
#include "remat/Analysis/CostModel.h"
#include "remat/Analysis/OpGroups.h"
#include "remat/Dialect/Remat/Remat.h"
#include "remat/Solver/Core/Simulator.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/SaveAndRestore.h"

using namespace mlir;

namespace remat {
namespace {

class Materializer {
public:
  Materializer(func::FuncOp func, const IRTrainingGraph &ig,
               const Schedule &schedule)
      : func(func), ig(ig), g(ig.graph), schedule(schedule),
        runs() {
    runs.reserve(schedule.steps().size());
    for (const Step &s : schedule.steps())
      if (s.isRun())
        runs.push_back(s.id);
  }

  FailureOr<MaterializeResult> run() {
    Block &block = func.getBody().front();
    terminator = block.getTerminator();
    newest.assign(g.numTensors(), Value());
    for (TensorId t = 0; t < g.numTensors(); ++t)
      if (g.isInput(t))
        newest[t] = ig.tensorValues[t];
    std::vector<int> timesRun(g.numNodes(), 0);

    // A run is a recomputation when its node ran before, or when the node
    // stands for a copy of another op (a #remat.policy<recompute> value).
    auto isRecomputation = [&](NodeId n) {
      return ig.isCopy(n) || (timesRun[n] > 0 && g.isForward(n));
    };
    // Steps in order; `i` is the position of the next run in `runs`.
    const std::vector<Step> &steps = schedule.steps();
    size_t i = 0;
    for (size_t k = 0; k < steps.size();) {
      if (steps[k].isCopy()) {
        emitHostCopy(steps[k++]);
        continue;
      }
      // A Free (the buffer planner frees after the last use) or an Await
      // (the GPU lowering waits for every copy to the host already).
      if (!steps[k].isRun()) {
        ++k;
        continue;
      }
      NodeId n = runs[i];
      if (!isRecomputation(n)) {
        ++timesRun[n];
        placeOriginal(n);
        ++i;
        ++k;
        continue;
      }
      // A maximal group of consecutive recomputations (no copy between
      // them) becomes one region.
      size_t end = i;
      for (; k < steps.size() && !steps[k].isCopy(); ++k) {
        if (!steps[k].isRun())
          continue;
        if (!isRecomputation(runs[end]))
          break;
        ++timesRun[runs[end++]];
      }
      emitRecompute(i, end);
      i = end;
    }
    // The results read the newest copies too; a result last copied to the
    // host (and not brought back) is returned from there.
    for (OpOperand &operand : terminator->getOpOperands()) {
      TensorId t = tensorOf(operand.get());
      if (t != kNone && onHost.contains(t)) {
        operand.set(hostCopy[t]);
        continue;
      }
      rewire(operand);
    }
    return stats;
  }

private:
  /// The tensor an SSA value (original or copy) holds.
  TensorId tensorOf(Value v) const {
    auto it = valueTensor.find(v);
    if (it != valueTensor.end())
      return it->second;
    auto orig = ig.valueTensors.find(v);
    return orig == ig.valueTensors.end() ? kNone : orig->second;
  }

  /// The newest copy of what node `n` reads where its op reads `v`.
  Value newestFor(NodeId n, Value v) {
    TensorId t = tensorOf(v);
    if (t == kNone)
      return v;
    if (n != kNone)
      t = ig.inputFor(n, t);
    return viewOfNewest(newest[t] ? newest[t] : v);
  }

  /// A view made of an older copy of its source (the graph has a reader of
  /// the view read its source too: TrainingGraphBuilder's view roots) is
  /// made again of the newest copy, a prefetched or recomputed one, so
  /// that its readers keep that copy's buffer alive rather than the one the
  /// plan let go. The view's tensor then names the new view.
  Value viewOfNewest(Value v) {
    Operation *view = v.getDefiningOp();
    if (!view || !isViewLike(view) || view->getNumOperands() == 0 ||
        view->getBlock() != terminator->getBlock())
      return v;
    Value source = view->getOperand(0);
    Value newer = newestFor(kNone, source);
    if (newer == source)
      return v;
    OpBuilder before(viewsBefore ? viewsBefore : terminator);
    IRMapping map;
    map.map(source, newer);
    Operation *copy = before.clone(*view, map);
    Value made = copy->getResult(cast<OpResult>(v).getResultNumber());
    if (TensorId t = tensorOf(v); t != kNone) {
      newest[t] = made;
      valueTensor[made] = t;
    }
    return made;
  }

  void rewire(OpOperand &operand, NodeId n = kNone) {
    Value v = newestFor(n, operand.get());
    if (v != operand.get())
      operand.set(v);
  }

  /// Moves the node's ops (its initial values, then its op) to the end of
  /// the body.
  void placeOriginal(NodeId n) {
    for (Operation *op : ig.nodeOps[n]) {
      op->moveBefore(terminator);
      // A view made again for it goes right before it.
      llvm::SaveAndRestore<Operation *> at(viewsBefore, op);
      // Operands and values captured by nested regions read the newest
      // copies (values made inside the node have no tensor: untouched).
      for (OpOperand &operand : op->getOpOperands())
        rewire(operand, n);
      for (Region &region : op->getRegions()) {
        llvm::SetVector<Value> captured;
        getUsedValuesDefinedAbove(region, captured);
        for (Value v : captured)
          if (Value copy = newestFor(n, v); copy != v)
            replaceAllUsesInRegionWith(v, copy, region);
      }
    }
    for (auto [value, t] :
         llvm::zip(ig.primaryOp(n)->getResults(), g.node(n).outputs))
      newest[t] = value;
  }

  /// The constant op defining tensor `t`, if `t` is a constant: cloned
  /// into recomputations (other free values are passed in, like arguments).
  Operation *freeValueOp(TensorId t) const {
    if (!g.isInput(t))
      return nullptr;
    Operation *def = ig.tensorValues[t].getDefiningOp();
    return def && isConstantValue(def) ? def : nullptr;
  }

  /// Whether tensor `t` is read by a run after position `from` before it is
  /// produced again.
  bool readLater(TensorId t, size_t from) const {
    for (size_t k = from; k < runs.size(); ++k) {
      const Node &node = g.node(runs[k]);
      if (llvm::is_contained(node.inputs, t))
        return true;
      if (llvm::is_contained(node.outputs, t))
        return false;
    }
    return llvm::is_contained(g.requiredOutputs(), t);
  }

  /// An Offload step copies the newest copy of its tensor to the host; a
  /// Prefetch brings that host copy back as the newest copy.
  void emitHostCopy(const Step &step) {
    TensorId t = step.id;
    OpBuilder before(terminator);
    Location loc = newest[t].getLoc();
    if (step.isOffload()) {
      hostCopy[t] =
          OffloadOp::create(before, loc, newest[t].getType(), newest[t]);
      onHost.insert(t);
      ++stats.hostCopies;
      return;
    }
    onHost.erase(t);
    Value back =
        PrefetchOp::create(before, loc, hostCopy[t].getType(), hostCopy[t]);
    newest[t] = back;
    valueTensor[back] = t;
  }

  void emitRecompute(size_t begin, size_t end) {
    // Tensors produced inside the group, and the outside tensors it reads.
    llvm::SetVector<TensorId> producedInside, inputs;
    for (size_t k = begin; k < end; ++k) {
      const Node &node = g.node(runs[k]);
      for (TensorId t : node.inputs)
        if (!producedInside.contains(t))
          inputs.insert(t);
      for (TensorId t : node.outputs)
        producedInside.insert(t);
    }
    // Constants are cloned inside rather than passed in.
    SmallVector<TensorId> passed;
    SmallVector<Value> inputValues;
    for (TensorId t : inputs)
      if (!freeValueOp(t)) {
        passed.push_back(t);
        inputValues.push_back(viewOfNewest(newest[t]));
      }
    // Yield what later runs (or the results) read.
    SmallVector<TensorId> yielded;
    for (TensorId t : producedInside)
      if (readLater(t, end))
        yielded.push_back(t);
    // The body is built first: result types are those of the clones
    // (copies made for #remat.policy<recompute> have no SSA value yet).
    Location loc = ig.primaryOp(runs[begin])->getLoc();
    auto body = std::make_unique<Block>();
    // Inside, every tensor is reached through a block argument or a clone.
    llvm::DenseMap<TensorId, Value> local;
    for (auto [t, v] : llvm::zip(passed, inputValues))
      local[t] = body->addArgument(v.getType(), v.getLoc());

    OpBuilder inner(func.getContext());
    inner.setInsertionPointToEnd(body.get());
    for (TensorId t : inputs)
      if (Operation *cst = freeValueOp(t))
        local[t] = inner.clone(*cst)->getResult(0);
    for (size_t k = begin; k < end; ++k) {
      NodeId n = runs[k];
      IRMapping map; // Values made inside the node map to their clones.
      Operation *clone = nullptr;
      for (Operation *op : ig.nodeOps[n]) {
        // The original may read any copy of its inputs; map all of them.
        for (Value v : valuesRead(op)) {
          TensorId t = tensorOf(v);
          if (t == kNone)
            continue;
          t = ig.inputFor(n, t);
          if (local.count(t))
            map.map(v, local[t]);
        }
        clone = inner.clone(*op, map);
        clone->removeAttr(RematDialect::kPolicyAttrName);
        ++stats.clonedOps;
      }
      for (auto [value, t] : llvm::zip(clone->getResults(), g.node(n).outputs))
        local[t] = value;
    }
    SmallVector<Value> yieldValues;
    SmallVector<Type> resultTypes;
    for (TensorId t : yielded) {
      yieldValues.push_back(local[t]);
      resultTypes.push_back(local[t].getType());
    }
    YieldOp::create(inner, loc, yieldValues);
    OpBuilder before(terminator);
    auto recompute =
        RecomputeOp::create(before, loc, resultTypes, inputValues);
    recompute.getBody().push_back(body.release());

    for (auto [t, value] : llvm::zip(yielded, recompute.getResults())) {
      newest[t] = value;
      valueTensor[value] = t;
    }
    ++stats.recomputeOps;
  }

  func::FuncOp func;
  const IRTrainingGraph &ig;
  const TrainingGraph &g;
  const Schedule &schedule;
  std::vector<NodeId> runs;
  Operation *terminator = nullptr;
  /// Where viewOfNewest puts a view it makes again (null: the end).
  Operation *viewsBefore = nullptr;
  std::vector<Value> newest;                 ///< Tensor -> newest SSA copy.
  llvm::DenseMap<Value, TensorId> valueTensor; ///< Copies made here.
  llvm::DenseMap<TensorId, Value> hostCopy;    ///< Its latest offload.
  llvm::DenseSet<TensorId> onHost; ///< Offloaded and not brought back.
  MaterializeResult stats;
};

} // namespace

FailureOr<MaterializeResult> materializeSchedule(func::FuncOp func,
                                                 const IRTrainingGraph &graph,
                                                 const Schedule &schedule) {
  // Copies are checked like runs (their timing is not what matters here).
  SimulatorOptions copies;
  copies.link = CopyLink::inOrder();
  SimulationResult sim = simulate(graph.graph, schedule, copies);
  if (!sim.valid)
    return func.emitError() << "internal error: cannot materialize an "
                               "invalid schedule: "
                            << sim.error;
  return Materializer(func, graph, schedule).run();
}

} // namespace remat
