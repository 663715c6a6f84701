//===- GPUPipeline.cpp - Tensor IR after remat to NVVM kernels ------------===//
//
// `-remat-lower-to-gpu`: the CPU pipeline's bufferization and buffer plan,
// with every buffer in device memory, linalg as parallel loops mapped to
// blocks x threads, kernels outlined into one gpu.module, NVVM, and a
// gpu.binary (PTX, cubin or fatbin). Host code calls the mgpu* functions of
// libRematCudaRuntime.
//
//===----------------------------------------------------------------------===//

#include "remat/BufferPlanning/Passes.h"
#include "remat/Pipelines/GPUPasses.h"
#include "remat/Pipelines/Pipelines.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

/// Testing without a GPU: the mapped loops run sequentially on the CPU; the
/// device buffers come from libRematCudaEmulation.
static void addEmulationOnCPU(OpPassManager &pm) {
  pm.addPass(remat::createGPUEmulateOnCPU());
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  memrefToLLVM.useAlignedAlloc = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void remat::buildLowerToGPUPipeline(OpPassManager &pm,
                                    const LowerToGPUOptions &options) {
  std::string toolkit = findCudaToolkit(options.toolkit);
  if (!options.emulate) {
    GPUCheckTargetOptions target;
    target.chip = options.chip;
    target.format = options.format;
    target.toolkit = toolkit;
    pm.addPass(createGPUCheckTarget(target));
  }

  // Tensor level and bufferization: as -remat-lower-to-cpu.
  pm.addPass(createCheckExecutable());
  pm.addPass(createInlineRecompute());
  pm.addPass(createStripAnnotations());
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createPrepare());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  PlanBuffersOptions plan;
  plan.arena = options.buffers == BufferMode::Arena;
  plan.alignment = 16; // As on the CPU: views of any element type.
  pm.addPass(createPlanBuffers(plan));
  pm.addPass(createConvertBufferizationToMemRefPass());

  // Device buffers, host boundaries; linalg to mapped parallel loops.
  pm.addNestedPass<func::FuncOp>(
      createGPUPrepareLinalg(GPUPrepareLinalgOptions{options.blockSize}));
  pm.addPass(createGPUHostDevice());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(
      createGPUMapLoops(GPUMapLoopsOptions{options.blockSize}));
  if (options.emulate) {
    addEmulationOnCPU(pm);
    return;
  }
  pm.addPass(createConvertParallelLoopToGpuPass());
  // Fold the tiled bounds and steps to constants (sunk into the kernels by
  // outlining); no earlier: it would fold away one-iteration kernels.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // Kernels: one gpu.module, NVVM.
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createGPUMergeModules());
  pm.addNestedPass<gpu::GPUModuleOp>(createGPURewrite());
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  GpuNVVMAttachTargetOptions nvvm;
  nvvm.chip = options.chip;
  nvvm.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(nvvm));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());

  // Host: LLVM dialect; allocations through libRematRuntime, GPU runtime
  // calls through libRematCudaRuntime.
  pm.addPass(createConvertMathToLLVMPass());
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  memrefToLLVM.useAlignedAlloc = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());

  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  if (!options.dumpBinary.empty())
    pm.addPass(createGPUDumpBinary(GPUDumpBinaryOptions{options.dumpBinary}));
}

void remat::registerLowerToGPUPipeline() {
  registerRematGPUPasses(); // Generated by -gen-pass-decls.
  PassPipelineRegistration<LowerToGPUOptions>(
      "remat-lower-to-gpu",
      "Lower tensor IR after rematerialization to the LLVM dialect and NVVM "
      "kernels: bufferize, plan buffers in device memory (gpu.alloc/dealloc "
      "after the last use, or an arena), copy function arguments and results "
      "between host and device, map linalg to blocks x threads, outline, "
      "compile with gpu-module-to-binary; runs with libRematCudaRuntime",
      [](OpPassManager &pm, const LowerToGPUOptions &options) {
        buildLowerToGPUPipeline(pm, options);
      });
}
