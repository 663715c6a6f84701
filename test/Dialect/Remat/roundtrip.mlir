// Parse, print, parse again: the custom and the generic forms both round-trip.
// RUN: remat-opt %s | remat-opt | FileCheck %s
// RUN: remat-opt %s --mlir-print-op-generic | remat-opt | FileCheck %s

// CHECK-LABEL: func.func @recompute
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
func.func @recompute(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[R:.*]]:2 = remat.recompute ins(%[[X]], %[[Y]] : tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32> {
  // CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>):
  // CHECK-NEXT:   %[[E:.*]] = math.exp %[[A]]
  // CHECK-NEXT:   %[[S:.*]] = arith.addf %[[E]], %[[B]]
  // CHECK-NEXT:   remat.yield %[[E]], %[[S]] : tensor<4xf32>, tensor<4xf32>
  // CHECK-NEXT: }
  %r:2 = remat.recompute ins(%x, %y : tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %e = math.exp %a : tensor<4xf32>
    %s = arith.addf %e, %b : tensor<4xf32>
    remat.yield %e, %s : tensor<4xf32>, tensor<4xf32>
  }
  %t = arith.addf %r#0, %r#1 : tensor<4xf32>
  return %t : tensor<4xf32>
}

// A recomputation from nothing (e.g. a constant) has no inputs.
// CHECK-LABEL: func.func @no_inputs
// CHECK: remat.recompute -> tensor<2xf32> {
// CHECK: arith.constant
func.func @no_inputs() -> tensor<2xf32> {
  %r = remat.recompute -> tensor<2xf32> {
    %c = arith.constant dense<1.0> : tensor<2xf32>
    remat.yield %c : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// CHECK-LABEL: func.func @generic_op
func.func @generic_op(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32> {
  // CHECK: remat.op "aten.convolution"(%{{.*}}, %{{.*}}) {cost = #remat.cost<time = 2.000000e+06, bytes = 2048, workspace = 64>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  %y = remat.op "aten.convolution"(%x, %w) {cost = #remat.cost<workspace = 64, time = 2.0e6, bytes = 2048>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  // CHECK: remat.op "aten.dropout"(%{{.*}}) {cost = #remat.cost<time = 1.000000e+00, bytes = 2048, workspace = 0>, random}
  %d = remat.op "aten.dropout"(%y) {cost = #remat.cost<time = 1.0, bytes = 2048>, random} : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  // CHECK: remat.op "aten.relu"(%{{.*}}) {cost = #remat.cost<time = 1.000000e+00, bytes = 2048, workspace = 0>, overwrites = 0 : i64}
  %r = remat.op "aten.relu"(%d) {cost = #remat.cost<time = 1.0, bytes = 2048>, overwrites = 0} : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  // Dynamic shapes are fine when the cost gives the bytes.
  // CHECK: remat.op "aten.nonzero"
  %n = remat.op "aten.nonzero"(%d) {cost = #remat.cost<bytes = 100>} : (tensor<2x4x8x8xf32>) -> tensor<?x4xi64>
  return %d : tensor<2x4x8x8xf32>
}

// Discardable attributes and the loss result attribute.
// CHECK-LABEL: func.func @attributes
// CHECK-SAME: -> (tensor<4xf32>, tensor<f32> {remat.loss})
func.func @attributes(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32> {remat.loss}) {
  // CHECK: math.exp %{{.*}} {remat.cost = #remat.cost<time = 0.000000e+00, bytes = 0, workspace = 0>, remat.policy = #remat.policy<keep>, remat.stage = 3 : i64}
  %e = math.exp %x {remat.policy = #remat.policy<keep>, remat.cost = #remat.cost<>, remat.stage = 3 : i64} : tensor<4xf32>
  // CHECK: math.tanh %{{.*}} {remat.policy = #remat.policy<recompute>}
  %t = math.tanh %e {remat.policy = #remat.policy<recompute>} : tensor<4xf32>
  %z = arith.constant dense<0.0> : tensor<f32>
  return %t, %z : tensor<4xf32>, tensor<f32>
}

// A host copy and the prefetch that brings it back.
// CHECK-LABEL: func.func @host_copy
// CHECK-SAME: (%[[X:.*]]: tensor<4x?xf32>)
// CHECK-NEXT: %[[H:.*]] = remat.offload %[[X]] : tensor<4x?xf32>
// CHECK-NEXT: %[[D:.*]] = remat.prefetch %[[H]] : tensor<4x?xf32>
// CHECK-NEXT: return %[[D]]
func.func @host_copy(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %h = remat.offload %x : tensor<4x?xf32>
  %d = remat.prefetch %h : tensor<4x?xf32>
  return %d : tensor<4x?xf32>
}

// A result returned from its host copy (offload-results).
// CHECK-LABEL: func.func @host_result
// CHECK-NEXT: %[[H:.*]] = remat.offload %{{.*}} : tensor<4xf32>
// CHECK-NEXT: return %[[H]]
func.func @host_result(%x: tensor<4xf32>) -> tensor<4xf32> {
  %h = remat.offload %x : tensor<4xf32>
  return %h : tensor<4xf32>
}

// A host stack: rows copied out in one loop and back in another.
// CHECK-LABEL: func.func @host_stack
// CHECK: %[[S:.*]] = remat.host_empty : tensor<4x2x3xf32>
// CHECK: remat.offload_row %{{.*}} into %{{.*}}[%{{.*}}] : tensor<2x3xf32> into tensor<4x2x3xf32>
// CHECK: remat.prefetch_row %{{.*}}[%{{.*}}] : tensor<4x2x3xf32> to tensor<2x3xf32>
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
