// RUN: remat-opt %s -remat-plan-buffers=remarks=true -split-input-file -verify-diagnostics | FileCheck %s

// Returned buffers belong to the caller: no dealloc.

// CHECK-LABEL: func.func @returned
// CHECK-NOT:     memref.dealloc
// CHECK:         return
func.func @returned(%f: f32) -> memref<4xf32> {
  // expected-remark @below {{buffer not freed here: returned}}
  %a = memref.alloc() : memref<4xf32>
  linalg.fill ins(%f : f32) outs(%a : memref<4xf32>)
  return %a : memref<4xf32>
}

// -----

// A buffer stored as a value may be read through the other memref later.

// CHECK-LABEL: func.func @stored
// CHECK-NOT:     memref.dealloc
// CHECK:         return
func.func @stored(%m: memref<1xmemref<4xf32>>) {
  // expected-warning @below {{buffer is stored into memory; -remat-plan-buffers does not free it}}
  %a = memref.alloc() : memref<4xf32>
  %c0 = arith.constant 0 : index
  // expected-note @below {{escapes here}}
  memref.store %a, %m[%c0] : memref<1xmemref<4xf32>>
  return
}

// -----

// A buffer yielded out of its block: the planner does not follow it.

// CHECK-LABEL: func.func @yielded
// CHECK-NOT:     memref.dealloc
// CHECK:         return
func.func @yielded(%c: i1, %b: memref<4xf32>) -> memref<4xf32> {
  %r = scf.if %c -> memref<4xf32> {
    // expected-warning @below {{buffer is yielded out of its block; -remat-plan-buffers does not free it}}
    %a = memref.alloc() : memref<4xf32>
    // expected-note @below {{escapes here}}
    scf.yield %a : memref<4xf32>
  } else {
    scf.yield %b : memref<4xf32>
  }
  return %r : memref<4xf32>
}

// -----

// A callee in the module that keeps its argument captures it; so does an
// indirect call, and an op that turns the buffer into a tensor.

func.func private @keep(%m: memref<4xf32>, %into: memref<1xmemref<4xf32>>) {
  %c0 = arith.constant 0 : index
  memref.store %m, %into[%c0] : memref<1xmemref<4xf32>>
  return
}

// CHECK-LABEL: func.func @captured
// CHECK-NOT:     memref.dealloc
// CHECK:         return
func.func @captured(%into: memref<1xmemref<4xf32>>, %g: (memref<4xf32>) -> ()) -> tensor<4xf32> {
  // expected-warning @below {{buffer is captured by an op or callee that may keep it}}
  %a = memref.alloc() : memref<4xf32>
  // expected-note @below {{escapes here}}
  call @keep(%a, %into) : (memref<4xf32>, memref<1xmemref<4xf32>>) -> ()
  // expected-warning @below {{buffer is captured by an op or callee that may keep it}}
  %b = memref.alloc() : memref<4xf32>
  // expected-note @below {{escapes here}}
  func.call_indirect %g(%b) : (memref<4xf32>) -> ()
  // expected-warning @below {{buffer is captured by an op or callee that may keep it}}
  %c = memref.alloc() : memref<4xf32>
  // expected-note @below {{escapes here}}
  %t = bufferization.to_tensor %c : memref<4xf32> to tensor<4xf32>
  return %t : tensor<4xf32>
}

// -----

// Freeing an argument is as bad for the caller as keeping it.

func.func private @consume(%m: memref<4xf32>) {
  memref.dealloc %m : memref<4xf32>
  return
}

// CHECK-LABEL: func.func @freed_by_callee
// CHECK-NOT:     memref.dealloc
// CHECK:         return
func.func @freed_by_callee() {
  // expected-warning @below {{buffer is captured by an op or callee that may keep it}}
  %a = memref.alloc() : memref<4xf32>
  // expected-note @below {{escapes here}}
  call @consume(%a) : (memref<4xf32>) -> ()
  return
}

// -----

// Buffers freed by the IR itself are left alone.

// CHECK-LABEL: func.func @already_freed
// CHECK:         memref.dealloc
// CHECK-NOT:     memref.dealloc
// CHECK:         return
func.func @already_freed(%f: f32) {
  // expected-remark @below {{buffer not freed here: already freed by the IR}}
  %a = memref.alloc() : memref<4xf32>
  %v = memref.subview %a[0] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1]>>
  memref.dealloc %a : memref<4xf32>
  return
}
