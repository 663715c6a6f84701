// A chip or format nobody can compile for is reported before any lowering,
// naming the option.
//
// RUN: not remat-opt %s --remat-lower-to-gpu=chip=gfx90a 2>&1 | FileCheck %s --check-prefix=NOTNV
// RUN: not remat-opt %s --remat-lower-to-gpu=chip=sm_1000 2>&1 | FileCheck %s --check-prefix=NOTLLVM
// RUN: not remat-opt %s "--remat-lower-to-gpu=format=ptx" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not remat-opt %s "--remat-lower-to-gpu=format=bin toolkit=%t.none" 2>&1 | FileCheck %s --check-prefix=NOPTXAS
// RUN: not remat-opt %s "--remat-lower-to-gpu=block-size=2048 format=isa" 2>&1 | FileCheck %s --check-prefix=BLOCK
//
// NOTNV: error: remat-lower-to-gpu: chip='gfx90a' is not an NVIDIA GPU (expected sm_<N>, e.g. chip=sm_90)
// NOTLLVM: error: remat-lower-to-gpu: chip='sm_1000' is not a processor of LLVM 22.{{.*}}'s NVPTX back end
// FORMAT: error: remat-lower-to-gpu: format='ptx' is not one of isa, bin, fatbin
// NOPTXAS: error: remat-lower-to-gpu: format=bin needs ptxas from a CUDA toolkit, and there is none at '{{.*}}.none/bin/ptxas' (set toolkit=, $CUDA_HOME, or use format=isa)
// BLOCK: error: remat-gpu-prepare-linalg: block-size must be in [1, 1024], got 2048

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = math.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
