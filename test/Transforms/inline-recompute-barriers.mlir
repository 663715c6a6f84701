// RUN: remat-opt %s -remat-inline-recompute=barriers=iree | FileCheck %s
// RUN: remat-opt %s -remat-inline-recompute=barriers=iree -cse | FileCheck %s --check-prefix=CSE
// RUN: not remat-opt %s -remat-inline-recompute=barriers=maybe 2>&1 | FileCheck %s --check-prefix=BAD

// barriers=iree: the region's input and its result each pass through a
// util.optimization_barrier of their own (generic form: remat-opt loads no
// IREE dialect), so the recomputed exp reads another value than the
// original and CSE cannot merge the two.
// CHECK-LABEL: func.func @fenced
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:  %[[E:.*]] = math.exp %[[X]]
// CHECK-NEXT:  %[[IN:.*]] = "util.optimization_barrier"(%[[X]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:  %[[R:.*]] = math.exp %[[IN]]
// CHECK-NEXT:  %[[OUT:.*]] = "util.optimization_barrier"(%[[R]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:  %[[S:.*]] = arith.addf %[[E]], %[[OUT]]
// CHECK-NEXT:  return %[[S]]
// CSE-LABEL: func.func @fenced
// CSE-COUNT-2: math.exp
// BAD: barriers='maybe' is not none, iree or iree-ordered
func.func @fenced(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = math.exp %x : tensor<4xf32>
  %r = remat.recompute ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = math.exp %a : tensor<4xf32>
    remat.yield %0 : tensor<4xf32>
  }
  %s = arith.addf %e, %r : tensor<4xf32>
  return %s : tensor<4xf32>
}
