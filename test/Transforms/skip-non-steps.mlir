// A module holding an inference function beside the training step: the
// function whose loss cannot be told (its first result has rank 2 and
// nothing is marked remat.loss) is skipped with a remark, and the step is
// fitted; named by --remat-functions it is an error.
// RUN: remat-opt %s --remat-budget=100% --remat-report=%t.json -o %t.mlir 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: not remat-opt %s --remat-budget=100% --remat-functions=twohead -o %t.bad 2>&1 | FileCheck %s --check-prefix=NAMED
// CHECK: remark: remat: skipped @twohead, not a training step: its loss cannot be told: the first result (tensor<4x10xf32>) is not a scalar or a vector; mark the loss with {remat.loss} on its result
// REPORT: "name": "step"
// REPORT: "skipped": [
// REPORT: "name": "twohead"
// NAMED: error: @twohead is selected by functions= but is not a training step: its loss cannot be told
func.func @twohead(%x: tensor<4x10xf32>, %w: tensor<10x10xf32>) -> (tensor<4x10xf32>, tensor<4x10xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x10xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x10xf32>) -> tensor<4x10xf32>
  %h = linalg.matmul ins(%x, %w : tensor<4x10xf32>, tensor<10x10xf32>) outs(%z : tensor<4x10xf32>) -> tensor<4x10xf32>
  %a = math.exp %h : tensor<4x10xf32>
  %b = math.tanh %h : tensor<4x10xf32>
  return %a, %b : tensor<4x10xf32>, tensor<4x10xf32>
}

func.func @step(%x: tensor<64x64xf32>) -> (tensor<f32>, tensor<64x64xf32>) {
  %h = math.exp %x : tensor<64x64xf32>
  %k = math.exp %h : tensor<64x64xf32>
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%k : tensor<64x64xf32>) outs(%z : tensor<f32>) dimensions = [0, 1]
    (%p: f32, %q: f32) {
      %s = arith.addf %p, %q : f32
      linalg.yield %s : f32
    }
  %g1 = arith.mulf %k, %h : tensor<64x64xf32>
  %g = arith.mulf %g1, %x : tensor<64x64xf32>
  return %l, %g : tensor<f32>, tensor<64x64xf32>
}
