//===- ReportPipelineTime.cpp - Remark a pipelined step's critical path ---===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Analysis/CostModel.h"
#include "remat/Analysis/PipelineTime.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Format.h"

namespace remat {
#define GEN_PASS_DEF_REPORTPIPELINETIMEPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

std::string number(double t) {
  std::string out;
  llvm::raw_string_ostream(out) << llvm::format("%.6g", t);
  return out;
}

std::string joined(llvm::ArrayRef<double> times) {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::interleaveComma(times, os,
                        [&](double t) { os << llvm::format("%.6g", t); });
  return out;
}

struct ReportPipelineTimePass
    : public remat::impl::ReportPipelineTimePassBase<ReportPipelineTimePass> {
  using ReportPipelineTimePassBase::ReportPipelineTimePassBase;

  void runOnOperation() override {
    FailureOr<std::optional<CostTable>> table =
        CostTable::loadOption(costTable, getOperation());
    if (failed(table))
      return signalPassFailure();
    CostModel costs(*table ? &**table : nullptr);
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      std::string why;
      std::optional<PipelineTime> time =
          pipelineTime(func, costs, getOperation(), &why);
      if (time)
        func.emitRemark() << "pipeline critical path "
                          << number(time->criticalPath)
                          << "; each device finishes at "
                          << joined(time->finish) << ", busy "
                          << joined(time->busy);
      else if (!why.empty())
        func.emitRemark() << "no pipeline critical path: " << why;
    }
  }
};

} // namespace
