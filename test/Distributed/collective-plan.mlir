// RUN: remat-opt %s --split-input-file --remat-budget=100% --remarks-filter=remat -o /dev/null 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: remat-opt %s --split-input-file --remat-budget=min --remarks-filter=remat -o %t.mlir 2>&1 | FileCheck %s --check-prefix=MIN
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=IR
//
// FSDP's choice, made by the plan: the gathered weight %g is read by the
// forward matmul and, at the very end of the backward pass, by dx. Kept, it
// is live through the 16 KiB h and dh; at the smallest budget the plan
// gathers it again before dx (one more all_gather, 2000 + 8192 x 0.5 + 4096
// copied = 10192), which the remark and the IR show.

// FULL: remark: [Analysis] Kept {{.*}} Remark="kept (16384 B)"
// MIN: 21:8: remark: [Passed] Recomputed {{.*}} Remark="recomputed 1x (16384 B): re-runs the collective over 2 devices, 8192 B sent per device, cost 10192.00 per run"
// IR: shard.all_gather
// IR: remat.recompute
// IR: shard.all_gather
// IR-NOT: shard.all_gather
shard.grid @grid(shape = 2)
func.func @step(%w: tensor<32x64xf32>, %x: tensor<4x64xf32>) -> (tensor<f32>, tensor<32x64xf32>, tensor<4x64xf32>) {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %g = shard.all_gather %w on @grid grid_axes = [0] gather_axis = 0 : tensor<32x64xf32> -> tensor<64x64xf32>
  %e1 = tensor.empty() : tensor<4x64xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<4x64xf32>) -> tensor<4x64xf32>
  %y = linalg.matmul ins(%x, %g : tensor<4x64xf32>, tensor<64x64xf32>) outs(%f1 : tensor<4x64xf32>) -> tensor<4x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  // h = y^T y
  %h = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] ins(%y, %y : tensor<4x64xf32>, tensor<4x64xf32>) outs(%f2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %s0 = tensor.empty() : tensor<f32>
  %s1 = linalg.fill ins(%z : f32) outs(%s0 : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%h : tensor<64x64xf32>) outs(%s1 : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %b: f32) { %t = arith.addf %a, %b : f32
      linalg.yield %t : f32 }
  // backward: dh = 1; dy = y (dh + dh^T) = 2 y dh; dg = x^T dy; dx = dy g^T
  %d0 = tensor.empty() : tensor<64x64xf32>
  %dh = linalg.fill ins(%one : f32) outs(%d0 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e3 = tensor.empty() : tensor<4x64xf32>
  %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<4x64xf32>) -> tensor<4x64xf32>
  %yd = linalg.matmul ins(%y, %dh : tensor<4x64xf32>, tensor<64x64xf32>) outs(%f3 : tensor<4x64xf32>) -> tensor<4x64xf32>
  %dy = arith.addf %yd, %yd : tensor<4x64xf32>
  %e4 = tensor.empty() : tensor<64x64xf32>
  %f4 = linalg.fill ins(%z : f32) outs(%e4 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %dg = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %dy : tensor<4x64xf32>, tensor<4x64xf32>) outs(%f4 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %dw = shard.reduce_scatter %dg on @grid grid_axes = [0] scatter_axis = 0 : tensor<64x64xf32> -> tensor<32x64xf32>
  %e5 = tensor.empty() : tensor<4x64xf32>
  %f5 = linalg.fill ins(%z : f32) outs(%e5 : tensor<4x64xf32>) -> tensor<4x64xf32>
  %dx = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%dy, %g : tensor<4x64xf32>, tensor<64x64xf32>) outs(%f5 : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %l, %dw, %dx : tensor<f32>, tensor<32x64xf32>, tensor<4x64xf32>
}

// -----

// Never re-run: a collective under control flow that depends on the device
// index, and communication the planner does not price.
shard.grid @grid(shape = 2)
func.func @kept(%x: tensor<64xf32>, %c: i1) -> (tensor<f32>, tensor<64xf32>) {
  %z = arith.constant 0.0 : f32
  %i = shard.process_linear_index on @grid : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %i, %c0 : index
  // MIN: [[@LINE+1]]:8: remark: [Analysis] Kept {{.*}} Remark="kept (256 B), never recomputed: 'shard.all_reduce' runs under control flow that depends on the device index ('scf.if'): ranks could disagree on re-running it"
  %r = scf.if %first -> tensor<64xf32> {
    %a = shard.all_reduce %x on @grid grid_axes = [0] : tensor<64xf32> -> tensor<64xf32>
    scf.yield %a : tensor<64xf32>
  } else {
    scf.yield %x : tensor<64xf32>
  }
  // MIN: [[@LINE+1]]:8: remark: [Analysis] Kept {{.*}} Remark="kept (256 B), never recomputed: 'shard.broadcast' is not priced by the planner (it prices all_reduce, all_gather, reduce_scatter, all_slice, all_to_all and shift)"
  %b = shard.broadcast %r on @grid grid_axes = [0] root = [0] : (tensor<64xf32>) -> tensor<64xf32>
  // A collective under control flow that does not depend on the index may
  // be re-run.
  // MIN-NOT: [[@LINE+1]]:{{.*}}never recomputed
  %q = scf.if %c -> tensor<64xf32> {
    %a = shard.all_reduce %b on @grid grid_axes = [0] : tensor<64xf32> -> tensor<64xf32>
    scf.yield %a : tensor<64xf32>
  } else {
    scf.yield %b : tensor<64xf32>
  }
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%q : tensor<64xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%u: f32, %v: f32) { %t = arith.addf %u, %v : f32
      linalg.yield %t : f32 }
  %g = arith.addf %q, %b : tensor<64xf32>
  return %l, %g : tensor<f32>, tensor<64xf32>
}
