//===- TimeNodes.cpp - Time every planner node of a step ------------------===//
//
// Calibration of the cost model: each node of the planner's graph becomes a
// function of its own, and @main times them one after the other with
// libRematRuntime's timer 0, in the same lowering as the step.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/OpGroups.h"
#include "remat/Analysis/TrainingGraphBuilder.h"
#include "remat/Transforms/Passes.h"
#include "remat/Transforms/Prepare.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/SetVector.h"
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
    CostModel costs;
    FailureOr<IRTrainingGraph> ig =
        buildTrainingGraph(*copy, costs, RecomputeRegions::Atomic, module);
    if (failed(ig))
      return signalPassFailure();

    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    Location loc = step.getLoc();
    auto i64 = b.getI64Type();
    declare(b, loc, "remat_timer_start", {i64});
    declare(b, loc, "remat_timer_stop", {i64});
    declare(b, loc, "remat_timer_print", {i64});
    declare(b, loc, "remat_timer_reset", {});

    auto main = func::FuncOp::create(b, loc, "main", b.getFunctionType({}, {}));
    Block *mainBody = main.addEntryBlock();
    OpBuilder m = OpBuilder::atBlockEnd(mainBody);
    Value timer = arith::ConstantIntOp::create(m, loc, i64, 0);
    Value c0 = arith::ConstantIndexOp::create(m, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(m, loc, 1);
    Value warmupCount = arith::ConstantIndexOp::create(m, loc, warmup);
    Value runCount = arith::ConstantIndexOp::create(m, loc, runs);

    llvm::json::Array keyList;
    for (NodeId n = 0; n < ig->graph.numNodes(); ++n) {
      ArrayRef<Operation *> ops = ig->nodeOps[n];
      // The planner costs a loop from its body's ops: a table with the loop
      // measured whole and its body by the FLOP model would mix units.
      if (isa<RegionBranchOpInterface>(ops.back())) {
        ops.back()->emitError()
            << "-remat-time-nodes calibrates straight-line steps: the planner "
               "costs this loop from its body's ops, which are not timed";
        return signalPassFailure();
      }
      SmallVector<Operation *> constants;
      llvm::SetVector<Value> inputs = nodeInputs(ops, constants);
      std::string name = "__remat_time_node" + std::to_string(n);
      func::FuncOp fn = outline(b, name, ops, constants, inputs);
      // Its arguments, made once.
      SmallVector<Value> args;
      for (Value in : inputs) {
        FailureOr<Value> v = makeInput(m, loc, in.getType());
        if (failed(v)) {
          ops.back()->emitError()
              << "-remat-time-nodes cannot make an input of type "
              << in.getType() << " for this op";
          return signalPassFailure();
        }
        args.push_back(*v);
      }
      auto callLoop = [&](Value count, bool timed) {
        auto loop = scf::ForOp::create(m, loc, c0, count, c1);
        OpBuilder body = OpBuilder::atBlockBegin(loop.getBody());
        if (timed)
          func::CallOp::create(body, loc, "remat_timer_start", TypeRange{},
                               ValueRange{timer});
        func::CallOp::create(body, loc, fn, args);
        if (timed)
          func::CallOp::create(body, loc, "remat_timer_stop", TypeRange{},
                               ValueRange{timer});
      };
      callLoop(warmupCount, false);
      callLoop(runCount, true);
      func::CallOp::create(m, loc, "remat_timer_print", TypeRange{},
                           ValueRange{timer});
      func::CallOp::create(m, loc, "remat_timer_reset", TypeRange{},
                           ValueRange{});

      llvm::json::Array opKeys;
      for (Operation *op : ops)
        opKeys.push_back(llvm::json::Object{
            {"op", op->getName().getStringRef()}, {"key", costTableKey(op)}});
      keyList.push_back(llvm::json::Object{{"node", n}, {"ops", std::move(opKeys)}});
    }
    func::ReturnOp::create(m, loc);

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
