// An scf.if whose branches both yield one buffer from outside it (what CSE
// leaves of upstream shard-partition's choice of a partial reduction's
// initial value, test/Distributed/shard-partition-peak.test): the result is
// that buffer, and so is what writes into the result in place. The buffer
// the branches write into was found through the chain of destinations down
// to the tensor.empty, which is absorbed into the fill's node and has no
// tensor of its own: the fill's 1024 B were freed after the scf.if while
// the matmul still wrote into them (1024 B under the measured peak).
// RUN: remat-opt %s -split-input-file -remat-test-timeline="alignment=1" -o /dev/null 2>&1 | FileCheck %s
//
// After the scf.if: x (1024 B) and the fill's buffer (1024 B), now %i
// (it was 1024 B: x alone). At %t: x, the fill's buffer holding %m, and t
// (1024 B each); then the fill's buffer is freed (x and t). At %l: x, t
// and the loss (4 B): 2052 B. Peak 3072 B (it was 2052 B).
// CHECK: 23:8: remark: holds 2048 B while running, 2048 B live after
// CHECK: 28:8: remark: holds 2048 B while running, 2048 B live after
// CHECK: 29:8: remark: holds 3072 B while running, 2048 B live after
// CHECK: remark: peak 3072 B
func.func @step(%x: tensor<16x16xf32>, %c: i1) -> (tensor<f32>, tensor<16x16xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %i = scf.if %c -> (tensor<16x16xf32>) {
    scf.yield %z : tensor<16x16xf32>
  } else {
    scf.yield %z : tensor<16x16xf32>
  }
  %m = linalg.matmul ins(%x, %x : tensor<16x16xf32>, tensor<16x16xf32>) outs(%i : tensor<16x16xf32>) -> tensor<16x16xf32>
  %t = math.tanh %m : tensor<16x16xf32>
  %le = tensor.empty() : tensor<f32>
  %lz = linalg.fill ins(%c0 : f32) outs(%le : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%t : tensor<16x16xf32>) outs(%lz : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %l, %t : tensor<f32>, tensor<16x16xf32>
}

// -----

// The same with the fill read after the matmul too: bufferization copies
// it before the matmul writes (the branch's result is the fill's buffer),
// so the matmul's result is a buffer of its own (x, the fill, the matmul:
// 3072 B; it was counted in place, 2048 B, and the add read a buffer the
// matmul had overwritten). At the add: those and its result, 4096 B.
// CHECK: [[@LINE+12]]:8: remark: holds 3072 B while running, 3072 B live after
// CHECK: [[@LINE+12]]:8: remark: holds 4096 B while running, 3072 B live after
// CHECK: remark: peak 4096 B
func.func @read_after(%x: tensor<16x16xf32>, %c: i1) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %i = scf.if %c -> (tensor<16x16xf32>) {
    scf.yield %z : tensor<16x16xf32>
  } else {
    scf.yield %z : tensor<16x16xf32>
  }
  %m = linalg.matmul ins(%x, %x : tensor<16x16xf32>, tensor<16x16xf32>) outs(%i : tensor<16x16xf32>) -> tensor<16x16xf32>
  %s = arith.addf %m, %z : tensor<16x16xf32>
  return %s, %m : tensor<16x16xf32>, tensor<16x16xf32>
}
