// RUN: remat-opt %s -remat-plan-buffers -split-input-file | FileCheck %s

// Frees land right after the last use; a later alloc moves down to its
// first use, so the two buffers are never live together.

// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %[[A:.*]] = memref.alloc() : memref<16xf32>
// CHECK-NEXT:    linalg.fill ins(%{{.*}}) outs(%[[A]]
// CHECK-NEXT:    linalg.copy ins(%[[A]] : memref<16xf32>) outs(%arg0
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    %[[B:.*]] = memref.alloc() : memref<16xf32>
// CHECK-NEXT:    linalg.fill ins(%{{.*}}) outs(%[[B]]
// CHECK-NEXT:    linalg.copy ins(%[[B]] : memref<16xf32>) outs(%arg1
// CHECK-NEXT:    memref.dealloc %[[B]]
// CHECK-NEXT:    return
func.func @chain(%out0: memref<16xf32>, %out1: memref<16xf32>, %f: f32) {
  %a = memref.alloc() : memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  linalg.fill ins(%f : f32) outs(%a : memref<16xf32>)
  linalg.copy ins(%a : memref<16xf32>) outs(%out0 : memref<16xf32>)
  linalg.fill ins(%f : f32) outs(%b : memref<16xf32>)
  linalg.copy ins(%b : memref<16xf32>) outs(%out1 : memref<16xf32>)
  return
}

// -----

// The buffer lives until the last use of its last alias: a subview, then a
// reshape of the buffer, then a cast of the reshape.

// CHECK-LABEL: func.func @aliases
// CHECK:         %[[A:.*]] = memref.alloc() : memref<4x4xf32>
// CHECK:         %[[S:.*]] = memref.subview %[[A]]
// CHECK:         %[[C:.*]] = memref.collapse_shape %[[A]]
// CHECK:         %[[X:.*]] = memref.cast %[[C]]
// CHECK-NEXT:    linalg.copy ins(%[[S]] {{.*}} outs(%arg0
// CHECK-NEXT:    linalg.copy ins(%[[X]] {{.*}} outs(%arg1
// CHECK-NEXT:    memref.dealloc %[[A]] : memref<4x4xf32>
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    return
func.func @aliases(%out0: memref<2x2xf32, strided<[4, 1]>>, %out1: memref<?xf32>, %f: f32) {
  %a = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%f : f32) outs(%a : memref<4x4xf32>)
  %s = memref.subview %a[0, 0] [2, 2] [1, 1] : memref<4x4xf32> to memref<2x2xf32, strided<[4, 1]>>
  %c = memref.collapse_shape %a [[0, 1]] : memref<4x4xf32> into memref<16xf32>
  %x = memref.cast %c : memref<16xf32> to memref<?xf32>
  linalg.copy ins(%s : memref<2x2xf32, strided<[4, 1]>>) outs(%out0 : memref<2x2xf32, strided<[4, 1]>>)
  linalg.copy ins(%x : memref<?xf32>) outs(%out1 : memref<?xf32>)
  linalg.fill ins(%f : f32) outs(%out1 : memref<?xf32>)
  return
}

// -----

// A use in a nested region counts at the op of the alloc's block that holds
// it; an alloc inside a loop body is freed inside the body.

// CHECK-LABEL: func.func @nested
// CHECK:         %[[A:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         scf.for
// CHECK:           %[[T:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT:      linalg.copy ins(%[[A]] {{.*}} outs(%[[T]]
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        linalg.copy ins(%[[T]] {{.*}} outs(%arg0
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.dealloc %[[T]]
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    return
func.func @nested(%out: memref<8xf32>, %n: index, %c: i1, %f: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<8xf32>
  linalg.fill ins(%f : f32) outs(%a : memref<8xf32>)
  scf.for %i = %c0 to %n step %c1 {
    %t = memref.alloc() : memref<8xf32>
    linalg.copy ins(%a : memref<8xf32>) outs(%t : memref<8xf32>)
    scf.if %c {
      linalg.copy ins(%t : memref<8xf32>) outs(%out : memref<8xf32>)
    }
  }
  linalg.fill ins(%f : f32) outs(%out : memref<8xf32>)
  return
}

// -----

// Returned buffers are not freed by the callee; the caller owns a fresh
// result and frees it after its last use. A callee that returns (a view of)
// its argument makes the call result an alias of the argument. A call to a
// declaration is an ordinary use.

// CHECK-LABEL: func.func private @make
// CHECK-NOT:     memref.dealloc
// CHECK:         return
func.func private @make(%f: f32) -> memref<8xf32> {
  %a = memref.alloc() : memref<8xf32>
  linalg.fill ins(%f : f32) outs(%a : memref<8xf32>)
  return %a : memref<8xf32>
}

// CHECK-LABEL: func.func private @first_half
// CHECK-NOT:     memref.dealloc
// CHECK:         return
func.func private @first_half(%m: memref<8xf32>) -> memref<4xf32, strided<[1]>> {
  %s = memref.subview %m[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  return %s : memref<4xf32, strided<[1]>>
}

func.func private @print(memref<4xf32, strided<[1]>>)

// CHECK-LABEL: func.func @caller
// CHECK-NEXT:    %[[M:.*]] = call @make
// CHECK-NEXT:    %[[H:.*]] = call @first_half(%[[M]])
// CHECK-NEXT:    call @print(%[[H]])
// CHECK-NEXT:    memref.dealloc %[[M]]
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    return
func.func @caller(%f: f32, %out: memref<8xf32>) {
  %m = call @make(%f) : (f32) -> memref<8xf32>
  %h = call @first_half(%m) : (memref<8xf32>) -> memref<4xf32, strided<[1]>>
  call @print(%h) : (memref<4xf32, strided<[1]>>) -> ()
  linalg.fill ins(%f : f32) outs(%out : memref<8xf32>)
  return
}

// -----

// Buffers the IR frees already are left alone; unused buffers are freed
// right away; buffers of dynamic size are freed early too.

// CHECK-LABEL: func.func @misc
// CHECK-NEXT:    %[[U:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    memref.dealloc %[[U]]
// CHECK-NEXT:    %[[F:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    %[[D:.*]] = memref.alloc(%arg0) : memref<?xf32>
// CHECK-NEXT:    linalg.fill ins(%arg1 : f32) outs(%[[D]]
// CHECK-NEXT:    memref.dealloc %[[D]]
// CHECK-NEXT:    linalg.fill ins(%arg1 : f32) outs(%[[F]]
// CHECK-NEXT:    memref.dealloc %[[F]] : memref<4xf32>
// CHECK-NOT:     memref.dealloc
// CHECK:         return
func.func @misc(%n: index, %f: f32) {
  %unused = memref.alloc() : memref<4xf32>
  %freed = memref.alloc() : memref<4xf32>
  %d = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%f : f32) outs(%d : memref<?xf32>)
  linalg.fill ins(%f : f32) outs(%freed : memref<4xf32>)
  memref.dealloc %freed : memref<4xf32>
  return
}
