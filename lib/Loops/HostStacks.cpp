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

/// A slice that is one whole row of a stack along its leading dimension
/// (offsets [r, 0...], sizes [1, dims...], unit strides): the row's index,
/// and whether the slice keeps the unit dimension ([1, dims...]) rather
/// than being the row's own type (rank-reduced).
struct WholeRow {
  OpFoldResult index;
  bool unitDim = false;
  explicit operator bool() const { return static_cast<bool>(index); }
};

RankedTensorType rowTypeOf(RankedTensorType stack) {
  return RankedTensorType::get(stack.getShape().drop_front(),
                               stack.getElementType());
}

WholeRow wholeRow(OffsetSizeAndStrideOpInterface slice, RankedTensorType stack,
                  RankedTensorType sliceType) {
  if (!stack.hasStaticShape())
    return {};
  RankedTensorType row = rowTypeOf(stack);
  bool unitDim = sliceType != row;
  if (unitDim) {
    SmallVector<int64_t> withUnit{1};
    llvm::append_range(withUnit, row.getShape());
    if (sliceType != RankedTensorType::get(withUnit, stack.getElementType()))
      return {};
  }
  SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
  SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
  SmallVector<OpFoldResult> strides = slice.getMixedStrides();
  for (int64_t d = 0; d < stack.getRank(); ++d) {
    if (getConstantIntValue(strides[d]) != 1)
      return {};
    int64_t size = d == 0 ? 1 : stack.getDimSize(d);
    if (getConstantIntValue(sizes[d]) != size)
      return {};
    if (d > 0 && getConstantIntValue(offsets[d]) != 0)
      return {};
  }
  return {offsets[0], unitDim};
}

WholeRow insertRow(tensor::InsertSliceOp insert) {
  return wholeRow(insert, insert.getDestType(), insert.getSourceType());
}

WholeRow extractRow(tensor::ExtractSliceOp extract) {
  return wholeRow(extract, extract.getSourceType(), extract.getType());
}

/// [[0, 1], [2], ...]: a row with a leading unit dimension, to the row.
SmallVector<ReassociationIndices> unitDimGroups(int64_t rowRank) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < rowRank; ++d)
    groups.push_back(d == 0 ? ReassociationIndices{0, 1}
                            : ReassociationIndices{d + 1});
  return groups;
}

/// What one stack's rewrite touches.
struct StackPlan {
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
  if (pair.rowAxis[s] != 0)
    return std::string("a stack is not time-major (its rows are not "
                       "contiguous)");
  if (pair.keptWhole[s])
    return std::string("a stack is also read whole after the loop");
  if (auto loop = dyn_cast<scf::WhileOp>(pair.forward)) {
    Value before = loop.getBeforeArguments()[k];
    if (!before.hasOneUse() ||
        before.getUses().begin()->getOwner() != loop.getConditionOp())
      return std::string("the forward loop's condition reads a stack");
  }
  auto store = dyn_cast<tensor::InsertSliceOp>(pair.inserts[s]);
  if (!store || !insertRow(store))
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
    if (!insertRow(before) || !before.getResult().hasOneUse())
      return std::string("a row stored before the loop is not a whole row "
                         "read only by the loop");
    plan.inserts.insert(plan.inserts.begin(), before);
    init = before.getDest();
  }
  // A stack filled first (jnp.zeros before a lax.scan) whose every row the
  // loop stores (T distinct rows of T) never shows the fill.
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (fill && fill.getNumResults() == 1 && plan.inserts.size() == 1 &&
      init.hasOneUse() &&
      cast<RankedTensorType>(init.getType()).getDimSize(0) == pair.steps) {
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
    if (!extract || !extractRow(extract))
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
  rewriter.setInsertionPoint(plan.empty);
  auto stack = rewriter.replaceOpWithNewOp<HostEmptyOp>(plan.empty,
                                                        plan.empty.getType());
  if (plan.fill)
    rewriter.replaceOp(plan.fill, stack.getResult());
  for (tensor::InsertSliceOp insert : plan.inserts) {
    rewriter.setInsertionPoint(insert);
    Location loc = insert.getLoc();
    WholeRow row = insertRow(insert);
    RankedTensorType rowType = rowTypeOf(insert.getDestType());
    Value value = insert.getSource();
    if (row.unitDim)
      value = tensor::CollapseShapeOp::create(rewriter, loc, rowType, value,
                                              unitDimGroups(rowType.getRank()));
    rewriter.replaceOpWithNewOp<OffloadRowOp>(
        insert, insert.getDestType(), value, insert.getDest(),
        indexValue(rewriter, loc, row.index));
  }
  for (tensor::ExtractSliceOp read : plan.reads) {
    rewriter.setInsertionPoint(read);
    Location loc = read.getLoc();
    WholeRow row = extractRow(read);
    RankedTensorType rowType = rowTypeOf(read.getSourceType());
    Value back = PrefetchRowOp::create(rewriter, loc, rowType, read.getSource(),
                                       indexValue(rewriter, loc, row.index));
    if (row.unitDim)
      back = tensor::ExpandShapeOp::create(rewriter, loc, read.getType(), back,
                                           unitDimGroups(rowType.getRank()));
    rewriter.replaceOp(read, back);
  }
}

} // namespace

std::optional<std::string> whyNoHostStacks(Operation *forward) {
  auto match = matchScan(forward);
  if (auto *why = std::get_if<std::string>(&match))
    return *why;
  const ScanPair &pair = std::get<ScanPair>(match);
  if (pair.online())
    return std::string("its forward loop runs a number of steps known only "
                       "at run time (checkpointed online)");
  for (unsigned s = 0; s < pair.stacks.size(); ++s)
    if (auto plan = planStack(pair, s); auto *why = std::get_if<std::string>(&plan))
      return *why;
  return std::nullopt;
}

int putScanStacksOnHost(func::FuncOp func) {
  SmallVector<Operation *> forwards;
  func.walk([&](Operation *op) {
    if (isa<scf::ForOp, scf::WhileOp>(op))
      forwards.push_back(op);
  });
  IRRewriter rewriter(func.getContext());
  int scans = 0;
  for (Operation *forward : forwards) {
    if (whyNoHostStacks(forward))
      continue;
    ScanPair pair = std::get<ScanPair>(matchScan(forward));
    SmallVector<StackPlan> plans;
    for (unsigned s = 0; s < pair.stacks.size(); ++s)
      plans.push_back(std::get<StackPlan>(planStack(pair, s)));
    for (StackPlan &plan : plans)
      rewriteStack(rewriter, plan);
    ++scans;
  }
  return scans;
}

} // namespace remat
