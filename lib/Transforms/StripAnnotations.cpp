//===- StripAnnotations.cpp - Drop remat.* attributes after planning ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Dialect/Remat/Remat.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace remat {
#define GEN_PASS_DEF_STRIPANNOTATIONSPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {
struct StripAnnotationsPass
    : public remat::impl::StripAnnotationsPassBase<StripAnnotationsPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      for (StringRef name :
           {RematDialect::kCostAttrName, RematDialect::kPolicyAttrName,
            RematDialect::kStageAttrName, RematDialect::kInitAttrName,
            RematDialect::kOwnNodeAttrName})
        op->removeAttr(name);
      if (auto func = dyn_cast<FunctionOpInterface>(op)) {
        for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
          func.removeResultAttr(
              i, StringAttr::get(op->getContext(), RematDialect::kLossAttrName));
        for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
          func.removeArgAttr(i, StringAttr::get(op->getContext(),
                                                RematDialect::kBoundsAttrName));
      }
    });
  }
};
} // namespace
