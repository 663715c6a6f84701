//===- remat-opt.cpp - The remat optimizer driver -------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// mlir-opt with every upstream dialect and pass, the remat dialect, passes
// and pipelines, and the test passes. The flags of the default pipeline
// (--remat-budget=...) and the atomic output are remat::rematOptMain's.
//
//===----------------------------------------------------------------------===//

#include "remat/InitRemat.h"
#include "remat/Tools/RematOptMain.h"
#include "TestPasses.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"

using namespace mlir;

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  DialectRegistry registry;
  // Every upstream dialect with its interface models (bufferization,
  // inliner, to-LLVM...), translations to LLVM IR and the NVVM target: what
  // the CPU and GPU pipelines need, and what users' IR may contain.
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  remat::registerRematDialect(registry);
  registerAllPasses();
  remat::registerRematPasses();
  remat::registerRematTestPasses(); // remat-opt only: -remat-test-*.
  return asMainReturnCode(remat::rematOptMain(argc, argv, registry));
}
