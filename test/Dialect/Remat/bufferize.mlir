// One-Shot Bufferize on host copies: remat.offload becomes a host buffer
// (memref.alloc marked remat.host, sized like its operand) and a copy into
// it, remat.prefetch a fresh buffer and a copy back; the value read
// afterwards is the prefetched buffer.
// RUN: remat-opt %s --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s

// CHECK-LABEL: func.func @host_copy
// CHECK-SAME: (%[[X:.*]]: memref<8x?xf32
// CHECK: %[[E:.*]] = memref.alloc(%{{.*}}) {{.*}}: memref<8x?xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E]]
// CHECK: %[[DIM:.*]] = memref.dim %[[E]], %{{.*}} : memref<8x?xf32>
// CHECK: %[[H:.*]] = memref.alloc(%[[DIM]]) {alignment = 64 : i64, remat.host} : memref<8x?xf32>
// CHECK-NEXT: memref.copy %[[E]], %[[H]]
// CHECK: %[[D:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<8x?xf32>
// CHECK-NEXT: memref.copy %[[H]], %[[D]]
// CHECK: return %[[D]]
func.func @host_copy(%x: tensor<8x?xf32>) -> tensor<8x?xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<8x?xf32>
  %init = tensor.empty(%n) : tensor<8x?xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x?xf32>) outs(%init : tensor<8x?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<8x?xf32>
  %h = remat.offload %e : tensor<8x?xf32>
  %d = remat.prefetch %h : tensor<8x?xf32>
  return %d : tensor<8x?xf32>
}

// A result returned from its host copy: the function returns the host
// buffer, the device one is not returned.
// CHECK-LABEL: func.func @host_result
// CHECK: %[[E:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
// CHECK: %[[H:.*]] = memref.alloc() {alignment = 64 : i64, remat.host} : memref<8xf32>
// CHECK-NEXT: memref.copy %[[E]], %[[H]]
// CHECK: return %[[H]]
func.func @host_result(%x: tensor<8xf32>) -> tensor<8xf32> {
  %init = tensor.empty() : tensor<8xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %h = remat.offload %e : tensor<8xf32>
  return %h : tensor<8xf32>
}
