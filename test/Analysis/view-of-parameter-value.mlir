// A value computed from parameters alone (x + p) viewed by a collapse_shape
// that two ops read: its buffer lives until the last of them. It used to be
// absorbed into the view's node and freed when the view was made, 128 B
// under the CPU's measurement on an imported attention block (the causal
// mask's model, test/Importer/buffers-check.test).
// RUN: remat-opt %s -remat-test-timeline="quiet alignment=1" 2>&1 | FileCheck %s
//
// At %g: x, p (1024 B each), a (1024 B, viewed by v), h, g (1024 B each)
// and the loss (4 B).
// CHECK: remark: peak 5124 B
func.func @step(%x: tensor<16x16xf32>, %p: tensor<16x16xf32>) -> (tensor<f32>, tensor<256xf32>) {
  %e = tensor.empty() : tensor<16x16xf32>
  %a = linalg.add ins(%x, %p : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %v = tensor.collapse_shape %a [[0, 1]] : tensor<16x16xf32> into tensor<256xf32>
  %h = math.exp %v : tensor<256xf32>
  %c0 = arith.constant 0.0 : f32
  %le = tensor.empty() : tensor<f32>
  %lz = linalg.fill ins(%c0 : f32) outs(%le : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%h : tensor<256xf32>) outs(%lz : tensor<f32>) dimensions = [0]
    (%s: f32, %t: f32) {
      %u = arith.addf %s, %t : f32
      linalg.yield %u : f32
    }
  %g = arith.mulf %v, %h : tensor<256xf32>
  return %l, %g : tensor<f32>, tensor<256xf32>
}
