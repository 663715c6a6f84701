//===- Collectives.cpp - What the planner knows of shard collectives ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Analysis/Collectives.h"
#include "remat/Dialect/Remat/Remat.h"
#include "remat/Analysis/CostModel.h"
#include "remat/Runtime/CollectiveABI.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace remat {
namespace {

/// Static element count of a tensor type, or nullopt.
std::optional<int64_t> staticElems(Type type) {
  auto shaped = dyn_cast<RankedTensorType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return std::nullopt;
  return shaped.getNumElements();
}

/// The device-index ops: values computed from them differ per rank.
bool isDeviceIndex(Operation *op) {
  return isa<shard::ProcessLinearIndexOp, shard::ProcessMultiIndexOp>(op) ||
         op->getName().getStringRef() == "mpi.comm_rank";
}

/// Whether `v` is computed from a device index (through any op, including
/// values its defining ops capture in regions).
bool dependsOnDeviceIndex(Value v) {
  SmallVector<Value> work{v};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || !seen.insert(def).second)
      continue;
    if (isDeviceIndex(def))
      return true;
    llvm::append_range(work, def->getOperands());
  }
  return false;
}

/// The call sites of the function `fn` in the module (or other symbol
/// table) above it.
SmallVector<CallOpInterface> callersOf(FunctionOpInterface fn) {
  SmallVector<CallOpInterface> calls;
  Operation *table = fn->getParentOp();
  while (table && !table->hasTrait<OpTrait::SymbolTable>())
    table = table->getParentOp();
  if (!table)
    return calls;
  if (std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(fn, table))
    for (const SymbolTable::SymbolUse &use : *uses)
      if (auto call = dyn_cast<CallOpInterface>(use.getUser()))
        calls.push_back(call);
  return calls;
}

/// Pushes the terminators' operands of every block of `op`'s regions (what
/// its regions yield or branch on).
void pushRegionTerminators(Operation *op, SmallVectorImpl<Value> &work) {
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>())
        llvm::append_range(work, block.back().getOperands());
}

/// Whether the value of `v` can differ per device because it is computed
/// from a device index: through the ops defining it and what their regions
/// yield, loop-carried values (an scf.for's induction variable through its
/// bounds and step only, an iteration argument through its initial and
/// yielded values), and a function's arguments through its call sites.
bool valueDependsOnDeviceIndex(Value v) {
  SmallVector<Value> work{v};
  llvm::SmallPtrSet<void *, 32> seen;
  while (!work.empty()) {
    Value cur = work.pop_back_val();
    if (!seen.insert(cur.getAsOpaquePointer()).second)
      continue;
    if (Operation *def = cur.getDefiningOp()) {
      if (isDeviceIndex(def))
        return true;
      unsigned k = cast<OpResult>(cur).getResultNumber();
      // A result of structured control flow: what decides the path and
      // what the paths yield for that result, not the other results (a
      // planned scan carries its checkpoint indexes beside the data).
      if (auto op = dyn_cast<scf::IfOp>(def)) {
        work.push_back(op.getCondition());
        work.push_back(op.thenYield().getOperand(k));
        if (!op.getElseRegion().empty())
          work.push_back(op.elseYield().getOperand(k));
        continue;
      }
      if (auto op = dyn_cast<scf::ForOp>(def)) {
        work.append({op.getLowerBound(), op.getUpperBound(), op.getStep(),
                     op.getInitArgs()[k],
                     op.getBody()->getTerminator()->getOperand(k)});
        continue;
      }
      if (auto op = dyn_cast<scf::IndexSwitchOp>(def)) {
        work.push_back(op.getArg());
        for (Region &region : op->getRegions())
          work.push_back(region.front().getTerminator()->getOperand(k));
        continue;
      }
      llvm::append_range(work, def->getOperands());
      pushRegionTerminators(def, work);
      continue;
    }
    auto arg = cast<BlockArgument>(cur);
    Operation *parent = arg.getOwner()->getParentOp();
    if (!parent)
      continue;
    if (auto fn = dyn_cast<FunctionOpInterface>(parent)) {
      if (arg.getOwner() != &fn.getFunctionBody().front())
        continue; // A block of a CFG body: its branches are operands below.
      for (CallOpInterface call : callersOf(fn))
        if (arg.getArgNumber() < call.getArgOperands().size())
          work.push_back(call.getArgOperands()[arg.getArgNumber()]);
      continue;
    }
    if (auto loop = dyn_cast<scf::ForOp>(parent)) {
      if (arg == loop.getInductionVar()) {
        work.append(
            {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()});
        continue;
      }
      unsigned k = arg.getArgNumber() - 1;
      work.push_back(loop.getInitArgs()[k]);
      work.push_back(loop.getBody()->getTerminator()->getOperand(k));
      continue;
    }
    // Any other region op: whatever enters or is carried through it.
    llvm::append_range(work, parent->getOperands());
    pushRegionTerminators(parent, work);
  }
  return false;
}

/// The operands of `p` that decide whether (or how many times) the ops in
/// its regions run on a device.
SmallVector<Value> controlOperands(Operation *p) {
  if (auto op = dyn_cast<scf::IfOp>(p))
    return {op.getCondition()};
  if (auto op = dyn_cast<scf::ForOp>(p))
    return {op.getLowerBound(), op.getUpperBound(), op.getStep()};
  if (auto op = dyn_cast<scf::IndexSwitchOp>(p))
    return {op.getArg()};
  if (auto op = dyn_cast<scf::WhileOp>(p)) {
    SmallVector<Value> values(op.getInits());
    values.push_back(op.getConditionOp().getCondition());
    llvm::append_range(values, op.getYieldOp().getOperands());
    return values;
  }
  // Regions that run exactly once whenever the op does: a recomputation
  // (remat.recompute) re-runs a collective on every device, as the plan
  // placed it.
  if (isa<scf::ExecuteRegionOp, FunctionOpInterface, RecomputeOp>(p))
    return {};
  return SmallVector<Value>(p->getOperands());
}

/// deviceDependentControl for `op`, the callers of its function visited
/// at most once.
Operation *
deviceDependentControlImpl(Operation *op,
                           llvm::SmallPtrSetImpl<Operation *> &visitedFns) {
  for (Operation *inner = op; inner; inner = inner->getParentOp()) {
    // Branches between the blocks of a region holding `inner` outside its
    // entry block (which runs whenever the region does).
    Region *region = inner->getParentRegion();
    if (region && !region->hasOneBlock() &&
        inner->getBlock() != &region->front())
      for (Block &block : *region)
        if (!block.empty() && block.back().getNumSuccessors() > 1)
          for (Value v : block.back().getOperands())
            if (valueDependsOnDeviceIndex(v))
              return &block.back();
    Operation *p = inner->getParentOp();
    if (!p)
      break;
    if (auto fn = dyn_cast<FunctionOpInterface>(p)) {
      if (!visitedFns.insert(fn).second)
        break;
      for (CallOpInterface call : callersOf(fn))
        if (Operation *found = deviceDependentControlImpl(call, visitedFns))
          return found;
      break;
    }
    for (Value v : controlOperands(p))
      if (valueDependsOnDeviceIndex(v))
        return p;
  }
  return nullptr;
}

bool isPricedCollective(Operation *op) {
  return isa<shard::AllReduceOp, shard::AllGatherOp, shard::ReduceScatterOp,
             shard::AllSliceOp, shard::AllToAllOp, shard::ShiftOp>(op);
}

/// Whether some device of a shift's group of `n` has a partner: the others
/// copy (offset 0 modulo n when rotating) or get zeros (|offset| >= n).
bool shiftMoves(const CollectiveInfo &c) {
  int64_t n = c.groupSize;
  if (c.rotate)
    return c.offset % n != 0;
  return c.offset != 0 && c.offset > -n && c.offset < n;
}

} // namespace

std::optional<CollectiveInfo> collectiveInfo(Operation *op,
                                             Operation *symbolScope) {
  if (!isPricedCollective(op) || op->getNumOperands() != 1 ||
      op->getNumResults() != 1)
    return std::nullopt;
  auto gridRef = op->getAttrOfType<FlatSymbolRefAttr>("grid");
  if (!gridRef)
    return std::nullopt;
  auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, gridRef);
  if (!grid && symbolScope)
    grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(symbolScope,
                                                               gridRef);
  if (!grid)
    return std::nullopt;
  CollectiveInfo c;
  c.gridShape.assign(grid.getShape().begin(), grid.getShape().end());
  for (int64_t d : c.gridShape)
    if (d <= 0)
      return std::nullopt; // A dynamic grid: the group size is unknown.
  SmallVector<int64_t> axes;
  if (auto shift = dyn_cast<shard::ShiftOp>(op)) {
    // Only the coordinate on the shift axis changes: that axis is the group.
    c.axis = static_cast<int64_t>(shift.getShiftAxis().getZExtValue());
    // getOffset() zero-extends: a negative offset would come back huge.
    c.offset = shift.getOffsetAttr().getInt();
    c.rotate = shift.getRotate();
    axes.push_back(c.axis);
  } else if (auto attr = op->getAttrOfType<DenseI16ArrayAttr>("grid_axes")) {
    axes.append(attr.asArrayRef().begin(), attr.asArrayRef().end());
  }
  for (int64_t a : axes) {
    if (a < 0 || a >= static_cast<int64_t>(c.gridShape.size()))
      return std::nullopt;
    c.gridAxes.push_back(a);
    c.groupSize *= c.gridShape[a];
  }
  Type inType = op->getOperand(0).getType();
  Type outType = op->getResult(0).getType();
  std::optional<int64_t> inElems = staticElems(inType);
  std::optional<int64_t> outElems = staticElems(outType);
  std::optional<int64_t> inBytes = typeBytes(inType);
  std::optional<int64_t> outBytes = typeBytes(outType);
  if (!inElems || !outElems || !inBytes || !outBytes)
    return std::nullopt;
  c.inElems = *inElems;
  c.outElems = *outElems;
  c.inBytes = *inBytes;
  c.outBytes = *outBytes;
  c.elemBytes = c.outElems ? c.outBytes / c.outElems : 0;
  ArrayRef<int64_t> inShape = cast<RankedTensorType>(inType).getShape();
  ArrayRef<int64_t> outShape = cast<RankedTensorType>(outType).getShape();
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](shard::AllReduceOp) { c.kind = CollectiveKind::AllReduce; })
      .Case([&](shard::AllGatherOp g) {
        c.kind = CollectiveKind::AllGather;
        c.axis = g.getGatherAxis().getSExtValue();
      })
      .Case([&](shard::ReduceScatterOp s) {
        c.kind = CollectiveKind::ReduceScatter;
        c.axis = s.getScatterAxis().getSExtValue();
      })
      .Case([&](shard::AllSliceOp s) {
        c.kind = CollectiveKind::AllSlice;
        c.axis = s.getSliceAxis().getSExtValue();
      })
      .Case([&](shard::AllToAllOp a) {
        c.kind = CollectiveKind::AllToAll;
        c.axis = a.getSplitAxis().getSExtValue();
        c.axis2 = a.getConcatAxis().getSExtValue();
      })
      .Case([&](shard::ShiftOp) { c.kind = CollectiveKind::Shift; });
  if (inShape.size() == outShape.size())
    c.contiguousBlocks = remat_collective_blocks_contiguous(
        collectiveABIKind(c.kind), static_cast<int64_t>(inShape.size()),
        inShape.data(), outShape.data(), c.axis, c.axis2,
        /*inputContiguous=*/1);
  return c;
}

int64_t collectiveABIKind(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllReduce:
    return REMAT_COLL_ALL_REDUCE;
  case CollectiveKind::AllGather:
    return REMAT_COLL_ALL_GATHER;
  case CollectiveKind::ReduceScatter:
    return REMAT_COLL_REDUCE_SCATTER;
  case CollectiveKind::AllSlice:
    return REMAT_COLL_ALL_SLICE;
  case CollectiveKind::AllToAll:
    return REMAT_COLL_ALL_TO_ALL;
  case CollectiveKind::Shift:
    return REMAT_COLL_SHIFT;
  }
  return -1;
}

double collectiveBytesSent(const CollectiveInfo &c) {
  double n = static_cast<double>(c.groupSize);
  double share = (n - 1) / n;
  switch (c.kind) {
  case CollectiveKind::AllReduce:
    return 2 * share * static_cast<double>(c.inBytes);
  case CollectiveKind::AllGather:
    return share * static_cast<double>(c.outBytes);
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::AllToAll:
    return share * static_cast<double>(c.inBytes);
  case CollectiveKind::AllSlice:
    return 0;
  case CollectiveKind::Shift:
    return shiftMoves(c) ? static_cast<double>(c.inBytes) : 0;
  }
  return 0;
}

int64_t collectiveSteps(const CollectiveInfo &c) {
  if (c.kind == CollectiveKind::AllSlice)
    return 0;
  if (c.kind == CollectiveKind::Shift)
    return shiftMoves(c) ? 1 : 0;
  int64_t steps = c.groupSize - 1;
  return c.kind == CollectiveKind::AllReduce ? 2 * steps : steps;
}

double collectiveTime(const CollectiveInfo &c) {
  // Local work: the elements reduced (n-1 partial blocks added) or copied.
  double local = static_cast<double>(c.outElems);
  if (c.kind == CollectiveKind::AllReduce ||
      c.kind == CollectiveKind::ReduceScatter)
    local = static_cast<double>(c.inElems) * (c.groupSize - 1) /
            static_cast<double>(c.groupSize);
  return static_cast<double>(collectiveSteps(c)) * kCollectiveStepCost +
         collectiveBytesSent(c) * kCollectiveByteCost + local;
}

Operation *deviceDependentControl(Operation *op) {
  llvm::SmallPtrSet<Operation *, 8> visitedFns;
  return deviceDependentControlImpl(op, visitedFns);
}

std::optional<double> pointToPointTime(Operation *op) {
  if (!isa<shard::SendOp, shard::RecvOp>(op))
    return std::nullopt;
  Value data = isa<shard::SendOp>(op) ? op->getOperand(0) : op->getResult(0);
  std::optional<int64_t> bytes = typeBytes(data.getType());
  if (!bytes || *bytes == kTooManyBytes)
    return std::nullopt;
  return kCollectiveStepCost + static_cast<double>(*bytes) * kCollectiveByteCost;
}

int64_t collectiveWorkspace(const CollectiveInfo &c) {
  int64_t bytes = remat_collective_workspace_bytes(
      collectiveABIKind(c.kind), c.elemBytes, c.inElems, c.outElems,
      c.groupSize, c.contiguousBlocks ? 1 : 0);
  if (bytes < 0) // Overflow: more than any budget.
    return kTooManyBytes;
  if (bytes == 0)
    return 0;
  return roundUpToAlignment(bytes, REMAT_COLL_WORKSPACE_ALIGNMENT);
}

std::optional<std::string> whyCommunicationKept(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (name.starts_with("mpi."))
    return "'" + name.str() +
           "' communicates in a way the planner does not model (it prices "
           "and re-runs shard collectives only)";
  if (isa<shard::SendOp, shard::RecvOp>(op))
    return "'" + name.str() +
           "' is point-to-point: its partner sends or receives once";
  if (name.starts_with("shard.") && !isPricedCollective(op) &&
      !isa<shard::ProcessLinearIndexOp, shard::ProcessMultiIndexOp,
           shard::GridShapeOp>(op))
    return "'" + name.str() +
           "' is not priced by the planner (it prices all_reduce, "
           "all_gather, reduce_scatter, all_slice, all_to_all and shift)";
  if (op->getNumRegions() == 0)
    return std::nullopt;
  // A collective nested under control flow that depends on the device index
  // could run on some ranks only if re-run: never re-run it.
  std::optional<std::string> why;
  op->walk([&](Operation *inner) {
    if (inner != op && isa<shard::SendOp, shard::RecvOp>(inner)) {
      why = "'" + inner->getName().getStringRef().str() +
            "' is point-to-point: its partner sends or receives once";
      return WalkResult::interrupt();
    }
    if (inner == op || !isPricedCollective(inner))
      return WalkResult::advance();
    for (Operation *p = inner->getParentOp(); p; p = p->getParentOp()) {
      for (Value v : p->getOperands())
        if (dependsOnDeviceIndex(v)) {
          why = "'" + inner->getName().getStringRef().str() +
                "' runs under control flow that depends on the device index "
                "('" + p->getName().getStringRef().str() +
                "'): ranks could disagree on re-running it";
          return WalkResult::interrupt();
        }
      if (p == op)
        break;
    }
    return WalkResult::advance();
  });
  return why;
}

} // namespace remat
