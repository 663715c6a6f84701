// RUN: remat-opt %s -remat-plan-buffers -split-input-file -verify-diagnostics | FileCheck %s

// Both branches of an scf.if make a buffer only to yield it (what
// -remat-prepare's giveBranchResultsOneBuffer leaves of a branch choosing a
// fresh initial value, bufferized; the cast matches the result's layout):
// the result owns whichever was made and is freed after its last use in
// the parent block; the branches' allocations are not freed on their own.
// CHECK-LABEL: func.func @owned
// CHECK: %[[R:.*]] = scf.if
// CHECK-NOT: memref.dealloc
// CHECK: } else {
// CHECK-NOT: memref.dealloc
// CHECK: }
// CHECK-NEXT: linalg.copy ins(%[[R]] : {{.*}}) outs(%arg2
// CHECK-NEXT: memref.dealloc %[[R]]
// CHECK-NEXT: return
func.func @owned(%c: i1, %x: memref<16xf32>, %out: memref<16xf32>, %f: f32) {
  %r = scf.if %c -> (memref<16xf32, strided<[?], offset: ?>>) {
    %a = memref.alloc() : memref<16xf32>
    linalg.copy ins(%x : memref<16xf32>) outs(%a : memref<16xf32>)
    %ac = memref.cast %a : memref<16xf32> to memref<16xf32, strided<[?], offset: ?>>
    scf.yield %ac : memref<16xf32, strided<[?], offset: ?>>
  } else {
    %b = memref.alloc() : memref<16xf32>
    linalg.fill ins(%f : f32) outs(%b : memref<16xf32>)
    %bc = memref.cast %b : memref<16xf32> to memref<16xf32, strided<[?], offset: ?>>
    scf.yield %bc : memref<16xf32, strided<[?], offset: ?>>
  }
  linalg.copy ins(%r : memref<16xf32, strided<[?], offset: ?>>) outs(%out : memref<16xf32>)
  return
}

// -----

// The same where one branch yields its buffer through a reshape and the
// cast (a recomputed 4-d row: the expand_shape of a matmul's result):
// the result owns it as well.
// CHECK-LABEL: func.func @owned_through_reshape
// CHECK: %[[R:.*]] = scf.if
// CHECK-NOT: memref.dealloc
// CHECK: } else {
// CHECK-NOT: memref.dealloc
// CHECK: }
// CHECK-NEXT: linalg.copy ins(%[[R]] : {{.*}}) outs(%arg2
// CHECK-NEXT: memref.dealloc %[[R]]
// CHECK-NEXT: return
func.func @owned_through_reshape(%c: i1, %x: memref<2x8xf32>, %out: memref<2x2x4xf32>, %f: f32) {
  %r = scf.if %c -> (memref<2x2x4xf32, strided<[?, ?, ?], offset: ?>>) {
    %a = memref.alloc() : memref<2x8xf32>
    linalg.copy ins(%x : memref<2x8xf32>) outs(%a : memref<2x8xf32>)
    %a3 = memref.expand_shape %a [[0], [1, 2]] output_shape [2, 2, 4] : memref<2x8xf32> into memref<2x2x4xf32>
    %ac = memref.cast %a3 : memref<2x2x4xf32> to memref<2x2x4xf32, strided<[?, ?, ?], offset: ?>>
    scf.yield %ac : memref<2x2x4xf32, strided<[?, ?, ?], offset: ?>>
  } else {
    %b = memref.alloc() : memref<2x2x4xf32>
    linalg.fill ins(%f : f32) outs(%b : memref<2x2x4xf32>)
    %bc = memref.cast %b : memref<2x2x4xf32> to memref<2x2x4xf32, strided<[?, ?, ?], offset: ?>>
    scf.yield %bc : memref<2x2x4xf32, strided<[?, ?, ?], offset: ?>>
  }
  linalg.copy ins(%r : memref<2x2x4xf32, strided<[?, ?, ?], offset: ?>>) outs(%out : memref<2x2x4xf32>)
  return
}

// -----

// One branch yields a buffer from outside: the result may be it, so
// neither the result nor the other branch's buffer is freed (a warning
// says so, as for any buffer that escapes).
// CHECK-LABEL: func.func @not_owned
// CHECK-NOT: memref.dealloc
func.func @not_owned(%c: i1, %x: memref<16xf32>, %out: memref<16xf32>, %f: f32) {
  %r = scf.if %c -> (memref<16xf32>) {
    scf.yield %x : memref<16xf32>
  } else {
    // expected-warning @below {{buffer is yielded out of its block; -remat-plan-buffers does not free it}}
    %b = memref.alloc() : memref<16xf32>
    linalg.fill ins(%f : f32) outs(%b : memref<16xf32>)
    // expected-note @below {{escapes here}}
    scf.yield %b : memref<16xf32>
  }
  linalg.copy ins(%r : memref<16xf32>) outs(%out : memref<16xf32>)
  return
}
