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
  using CheckExecutablePassBase::CheckExecutablePassBase;

  void runOnOperation() override {
    bool failed = false;
    if (target == "cpu") {
      // One error: the first copy says what every other one would.
      getOperation()->walk(
          [&](Operation *op) {
            if (!isa<OffloadOp, HostEmptyOp>(op))
              return WalkResult::advance();
            op->emitError()
                << "copies a value to host memory, which -remat-lower-to-cpu "
                   "cannot lower (it has one memory): lower with "
                   "-remat-lower-to-gpu (emulate=true runs it without a GPU), "
                   "or plan without offload=true (--remat-offload)";
            failed = true;
            return WalkResult::interrupt();
          });
    } else if (target != "gpu" && target != "any") {
      getOperation()->emitError()
          << "-remat-check-executable: target must be cpu, gpu or any, got '"
          << target << "'";
      return signalPassFailure();
    }
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
