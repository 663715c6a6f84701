// RUN: remat-opt %s -remat-normalize-input | FileCheck %s
//
// Loop counters held in 0-d tensors (how StableHLO's while reaches SCF
// through stablehlo-legalize-to-linalg and stablehlo-legalize-control-flow)
// become scalars, and the rank-0 integer linalg ops on them arith ops, so
// that the scan matcher reads them as counters
// (lib/Loops/ScalarCounters.cpp). Float 0-d tensors, and functions without
// such a loop, are left as they are.

#scalar = affine_map<() -> ()>

// CHECK-LABEL: func.func @while_counter
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : i32
// CHECK:         %[[W:.*]]:2 = scf.while (%[[I:.*]] = %[[C0]], %{{.*}} = %{{.*}}) : (i32, tensor<4xf32>) -> (i32, tensor<4xf32>)
// CHECK:           %[[MORE:.*]] = arith.cmpi slt, %[[I]], %[[C8]] : i32
// CHECK:           scf.condition(%[[MORE]]) %[[I]]
// CHECK:         ^bb0(%[[J:.*]]: i32, %{{.*}}: tensor<4xf32>):
// CHECK:           %[[JX:.*]] = arith.index_cast %[[J]] : i32 to index
// CHECK:           tensor.insert %{{.*}} into %{{.*}}[%[[JX]]]
// CHECK:           %[[NEXT:.*]] = arith.addi %[[J]], %[[C1]] : i32
// CHECK:           scf.yield %[[NEXT]], %{{.*}} : i32, tensor<4xf32>
// CHECK:         %[[OUT:.*]] = tensor.from_elements %[[W]]#0 : tensor<i32>
// CHECK:         return %[[OUT]], %[[W]]#1 : tensor<i32>, tensor<4xf32>
// CHECK-NOT:     linalg.generic
func.func @while_counter(%v: tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
  %i0 = arith.constant dense<0> : tensor<i32>
  %i1 = arith.constant dense<1> : tensor<i32>
  %i8 = arith.constant dense<8> : tensor<i32>
  %one = arith.constant 1.0 : f32
  %r:2 = scf.while (%i = %i0, %acc = %v) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
    %lt_e = tensor.empty() : tensor<i1>
    %lt = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
        ins(%i, %i8 : tensor<i32>, tensor<i32>) outs(%lt_e : tensor<i1>) {
    ^bb0(%a: i32, %b: i32, %o: i1):
      %c = arith.cmpi slt, %a, %b : i32
      linalg.yield %c : i1
    } -> tensor<i1>
    %more = tensor.extract %lt[] : tensor<i1>
    scf.condition(%more) %i, %acc : tensor<i32>, tensor<4xf32>
  } do {
  ^bb0(%j: tensor<i32>, %a: tensor<4xf32>):
    %j32 = tensor.extract %j[] : tensor<i32>
    %jx = arith.index_cast %j32 : i32 to index
    %a1 = tensor.insert %one into %a[%jx] : tensor<4xf32>
    %n_e = tensor.empty() : tensor<i32>
    %n = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
        ins(%j, %i1 : tensor<i32>, tensor<i32>) outs(%n_e : tensor<i32>) {
    ^bb0(%x: i32, %y: i32, %o: i32):
      %s = arith.addi %x, %y : i32
      linalg.yield %s : i32
    } -> tensor<i32>
    scf.yield %n, %a1 : tensor<i32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<i32>, tensor<4xf32>
}

// linalg.map (stablehlo-legalize-to-linalg with enable-primitive-ops), in an
// scf.for carrying the counter as an iteration argument.
// CHECK-LABEL: func.func @for_map_counter
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[K:.*]] = %{{.*}}) -> (i64)
// CHECK:           %[[K2:.*]] = arith.muli %[[K]], %{{.*}} : i64
// CHECK:           scf.yield %[[K2]] : i64
// CHECK-NOT:     linalg.map
func.func @for_map_counter() -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %k0 = arith.constant dense<1> : tensor<i64>
  %two = arith.constant dense<2> : tensor<i64>
  %r = scf.for %t = %c0 to %c5 step %c1 iter_args(%k = %k0) -> (tensor<i64>) {
    %e = tensor.empty() : tensor<i64>
    %m = linalg.map { arith.muli } ins(%k, %two : tensor<i64>, tensor<i64>) outs(%e : tensor<i64>)
    scf.yield %m : tensor<i64>
  }
  return %r : tensor<i64>
}

// A loss accumulated in a tensor<f32> is not a counter: unchanged.
// CHECK-LABEL: func.func @float_carry
// CHECK:         scf.for {{.*}} -> (tensor<f32>)
// CHECK:           linalg.generic
func.func @float_carry(%x: tensor<f32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %r = scf.for %t = %c0 to %c5 step %c1 iter_args(%s = %x) -> (tensor<f32>) {
    %e = tensor.empty() : tensor<f32>
    %n = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
        ins(%s, %x : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %v = arith.addf %a, %b : f32
      linalg.yield %v : f32
    } -> tensor<f32>
    scf.yield %n : tensor<f32>
  }
  return %r : tensor<f32>
}

// No loop carries a 0-d integer tensor: the function is not touched.
// CHECK-LABEL: func.func @no_loop
// CHECK:         linalg.generic
func.func @no_loop(%a: tensor<i32>, %b: tensor<i32>) -> tensor<i32> {
  %e = tensor.empty() : tensor<i32>
  %s = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
      ins(%a, %b : tensor<i32>, tensor<i32>) outs(%e : tensor<i32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %v = arith.addi %x, %y : i32
    linalg.yield %v : i32
  } -> tensor<i32>
  return %s : tensor<i32>
}
