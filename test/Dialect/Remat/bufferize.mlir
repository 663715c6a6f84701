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

// A host stack: remat.host_empty is a host buffer, each remat.offload_row
// a copy into a row (a subview) of the buffer the loop carries, in place,
// and remat.prefetch_row a fresh buffer and a copy from a row.
// CHECK-LABEL: func.func @host_stack
// CHECK: %[[S:.*]] = memref.alloc() {alignment = 64 : i64, remat.host} : memref<4x2x3xf32>
// CHECK: %[[F:.*]] = scf.for %[[I:.*]] = {{.*}} iter_args(%[[ST:.*]] = %[[S]])
// CHECK-NEXT: %[[ROW:.*]] = memref.subview %[[ST]][%[[I]], 0, 0] [1, 2, 3] [1, 1, 1] : memref<4x2x3xf32> to memref<2x3xf32, strided<[3, 1], offset: ?>>
// CHECK-NEXT: memref.copy %{{.*}}, %[[ROW]]
// CHECK-NEXT: scf.yield %[[ST]]
// CHECK: %[[D:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x3xf32>
// CHECK-NEXT: %[[BACK:.*]] = memref.subview %[[F]][%{{.*}}, 0, 0] [1, 2, 3] [1, 1, 1]
// CHECK-NEXT: memref.copy %[[BACK]], %[[D]]
// CHECK: return %[[D]]
func.func @host_stack(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %s = remat.host_empty : tensor<4x2x3xf32>
  %f = scf.for %i = %c0 to %c4 step %c1 iter_args(%st = %s) -> (tensor<4x2x3xf32>) {
    %st1 = remat.offload_row %x into %st[%i] : tensor<2x3xf32> into tensor<4x2x3xf32>
    scf.yield %st1 : tensor<4x2x3xf32>
  }
  %r = remat.prefetch_row %f[%c1] : tensor<4x2x3xf32> to tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
