// RUN: remat-opt %s -split-input-file -remat-gpu-copy-stream | FileCheck %s
// RUN: remat-opt %s -split-input-file "-remat-gpu-copy-stream=min-bytes=17" | FileCheck %s --check-prefix=SMALL
// RUN: remat-opt %s -split-input-file "-remat-gpu-copy-stream=min-bytes=16" | FileCheck %s

// An offloaded value after gpu-async-region, written by hand as the
// pipeline leaves it: one token chain; the device buffer %d copied to the
// pinned host buffer %h (through a memref.view, as the lowering writes
// it), freed, later copied back into %d2 and read by a kernel. The copies
// leave the chain, each on a stream of its own after the token it
// depended on; %d's free and %h's free follow their copies on those
// streams; the host waits for the copy out before the copy back reads %h,
// and for the copy back just before the kernel that reads %d2, not before
// the kernel in between.

module attributes {gpu.container_module} {
gpu.module @k {
  gpu.func @produce(%a: memref<4xf32>) kernel { gpu.return }
  gpu.func @other(%a: memref<4xf32>) kernel { gpu.return }
  gpu.func @consume(%a: memref<4xf32>) kernel { gpu.return }
}

// With min-bytes above the copies' 16 bytes, nothing moves: the copies
// stay on the chain, in order with the kernels, and no host wait is added.
// SMALL-LABEL: func.func @offload(
// SMALL-NOT:     gpu.wait async [
// SMALL:         gpu.memcpy async [%{{.*}}] %{{.*}}, %{{.*}}
// SMALL-NOT:     gpu.wait async [
// SMALL:         gpu.wait [%{{.*}}]
// SMALL-NEXT:    return

// CHECK-LABEL: func.func @offload(
// CHECK:         %[[T0:.*]] = gpu.wait async
// CHECK:         %[[D:.*]], %[[TA:.*]] = gpu.alloc async [%[[T0]]] () : memref<4xf32>
// CHECK:         %[[TP:.*]] = gpu.launch_func async [%[[TA]]] @k::@produce
// CHECK:         %[[RAW:.*]] = gpu.alloc host_shared () : memref<64xi8>
// CHECK:         %[[H:.*]] = memref.view %[[RAW]]
// CHECK-NEXT:    %[[S1:.*]] = gpu.wait async [%[[TP]]]
// CHECK-NEXT:    %[[C1:.*]] = gpu.memcpy async [%[[S1]]] %[[H]], %[[D]]
// CHECK-NEXT:    %[[F1:.*]] = gpu.dealloc async [%[[C1]]] %[[D]]
// CHECK-NEXT:    %[[E:.*]], %[[TE:.*]] = gpu.alloc async [%[[TP]]] () : memref<4xf32>
// CHECK-NEXT:    %[[TO:.*]] = gpu.launch_func async [%[[TE]]] @k::@other
// CHECK-NEXT:    %[[D2:.*]], %[[TB:.*]] = gpu.alloc async [%[[TO]]] () : memref<4xf32>
// CHECK-NEXT:    gpu.wait [%[[F1]]]
// CHECK-NEXT:    %[[S2:.*]] = gpu.wait async [%[[TB]]]
// CHECK-NEXT:    %[[C2:.*]] = gpu.memcpy async [%[[S2]]] %[[D2]], %[[H]]
// CHECK-NEXT:    %[[F2:.*]] = gpu.dealloc async [%[[C2]]] %[[RAW]]
// CHECK-NEXT:    %[[TO2:.*]] = gpu.launch_func async [%[[TB]]] @k::@other
// CHECK-NEXT:    gpu.wait [%[[F2]]]
// CHECK-NEXT:    %[[TC:.*]] = gpu.launch_func async [%[[TO2]]] @k::@consume
// CHECK-SAME:      args(%[[D2]] : memref<4xf32>)
// CHECK-NEXT:    %[[TF:.*]] = gpu.dealloc async [%[[TC]]] %[[D2]]
// CHECK-NEXT:    gpu.wait [%[[TF]]]
// CHECK-NEXT:    return
func.func @offload() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t0 = gpu.wait async
  %d, %ta = gpu.alloc async [%t0] () : memref<4xf32>
  %tp = gpu.launch_func async [%ta] @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<4xf32>)
  %raw = gpu.alloc host_shared () : memref<64xi8>
  %h = memref.view %raw[%c0][] : memref<64xi8> to memref<4xf32>
  %t1 = gpu.memcpy async [%tp] %h, %d : memref<4xf32>, memref<4xf32>
  %t2 = gpu.dealloc async [%t1] %d : memref<4xf32>
  %e, %te = gpu.alloc async [%t2] () : memref<4xf32>
  %to = gpu.launch_func async [%te] @k::@other blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%e : memref<4xf32>)
  %d2, %tb = gpu.alloc async [%to] () : memref<4xf32>
  %t3 = gpu.memcpy async [%tb] %d2, %h : memref<4xf32>, memref<4xf32>
  %t4 = gpu.dealloc async [%t3] %raw : memref<64xi8>
  %to2 = gpu.launch_func async [%t4] @k::@other blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%e : memref<4xf32>)
  %tc = gpu.launch_func async [%to2] @k::@consume blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d2 : memref<4xf32>)
  %tf = gpu.dealloc async [%tc] %d2 : memref<4xf32>
  gpu.wait [%tf]
  return
}
}

// -----

// Copies between the device and pageable host memory (a function's
// arguments and results) stay on the chain; so does a host copy whose
// dependency is not an op's token, or an op's outside its block. A host buffer returned (a result
// offloaded for good) is waited for before the return; a loop that reads
// a prefetched buffer in its body is waited for before the loop.

module attributes {gpu.container_module} {
gpu.module @k {
  gpu.func @consume(%a: memref<4xf32>) kernel { gpu.return }
}

// CHECK-LABEL: func.func @stays(
// CHECK:         gpu.memcpy async [%{{.*}}] %{{.*}}, %arg0
// CHECK-NOT:     gpu.wait async [
// CHECK:         return
func.func @stays(%arg0: memref<4xf32>, %t: !gpu.async.token) {
  %raw = gpu.alloc host_shared () : memref<4xf32>
  %d, %ta = gpu.alloc async [%t] () : memref<4xf32>
  %t1 = gpu.memcpy async [%ta] %d, %arg0 : memref<4xf32>, memref<4xf32>
  %t2 = gpu.memcpy async [%t] %raw, %d : memref<4xf32>, memref<4xf32>
  gpu.wait [%t1, %t2]
  return
}

// CHECK-LABEL: func.func @outer_token(
// CHECK:         scf.for
// CHECK-NEXT:      gpu.memcpy async [%{{.*}}] %{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>
// CHECK-NOT:     gpu.wait async [
func.func @outer_token(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %h = gpu.alloc host_shared () : memref<4xf32>
  %t0 = gpu.wait async
  %d, %ta = gpu.alloc async [%t0] () : memref<4xf32>
  scf.for %i = %c0 to %n step %c1 {
    %t1 = gpu.memcpy async [%ta] %h, %d : memref<4xf32>, memref<4xf32>
    gpu.wait [%t1]
  }
  %t2 = gpu.dealloc async [%ta] %d : memref<4xf32>
  gpu.wait [%t2]
  return
}

// CHECK-LABEL: func.func @returned(
// CHECK:         %[[S:.*]] = gpu.wait async [%{{.*}}]
// CHECK-NEXT:    %[[C:.*]] = gpu.memcpy async [%[[S]]] %[[H:.*]], %{{.*}}
// CHECK-NEXT:    %[[F:.*]] = gpu.dealloc async [%[[C]]]
// CHECK-NEXT:    gpu.wait [%{{.*}}]
// CHECK-NEXT:    gpu.wait [%[[F]]]
// CHECK-NEXT:    return %[[H]]
func.func @returned() -> memref<4xf32> {
  %t0 = gpu.wait async
  %d, %ta = gpu.alloc async [%t0] () : memref<4xf32>
  %h = gpu.alloc host_shared () : memref<4xf32>
  %t1 = gpu.memcpy async [%ta] %h, %d : memref<4xf32>, memref<4xf32>
  %t2 = gpu.dealloc async [%t1] %d : memref<4xf32>
  gpu.wait [%t2]
  return %h : memref<4xf32>
}

// CHECK-LABEL: func.func @loop_reads(
// CHECK:         %[[C:.*]] = gpu.memcpy async [%{{.*}}] %[[D:.*]], %{{.*}}
// CHECK-NEXT:    %[[F:.*]] = gpu.dealloc async [%[[C]]]
// CHECK-NEXT:    gpu.wait [%[[F]]]
// CHECK-NEXT:    scf.for
func.func @loop_reads(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %h = gpu.alloc host_shared () : memref<4xf32>
  %t0 = gpu.wait async
  %d, %ta = gpu.alloc async [%t0] () : memref<4xf32>
  %t1 = gpu.memcpy async [%ta] %d, %h : memref<4xf32>, memref<4xf32>
  %t2 = gpu.dealloc async [%t1] %h : memref<4xf32>
  scf.for %i = %c0 to %n step %c1 {
    %u = gpu.wait async
    %tk = gpu.launch_func async [%u] @k::@consume blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<4xf32>)
    gpu.wait [%tk]
  }
  %t3 = gpu.dealloc async [%t2] %d : memref<4xf32>
  gpu.wait [%t3]
  return
}
}
