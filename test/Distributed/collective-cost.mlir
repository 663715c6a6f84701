// RUN: remat-opt %s --remat-test-training-graph -o /dev/null 2>&1 | FileCheck %s
//
// Collectives are priced by the ring model (docs/distributed.md), in the
// analytic units: steps x 2000 + bytes sent x 0.5 + elements reduced or
// copied, with the runtime's temporaries (64-byte rounded) as workspace.

shard.grid @grid(shape = 2)
shard.grid @g4(shape = 4)
func.func @step(%w: tensor<4x8xf32>, %x: tensor<3x8xf32>, %p: tensor<64x32xf32>) -> (tensor<f32>, tensor<4x8xf32>) {
  // n = 2, 256 B out: 1 step, 128 B sent, 64 elements copied: 2128.
  // CHECK: [[@LINE+1]]:8: remark: forward, recomputable, bytes [256], time 2128.00
  %g = shard.all_gather %w on @grid grid_axes = [0] gather_axis = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  // The issue's example: 64x32 f32 on 2 devices: 2 steps, 8192 B sent, 1024
  // elements reduced: 9120 (a ReLU of it: 2048); one chunk of 1024
  // elements is the workspace.
  // CHECK: [[@LINE+1]]:8: remark: forward, recomputable, bytes [8192], time 9120.00, workspace 4096
  %r = shard.all_reduce %p on @grid grid_axes = [0] : tensor<64x32xf32> -> tensor<64x32xf32>
  // n = 4, gather along axis 1 into 64x128 (32768 B): blocks are not
  // contiguous: 3 steps, 24576 B sent, 8192 elements copied:
  // 6000 + 12288 + 8192; a send and a receive block of the 8192 B input.
  // CHECK: [[@LINE+1]]:9: remark: forward, recomputable, bytes [32768], time 26480.00, workspace 16384
  %g4 = shard.all_gather %p on @g4 grid_axes = [0] gather_axis = 1 : tensor<64x32xf32> -> tensor<64x128xf32>
  // all_slice is a local copy: 512 elements.
  // CHECK: [[@LINE+1]]:8: remark: forward, recomputable, bytes [2048], time 512.00
  %s = shard.all_slice %r on @g4 grid_axes = [0] slice_axis = 0 : tensor<64x32xf32> -> tensor<16x32xf32>
  %e = tensor.empty() : tensor<3x8xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3x8xf32>) -> tensor<3x8xf32>
  %y = linalg.matmul ins(%x, %g : tensor<3x8xf32>, tensor<8x8xf32>) outs(%f : tensor<3x8xf32>) -> tensor<3x8xf32>
  %s0 = tensor.empty() : tensor<f32>
  %s1 = linalg.fill ins(%z : f32) outs(%s0 : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%y : tensor<3x8xf32>) outs(%s1 : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %b: f32) { %t = arith.addf %a, %b : f32
      linalg.yield %t : f32 }
  %s2 = tensor.empty() : tensor<f32>
  %s3 = linalg.fill ins(%z : f32) outs(%s2 : tensor<f32>) -> tensor<f32>
  %l2 = linalg.reduce ins(%s : tensor<16x32xf32>) outs(%s3 : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %b: f32) { %t = arith.addf %a, %b : f32
      linalg.yield %t : f32 }
  %s4 = tensor.empty() : tensor<f32>
  %s5 = linalg.fill ins(%z : f32) outs(%s4 : tensor<f32>) -> tensor<f32>
  %l3 = linalg.reduce ins(%g4 : tensor<64x128xf32>) outs(%s5 : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %b: f32) { %t = arith.addf %a, %b : f32
      linalg.yield %t : f32 }
  %lsum = arith.addf %l, %l2 : tensor<f32>
  %loss = arith.addf %lsum, %l3 : tensor<f32>
  // n = 2, 256 B in: 1 step, 128 B sent, 32 elements reduced: 2096; the
  // receive chunk is the 128 B result.
  // CHECK: [[@LINE+1]]:9: remark: backward, bytes [128], time 2096.00, workspace 128
  %gw = shard.reduce_scatter %g on @grid grid_axes = [0] scatter_axis = 0 : tensor<8x8xf32> -> tensor<4x8xf32>
  return %loss, %gw : tensor<f32>, tensor<4x8xf32>
}
