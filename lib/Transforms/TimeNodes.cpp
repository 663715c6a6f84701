//===- TimeNodes.cpp - Time every planner node of a step ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Calibration of the cost model: each node of the planner's graph becomes a
// function of its own, and @main times them one after the other with
// libRematRuntime's timer 0, in the same lowering as the step.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/OpGroups.h"
#include "remat/Analysis/TrainingGraphBuilder.h"
#include "remat/Analysis/ScanLoops.h"
#include "remat/Analysis/ShapeBounds.h"
#include "remat/Dialect/Remat/Remat.h"
#include "remat/Loops/CheckpointScans.h"
#include "remat/Transforms/OutlineRegion.h"
#include "remat/Transforms/Passes.h"
#include "remat/Transforms/Prepare.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace remat {
#define GEN_PASS_DEF_TIMENODESPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

/// What the ops of one node read from outside it (constants excluded: they
/// are cloned into the node's function).
llvm::SetVector<Value> nodeInputs(ArrayRef<Operation *> ops,
                                  SmallVectorImpl<Operation *> &constants) {
  llvm::SmallPtrSet<Operation *, 8> inNode(ops.begin(), ops.end());
  llvm::SetVector<Value> inputs;
  llvm::SetVector<Operation *> consts;
  auto add = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (def && inNode.contains(def))
      return;
    if (def && isConstantValue(def))
      consts.insert(def);
    else
      inputs.insert(v);
  };
  for (Operation *op : ops)
    for (Value v : valuesRead(op))
      add(v);
  constants.assign(consts.begin(), consts.end());
  return inputs;
}

/// A value of `type` for the timing: tensors filled with 0.5 (integers 0),
/// scalars 1 (index) or 0.5. Fails for types it cannot make.
FailureOr<Value> makeInput(OpBuilder &b, Location loc, Type type) {
  auto scalar = [&](Type t) -> FailureOr<Value> {
    if (t.isIndex())
      return Value(arith::ConstantIndexOp::create(b, loc, 1));
    if (auto f = dyn_cast<FloatType>(t))
      return Value(arith::ConstantOp::create(b, loc, b.getFloatAttr(f, 0.5)));
    if (auto i = dyn_cast<IntegerType>(t))
      return Value(arith::ConstantOp::create(b, loc, b.getIntegerAttr(i, 0)));
    return failure();
  };
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return scalar(type);
  if (!tensor.hasStaticShape())
    return failure();
  FailureOr<Value> fill = scalar(tensor.getElementType());
  if (failed(fill))
    return failure();
  Value empty = tensor::EmptyOp::create(b, loc, tensor.getShape(),
                                        tensor.getElementType());
  return linalg::FillOp::create(b, loc, *fill, empty).getResult(0);
}

/// The static type at its bounds of each dynamically shaped tensor of `fn`
/// (ShapeBounds.h): what its nodes are timed at. Empty where `fn` has no
/// dynamic shapes or they cannot be bounded (the graph builder said why).
DenseMap<Value, RankedTensorType> boundedTypes(func::FuncOp fn,
                                               Operation *scope) {
  DenseMap<Value, RankedTensorType> out;
  if (!hasDynamicShapes(fn))
    return out;
  FailureOr<BoundedCopy> bounded = boundedCopy(fn, scope);
  if (failed(bounded))
    return out;
  for (auto [copied, original] : bounded->originalValues) {
    auto was = dyn_cast<RankedTensorType>(original.getType());
    auto now = dyn_cast<RankedTensorType>(copied.getType());
    if (was && now && !was.hasStaticShape() && now.hasStaticShape())
      out[original] = now;
  }
  return out;
}

/// Point-to-point messages are not timed alone: a send waits for a partner
/// that is not running, and on the edge stages there is none. Their cost
/// stays the model's (a message step and its bytes).
bool isPointToPoint(Operation *op) {
  return isa<shard::SendOp, shard::RecvOp>(op);
}

struct TimeNodesPass : public remat::impl::TimeNodesPassBase<TimeNodesPass> {
  using TimeNodesPassBase::TimeNodesPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (keys.empty()) {
      module.emitError() << "-remat-time-nodes needs keys=FILE (the nodes' "
                            "cost-table keys, in timing order)";
      return signalPassFailure();
    }
    if (module.lookupSymbol("main")) {
      module.emitError() << "-remat-time-nodes writes its own @main; this "
                            "module has one (time the step without its harness)";
      return signalPassFailure();
    }
    func::FuncOp step = findStep();
    if (!step)
      return signalPassFailure();

    OwningOpRef<func::FuncOp> copy(step.clone());
    prepareForRemat(*copy);

    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    Location loc = step.getLoc();
    auto i64 = b.getI64Type();
    declare(b, loc, "remat_timer_start", {i64});
    declare(b, loc, "remat_timer_stop", {i64});
    declare(b, loc, "remat_timer_print", {i64});
    declare(b, loc, "remat_timer_reset", {});

    // @main runs every node's calls twice over: `warmup` untimed calls per
    // node, then `warmup` untimed and `runs` timed ones. Without the first
    // pass the nodes timed first measured a cold process: on the 2-rank FSDP
    // step under MPICH the first hundred or so collectives ran slow, and the
    // first all_gathers were timed at 7-12 us where the same gathers later
    // took 2-4 us (docs/benchmarks.md).
    auto index = b.getIndexType();
    auto all = func::FuncOp::create(
        b, loc, "__remat_time_all",
        b.getFunctionType({b.getI1Type(), index, index}, {}));
    all.setPrivate();
    Block *allBody = all.addEntryBlock();
    OpBuilder m = OpBuilder::atBlockEnd(allBody);
    Timing t{b,
             m,
             arith::ConstantIntOp::create(m, loc, i64, 0),
             arith::ConstantIndexOp::create(m, loc, 0),
             arith::ConstantIndexOp::create(m, loc, 1),
             allBody->getArgument(1),
             allBody->getArgument(2),
             allBody->getArgument(0),
             {},
             0,
             0};
    if (failed(timeNodesOf(*copy, t)))
      return signalPassFailure();
    llvm::json::Array &keyList = t.keyList;
    func::ReturnOp::create(m, loc);

    auto main = func::FuncOp::create(b, loc, "main", b.getFunctionType({}, {}));
    OpBuilder mb = OpBuilder::atBlockEnd(main.addEntryBlock());
    auto pass = [&](bool record, int64_t warmupCalls, int64_t timedCalls) {
      func::CallOp::create(
          mb, loc, all,
          ValueRange{arith::ConstantIntOp::create(mb, loc, record, 1),
                     arith::ConstantIndexOp::create(mb, loc, warmupCalls),
                     arith::ConstantIndexOp::create(mb, loc, timedCalls)});
    };
    pass(/*record=*/false, warmup, 0);
    pass(/*record=*/true, warmup, runs);
    func::ReturnOp::create(mb, loc);

    std::string error;
    llvm::Error e = llvm::writeToOutput(keys, [&](llvm::raw_ostream &os) {
      os << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                       {"function", step.getSymName()},
                                       {"nodes", std::move(keyList)}}))
         << "\n";
      return llvm::Error::success();
    });
    if (e) {
      module.emitError() << "cannot write '" << keys
                         << "': " << llvm::toString(std::move(e));
      return signalPassFailure();
    }
  }

private:
  /// What timing the nodes builds: the module's functions (b), the calls of
  /// @__remat_time_all (m; `record` false: a warm-up pass, nothing printed)
  /// and the keys file's entries, one per timed node.
  struct Timing {
    OpBuilder &b, &m;
    Value timer, c0, c1, warmupCount, runCount, record;
    llvm::json::Array keyList;
    unsigned timed, bodies;
    llvm::StringSet<> bookkept; ///< The scans' bookkeeping keys timed.
  };

  /// Times every node of `fn`'s graph, in program order. A node with
  /// regions (a loop, a branch) is costed by the planner from its bodies'
  /// ops, so each body is outlined into a function of its own whose nodes
  /// are timed instead.
  LogicalResult timeNodesOf(func::FuncOp fn, Timing &t) {
    ModuleOp module = getOperation();
    FailureOr<IRTrainingGraph> ig =
        buildTrainingGraph(fn, CostModel(), RecomputeRegions::Atomic, module);
    if (failed(ig))
      return failure();
    DenseMap<Value, RankedTensorType> bounds = boundedTypes(fn, module);
    Location loc = fn.getLoc();
    for (NodeId n = 0; n < ig->graph.numNodes(); ++n) {
      ArrayRef<Operation *> ops = ig->nodeOps[n];
      if (isa<RegionBranchOpInterface>(ops.back())) {
        for (Region &region : ops.back()->getRegions()) {
          if (region.empty())
            continue;
          FailureOr<func::FuncOp> body =
              outlineBody(region, t.bodies++, bounds);
          if (failed(body))
            return failure();
          if (!*body)
            continue;
          LogicalResult timedBody = timeNodesOf(*body, t);
          body->erase();
          if (failed(timedBody))
            return failure();
        }
        continue;
      }
      if (llvm::any_of(ops, isPointToPoint))
        continue;
      if (failed(timeNode(ops, loc, t, bounds)))
        return failure();
    }
    if (failed(timeScanBookkeeping(fn, t)))
      return failure();
    return success();
  }

  /// Times the node made of `ops` (its results: the last op's): a function
  /// of what they read, called by @main, and its keys. A dynamically shaped
  /// input is made at its bound (`bounds`) and cast to its type.
  LogicalResult timeNode(ArrayRef<Operation *> ops, Location loc, Timing &t,
                         const DenseMap<Value, RankedTensorType> &bounds = {}) {
    SmallVector<Operation *> constants;
    llvm::SetVector<Value> inputs = nodeInputs(ops, constants);
    std::string name = "__remat_time_node" + std::to_string(t.timed++);
    func::FuncOp nodeFn = outline(t.b, name, ops, constants, inputs);
    // Its arguments, made once.
    SmallVector<Value> args;
    for (Value in : inputs) {
      Type type = in.getType();
      if (RankedTensorType bound = bounds.lookup(in))
        type = bound;
      FailureOr<Value> v = makeInput(t.m, loc, type);
      if (failed(v))
        return ops.back()->emitError()
               << "-remat-time-nodes cannot make an input of type "
               << in.getType() << " for this op";
      args.push_back(*v);
    }
    // An input the node writes into (an accumulation, a stack's row) gets a
    // fresh copy before each call, outside the timed window: the one input
    // written in place by every call would make bufferization copy it at the
    // call, inside the window (for a stack, all of it), where the step
    // writes in place.
    llvm::SmallPtrSet<Value, 4> written;
    for (Operation *op : ops)
      for (OpOperand *dest : destinationOperands(op))
        if (inputs.contains(dest->get()))
          written.insert(dest->get());
    auto callLoop = [&](Value count, bool timed) {
      auto loop = scf::ForOp::create(t.m, loc, t.c0, count, t.c1);
      OpBuilder body = OpBuilder::atBlockBegin(loop.getBody());
      SmallVector<Value> callArgs;
      for (auto [in, arg] : llvm::zip(inputs, args)) {
        auto type = dyn_cast<RankedTensorType>(arg.getType());
        Value callArg = arg;
        if (written.contains(in) && type) {
          Value empty = tensor::EmptyOp::create(body, loc, type.getShape(),
                                                type.getElementType());
          callArg = linalg::CopyOp::create(body, loc, arg, empty).getResult(0);
        }
        if (callArg.getType() != in.getType())
          callArg = tensor::CastOp::create(body, loc, in.getType(), callArg);
        callArgs.push_back(callArg);
      }
      if (timed)
        func::CallOp::create(body, loc, "remat_timer_start", TypeRange{},
                             ValueRange{t.timer});
      func::CallOp::create(body, loc, nodeFn, callArgs);
      if (timed)
        func::CallOp::create(body, loc, "remat_timer_stop", TypeRange{},
                             ValueRange{t.timer});
    };
    callLoop(t.warmupCount, false);
    callLoop(t.runCount, true);
    scf::IfOp::create(t.m, loc, t.record, [&](OpBuilder &then, Location l) {
      func::CallOp::create(then, l, "remat_timer_print", TypeRange{},
                           ValueRange{t.timer});
      func::CallOp::create(then, l, "remat_timer_reset", TypeRange{},
                           ValueRange{});
      scf::YieldOp::create(then, l);
    });

    llvm::json::Array opKeys;
    for (Operation *op : ops)
      opKeys.push_back(llvm::json::Object{
          {"op", op->getName().getStringRef()}, {"key", costTableKey(op)}});
    t.keyList.push_back(llvm::json::Object{{"node", int64_t(t.keyList.size())},
                                           {"ops", std::move(opKeys)}});
    return success();
  }

  /// The copies and stores a checkpointed scan's rewrite adds (their keys:
  /// scanBookkeepingKey) for the scans of `fn`, each kind and type once:
  /// copies of the carries and of the backward loop's state, stores of the
  /// carries into a row.
  LogicalResult timeScanBookkeeping(func::FuncOp fn, Timing &t) {
    for (Operation &loop : fn.getBody().front()) {
      auto match = matchScan(&loop);
      auto *scan = std::get_if<ScanPair>(&match);
      if (!scan)
        continue;
      SmallVector<std::pair<ScanBookkeeping, Type>> kinds;
      for (unsigned k : scan->carries) {
        kinds.push_back({ScanBookkeeping::Copy, scan->iterArg(k).getType()});
        kinds.push_back({ScanBookkeeping::Store, scan->iterArg(k).getType()});
      }
      for (Value state : scan->backwardStateArgs())
        kinds.push_back({ScanBookkeeping::Copy, state.getType()});
      for (auto [kind, type] : kinds) {
        auto carry = dyn_cast<RankedTensorType>(type);
        if (!carry || !carry.hasStaticShape() ||
            !t.bookkept.insert(scanBookkeepingKey(kind, carry)).second)
          continue;
        if (failed(timeBookkeeping(kind, carry, loop.getLoc(), t)))
          return failure();
      }
    }
    return success();
  }

  /// Times one copy of a `carry` (kind Copy) or one store of it into row 1
  /// of a two-row stack (Store), from a scratch function.
  LogicalResult timeBookkeeping(ScanBookkeeping kind, RankedTensorType carry,
                                Location loc, Timing &t) {
    OpBuilder &b = t.b;
    SmallVector<int64_t> rows{2};
    llvm::append_range(rows, carry.getShape());
    auto stack = RankedTensorType::get(rows, carry.getElementType());
    auto scratch = func::FuncOp::create(
        b, loc, "__remat_time_bookkeeping",
        b.getFunctionType({carry, carry, stack, b.getIndexType()}, {}));
    OpBuilder body = OpBuilder::atBlockEnd(scratch.addEntryBlock());
    ValueRange args = scratch.getArguments();
    Location named =
        NameLoc::get(b.getStringAttr(scanBookkeepingKey(kind, carry)), loc);
    Operation *op;
    if (kind == ScanBookkeeping::Copy) {
      op = linalg::CopyOp::create(body, named, args[0], args[1]);
    } else {
      SmallVector<OpFoldResult> offsets{args[3]},
          sizes{body.getIndexAttr(1)},
          strides(stack.getRank(), body.getIndexAttr(1));
      for (int64_t d : carry.getShape()) {
        offsets.push_back(body.getIndexAttr(0));
        sizes.push_back(body.getIndexAttr(d));
      }
      op = tensor::InsertSliceOp::create(body, named, args[0], args[2],
                                         offsets, sizes, strides);
    }
    func::ReturnOp::create(body, loc);
    LogicalResult timed = timeNode({op}, loc, t);
    scratch.erase();
    return timed;
  }

  /// A region's block as a function of its arguments and of what it reads
  /// from above (constants cloned in: a loop bound stays the bound),
  /// returning what its terminator passes on; in the module, for its calls.
  /// Its dynamically shaped arguments get their bounds in the enclosing
  /// function (`bounds`) as remat.bounds. Null for a region that passes on
  /// no value: its ops are side effects, none planned.
  FailureOr<func::FuncOp>
  outlineBody(Region &region, unsigned index,
              const DenseMap<Value, RankedTensorType> &bounds) {
    Operation *parent = region.getParentOp();
    if (!region.hasOneBlock())
      return parent->emitError() << "remat supports regions of one block";
    if (region.front().getTerminator()->getNumOperands() == 0)
      return func::FuncOp(); // Side effects only (a send): nothing planned.
    SmallVector<Value> captured;
    func::FuncOp fn = outlineRegion(
        region, "__remat_time_body" + std::to_string(index), captured);
    SmallVector<Value> outer(region.front().getArguments());
    llvm::append_range(outer, captured);
    for (auto [i, v] : llvm::enumerate(outer))
      if (RankedTensorType bound = bounds.lookup(v))
        fn.setArgAttr(i, RematDialect::kBoundsAttrName,
                      DenseI64ArrayAttr::get(fn.getContext(), bound.getShape()));
    getOperation().push_back(fn);
    return fn;
  }

  func::FuncOp findStep() {
    ModuleOp module = getOperation();
    if (!function.empty()) {
      auto f = module.lookupSymbol<func::FuncOp>(function);
      if (!f)
        module.emitError() << "-remat-time-nodes: no function @" << function;
      return f;
    }
    func::FuncOp found;
    for (auto f : module.getOps<func::FuncOp>()) {
      if (f.isExternal() || whyNotATrainingStep(f))
        continue;
      if (found) {
        module.emitError() << "-remat-time-nodes: @" << found.getSymName()
                           << " and @" << f.getSymName()
                           << " are both training steps: choose one with "
                              "function=";
        return {};
      }
      found = f;
    }
    if (!found)
      module.emitError() << "-remat-time-nodes: the module has no training "
                            "step";
    return found;
  }

  static void declare(OpBuilder &b, Location loc, StringRef name,
                      ArrayRef<Type> args) {
    auto f = func::FuncOp::create(b, loc, name, b.getFunctionType(args, {}));
    f.setPrivate();
  }

  /// The node's ops as a private function of `inputs`, returning the
  /// results of its last op.
  static func::FuncOp outline(OpBuilder &b, StringRef name,
                              ArrayRef<Operation *> ops,
                              ArrayRef<Operation *> constants,
                              const llvm::SetVector<Value> &inputs) {
    SmallVector<Type> argTypes;
    for (Value v : inputs)
      argTypes.push_back(v.getType());
    Operation *last = ops.back();
    auto fn = func::FuncOp::create(
        b, last->getLoc(), name,
        b.getFunctionType(argTypes, last->getResultTypes()));
    fn.setPrivate();
    Block *entry = fn.addEntryBlock();
    IRMapping map;
    map.map(inputs.getArrayRef(), entry->getArguments());
    OpBuilder body = OpBuilder::atBlockEnd(entry);
    for (Operation *c : constants)
      body.clone(*c, map);
    Operation *clone = nullptr;
    for (Operation *op : ops)
      clone = body.clone(*op, map);
    func::ReturnOp::create(body, last->getLoc(), clone->getResults());
    return fn;
  }
};

} // namespace
