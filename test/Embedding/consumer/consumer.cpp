// Registers remat through its embedding entry points, parses a module that
// uses the dialect and either runs a remat pass from a textual pipeline
// (`consumer FILE`) or fits every function into a budget through the C++
// API, without a pass manager (`consumer FILE BUDGET`), printing what the
// API returned and the rewritten module.
#include "remat/InitRemat.h"
#include "remat/Transforms/Rematerialize.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

static int runPass(mlir::ModuleOp module) {
  mlir::PassManager pm(module.getContext());
  if (mlir::failed(mlir::parsePassPipeline("remat-inline-recompute", pm,
                                           llvm::errs())) ||
      mlir::failed(pm.run(module)))
    return 1;
  module.print(llvm::outs());
  return 0;
}

static int fitFunctions(mlir::ModuleOp module, llvm::StringRef budget) {
  llvm::Expected<remat::SizeSpec> size = remat::parseSize(budget, {});
  if (!size) {
    llvm::errs() << llvm::toString(size.takeError()) << "\n";
    return 2;
  }
  remat::RematOptions options;
  options.budget = *size;
  remat::CostModel costs;
  int status = 0;
  for (auto func : module.getOps<mlir::func::FuncOp>()) {
    remat::RematResult result;
    const remat::FunctionReport &r = result.report;
    if (mlir::failed(
            remat::rematerializeFunction(func, options, costs, result))) {
      llvm::outs() << "@" << r.name << " not fitted: budget " << r.budget
                   << " B, smallest " << r.minimumBudget << " B\n";
      status = 1;
      continue;
    }
    llvm::outs() << "@" << r.name << " fitted by " << r.strategy << ": peak "
                 << r.peakBefore << " B -> " << r.peakAfter << " B (budget "
                 << r.budget << " B), " << result.recomputeOps
                 << " recomputations, " << result.schedule.size()
                 << " schedule steps\n";
  }
  module.print(llvm::outs());
  return status;
}

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3)
    return 2;
  mlir::DialectRegistry registry;
  registry.insert<mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::linalg::LinalgDialect, mlir::math::MathDialect,
                  mlir::tensor::TensorDialect>();
  remat::registerRematDialect(registry);
  remat::registerRematPasses();
  mlir::MLIRContext context(registry);
  auto module = mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;
  return argc == 2 ? runPass(*module) : fitFunctions(*module, argv[2]);
}
