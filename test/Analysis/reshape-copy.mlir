// A collapse_shape of a slice along an inner dim (PyTorch's chunk, then a
// view) is not a view: its dims do not merge in the slice's strided
// layout, so One-Shot Bufferize copies it into a buffer of its own
// (memref::CollapseShapeOp::isGuaranteedCollapsible). The model counts
// that buffer and lets the sliced value go once the copy is made; a slice
// along the leading dim merges and stays a view of its source. Counting
// the copy as a view put the measured peak 16 KiB above the plan's on the
// GPU emulation of an imported decoder
// (test/Integration/GPU/offload-transformer-emulate.test).
// RUN: remat-opt %s -remat-test-timeline="quiet alignment=1" 2>&1 | FileCheck %s
//
// @copied: at %g, x (512 B), v (the copy, 256 B), h (256 B), the loss
// (4 B) and g (256 B); a (512 B) went after the copy.
// CHECK: remark: peak 1284 B
// CHECK-NEXT: func.func @copied
func.func @copied(%x: tensor<4x4x8xf32>) -> (tensor<f32>, tensor<64xf32>) {
  %a = math.exp %x : tensor<4x4x8xf32>
  %s = tensor.extract_slice %a[0, 0, 4] [4, 4, 4] [1, 1, 1] : tensor<4x4x8xf32> to tensor<4x4x4xf32>
  %v = tensor.collapse_shape %s [[0, 1, 2]] : tensor<4x4x4xf32> into tensor<64xf32>
  %h = math.exp %v : tensor<64xf32>
  %c0 = arith.constant 0.0 : f32
  %le = tensor.empty() : tensor<f32>
  %lz = linalg.fill ins(%c0 : f32) outs(%le : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%h : tensor<64xf32>) outs(%lz : tensor<f32>) dimensions = [0]
    (%p: f32, %q: f32) {
      %u = arith.addf %p, %q : f32
      linalg.yield %u : f32
    }
  %g = arith.mulf %v, %h : tensor<64xf32>
  return %l, %g : tensor<f32>, tensor<64xf32>
}

// @viewed: the first two rows, contiguous: v views a, which lives until
// %g reads v: x, a (512 B each), h, the loss and g.
// CHECK: remark: peak 1540 B
// CHECK-NEXT: func.func @viewed
func.func @viewed(%x: tensor<4x4x8xf32>) -> (tensor<f32>, tensor<64xf32>) {
  %a = math.exp %x : tensor<4x4x8xf32>
  %s = tensor.extract_slice %a[0, 0, 0] [2, 4, 8] [1, 1, 1] : tensor<4x4x8xf32> to tensor<2x4x8xf32>
  %v = tensor.collapse_shape %s [[0, 1, 2]] : tensor<2x4x8xf32> into tensor<64xf32>
  %h = math.exp %v : tensor<64xf32>
  %c0 = arith.constant 0.0 : f32
  %le = tensor.empty() : tensor<f32>
  %lz = linalg.fill ins(%c0 : f32) outs(%le : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%h : tensor<64xf32>) outs(%lz : tensor<f32>) dimensions = [0]
    (%p: f32, %q: f32) {
      %u = arith.addf %p, %q : f32
      linalg.yield %u : f32
    }
  %g = arith.mulf %v, %h : tensor<64xf32>
  return %l, %g : tensor<f32>, tensor<64xf32>
}
