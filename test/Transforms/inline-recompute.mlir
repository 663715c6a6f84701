// RUN: remat-opt %s -remat-inline-recompute | FileCheck %s

// The region's ops land where the op was, reading the op's inputs, and the
// op's uses read the yielded values.
// CHECK-LABEL: func.func @inline
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:  %[[E:.*]] = math.exp %[[X]]
// CHECK-NEXT:  %[[R:.*]] = math.exp %[[E]]
// CHECK-NEXT:  %[[T:.*]] = math.tanh %[[R]]
// CHECK-NEXT:  %[[S:.*]] = arith.addf %[[R]], %[[T]]
// CHECK-NEXT:  return %[[S]]
// CHECK-NOT: remat.
func.func @inline(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = math.exp %x : tensor<4xf32>
  %r:2 = remat.recompute ins(%e : tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = math.exp %a : tensor<4xf32>
    %1 = math.tanh %0 : tensor<4xf32>
    remat.yield %0, %1 : tensor<4xf32>, tensor<4xf32>
  }
  %s = arith.addf %r#0, %r#1 : tensor<4xf32>
  return %s : tensor<4xf32>
}

// Nested recomputations dissolve too, inner first.
// CHECK-LABEL: func.func @nested
// CHECK-NEXT: %[[A:.*]] = math.exp %arg0
// CHECK-NEXT: %[[B:.*]] = math.tanh %[[A]]
// CHECK-NEXT: return %[[B]]
func.func @nested(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = remat.recompute ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %i = remat.recompute ins(%a : tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%b: tensor<4xf32>):
      %0 = math.exp %b : tensor<4xf32>
      remat.yield %0 : tensor<4xf32>
    }
    %1 = math.tanh %i : tensor<4xf32>
    remat.yield %1 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
