//===- LoweringStages.cpp - Stages shared by the CPU and GPU lowerings ---===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "LoweringStages.h"

#include "remat/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

void remat::addTensorToBufferStages(OpPassManager &pm, int64_t alignment,
                                    StringRef target) {
  // An affine.for carrying tensors does not bufferize: scf first. Calls
  // stay (a harness times them).
  NormalizeInputPassOptions normalize;
  normalize.inlineCalls = false;
  pm.addPass(createNormalizeInputPass(normalize));
  CheckExecutablePassOptions executable;
  executable.target = target.str();
  pm.addPass(createCheckExecutablePass(executable));
  pm.addPass(createInlineRecomputePass());
  pm.addPass(createStripAnnotationsPass());
  pm.addPass(createConvertElementwiseToLinalgPass());
  // Undoes what a CSE run after planning merged: bufferization then
  // allocates exactly the buffers the planner counted.
  pm.addNestedPass<func::FuncOp>(createPreparePass());
  // Loops carrying a fresh tensor per iteration bufferize in place.
  pm.addPass(createLoopCarriesInPlacePass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  if (alignment > 0)
    bufferize.bufferAlignment = static_cast<uint64_t>(alignment);
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
}

void remat::addControlFlowStages(OpPassManager &pm) {
  // Harnesses print with vector.print and use vector transfers: their
  // loops first, like upstream's integration tests.
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
}

void remat::addHostToLLVMStages(OpPassManager &pm, bool withGPU) {
  pm.addPass(createConvertMathToLLVMPass());
  // What has no LLVM intrinsic (math.erf, math.atan2...) calls libm.
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertVectorToLLVMPass());
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  memrefToLLVM.useAlignedAlloc = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  if (withGPU)
    pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}
