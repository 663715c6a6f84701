// RUN: remat-opt %s -remat-inline-recompute=barriers=iree | FileCheck %s
// RUN: remat-opt %s -remat-inline-recompute=barriers=iree-ordered | FileCheck %s
// RUN: remat-opt %s -remat-inline-recompute | FileCheck %s --check-prefix=NONE

// With barriers, each tensor that a branch of an scf.if inside a loop
// computes and yields passes through a barrier of its own (IREE 3.13's VM
// loses one of two buffers packed together and passed to the merge block:
// iree-org/iree#24753). A value passed through the branch unchanged, a
// scalar, and the branches of an scf.if outside any loop are left alone.
// CHECK-LABEL: func.func @reversal
// CHECK:       scf.for
// CHECK:         scf.if
// CHECK:           %[[A:.*]] = linalg.add
// CHECK:           %[[B:.*]] = linalg.mul
// CHECK-DAG:       %[[FA:.*]] = "util.optimization_barrier"(%[[A]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-DAG:       %[[FB:.*]] = "util.optimization_barrier"(%[[B]]) : (tensor<8xf32>) -> tensor<8xf32>
// CHECK:           scf.yield %[[FA]], %[[FB]], %{{.*}} : tensor<4xf32>, tensor<8xf32>, index
// CHECK:         } else {
// CHECK-NOT:       util.optimization_barrier
// CHECK:           scf.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<8xf32>, index
// CHECK:         }
// CHECK:       scf.if
// CHECK-NOT:     util.optimization_barrier
// CHECK:       return
// NONE-NOT: util.optimization_barrier
func.func @reversal(%a: tensor<4xf32>, %b: tensor<8xf32>, %n: index,
                    %c: i1) -> (tensor<4xf32>, tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:3 = scf.for %i = %c0 to %n step %c1
      iter_args(%x = %a, %y = %b, %k = %c0) -> (tensor<4xf32>, tensor<8xf32>, index) {
    %p = arith.cmpi eq, %i, %k : index
    %s:3 = scf.if %p -> (tensor<4xf32>, tensor<8xf32>, index) {
      %e4 = tensor.empty() : tensor<4xf32>
      %e8 = tensor.empty() : tensor<8xf32>
      %nx = linalg.add ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
      %ny = linalg.mul ins(%y, %y : tensor<8xf32>, tensor<8xf32>) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
      %nk = arith.addi %k, %c1 : index
      scf.yield %nx, %ny, %nk : tensor<4xf32>, tensor<8xf32>, index
    } else {
      scf.yield %x, %y, %k : tensor<4xf32>, tensor<8xf32>, index
    }
    scf.yield %s#0, %s#1, %s#2 : tensor<4xf32>, tensor<8xf32>, index
  }
  %t = scf.if %c -> (tensor<4xf32>) {
    %e = tensor.empty() : tensor<4xf32>
    %z = linalg.add ins(%r#0, %r#0 : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %z : tensor<4xf32>
  } else {
    scf.yield %r#0 : tensor<4xf32>
  }
  return %t, %r#1 : tensor<4xf32>, tensor<8xf32>
}
