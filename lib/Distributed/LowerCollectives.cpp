//===- LowerCollectives.cpp - shard collectives to runtime calls ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Why not upstream's convert-shard-to-mpi: in LLVM 22 it lowers all_reduce
// only (all_gather, reduce_scatter, all_slice, all_to_all and shift fail to
// legalize), splits a new communicator at every call and never frees it,
// and MPI's own collectives allocate temporaries the planner cannot see. The
// runtime runs ring algorithms over point-to-point MPI with temporaries it
// allocates through the tracked allocator, in the amounts the cost model
// priced (CollectiveABI.h), and caches one communicator per group.
//
//===----------------------------------------------------------------------===//

#include "remat/Distributed/Passes.h"
#include "remat/Analysis/Collectives.h"
#include "remat/Runtime/CollectiveABI.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

namespace remat {
#define GEN_PASS_DEF_LOWERCOLLECTIVESPASS
#include "remat/Distributed/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace remat {
namespace {

constexpr StringLiteral kLinearIndexFn = "rematProcessLinearIndex";

/// The suffix of the runtime entry points for `elem` (rematCollective<T>,
/// rematShift<T>), or "" when the runtime moves no such elements.
std::string collectiveSuffixFor(Type elem) {
  if (elem.isF32())
    return "F32";
  if (elem.isF64())
    return "F64";
  if (elem.isSignlessInteger(32))
    return "I32";
  if (elem.isSignlessInteger(64))
    return "I64";
  return "";
}

std::optional<int64_t> reductionCode(shard::ReductionKind kind) {
  switch (kind) {
  case shard::ReductionKind::Sum:
    return REMAT_COLL_SUM;
  case shard::ReductionKind::Max:
    return REMAT_COLL_MAX;
  case shard::ReductionKind::Min:
    return REMAT_COLL_MIN;
  case shard::ReductionKind::Product:
    return REMAT_COLL_PRODUCT;
  default:
    return std::nullopt;
  }
}

/// The grid's shape packed as the runtime reads it, or nullopt when it
/// does not fit the encoding.
std::optional<int64_t> packedGrid(ArrayRef<int64_t> shape) {
  int64_t packed = remat_pack_grid_shape(shape.data(),
                                         static_cast<int64_t>(shape.size()));
  return packed < 0 ? std::nullopt : std::optional<int64_t>(packed);
}

std::optional<int64_t> packedAxes(ArrayRef<int64_t> axes) {
  int64_t packed =
      remat_pack_grid_axes(axes.data(), static_cast<int64_t>(axes.size()));
  return packed < 0 ? std::nullopt : std::optional<int64_t>(packed);
}

class Lowering {
public:
  Lowering(ModuleOp module, int64_t alignment)
      : module(module), rewriter(module.getContext()), alignment(alignment) {}

  LogicalResult run() {
    SmallVector<Operation *> shardOps;
    module.walk([&](Operation *op) {
      if (op->getDialect() &&
          op->getDialect()->getNamespace() == "shard" && !isa<shard::GridOp>(op))
        shardOps.push_back(op);
    });
    // Refused before anything is lowered: each with its own error.
    bool refused = false;
    for (Operation *op : shardOps)
      refused |= failed(checkEveryDeviceRuns(op));
    if (refused)
      return failure();
    for (Operation *op : shardOps)
      if (failed(lower(op)))
        return failure();
    // Grids nothing refers to any more are gone with their dialect.
    SmallVector<shard::GridOp> grids;
    module.walk([&](shard::GridOp g) { grids.push_back(g); });
    for (shard::GridOp g : grids)
      if (SymbolTable::symbolKnownUseEmpty(g, module))
        rewriter.eraseOp(g);
    return success();
  }

private:
  LogicalResult lower(Operation *op) {
    if (auto index = dyn_cast<shard::ProcessLinearIndexOp>(op))
      return lowerLinearIndex(index);
    if (auto index = dyn_cast<shard::ProcessMultiIndexOp>(op))
      return lowerMultiIndex(index);
    if (auto shape = dyn_cast<shard::GridShapeOp>(op))
      return lowerGridShape(shape);
    if (std::optional<CollectiveInfo> info = collectiveInfo(op))
      return lowerCollective(op, *info);
    if (auto send = dyn_cast<shard::SendOp>(op))
      return lowerPointToPoint(op, send.getDestination(),
                               send.getDestinationDynamic());
    if (auto recv = dyn_cast<shard::RecvOp>(op)) {
      if (!recv.getSource())
        return op->emitError() << "cannot lower 'shard.recv' without a "
                                  "source: name the device it receives from";
      return lowerPointToPoint(op, *recv.getSource(),
                               recv.getSourceDynamic());
    }
    if (isa<shard::AllReduceOp, shard::AllGatherOp, shard::ReduceScatterOp,
            shard::AllSliceOp, shard::AllToAllOp, shard::ShiftOp>(op))
      return op->emitError()
             << "cannot lower '" << op->getName()
             << "': it needs static tensor shapes and a grid of static shape "
                "found from it";
    return op->emitError()
           << "cannot lower '" << op->getName()
           << "': -remat-lower-to-cpu runs per-rank programs whose "
              "communication is all_reduce, all_gather, reduce_scatter, "
              "all_slice, all_to_all, shift, send or recv (partition "
              "annotated programs first with sharding-propagation and "
              "shard-partition)";
  }

  /// A communication op must run on every device of its group: one that
  /// runs under control flow depending on the device index would wait
  /// forever for the devices that skip it (a shift's partner that never
  /// sends or receives, a ring member that never joins).
  LogicalResult checkEveryDeviceRuns(Operation *op) {
    std::optional<CollectiveInfo> info = collectiveInfo(op);
    if (!info || info->kind == CollectiveKind::AllSlice)
      return success(); // all_slice is a local copy; others fail below.
    Operation *control = deviceDependentControl(op);
    if (!control)
      return success();
    InFlightDiagnostic diag =
        op->emitError()
        << "cannot lower '" << op->getName()
        << "': it runs under control flow that depends on the device index ('"
        << control->getName()
        << "'), so some devices of its group may not run it and the others "
           "would wait for them forever; run it on every device and mask the "
           "data instead (as a pipeline bubble does: select what is sent and "
           "what is kept, not whether to communicate)";
    diag.attachNote(control->getLoc())
        << "this '" << control->getName() << "' depends on the device index";
    return failure();
  }

  shard::GridOp gridOf(Operation *op) {
    auto ref = op->getAttrOfType<FlatSymbolRefAttr>("grid");
    return ref ? SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, ref)
               : shard::GridOp();
  }

  /// `name`'s declaration in the module, made on first use.
  func::FuncOp declare(StringRef name, FunctionType type) {
    if (auto existing = module.lookupSymbol<func::FuncOp>(name))
      return existing;
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(module.getBody());
    auto fn = func::FuncOp::create(rewriter, module.getLoc(), name, type);
    fn.setPrivate();
    fn->setAttr("llvm.emit_c_interface", rewriter.getUnitAttr());
    return fn;
  }

  Value i64(Location loc, int64_t v) {
    return arith::ConstantIntOp::create(rewriter, loc, v, 64);
  }

  /// The device's linear index on `grid`, as an index value.
  FailureOr<Value> linearIndex(Operation *at, shard::GridOp grid) {
    std::optional<int64_t> packed =
        grid ? packedGrid(grid.getShape()) : std::nullopt;
    if (!packed)
      return at->emitError() << "cannot lower '" << at->getName()
                             << "': its grid must have 1 to 4 static "
                                "dimensions of at most 65535 devices";
    Location loc = at->getLoc();
    func::FuncOp fn = declare(
        kLinearIndexFn, rewriter.getFunctionType({rewriter.getI64Type()},
                                                 {rewriter.getI64Type()}));
    auto call = func::CallOp::create(rewriter, loc, fn, {i64(loc, *packed)});
    return Value(arith::IndexCastOp::create(rewriter, loc,
                                            rewriter.getIndexType(),
                                            call.getResult(0)));
  }

  LogicalResult lowerLinearIndex(shard::ProcessLinearIndexOp op) {
    rewriter.setInsertionPoint(op);
    FailureOr<Value> index = linearIndex(op, gridOf(op));
    if (failed(index))
      return failure();
    rewriter.replaceOp(op, *index);
    return success();
  }

  LogicalResult lowerMultiIndex(shard::ProcessMultiIndexOp op) {
    rewriter.setInsertionPoint(op);
    shard::GridOp grid = gridOf(op);
    FailureOr<Value> linear = linearIndex(op, grid);
    if (failed(linear))
      return failure();
    // Devices are numbered row-major: coordinate d is
    // (linear / prod(shape[d+1:])) mod shape[d].
    ArrayRef<int64_t> shape = grid.getShape();
    SmallVector<int64_t> axes(op.getAxes().begin(), op.getAxes().end());
    if (axes.empty())
      for (int64_t a = 0; a < static_cast<int64_t>(shape.size()); ++a)
        axes.push_back(a);
    Location loc = op.getLoc();
    SmallVector<Value> coords;
    for (int64_t a : axes) {
      int64_t stride = 1;
      for (int64_t d = a + 1; d < static_cast<int64_t>(shape.size()); ++d)
        stride *= shape[d];
      Value q = arith::DivUIOp::create(
          rewriter, loc, *linear,
          arith::ConstantIndexOp::create(rewriter, loc, stride));
      coords.push_back(arith::RemUIOp::create(
          rewriter, loc, q,
          arith::ConstantIndexOp::create(rewriter, loc, shape[a])));
    }
    rewriter.replaceOp(op, coords);
    return success();
  }

  LogicalResult lowerGridShape(shard::GridShapeOp op) {
    shard::GridOp grid = gridOf(op);
    if (!grid || !packedGrid(grid.getShape()))
      return op.emitError() << "cannot lower 'shard.grid_shape': its grid "
                               "must have static dimensions";
    rewriter.setInsertionPoint(op);
    ArrayRef<int64_t> shape = grid.getShape();
    SmallVector<int64_t> axes(op.getAxes().begin(), op.getAxes().end());
    if (axes.empty())
      for (int64_t a = 0; a < static_cast<int64_t>(shape.size()); ++a)
        axes.push_back(a);
    SmallVector<Value> sizes;
    for (int64_t a : axes)
      sizes.push_back(
          arith::ConstantIndexOp::create(rewriter, op.getLoc(), shape[a]));
    rewriter.replaceOp(op, sizes);
    return success();
  }

  /// The unranked input and result buffers of a collective's call, and
  /// the result buffer itself.
  struct CallBuffers {
    Value in, out, result;
  };

  /// Checks `op`'s element type and makes its call's buffers before it: the
  /// input as it is (any strides: no copy), the result in a buffer of its
  /// own, where the planner counted it. Returns the runtime function for
  /// the element type in `fnName` (prefixed by `prefix`).
  FailureOr<CallBuffers> callBuffers(Operation *op, StringRef prefix,
                                     std::string &fnName) {
    auto inType = cast<RankedTensorType>(op->getOperand(0).getType());
    auto outType = cast<RankedTensorType>(op->getResult(0).getType());
    Type elem = outType.getElementType();
    std::string suffix = collectiveSuffixFor(elem);
    if (suffix.empty())
      return op->emitError()
             << "cannot lower '" << op->getName() << "' of " << elem
             << " elements: the MPI runtime moves f32, f64, i32 and i64";
    if (inType.getElementType() != elem)
      return op->emitError() << "cannot lower '" << op->getName()
                             << "' from " << inType.getElementType() << " to "
                             << elem << ": it must keep its element type";
    fnName = (prefix + suffix).str();
    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    MLIRContext *ctx = op->getContext();
    SmallVector<int64_t> dynStrides(inType.getRank(), ShapedType::kDynamic);
    auto inMemref = MemRefType::get(
        inType.getShape(), elem,
        StridedLayoutAttr::get(ctx, ShapedType::kDynamic, dynStrides));
    auto outMemref = MemRefType::get(outType.getShape(), elem);
    auto unranked = UnrankedMemRefType::get(elem, 0);
    Value in = bufferization::ToBufferOp::create(
        rewriter, loc, inMemref, op->getOperand(0), /*read_only=*/true);
    Value out = memref::AllocOp::create(
        rewriter, loc, outMemref,
        alignment > 1 ? rewriter.getI64IntegerAttr(alignment) : IntegerAttr());
    return CallBuffers{memref::CastOp::create(rewriter, loc, unranked, in),
                       memref::CastOp::create(rewriter, loc, unranked, out),
                       out};
  }

  /// Calls `fnName` (declared from `args`, no results), then replaces `op`
  /// by the tensor of `buffers.result`.
  void callAndReplace(Operation *op, StringRef fnName, ValueRange args,
                      const CallBuffers &buffers) {
    Location loc = op->getLoc();
    func::FuncOp fn =
        declare(fnName, rewriter.getFunctionType(TypeRange(args), {}));
    func::CallOp::create(rewriter, loc, fn, args);
    Value result = bufferization::ToTensorOp::create(
        rewriter, loc, op->getResult(0).getType(), buffers.result,
        /*restrict=*/rewriter.getUnitAttr(),
        /*writable=*/rewriter.getUnitAttr());
    rewriter.replaceOp(op, result);
  }

  LogicalResult lowerCollective(Operation *op, const CollectiveInfo &info) {
    if (info.kind == CollectiveKind::Shift)
      return lowerShift(op, info);
    int64_t reduction = REMAT_COLL_SUM;
    std::optional<shard::ReductionKind> kind;
    if (auto r = dyn_cast<shard::AllReduceOp>(op))
      kind = r.getReduction();
    if (auto r = dyn_cast<shard::ReduceScatterOp>(op))
      kind = r.getReduction();
    if (kind) {
      std::optional<int64_t> code = reductionCode(*kind);
      if (!code)
        return op->emitError()
               << "cannot lower '" << op->getName() << "' with reduction "
               << shard::stringifyReductionKind(*kind)
               << ": the MPI runtime reduces with sum, max, min or product";
      reduction = *code;
    }
    std::optional<int64_t> grid = packedGrid(info.gridShape);
    std::optional<int64_t> axes = packedAxes(info.gridAxes);
    if (!grid || !axes)
      return op->emitError() << "cannot lower '" << op->getName()
                             << "': its grid must have 1 to 4 dimensions of "
                                "at most 65535 devices";
    std::string fnName;
    FailureOr<CallBuffers> buffers =
        callBuffers(op, "rematCollective", fnName);
    if (failed(buffers))
      return failure();
    Location loc = op->getLoc();
    callAndReplace(op, fnName,
                   {i64(loc, collectiveABIKind(info.kind)),
                    i64(loc, reduction), i64(loc, info.axis),
                    i64(loc, info.axis2), i64(loc, *grid), i64(loc, *axes),
                    buffers->in, buffers->out},
                   *buffers);
    return success();
  }

  /// shard.shift: a paired send and receive with the neighbours along the
  /// shift axis (rematShift, CollectiveABI.h).
  LogicalResult lowerShift(Operation *op, const CollectiveInfo &info) {
    if (op->getOperand(0).getType() != op->getResult(0).getType())
      return op->emitError() << "cannot lower 'shard.shift' from "
                             << op->getOperand(0).getType() << " to "
                             << op->getResult(0).getType()
                             << ": the runtime shifts a tensor as it is";
    std::optional<int64_t> grid = packedGrid(info.gridShape);
    if (!grid || info.axis > 14)
      return op->emitError() << "cannot lower 'shard.shift': its grid must "
                                "have 1 to 4 dimensions of at most 65535 "
                                "devices";
    std::string fnName;
    FailureOr<CallBuffers> buffers = callBuffers(op, "rematShift", fnName);
    if (failed(buffers))
      return failure();
    Location loc = op->getLoc();
    callAndReplace(op, fnName,
                   {i64(loc, info.offset), i64(loc, info.rotate ? 1 : 0),
                    i64(loc, *grid), i64(loc, info.axis), buffers->in,
                    buffers->out},
                   *buffers);
    return success();
  }

  /// shard.send / shard.recv: one synchronous point-to-point call
  /// (rematSend, rematRecv) with the partner's index in the group along the
  /// op's grid axes, row-major over its multi-index. Unlike the collectives
  /// they may run under control flow on the device index: only the two
  /// partners take part. A send's result is its input (nothing is copied).
  LogicalResult lowerPointToPoint(Operation *op, ArrayRef<int64_t> peerStatic,
                                  ValueRange peerDynamic) {
    bool isSend = isa<shard::SendOp>(op);
    StringRef name = op->getName().getStringRef();
    shard::GridOp grid = gridOf(op);
    std::optional<int64_t> packed =
        grid ? packedGrid(grid.getShape()) : std::nullopt;
    auto axesAttr = op->getAttrOfType<DenseI16ArrayAttr>("grid_axes");
    SmallVector<int64_t> axes;
    if (axesAttr)
      axes.assign(axesAttr.asArrayRef().begin(), axesAttr.asArrayRef().end());
    std::optional<int64_t> packedAx = packedAxes(axes);
    if (!packed || !packedAx)
      return op->emitError() << "cannot lower '" << name
                             << "': its grid must have 1 to 4 static "
                                "dimensions of at most 65535 devices";
    if (axes.empty())
      return op->emitError()
             << "cannot lower '" << name
             << "' without grid_axes: name the axis its partner is along";
    if (peerStatic.size() != axes.size())
      return op->emitError()
             << "cannot lower '" << name << "': its partner's multi-index has "
             << peerStatic.size() << " coordinates for " << axes.size()
             << " grid axes";
    auto type = cast<RankedTensorType>(
        (isSend ? op->getOperand(0) : op->getResult(0)).getType());
    if (!type.hasStaticShape())
      return op->emitError() << "cannot lower '" << name << "' of " << type
                             << ": it needs a static shape";
    std::string suffix = collectiveSuffixFor(type.getElementType());
    if (suffix.empty())
      return op->emitError()
             << "cannot lower '" << name << "' of " << type.getElementType()
             << " elements: the MPI runtime moves f32, f64, i32 and i64";
    ArrayRef<int64_t> shape = grid.getShape();
    for (auto [i, a] : llvm::enumerate(axes))
      if (a < 0 || a >= static_cast<int64_t>(shape.size()))
        return op->emitError() << "cannot lower '" << name << "': grid axis "
                               << a << " is not in its grid";
    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    // The partner's index in the group: row-major over the grid axes.
    Value peer = arith::ConstantIndexOp::create(rewriter, loc, 0);
    unsigned dynamicIndex = 0;
    for (auto [i, a] : llvm::enumerate(axes)) {
      Value coord =
          ShapedType::isDynamic(peerStatic[i])
              ? peerDynamic[dynamicIndex++]
              : Value(arith::ConstantIndexOp::create(rewriter, loc,
                                                     peerStatic[i]));
      Value size = arith::ConstantIndexOp::create(rewriter, loc, shape[a]);
      peer = arith::AddIOp::create(
          rewriter, loc, arith::MulIOp::create(rewriter, loc, peer, size),
          coord);
    }
    Value peer64 = arith::IndexCastOp::create(rewriter, loc,
                                              rewriter.getI64Type(), peer);
    MLIRContext *ctx = op->getContext();
    Type elem = type.getElementType();
    auto unranked = UnrankedMemRefType::get(elem, 0);
    Value buffer, memref;
    if (isSend) {
      SmallVector<int64_t> dynStrides(type.getRank(), ShapedType::kDynamic);
      auto layout = MemRefType::get(
          type.getShape(), elem,
          StridedLayoutAttr::get(ctx, ShapedType::kDynamic, dynStrides));
      memref = bufferization::ToBufferOp::create(
          rewriter, loc, layout, op->getOperand(0), /*read_only=*/true);
    } else {
      memref = memref::AllocOp::create(
          rewriter, loc, MemRefType::get(type.getShape(), elem),
          alignment > 1 ? rewriter.getI64IntegerAttr(alignment)
                        : IntegerAttr());
    }
    buffer = memref::CastOp::create(rewriter, loc, unranked, memref);
    SmallVector<Value> args = {i64(loc, *packed), i64(loc, *packedAx), peer64,
                               buffer};
    std::string fnName = (isSend ? "rematSend" : "rematRecv") + suffix;
    func::FuncOp fn =
        declare(fnName, rewriter.getFunctionType(TypeRange(args), {}));
    func::CallOp::create(rewriter, loc, fn, args);
    if (isSend) {
      rewriter.replaceOp(op, op->getOperand(0));
      return success();
    }
    rewriter.replaceOp(op, bufferization::ToTensorOp::create(
                               rewriter, loc, type, memref,
                               /*restrict=*/rewriter.getUnitAttr(),
                               /*writable=*/rewriter.getUnitAttr()));
    return success();
  }

  ModuleOp module;
  IRRewriter rewriter;
  int64_t alignment;
};

struct LowerCollectivesPass
    : impl::LowerCollectivesPassBase<LowerCollectivesPass> {
  using LowerCollectivesPassBase::LowerCollectivesPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (target != "cpu" && target != "gpu") {
      module.emitError() << "-remat-lower-collectives: target must be cpu or "
                            "gpu, not '"
                         << target << "'";
      return signalPassFailure();
    }
    if (target == "gpu") {
      // The GPU path has no collectives: say where they run.
      WalkResult found = module.walk([&](Operation *op) {
        if (op->getDialect() && op->getDialect()->getNamespace() == "shard" &&
            !isa<shard::GridOp>(op)) {
          op->emitError()
              << "'" << op->getName()
              << "' cannot be lowered by -remat-lower-to-gpu (it runs no "
                 "collectives); lower the program with -remat-lower-to-cpu "
                 "and run it under mpiexec (test/Integration/CPU/run.sh with "
                 "RANKS=N)";
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (found.wasInterrupted())
        signalPassFailure();
      return;
    }
    if (failed(Lowering(module, alignment).run()))
      signalPassFailure();
  }
};

} // namespace
} // namespace remat
