//===- AnnotateCosts.cpp - Make the planner's costs visible ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Analysis/CostModel.h"
#include "remat/Analysis/ShapeBounds.h"
#include "remat/Dialect/Remat/Remat.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace remat {
#define GEN_PASS_DEF_ANNOTATECOSTSPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {
struct AnnotateCostsPass
    : public remat::impl::AnnotateCostsPassBase<AnnotateCostsPass> {
  using AnnotateCostsPassBase::AnnotateCostsPassBase;

  void runOnOperation() override {
    FailureOr<std::optional<CostTable>> table =
        CostTable::loadOption(costTable, getOperation());
    if (failed(table))
      return signalPassFailure();
    // The attribute records tensor bytes, not allocations: the planner
    // rounds them to the target's alignment when it reads them.
    CostModel costs(*table ? &**table : nullptr, /*alignment=*/1);
    WalkResult result = getOperation().walk([&](func::FuncOp func) {
      // Dynamic sizes are costed at their bounds when planning
      // (ShapeBounds.h): an attribute here would fix one size.
      if (func.isExternal() || hasDynamicShapes(func))
        return WalkResult::advance();
      for (Operation &op : func.getBody().front().without_terminator()) {
        if (isa<GenericOp, RecomputeOp>(op) ||
            op.hasAttr(RematDialect::kCostAttrName))
          continue;
        FailureOr<OpCost> c = costs.cost(&op);
        if (failed(c))
          return WalkResult::interrupt();
        int64_t bytes = 0;
        for (int64_t b : c->resultBytes)
          bytes += b;
        op.setAttr(RematDialect::kCostAttrName,
                   CostAttr::get(&getContext(), c->time, bytes,
                                 c->workspace));
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
