//===- ContractFloatOps.cpp - Let LLVM form fused multiply-adds -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// mlir-runner's JIT has no -fp-contract flag, so contraction is allowed op
// by op: LLVM fuses an fmul into the fadd that uses it when both carry the
// `contract` flag.

#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace remat {
#define GEN_PASS_DEF_CONTRACTFLOATOPSPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace {
struct ContractFloatOpsPass
    : public remat::impl::ContractFloatOpsPassBase<ContractFloatOpsPass> {
  void runOnOperation() override {
    getOperation()->walk([](LLVM::FastmathFlagsInterface op) {
      LLVM::FastmathFlags flags = LLVM::FastmathFlags::none;
      if (LLVM::FastmathFlagsAttr old = op.getFastmathAttr())
        flags = old.getValue();
      op->setAttr(op.getFastmathAttrName(),
                  LLVM::FastmathFlagsAttr::get(
                      op->getContext(), flags | LLVM::FastmathFlags::contract));
    });
  }
};
} // namespace
