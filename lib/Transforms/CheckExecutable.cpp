//===- CheckExecutable.cpp - Stop lowering at planning-only ops -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

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
                     << "' is a planning-only remat.op and cannot be lowered: "
                        "it stands for a framework op with no executable "
                        "lowering (remat-import-torch makes one for each op "
                        "it cannot lower, and for every op with "
                        "--planning-only). Plan the function without lowering "
                        "it; to run it, import again without --planning-only "
                        "after replacing the op in the model or giving it a "
                        "lowering (docs/importer.md; --strict lists them all)";
      failed = true;
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
