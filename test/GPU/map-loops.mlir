// RUN: remat-opt %s -split-input-file -remat-gpu-map-loops -verify-diagnostics | FileCheck %s
// RUN: remat-opt %s -split-input-file -remat-gpu-map-loops="block-size=64" -verify-diagnostics | FileCheck %s --check-prefix=B64

// A 4-D loop: up to 256 threads over the innermost dimensions (18 x 9: 9
// divides 18, so no thread idles), blocks over the rest: x = tiles of h,
// y = channels, z = batch. The innermost dimension goes to thread x
// (coalesced accesses).
// CHECK-LABEL: func.func @tile(
// CHECK-DAG:     %[[C9:.*]] = arith.constant 9 : index
// CHECK-DAG:     %[[C18:.*]] = arith.constant 18 : index
// CHECK:         scf.parallel
// CHECK:           scf.parallel
// CHECK-NOT:         scf.if
// CHECK:               memref.load
// CHECK:               memref.store
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = sequential, {{.*}}>, #gpu.loop_dim_map<processor = sequential, {{.*}}>, #gpu.loop_dim_map<processor = thread_y, {{.*}}>, #gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_z, {{.*}}>, #gpu.loop_dim_map<processor = block_y, {{.*}}>, #gpu.loop_dim_map<processor = block_x, {{.*}}>, #gpu.loop_dim_map<processor = sequential, {{.*}}>]}
// B64-LABEL: func.func @tile(
// B64:         %[[C3:.*]] = arith.constant 3 : index
// B64:         %[[C18:.*]] = arith.constant 18 : index
// B64:         arith.muli %{{.*}}, %[[C3]]
// B64:         arith.muli %{{.*}}, %[[C18]]
func.func @tile(%x: memref<4x16x18x18xf32>, %y: memref<4x16x18x18xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c18 = arith.constant 18 : index
  scf.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c4, %c16, %c18, %c18) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %x[%n, %c, %h, %w] : memref<4x16x18x18xf32>
    memref.store %v, %y[%n, %c, %h, %w] : memref<4x16x18x18xf32>
    scf.reduce
  }
  return
}

// 1009 elements (prime): blocks of 256 threads, the last one guarded.
// CHECK-LABEL: func.func @guarded(
// CHECK:         %[[C256:.*]] = arith.constant 256 : index
// CHECK:         scf.parallel
// CHECK:           scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK:             %[[IN:.*]] = arith.cmpi ult
// CHECK:             scf.if
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x, {{.*}}>]}
func.func @guarded(%x: memref<1009xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1009 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %z, %x[%i] : memref<1009xf32>
    scf.reduce
  }
  return
}

// A sequential loop nest on device memory (an op with no parallel
// dimension) runs as a one-thread kernel.
// CHECK-LABEL: func.func @serial(
// CHECK:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK-NEXT:      scf.for
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x, {{.*}}>]}
func.func @serial(%x: memref<8xf32>, %s: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xf32>
    %a = memref.load %s[] : memref<f32>
    %r = arith.maximumf %v, %a : f32
    memref.store %r, %s[] : memref<f32>
  }
  return
}

// Loads and the pure ops computing from them go into one kernel with the
// store that ends the chain.
// CHECK-LABEL: func.func @scalar_chain(
// CHECK:         scf.parallel
// CHECK-NEXT:      memref.load
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:      memref.store
func.func @scalar_chain(%x: memref<f32>) {
  %two = arith.constant 2.0 : f32
  %v = memref.load %x[] : memref<f32>
  %w = arith.mulf %v, %two : f32
  memref.store %w, %x[] : memref<f32>
  return
}

// -----

// A value read from device memory that the host needs has no lowering.
func.func @host_needs_value(%x: memref<f32>) -> f32 {
  // expected-error @+1 {{'memref.load' has no GPU lowering here: it runs on device memory and the host needs its result}}
  %v = memref.load %x[] : memref<f32>
  // expected-note @+1 {{used on the host here}}
  return %v : f32
}
