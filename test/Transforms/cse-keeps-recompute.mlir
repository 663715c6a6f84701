// Recomputations survive the usual clean-up: CSE neither merges a clone back
// into its original nor two recomputations of the same value, and
// canonicalization does not delete them.
// RUN: remat-opt %s -cse -canonicalize -cse | FileCheck %s
// Once inlined (the last tensor-level step), CSE would merge them; this is
// why -remat-inline-recompute must come after the last CSE.
// RUN: remat-opt %s -remat-inline-recompute -cse | FileCheck %s --check-prefix=INLINED

// CHECK-LABEL: func.func @twice
// CHECK: %[[E:.*]] = math.exp %arg0
// CHECK: remat.recompute ins(%[[E]]
// CHECK:   math.exp
// CHECK: remat.recompute ins(%[[E]]
// CHECK:   math.exp
// INLINED-LABEL: func.func @twice
// INLINED-COUNT-2: math.exp
// INLINED-NOT: math.exp
func.func @twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = math.exp %x : tensor<4xf32>
  %r1 = remat.recompute ins(%e : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = math.exp %a : tensor<4xf32>
    remat.yield %0 : tensor<4xf32>
  }
  %r2 = remat.recompute ins(%e : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = math.exp %a : tensor<4xf32>
    remat.yield %0 : tensor<4xf32>
  }
  %f = math.exp %e : tensor<4xf32>
  %s = arith.addf %r1, %r2 : tensor<4xf32>
  %t = arith.addf %s, %f : tensor<4xf32>
  return %t : tensor<4xf32>
}

// A random remat.op is never merged or deleted; a pure one is.
// CHECK-LABEL: func.func @random
// CHECK-COUNT-2: remat.op "aten.dropout"
// CHECK-NOT: aten.relu
func.func @random(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = remat.op "aten.dropout"(%x) {cost = #remat.cost<bytes = 16>, random} : (tensor<4xf32>) -> tensor<4xf32>
  %b = remat.op "aten.dropout"(%x) {cost = #remat.cost<bytes = 16>, random} : (tensor<4xf32>) -> tensor<4xf32>
  %unused = remat.op "aten.relu"(%x) {cost = #remat.cost<bytes = 16>} : (tensor<4xf32>) -> tensor<4xf32>
  %s = arith.addf %a, %b : tensor<4xf32>
  return %s : tensor<4xf32>
}
