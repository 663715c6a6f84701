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
      writeIntoIterArgs(cast<scf::YieldOp>(loop.getBody()->getTerminator()),
                        loop.getRegionIterArgs());
    });
    // The body's argument k of such a while is the iteration's buffer k.
    getOperation()->walk([](scf::WhileOp loop) {
      if (passesArgumentsOn(loop))
        writeIntoIterArgs(loop.getYieldOp(), loop.getAfterArguments());
    });
  }

  /// Ends the iteration with a copy of each yielded tensor that is not
  /// already written in place into its iteration argument.
  static void writeIntoIterArgs(scf::YieldOp yield, ValueRange iterArgs) {
    OpBuilder b(yield);
    for (auto [k, arg] : llvm::enumerate(iterArgs)) {
      Value v = yield.getOperand(k);
      if (!isa<RankedTensorType>(arg.getType()) || inPlaceTarget(v) == arg)
        continue;
      yield.setOperand(
          k, linalg::CopyOp::create(b, yield.getLoc(), v, arg).getResult(0));
    }
  }
};

} // namespace
