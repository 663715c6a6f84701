// RUN: remat-opt %s -split-input-file -remat-gpu-host-device=alignment=64 -verify-diagnostics | FileCheck %s
// RUN: remat-opt %s -split-input-file -remat-gpu-host-device -verify-diagnostics | remat-opt -split-input-file -gpu-async-region -remat-gpu-sync-host-allocs | FileCheck %s --check-prefix=SYNC

// A host copy (what remat.offload bufferizes to: a memref.alloc marked
// remat.host) becomes pinned host memory the device can address
// (gpu.alloc host_shared, rounded up like device buffers); the copies to
// and from it are gpu.memcpy, not kernels; the planner's frees stay where
// they are.

// CHECK-LABEL: func.func @offloaded(
// CHECK:         linalg.exp ins(%{{.*}} : memref<4xf32>) outs(%[[A:.*]] : memref<4xf32>)
// CHECK-NEXT:    %[[RAW:.*]] = gpu.alloc host_shared () : memref<64xi8>
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[H:.*]] = memref.view %[[RAW]][%[[C0]]][] : memref<64xi8> to memref<4xf32>
// CHECK-NEXT:    gpu.memcpy %[[H]], %[[A]] : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:    gpu.dealloc %[[A]]
// CHECK:         %[[B:.*]] = memref.view
// CHECK-NEXT:    gpu.memcpy %[[B]], %[[H]] : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:    gpu.dealloc %[[H]]
// CHECK-NOT:     linalg.copy

// After gpu-async-region, which makes every GPU op asynchronous, the
// host_shared allocation is synchronous (gpu-to-llvm lowers it only so) and
// waits for nothing: the copy after it depends on the token the allocation
// depended on, the host never waiting for the device there.
// (Here the exp runs on the host, after which the chain starts again.)
// SYNC-LABEL: func.func @offloaded(
// SYNC:         %[[A:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<4xf32>
// SYNC:         linalg.exp
// SYNC-NEXT:    %[[T:.*]] = gpu.wait async
// SYNC-NEXT:    %[[H:.*]] = gpu.alloc host_shared () : memref<16xi8>
// SYNC:         %[[V:.*]] = memref.view %[[H]]
// SYNC-NEXT:    gpu.memcpy async [%[[T]]] %[[V]], %[[A]]
// SYNC-NOT:     gpu.alloc async [%{{.*}}] host_shared
func.func @offloaded(%x: memref<4xf32>) -> memref<4xf32> {
  %a = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  linalg.exp ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  %h = memref.alloc() {alignment = 64 : i64, remat.host} : memref<4xf32>
  memref.copy %a, %h : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  memref.copy %h, %b : memref<4xf32> to memref<4xf32>
  memref.dealloc %h : memref<4xf32>
  %r = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  linalg.exp ins(%b : memref<4xf32>) outs(%r : memref<4xf32>)
  memref.dealloc %b : memref<4xf32>
  return %r : memref<4xf32>
}

// -----

// A host copy is one contiguous transfer: a strided view cannot be one.
func.func @strided(%x: memref<8xf32>) {
  %h = memref.alloc() {remat.host} : memref<4xf32>
  %v = memref.subview %x[0] [4] [2] : memref<8xf32> to memref<4xf32, strided<[2]>>
  // expected-error @+1 {{copies a strided view 'memref<4xf32, strided<[2]>>' to or from host memory: a host copy is one contiguous gpu.memcpy (a row of a host stack is one)}}
  memref.copy %v, %h : memref<4xf32, strided<[2]>> to memref<4xf32>
  memref.dealloc %h : memref<4xf32>
  return
}
