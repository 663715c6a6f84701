//===- HostStacksPass.cpp - -remat-host-stacks ----------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Moves every scan's stacks that can to host memory (HostStacks.h), with a
// remark for each scan, moved or not.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/ScanLoops.h"
#include "remat/Dialect/Remat/Remat.h"
#include "remat/Loops/HostStacks.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace remat {
#define GEN_PASS_DEF_HOSTSTACKSPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {
struct HostStacksPass
    : public remat::impl::HostStacksPassBase<HostStacksPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    func.walk([&](Operation *loop) {
      if (!isa<scf::ForOp, scf::WhileOp>(loop))
        return;
      auto match = matchScan(loop);
      auto *pair = std::get_if<ScanPair>(&match);
      if (!pair)
        return;
      if (std::optional<std::string> why = whyNoHostStacks(loop)) {
        loop->emitRemark() << "stacks not moved to host memory: " << *why;
        return;
      }
      loop->emitRemark() << "stacks in host memory: " << pair->stacks.size()
                         << " stack(s) of " << pair->stackBytes
                         << " B, one row copied out per step and back per "
                            "backward step";
    });
    putScanStacksOnHost(func);
  }
};
} // namespace
