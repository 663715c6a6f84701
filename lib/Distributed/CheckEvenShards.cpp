//===- CheckEvenShards.cpp - Uneven annotations, refused clearly ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Upstream's shard-partition (MLIR 22) assumes every split dimension divides
// by its devices: given 10 rows over 4, it casts the 3-row shard to the
// 10-row type and the module fails verification on that tensor.cast. This
// check names the annotation instead, and the two ways to run the step.
//
//===----------------------------------------------------------------------===//

#include "remat/Distributed/Passes.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/SymbolTable.h"

namespace remat {
#define GEN_PASS_DEF_CHECKEVENSHARDSPASS
#include "remat/Distributed/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace {

struct CheckEvenShardsPass
    : public remat::impl::CheckEvenShardsPassBase<CheckEvenShardsPass> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    // The first uneven annotation only: one error line (an annotation for
    // users repeats its value's).
    bool uneven = false;
    getOperation().walk([&](shard::ShardOp op) {
      if (uneven)
        return WalkResult::interrupt();
      shard::Sharding sharding(op.getSharding());
      // Explicit shard sizes: the annotation says how it splits.
      if (!sharding.getStaticShardedDimsOffsets().empty() ||
          !sharding.getDynamicShardedDimsOffsets().empty())
        return WalkResult::advance();
      shard::GridOp grid =
          shard::getGridOrNull(op, sharding.getGridAttr(), symbols);
      if (!grid) // The verifier names a missing grid.
        return WalkResult::advance();
      ArrayRef<int64_t> shape = grid.getShape();
      RankedTensorType type = op.getSrc().getType();
      for (auto [dim, axes] : llvm::enumerate(sharding.getSplitAxes())) {
        if (static_cast<int64_t>(dim) >= type.getRank() ||
            type.isDynamicDim(dim))
          continue;
        int64_t devices = 1;
        for (int16_t axis : axes.asArrayRef()) {
          if (axis < 0 || static_cast<size_t>(axis) >= shape.size() ||
              ShapedType::isDynamic(shape[axis]) || shape[axis] <= 0) {
            devices = 0; // Not known here: upstream's business.
            break;
          }
          devices *= shape[axis];
        }
        const int64_t size = type.getDimSize(dim);
        if (devices <= 1 || size % devices == 0)
          continue;
        std::string axisList;
        llvm::raw_string_ostream os(axisList);
        llvm::interleaveComma(axes.asArrayRef(), os);
        std::string typeText;
        llvm::raw_string_ostream ts(typeText);
        type.print(ts);
        op.emitError() << "this annotation splits " << typeText
                       << " unevenly: dimension " << dim << " (" << size
                       << ") over the " << devices << " devices of grid @"
                       << grid.getSymName() << " axes [" << axisList
                       << "]; upstream shard-partition (MLIR 22) does not "
                          "partition uneven shards. Pad the dimension to a "
                          "multiple of "
                       << devices
                       << ", or write the program each rank runs with it "
                          "dynamic and bounded by the largest shard ("
                       << (size + devices - 1) / devices
                       << "; docs/distributed.md, \"Uneven shards\")";
        uneven = true;
        break;
      }
      return WalkResult::advance();
    });
    if (uneven)
      signalPassFailure();
  }
};

} // namespace
