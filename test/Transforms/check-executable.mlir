// RUN: remat-opt %s -split-input-file -remat-check-executable -verify-diagnostics
// RUN: not remat-opt %s -split-input-file -remat-check-executable 2>&1 | FileCheck %s
// RUN: not remat-opt %s -split-input-file -remat-check-executable=target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: -remat-check-executable: target must be cpu, gpu or any, got 'tpu'

// CHECK: error: 'aten.convolution' is a planning-only remat.op and cannot be lowered
func.func @planning_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten.convolution' is a planning-only remat.op and cannot be lowered}}
  %y = remat.op "aten.convolution"(%x) {cost = #remat.cost<bytes = 16>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Executable IR passes through untouched.
func.func @executable(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = math.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
