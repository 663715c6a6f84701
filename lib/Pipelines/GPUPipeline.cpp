//===- GPUPipeline.cpp - Tensor IR after remat to NVVM kernels ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `-remat-lower-to-gpu`: the CPU pipeline's bufferization and buffer plan,
// with every buffer in device memory, linalg as parallel loops mapped to
// blocks x threads, kernels outlined into one gpu.module, NVVM, and a
// gpu.binary (PTX, cubin or fatbin). Host code calls the mgpu* functions of
// libRematCudaRuntime.
//
//===----------------------------------------------------------------------===//

#include "LoweringStages.h"

#include "remat/Distributed/Passes.h"
#include "remat/BufferPlanning/Passes.h"
#include "remat/GPU/Passes.h"
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
  pm.addPass(remat::createGPUEmulateOnCPUPass());
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addNestedPass<func::FuncOp>(remat::createGPUSyncHostAllocsPass());
  // Always: libRematCudaEmulation defers a host copy until its stream is
  // waited for, which checks the waits the pass places.
  pm.addNestedPass<func::FuncOp>(remat::createGPUCopyStreamPass());
  remat::addControlFlowStages(pm);
  remat::addHostToLLVMStages(pm, /*withGPU=*/true);
  // ptxas fuses multiplies and adds by default (--fmad=true): so does the
  // emulation of the kernels, as the CPU pipeline does by default.
  pm.addPass(remat::createContractFloatOpsPass());
}

void remat::buildLowerToGPUPipeline(OpPassManager &pm,
                                    const LowerToGPUOptions &options) {
  std::string toolkit = findCudaToolkit(options.toolkit);
  if (!options.emulate) {
    GPUCheckTargetPassOptions target;
    target.chip = options.chip;
    target.format = options.format;
    target.toolkit = toolkit;
    pm.addPass(createGPUCheckTargetPass(target));
  }

  // The GPU path runs no collectives: name the one that does.
  LowerCollectivesPassOptions collectives;
  collectives.target = "gpu";
  pm.addPass(createLowerCollectivesPass(collectives));
  // Tensor level and bufferization: as -remat-lower-to-cpu.
  // Buffers aligned as the planner counts them: -remat-gpu-host-device
  // requests device buffers at their size rounded up to it.
  addTensorToBufferStages(pm, options.alignment, "gpu");
  PlanBuffersPassOptions plan;
  plan.arena = options.buffers == BufferMode::Arena;
  plan.alignment = 16; // As on the CPU: views of any element type.
  pm.addPass(createPlanBuffersPass(plan));
  pm.addPass(createConvertBufferizationToMemRefPass());

  // Device buffers, host boundaries; linalg to mapped parallel loops.
  pm.addNestedPass<func::FuncOp>(
      createGPUPrepareLinalgPass(GPUPrepareLinalgPassOptions{options.blockSize}));
  GPUHostDevicePassOptions hostDevice;
  hostDevice.alignment = options.alignment;
  pm.addPass(createGPUHostDevicePass(hostDevice));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(
      createGPUMapLoopsPass(GPUMapLoopsPassOptions{options.blockSize}));
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
  pm.addPass(createGPUMergeModulesPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createGPURewritePass());
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addNestedPass<func::FuncOp>(remat::createGPUSyncHostAllocsPass());
  if (options.copyStream)
    pm.addNestedPass<func::FuncOp>(remat::createGPUCopyStreamPass(
        GPUCopyStreamPassOptions{options.copyStreamMinBytes}));
  remat::addControlFlowStages(pm);
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
  remat::addHostToLLVMStages(pm, /*withGPU=*/true);

  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  if (!options.dumpBinary.empty())
    pm.addPass(createGPUDumpBinaryPass(GPUDumpBinaryPassOptions{options.dumpBinary}));
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
