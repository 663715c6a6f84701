//===- HostStacks.cpp - A scan's stacks kept in host memory ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Rewrites a scan's stacks (ScanLoops.h) as host stacks: the tensor.empty a
// stack starts from becomes remat.host_empty, every whole-row
// tensor.insert_slice into it (in the forward loop, and before it)
// remat.offload_row, every whole-row tensor.extract_slice of it
// remat.prefetch_row. Types are unchanged, so the loops are not rebuilt.
//
//===----------------------------------------------------------------------===//

#include "remat/Loops/HostStacks.h"

#include "remat/Analysis/ScanLoops.h"
#include "remat/Dialect/Remat/Remat.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace remat {
namespace {

/// A slice that is one whole row of a stack along its rows' axis (offsets
/// 0 but the row's index there, sizes the stack's but 1 there, unit
/// strides): the row's index, and whether the slice keeps the unit
/// dimension rather than being the row's own type (rank-reduced).
struct WholeRow {
  OpFoldResult index;
  bool unitDim = false;
  explicit operator bool() const { return static_cast<bool>(index); }
};

/// One row of `stack` along `axis`: its shape without that dimension.
RankedTensorType rowTypeOf(RankedTensorType stack, int64_t axis) {
  SmallVector<int64_t> shape(stack.getShape());
  shape.erase(shape.begin() + axis);
  return RankedTensorType::get(shape, stack.getElementType());
}

/// The host stack of `stack`: time-major whatever the device layout (the
/// rows' axis first), so that each row is one contiguous copy.
RankedTensorType hostStackType(RankedTensorType stack, int64_t axis) {
  SmallVector<int64_t> shape{stack.getDimSize(axis)};
  llvm::append_range(shape, rowTypeOf(stack, axis).getShape());
  return RankedTensorType::get(shape, stack.getElementType());
}

WholeRow wholeRow(OffsetSizeAndStrideOpInterface slice, RankedTensorType stack,
                  RankedTensorType sliceType, int64_t axis) {
  if (!stack.hasStaticShape())
    return {};
  bool unitDim = sliceType != rowTypeOf(stack, axis);
  if (unitDim) {
    SmallVector<int64_t> withUnit(stack.getShape());
    withUnit[axis] = 1;
    if (sliceType != RankedTensorType::get(withUnit, stack.getElementType()))
      return {};
  }
  SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
  SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
  SmallVector<OpFoldResult> strides = slice.getMixedStrides();
  for (int64_t d = 0; d < stack.getRank(); ++d) {
    if (getConstantIntValue(strides[d]) != 1)
      return {};
    int64_t size = d == axis ? 1 : stack.getDimSize(d);
    if (getConstantIntValue(sizes[d]) != size)
      return {};
    if (d != axis && getConstantIntValue(offsets[d]) != 0)
      return {};
  }
  return {offsets[axis], unitDim};
}

WholeRow insertRow(tensor::InsertSliceOp insert, int64_t axis) {
  return wholeRow(insert, insert.getDestType(), insert.getSourceType(), axis);
}

WholeRow extractRow(tensor::ExtractSliceOp extract, int64_t axis) {
  return wholeRow(extract, extract.getSourceType(), extract.getType(), axis);
}

/// A row with its unit dimension at `axis`, to the row: the unit joins the
/// dimension before it ([[0, 1], [2]] for [B, 1, W]), or after it at 0.
SmallVector<ReassociationIndices> unitDimGroups(int64_t rowRank, int64_t axis) {
  SmallVector<ReassociationIndices> groups;
  int64_t joined = axis == 0 ? 0 : axis - 1;
  for (int64_t d = 0; d < rowRank; ++d) {
    int64_t first = d < axis ? d : d + 1;
    if (d == joined)
      groups.push_back({std::min(first, axis), std::max(first, axis)});
    else
      groups.push_back({first});
  }
  return groups;
}

/// What one stack's rewrite touches.
struct StackPlan {
  Operation *forward = nullptr;
  unsigned arg = 0; ///< The stack's iteration argument (ScanPair's index).
  int64_t axis = 0; ///< The rows' axis on the device.
  tensor::EmptyOp empty;
  /// A fill of `empty` the loop overwrites whole (JAX's zeros), or null.
  linalg::FillOp fill;
  /// Rows stored before the loop (outermost last), then the loop's store.
  SmallVector<tensor::InsertSliceOp> inserts;
  SmallVector<tensor::ExtractSliceOp> reads;
};

/// The plan of stack `s` of `pair`, or why there is none.
std::variant<StackPlan, std::string> planStack(const ScanPair &pair,
                                                unsigned s) {
  unsigned k = pair.stacks[s];
  StackPlan plan;
  plan.forward = pair.forward;
  plan.arg = k;
  plan.axis = pair.rowAxis[s];
  if (pair.keptWhole[s])
    return std::string("a stack is also read whole after the loop");
  if (auto loop = dyn_cast<scf::WhileOp>(pair.forward)) {
    Value before = loop.getBeforeArguments()[k];
    if (!before.hasOneUse() ||
        before.getUses().begin()->getOwner() != loop.getConditionOp())
      return std::string("the forward loop's condition reads a stack");
  }
  auto store = dyn_cast<tensor::InsertSliceOp>(pair.inserts[s]);
  if (!store || !insertRow(store, plan.axis))
    return std::string("a stack is not stored whole rows by "
                       "tensor.insert_slice");
  Value arg = pair.iterArg(k);
  if (!arg.hasOneUse() || store.getDest() != arg ||
      !store.getResult().hasOneUse() ||
      store.getResult().getUses().begin()->getOwner() != pair.yield())
    return std::string("the forward loop uses a stack otherwise than by "
                       "storing its row");
  plan.inserts.push_back(store);
  // The init: a tensor.empty, maybe with rows stored before the loop.
  Value init = pair.init(k);
  while (auto before = init.getDefiningOp<tensor::InsertSliceOp>()) {
    if (!insertRow(before, plan.axis) || !before.getResult().hasOneUse())
      return std::string("a row stored before the loop is not a whole row "
                         "read only by the loop");
    plan.inserts.insert(plan.inserts.begin(), before);
    init = before.getDest();
  }
  // A stack filled first (jnp.zeros before a lax.scan) whose every row the
  // loop stores (T distinct rows of T) never shows the fill.
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (fill && fill.getNumResults() == 1 && plan.inserts.size() == 1 &&
      init.hasOneUse() && !pair.online() &&
      cast<RankedTensorType>(init.getType()).getDimSize(plan.axis) ==
          pair.steps) {
    plan.fill = fill;
    init = fill.getOutputs()[0];
  }
  plan.empty = init.getDefiningOp<tensor::EmptyOp>();
  if (!plan.empty || !init.hasOneUse())
    return std::string("a stack does not start from a tensor.empty of its "
                       "own (or a fill of one the loop overwrites whole)");
  llvm::SmallPtrSet<Operation *, 8> reads;
  for (const StackRead &read : pair.reads) {
    if (read.stack != s)
      continue;
    auto extract = dyn_cast<tensor::ExtractSliceOp>(read.op);
    if (!extract || !extractRow(extract, plan.axis))
      return std::string("a stack is read otherwise than a whole row at a "
                         "time");
    plan.reads.push_back(extract);
    reads.insert(extract);
  }
  for (Operation *user : pair.result(k).getUsers())
    if (!reads.contains(user))
      return std::string("the stack is used after the loop otherwise than "
                         "by its row reads");
  return plan;
}

Value indexValue(RewriterBase &rewriter, Location loc, OpFoldResult ofr) {
  if (auto v = dyn_cast<Value>(ofr))
    return v;
  return arith::ConstantIndexOp::create(
      rewriter, loc, *getConstantIntValue(ofr));
}

void rewriteStack(RewriterBase &rewriter, StackPlan &plan) {
  auto deviceType = cast<RankedTensorType>(plan.empty.getType());
  RankedTensorType hostType = hostStackType(deviceType, plan.axis);
  RankedTensorType rowType = rowTypeOf(deviceType, plan.axis);
  SmallVector<ReassociationIndices> groups =
      unitDimGroups(rowType.getRank(), plan.axis);
  // Read before the ops they read from are replaced.
  SmallVector<WholeRow> stored, read;
  for (tensor::InsertSliceOp insert : plan.inserts)
    stored.push_back(insertRow(insert, plan.axis));
  for (tensor::ExtractSliceOp extract : plan.reads)
    read.push_back(extractRow(extract, plan.axis));

  rewriter.setInsertionPoint(plan.empty);
  auto stack = rewriter.replaceOpWithNewOp<HostEmptyOp>(plan.empty, hostType);
  if (plan.fill)
    rewriter.replaceOp(plan.fill, stack.getResult());
  for (auto [insert, row] : llvm::zip(plan.inserts, stored)) {
    rewriter.setInsertionPoint(insert);
    Location loc = insert.getLoc();
    Value value = insert.getSource();
    if (row.unitDim)
      value = tensor::CollapseShapeOp::create(rewriter, loc, rowType, value,
                                              groups);
    rewriter.replaceOpWithNewOp<OffloadRowOp>(
        insert, hostType, value, insert.getDest(),
        indexValue(rewriter, loc, row.index));
  }
  // The loop carries the host stack: its argument and result take its type
  // (the same as the device stack's where that is time-major).
  if (auto loop = dyn_cast<scf::ForOp>(plan.forward)) {
    loop.getRegionIterArgs()[plan.arg].setType(hostType);
  } else {
    auto loop2 = cast<scf::WhileOp>(plan.forward);
    loop2.getBeforeArguments()[plan.arg].setType(hostType);
    loop2.getAfterArguments()[plan.arg].setType(hostType);
  }
  plan.forward->getResult(plan.arg).setType(hostType);
  for (auto [extract, row] : llvm::zip(plan.reads, read)) {
    rewriter.setInsertionPoint(extract);
    Location loc = extract.getLoc();
    Value back =
        PrefetchRowOp::create(rewriter, loc, rowType, extract.getSource(),
                              indexValue(rewriter, loc, row.index));
    if (row.unitDim)
      back = tensor::ExpandShapeOp::create(rewriter, loc, extract.getType(),
                                           back, groups);
    rewriter.replaceOp(extract, back);
  }
}

} // namespace

std::optional<std::string> whyNoHostStacks(Operation *forward) {
  auto match = matchScan(forward);
  if (auto *why = std::get_if<std::string>(&match))
    return *why;
  // A scan of run-time length stacks into rows for its most steps: the
  // host holds those rows the same way.
  const ScanPair &pair = std::get<ScanPair>(match);
  for (unsigned s = 0; s < pair.stacks.size(); ++s)
    if (auto plan = planStack(pair, s); auto *why = std::get_if<std::string>(&plan))
      return *why;
  return std::nullopt;
}

std::vector<HostStackScan> putScanStacksOnHost(func::FuncOp func) {
  SmallVector<Operation *> forwards;
  func.walk([&](Operation *op) {
    if (isa<scf::ForOp, scf::WhileOp>(op))
      forwards.push_back(op);
  });
  IRRewriter rewriter(func.getContext());
  std::vector<HostStackScan> scans;
  for (Operation *forward : forwards) {
    if (whyNoHostStacks(forward))
      continue;
    ScanPair pair = std::get<ScanPair>(matchScan(forward));
    SmallVector<StackPlan> plans;
    for (unsigned s = 0; s < pair.stacks.size(); ++s)
      plans.push_back(std::get<StackPlan>(planStack(pair, s)));
    for (StackPlan &plan : plans)
      rewriteStack(rewriter, plan);
    scans.push_back({forward, pair.backward, pair.stackBytes});
  }
  return scans;
}

} // namespace remat
