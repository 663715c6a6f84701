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

/// Whether `v` is `arg` or was written into it by a chain of destination
/// operands (inserts, linalg ops with `arg` as their init).
bool writtenInto(Value v, BlockArgument arg) {
  for (int depth = 0; depth < 64; ++depth) {
    if (v == arg)
      return true;
    auto result = dyn_cast<OpResult>(v);
    if (!result)
      return false;
    Operation *op = result.getOwner();
    SmallVector<OpOperand *> dests = destinationOperands(op);
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
      v = dps.getTiedOpOperand(result)->get();
    else if (dests.size() == 1)
      v = dests.front()->get();
    else
      return false;
  }
  return false;
}

struct LoopCarriesInPlacePass
    : public remat::impl::LoopCarriesInPlacePassBase<LoopCarriesInPlacePass> {
  void runOnOperation() override {
    getOperation()->walk([](scf::ForOp loop) {
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      OpBuilder b(yield);
      for (auto [k, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
        Value v = yield.getOperand(k);
        if (!isa<RankedTensorType>(arg.getType()) || writtenInto(v, arg))
          continue;
        yield.setOperand(
            k, linalg::CopyOp::create(b, yield.getLoc(), v, arg).getResult(0));
      }
    });
  }
};

} // namespace
