// REQUIRES: ptxas
// With bin or fatbin, the toolkit's ptxas must accept the chip: CUDA 13
// dropped sm_50 to sm_72 (PTX for them is still fine).
//
// RUN: not remat-opt %s --remat-lower-to-gpu=chip=sm_70 2>&1 | FileCheck %s
// RUN: remat-opt %s "--remat-lower-to-gpu=chip=sm_70 format=isa" -o /dev/null
//
// CHECK: error: remat-lower-to-gpu: chip='sm_70' cannot be compiled to format=fatbin by the CUDA toolkit at '{{.*}}' (ptxas: ptxas fatal   : Value 'sm_70' is not defined for option 'gpu-name'); choose another chip or format=isa

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = math.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
