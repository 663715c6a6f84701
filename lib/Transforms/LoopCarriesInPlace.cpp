//===- LoopCarriesInPlace.cpp - Yields that bufferize in place ------------===//

#include "remat/Analysis/OpGroups.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace remat {
#define GEN_PASS_DEF_LOOPCARRIESINPLACEPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

struct LoopCarriesInPlacePass
    : public remat::impl::LoopCarriesInPlacePassBase<LoopCarriesInPlacePass> {
  void runOnOperation() override {
    getOperation()->walk([](scf::ForOp loop) {
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      OpBuilder b(yield);
      for (auto [k, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
        Value v = yield.getOperand(k);
        if (!isa<RankedTensorType>(arg.getType()) || inPlaceTarget(v) == arg)
          continue;
        yield.setOperand(
            k, linalg::CopyOp::create(b, yield.getLoc(), v, arg).getResult(0));
      }
    });
  }
};

} // namespace
