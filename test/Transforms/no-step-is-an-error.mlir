// A budget no function was held to is not a budget met: a module whose
// only function is not a training step as far as remat can tell (its
// gradient, of rank 2, comes first and nothing is marked remat.loss) fails with
// the remark naming why and one error saying what to do, and writes no
// output. It used to exit 0 with the budget silently not applied.
// RUN: not remat-opt %s --remat-budget=50% -o %t.out 2>&1 | FileCheck %s
// RUN: not test -e %t.out
// CHECK: remark: remat: skipped @grad_first, not a training step: its loss cannot be told
// CHECK: error: -remat-rematerialize: no training step to fit into the budget: every function was skipped (the remarks say why; a step returns its loss, marked {remat.loss}, and gradients computed from it)
func.func @grad_first(%x: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %ee = tensor.empty() : tensor<8x8xf32>
  %e = linalg.exp ins(%x : tensor<8x8xf32>) outs(%ee : tensor<8x8xf32>) -> tensor<8x8xf32>
  %le = tensor.empty() : tensor<f32>
  %lz = linalg.fill ins(%zero : f32) outs(%le : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%e : tensor<8x8xf32>) outs(%lz : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %e, %l : tensor<8x8xf32>, tensor<f32>
}
