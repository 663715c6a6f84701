// -remat-normalize-input runs upstream's inliner where a module has a call
// or a private callable, and -lower-affine where it has an affine op; a
// module with neither comes out as it went in (the 40k-op ResNet step spent
// 1.1 s in both for nothing).
// RUN: remat-opt %s -remat-normalize-input -split-input-file | FileCheck %s

// A private callee is inlined, then dropped.
// CHECK-LABEL: func.func @calls
// CHECK-NOT: call
// CHECK: arith.mulf
// CHECK-NOT: func.func private @square
func.func private @square(%x: f32) -> f32 {
  %y = arith.mulf %x, %x : f32
  return %y : f32
}
func.func @calls(%x: f32) -> f32 {
  %y = func.call @square(%x) : (f32) -> f32
  return %y : f32
}

// -----

// An unused private function goes as the inliner drops it.
// CHECK-NOT: @unused
// CHECK-LABEL: func.func @kept
func.func private @unused(%x: f32) -> f32 {
  return %x : f32
}
func.func @kept(%x: f32) -> f32 {
  return %x : f32
}

// -----

// affine.apply, also one the inliner brought in, becomes arith.
// CHECK-LABEL: func.func @row
// CHECK-NOT: affine.apply
// CHECK: arith.muli %{{.*}}, %c-1
// CHECK: arith.addi %{{.*}}, %c63
func.func private @reversed(%j: index) -> index {
  %r = affine.apply affine_map<(d0) -> (63 - d0)>(%j)
  return %r : index
}
func.func @row(%j: index) -> index {
  %r = func.call @reversed(%j) : (index) -> index
  return %r : index
}

// -----

// Neither: untouched. (The inliner would have canonicalized: folded the
// addition of zero.)
// CHECK-LABEL: func.func @plain
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[S:.*]] = arith.addi %{{.*}}, %[[Z]]
// CHECK-NEXT: return %[[S]]
func.func @plain(%x: i32) -> i32 {
  %z = arith.constant 0 : i32
  %s = arith.addi %x, %z : i32
  return %s : i32
}
