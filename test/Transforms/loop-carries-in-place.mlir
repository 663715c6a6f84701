// RUN: remat-opt %s -remat-loop-carries-in-place -split-input-file -verify-diagnostics | FileCheck %s

// A carry written where its old value is still read after the write: the
// write is a copy (One-Shot Bufferize's, and the model's), which the pass
// copies back into the iteration argument at the end of the iteration.
// (Taking the insert's destination for the yield's buffer instead stops
// bufferization: "Yield operand #0 is not equivalent to the corresponding
// iter bbArg".)
// CHECK-LABEL: func.func @read_after_write
// CHECK: scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}, %{{.*}} = %{{.*}})
// CHECK: %[[W:.*]] = tensor.insert %{{.*}} into %[[A]]
// CHECK: tensor.extract %[[A]]
// CHECK: %[[C:.*]] = linalg.copy ins(%[[W]] : tensor<256xf32>) outs(%[[A]] : tensor<256xf32>)
// CHECK: scf.yield %[[C]]
func.func @read_after_write(%x: tensor<256xf32>) -> (tensor<256xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %z = arith.constant 0.0 : f32
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %x, %acc = %z) -> (tensor<256xf32>, f32) {
    %w = tensor.insert %acc into %a[%c7] : tensor<256xf32>
    %e = tensor.extract %a[%c7] : tensor<256xf32>
    %s = arith.addf %acc, %e : f32
    scf.yield %w, %s : tensor<256xf32>, f32
  }
  return %r#0, %r#1 : tensor<256xf32>, f32
}

// -----

// The same write in one branch: a copy there would be made on that path
// only (neither the argument's buffer nor one every path made). The old
// value is copied instead, before the scf.if, on every path; the read after
// the write reads the copy, and the write is in place (the else branch
// still yields the argument).
// CHECK-LABEL: func.func @read_after_write_in_branch
// CHECK: scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}, %{{.*}} = %{{.*}})
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<256xf32>
// CHECK-NEXT: %[[OLD:.*]] = linalg.copy ins(%[[A]] : tensor<256xf32>) outs(%[[E]] : tensor<256xf32>)
// CHECK-NEXT: %[[B:.*]] = scf.if
// CHECK-NEXT: tensor.insert %{{.*}} into %[[A]]
// CHECK: scf.yield %[[A]]
// CHECK: tensor.extract %[[OLD]]
// CHECK-NOT: linalg.copy
// CHECK: scf.yield %[[B]]
func.func @read_after_write_in_branch(%x: tensor<256xf32>, %p: i1) -> (tensor<256xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %z = arith.constant 0.0 : f32
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %x, %acc = %z) -> (tensor<256xf32>, f32) {
    %b = scf.if %p -> (tensor<256xf32>) {
      %w = tensor.insert %acc into %a[%c7] : tensor<256xf32>
      scf.yield %w : tensor<256xf32>
    } else {
      scf.yield %a : tensor<256xf32>
    }
    %e = tensor.extract %a[%c7] : tensor<256xf32>
    %s = arith.addf %acc, %e : f32
    scf.yield %b, %s : tensor<256xf32>, f32
  }
  return %r#0, %r#1 : tensor<256xf32>, f32
}

// -----

// The same with a carry of a shape known only at run time: the copy is of
// the old value's size at run time.
// CHECK-LABEL: func.func @read_after_write_in_branch_dynamic
// CHECK: scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}, %{{.*}} = %{{.*}})
// CHECK: %[[N:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK: %[[OLD:.*]] = linalg.copy ins(%[[A]] : tensor<?xf32>) outs(%[[E]] : tensor<?xf32>)
// CHECK: scf.if
// CHECK: tensor.insert %{{.*}} into %[[A]]
// CHECK: tensor.extract %[[OLD]]
func.func @read_after_write_in_branch_dynamic(%x: tensor<?xf32>, %p: i1) -> (tensor<?xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %z = arith.constant 0.0 : f32
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %x, %acc = %z) -> (tensor<?xf32>, f32) {
    %b = scf.if %p -> (tensor<?xf32>) {
      %w = tensor.insert %acc into %a[%c7] : tensor<?xf32>
      scf.yield %w : tensor<?xf32>
    } else {
      scf.yield %a : tensor<?xf32>
    }
    %e = tensor.extract %a[%c7] : tensor<?xf32>
    %s = arith.addf %acc, %e : f32
    scf.yield %b, %s : tensor<?xf32>, f32
  }
  return %r#0, %r#1 : tensor<?xf32>, f32
}

// -----

// Read before the write, at any depth: in place, left alone.
// CHECK-LABEL: func.func @read_before_write
// CHECK-NOT: linalg.copy
func.func @read_before_write(%x: tensor<256xf32>, %p: i1) -> (tensor<256xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %z = arith.constant 0.0 : f32
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %x, %acc = %z) -> (tensor<256xf32>, f32) {
    %s = scf.if %p -> (f32) {
      %e = tensor.extract %a[%c7] : tensor<256xf32>
      scf.yield %e : f32
    } else {
      scf.yield %acc : f32
    }
    %b = scf.if %p -> (tensor<256xf32>) {
      %w = tensor.insert %s into %a[%c7] : tensor<256xf32>
      scf.yield %w : tensor<256xf32>
    } else {
      scf.yield %a : tensor<256xf32>
    }
    scf.yield %b, %s : tensor<256xf32>, f32
  }
  return %r#0, %r#1 : tensor<256xf32>, f32
}
