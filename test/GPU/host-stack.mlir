// RUN: remat-opt %s -split-input-file -remat-gpu-host-device -verify-diagnostics | FileCheck %s

// A host stack (what remat.host_empty and remat.offload_row bufferize to):
// the loop carries the host buffer and copies each row into it. The buffer
// is pinned host memory made of bytes, and each row (a subview, contiguous
// but strided by its type) is viewed again from those bytes at its offset,
// so that the copy is one gpu.memcpy, not a kernel writing host memory; so
// is the copy back, through the loop's result.

// CHECK-LABEL: func.func @rows(
// CHECK:         %[[RAW:.*]] = gpu.alloc host_shared () : memref<96xi8>
// CHECK:         %[[S:.*]] = memref.view %[[RAW]][%{{.*}}][] : memref<96xi8> to memref<4x2x3xf32>
// CHECK:         scf.for %[[I:.*]] = {{.*}} iter_args(%[[ST:.*]] = %[[S]])
// CHECK-NEXT:      %[[ROW:.*]] = memref.subview %[[ST]][%[[I]], 0, 0]
// CHECK-NEXT:      %{{.*}}, %[[OFF:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[ROW]]
// CHECK-NEXT:      %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %[[BYTES:.*]] = arith.muli %[[OFF]], %[[FOUR]] : index
// CHECK-NEXT:      %[[V:.*]] = memref.view %[[RAW]][%[[BYTES]]][] : memref<96xi8> to memref<2x3xf32>
// CHECK-NEXT:      gpu.memcpy %[[V]], %{{.*}} : memref<2x3xf32>, memref<2x3xf32>
// CHECK:         %[[BACK:.*]] = memref.subview
// CHECK:         %[[V2:.*]] = memref.view %[[RAW]][%{{.*}}][] : memref<96xi8> to memref<2x3xf32>
// CHECK-NEXT:    gpu.memcpy %{{.*}}, %[[V2]] : memref<2x3xf32>, memref<2x3xf32>
// CHECK-NOT:     linalg.copy
func.func @rows(%x: memref<2x3xf32>) -> memref<2x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %s = memref.alloc() {alignment = 64 : i64, remat.host} : memref<4x2x3xf32>
  %f = scf.for %i = %c0 to %c4 step %c1 iter_args(%st = %s) -> (memref<4x2x3xf32>) {
    %row = memref.subview %st[%i, 0, 0] [1, 2, 3] [1, 1, 1] : memref<4x2x3xf32> to memref<2x3xf32, strided<[3, 1], offset: ?>>
    memref.copy %x, %row : memref<2x3xf32> to memref<2x3xf32, strided<[3, 1], offset: ?>>
    scf.yield %st : memref<4x2x3xf32>
  }
  %d = memref.alloc() {alignment = 64 : i64} : memref<2x3xf32>
  %back = memref.subview %f[%c1, 0, 0] [1, 2, 3] [1, 1, 1] : memref<4x2x3xf32> to memref<2x3xf32, strided<[3, 1], offset: ?>>
  memref.copy %back, %d : memref<2x3xf32, strided<[3, 1], offset: ?>> to memref<2x3xf32>
  memref.dealloc %f : memref<4x2x3xf32>
  return %d : memref<2x3xf32>
}

// -----

// A column of a host buffer is not contiguous: no single copy.
func.func @column(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %s = memref.alloc() {alignment = 64 : i64, remat.host} : memref<4x2xf32>
  %col = memref.subview %s[0, 0] [4, 1] [1, 1] : memref<4x2xf32> to memref<4xf32, strided<[2]>>
  // expected-error @+1 {{copies a strided view 'memref<4xf32, strided<[2]>>' to or from host memory: a host copy is one contiguous gpu.memcpy (a row of a host stack is one)}}
  memref.copy %x, %col : memref<4xf32> to memref<4xf32, strided<[2]>>
  memref.dealloc %s : memref<4x2xf32>
  return
}
