// RUN: remat-opt %s --remat-test-training-graph -o /dev/null 2>&1 | FileCheck %s
//
// shard.shift is priced as communication (issue 50): one message step
// (2000) and the input's bytes sent (x 0.5) when some device has a
// partner, plus one operation per element received or zeroed; no
// workspace (a contiguous input is sent as it is). Recomputable like the
// other collectives, except under control flow on the device index.

shard.grid @grid(shape = 2)
func.func @step(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %h = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  // 256 B to the next stage: 2000 + 128 + 64.
  // CHECK: [[@LINE+1]]:8: remark: forward, recomputable, bytes [256], time 2192.00{{$}}
  %s = shard.shift %h on @grid grid_axes = [0] shift_axis = 0 offset = 1 : tensor<4x16xf32> -> tensor<4x16xf32>
  // A negative offset, rotating: the same.
  // CHECK: [[@LINE+1]]:8: remark: forward, recomputable, bytes [256], time 2192.00{{$}}
  %b = shard.shift %h on @grid grid_axes = [0] shift_axis = 0 offset = -1 rotate : tensor<4x16xf32> -> tensor<4x16xf32>
  // Rotating by the group's size: every device keeps its own (a copy).
  // CHECK: [[@LINE+1]]:8: remark: forward, recomputable, bytes [256], time 64.00{{$}}
  %n = shard.shift %h on @grid grid_axes = [0] shift_axis = 0 offset = 2 rotate : tensor<4x16xf32> -> tensor<4x16xf32>
  // Past the group without rotating: no device has a source (zeros).
  // CHECK: [[@LINE+1]]:8: remark: forward, recomputable, bytes [256], time 64.00{{$}}
  %o = shard.shift %h on @grid grid_axes = [0] shift_axis = 0 offset = 2 : tensor<4x16xf32> -> tensor<4x16xf32>
  // Under a branch on the device index: never re-run.
  %r = shard.process_linear_index on @grid : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %r, %c0 : index
  // CHECK: [[@LINE+1]]:8: remark: forward, never recomputed, bytes [256], time 2192.00
  %v = scf.if %first -> tensor<4x16xf32> {
    %t = shard.shift %h on @grid grid_axes = [0] shift_axis = 0 offset = 1 : tensor<4x16xf32> -> tensor<4x16xf32>
    scf.yield %t : tensor<4x16xf32>
  } else {
    scf.yield %h : tensor<4x16xf32>
  }
  %s0 = tensor.empty() : tensor<f32>
  %s1 = linalg.fill ins(%z : f32) outs(%s0 : tensor<f32>) -> tensor<f32>
  %l1 = linalg.reduce ins(%s : tensor<4x16xf32>) outs(%s1 : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %acc: f32) { %t = arith.addf %a, %acc : f32
      linalg.yield %t : f32 }
  %l2 = linalg.reduce ins(%b : tensor<4x16xf32>) outs(%l1 : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %acc: f32) { %t = arith.addf %a, %acc : f32
      linalg.yield %t : f32 }
  %l3 = linalg.reduce ins(%n : tensor<4x16xf32>) outs(%l2 : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %acc: f32) { %t = arith.addf %a, %acc : f32
      linalg.yield %t : f32 }
  %l4 = linalg.reduce ins(%o : tensor<4x16xf32>) outs(%l3 : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %acc: f32) { %t = arith.addf %a, %acc : f32
      linalg.yield %t : f32 }
  %l5 = linalg.reduce ins(%v : tensor<4x16xf32>) outs(%l4 : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %acc: f32) { %t = arith.addf %a, %acc : f32
      linalg.yield %t : f32 }
  return %l5 : tensor<f32>
}
