//===- ExportGraph.cpp - The planner's graph as JSON ----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Analysis/TrainingGraphBuilder.h"
#include "remat/GraphIO/GraphWriter.h"
#include "remat/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace remat {
#define GEN_PASS_DEF_EXPORTGRAPHPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {
struct ExportGraphPass : public remat::impl::ExportGraphPassBase<ExportGraphPass> {
  using ExportGraphPassBase::ExportGraphPassBase;

  void runOnOperation() override {
    FailureOr<std::optional<CostTable>> table =
        CostTable::loadOption(costTable, getOperation());
    if (failed(table))
      return signalPassFailure();
    if (!isValidAllocAlignment(alignment)) {
      getOperation().emitError()
          << "-remat-export-graph: alignment must be a power of two, got "
          << static_cast<int64_t>(alignment);
      return signalPassFailure();
    }
    CostModel costs(*table ? &**table : nullptr, alignment);
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      FailureOr<IRTrainingGraph> ig =
          buildTrainingGraph(func, costs, RecomputeRegions::Atomic);
      if (failed(ig))
        return signalPassFailure();
      std::string path = file;
      if (size_t at = path.find("{name}"); at != std::string::npos)
        path.replace(at, 6, func.getSymName().str());
      // Atomically: a failed write leaves an existing file untouched.
      llvm::Error e = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        writeGraphJSON(os, ig->graph, *table ? "table" : "flop");
        return llvm::Error::success();
      });
      if (e) {
        func.emitError() << "cannot write '" << path
                         << "': " << llvm::toString(std::move(e));
        return signalPassFailure();
      }
    }
  }
};
} // namespace
