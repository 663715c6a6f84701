//===- StashRingStages.cpp - Stash rings dropped on some stages only -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Transforms/StashRingStages.h"
#include "remat/Analysis/DevicePeaks.h"
#include "remat/Loops/StashRings.h"
#include "remat/Transforms/Prepare.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

namespace remat {

namespace {

/// The step's stage index: its one `shard.process_linear_index` of a
/// one-dimensional grid, in the entry block; and the grid's size.
std::optional<std::pair<Value, int64_t>> stageIndex(func::FuncOp func,
                                                    Operation *scope) {
  SmallVector<shard::ProcessLinearIndexOp> indexes;
  func.walk([&](shard::ProcessLinearIndexOp op) { indexes.push_back(op); });
  if (indexes.size() != 1 ||
      indexes.front()->getBlock() != &func.getBody().front())
    return std::nullopt;
  auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
      scope, indexes.front().getGridAttr());
  if (!grid || grid.getShape().size() != 1 || grid.getShape()[0] < 2)
    return std::nullopt;
  return std::make_pair(indexes.front().getResult(), grid.getShape()[0]);
}

/// `written`, prepared, with `rings` dropped where the stage is below
/// `stages`; null when a ring cannot be.
OwningOpRef<func::FuncOp> withRingsBelow(func::FuncOp written,
                                         const RingsByLoop &rings,
                                         int64_t stages, Operation *scope,
                                         bool share) {
  OwningOpRef<func::FuncOp> copy = written.clone();
  prepareForRemat(*copy);
  std::optional<std::pair<Value, int64_t>> stage = stageIndex(*copy, scope);
  if (!stage)
    return {};
  SmallVector<scf::ForOp> loops;
  copy->walk([&](scf::ForOp loop) { loops.push_back(loop); });
  IRRewriter rewriter(copy->getContext());
  for (const auto &[index, args] : rings) {
    if (index >= loops.size())
      return {};
    scf::ForOp loop = loops[index];
    Operation *def = stage->first.getDefiningOp();
    if (def->getBlock() != loop->getBlock() || !def->isBeforeInBlock(loop))
      return {};
    // Right after the index: the rings' sizes, above the loop, read it.
    rewriter.setInsertionPointAfter(def);
    Value bound =
        arith::ConstantIndexOp::create(rewriter, loop.getLoc(), stages);
    Value below =
        arith::CmpIOp::create(rewriter, loop.getLoc(), arith::CmpIPredicate::ult,
                              stage->first, bound);
    if (failed(recomputeStashRingsWhere(rewriter, loop, args, below, share)))
      return {};
  }
  // The branches made read rows back on one path: prepared as the lowering
  // prepares them (a copy on that path), so that the peaks are what runs.
  prepareForRemat(*copy);
  return copy;
}

} // namespace

std::optional<StagePlan> dropRingsOnLeadingStages(func::FuncOp written,
                                                  const RingsByLoop &rings,
                                                  int64_t budget,
                                                  const CostModel &costs,
                                                  Operation *scope,
                                                  bool share) {
  std::optional<std::pair<Value, int64_t>> stage = stageIndex(written, scope);
  if (!stage || rings.empty())
    return std::nullopt;
  for (int64_t stages = 1; stages < stage->second; ++stages) {
    OwningOpRef<func::FuncOp> copy =
        withRingsBelow(written, rings, stages, scope, share);
    if (!copy)
      return std::nullopt;
    std::vector<int64_t> peaks = devicePeaks(*copy, costs, scope);
    if (peaks.empty())
      return std::nullopt;
    if (llvm::all_of(peaks, [&](int64_t p) { return p <= budget; }))
      return StagePlan{std::move(copy), stages, std::move(peaks)};
  }
  return std::nullopt;
}

} // namespace remat
