// Registers remat through its two embedding entry points, parses a module
// that uses the dialect, runs a remat pass from a textual pipeline and prints
// the result.
#include "remat/InitRemat.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::math::MathDialect>();
  remat::registerRematDialect(registry);
  remat::registerRematPasses();
  mlir::MLIRContext context(registry);
  auto module = mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  if (mlir::failed(mlir::parsePassPipeline(
          "remat-inline-recompute", pm, llvm::errs())) ||
      mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  return 0;
}
