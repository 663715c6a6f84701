//===- CheckExecutable.cpp - Stop lowering at planning-only ops -----------===//

#include "remat/Dialect/Remat/Remat.h"
#include "remat/Transforms/Passes.h"

namespace remat {
#define GEN_PASS_DEF_CHECKEXECUTABLEPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {
struct CheckExecutablePass
    : public remat::impl::CheckExecutablePassBase<CheckExecutablePass> {
  void runOnOperation() override {
    bool failed = false;
    getOperation()->walk([&](GenericOp op) {
      op.emitError() << "'" << op.getName()
                     << "' is a planning-only remat.op and cannot be lowered; "
                        "import the model with executable ops (e.g. "
                        "remat-import-torch without --planning-only) or plan "
                        "it without lowering";
      failed = true;
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
