// The input clean-up of -remat-fit merges equal index and scalar
// arithmetic, constants, tensor.empty (no contents) and constant fills,
// but never two equal tensor computations: the
// second is a recomputation the input wrote (a hand adjoint, jax.checkpoint
// output), part of a plan it already has. Upstream's cse merges both.
// RUN: remat-opt %s -remat-cse-scalars | FileCheck %s
// RUN: remat-opt %s -cse | FileCheck %s --check-prefix=UPSTREAM

// CHECK-LABEL: func.func @step
// CHECK: %[[C0:.*]] = arith.constant 0.0
// CHECK-NOT: arith.constant 0.0
// CHECK: %[[M:.*]] = arith.addi
// CHECK-NOT: arith.addi
// CHECK: %[[E:.*]] = tensor.empty(%[[M]])
// CHECK: linalg.exp {{.*}}outs(%[[E]]
// CHECK-NOT: tensor.empty(%
// CHECK: linalg.exp {{.*}}outs(%[[E]]
// CHECK-NOT: linalg.exp
// CHECK: %[[Z:.*]] = linalg.fill ins(%[[C0]] : f32)
// CHECK-NOT: linalg.fill
// CHECK: scf.execute_region
// CHECK-NEXT: arith.muli %[[M]], %[[M]]
// CHECK: arith.addf %[[C0]], %[[C0]]
// CHECK: return {{.*}}, %[[Z]], %[[Z]] :
// UPSTREAM-LABEL: func.func @step
// UPSTREAM-COUNT-1: linalg.exp
// UPSTREAM-NOT: linalg.exp
func.func @step(%x: tensor<?xf32>, %n: index) -> (tensor<f32>, tensor<?xf32>, index, tensor<f32>, tensor<f32>) {
  %z1 = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %m1 = arith.addi %n, %c1 : index
  %e1 = tensor.empty(%m1) : tensor<?xf32>
  %s1 = tensor.extract_slice %x[0] [%m1] [1] : tensor<?xf32> to tensor<?xf32>
  %a = linalg.exp ins(%s1 : tensor<?xf32>) outs(%e1 : tensor<?xf32>) -> tensor<?xf32>
  %z2 = arith.constant 0.0 : f32
  %m2 = arith.addi %n, %c1 : index
  %e2 = tensor.empty(%m2) : tensor<?xf32>
  %s2 = tensor.extract_slice %x[0] [%m2] [1] : tensor<?xf32> to tensor<?xf32>
  %a2 = linalg.exp ins(%s2 : tensor<?xf32>) outs(%e2 : tensor<?xf32>) -> tensor<?xf32>
  %el = tensor.empty() : tensor<f32>
  %zl = linalg.fill ins(%z2 : f32) outs(%el : tensor<f32>) -> tensor<f32>
  %el2 = tensor.empty() : tensor<f32>
  %zl2 = linalg.fill ins(%z1 : f32) outs(%el2 : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%a : tensor<?xf32>) outs(%zl : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  // Nested blocks see the values of the blocks around them.
  %r = scf.execute_region -> index {
    %m3 = arith.addi %n, %c1 : index
    %k = arith.muli %m3, %m3 : index
    scf.yield %k : index
  }
  %z3 = arith.addf %z1, %z2 : f32
  return %l, %a2, %r, %zl, %zl2 : tensor<f32>, tensor<?xf32>, index, tensor<f32>, tensor<f32>
}
