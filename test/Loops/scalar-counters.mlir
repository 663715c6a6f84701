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

// A counter carried beside the induction variable, as IREE's input
// conversion writes a `fori_loop` (its own counter, here a 0-d tensor,
// incremented by 1 beside an i32 loop from 2 by 3): the body reads it as
// init + k, k = (iv - 2) / 3, a function of the induction variable the
// scan matcher reads; unread after the loop, the carry is yielded
// unchanged.
// CHECK-LABEL: func.func @fori_counter
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : i32
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : i32
// CHECK:         scf.for %[[IV:.*]] = %[[C2]] to %{{.*}} step %[[C3]] iter_args(%[[N:.*]] = %[[INIT:[^,]*]], %{{.*}} = %{{.*}}) -> (i32, tensor<8xf32>)  : i32 {
// CHECK:           %[[D:.*]] = arith.subi %[[IV]], %[[C2]] : i32
// CHECK:           %[[K:.*]] = arith.divui %[[D]], %[[C3]] : i32
// CHECK:           %[[NOW:.*]] = arith.addi %[[INIT]], %[[K]] : i32
// CHECK:           %[[ROW:.*]] = arith.index_cast %[[NOW]] : i32 to index
// CHECK:           tensor.insert %{{.*}} into %{{.*}}[%[[ROW]]]
// CHECK:           scf.yield %[[N]], %{{.*}} : i32, tensor<8xf32>
func.func @fori_counter(%v: tensor<8xf32>, %x: f32) -> tensor<8xf32> {
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c20 = arith.constant 20 : i32
  %n0 = arith.constant dense<0> : tensor<i32>
  %one = arith.constant dense<1> : tensor<i32>
  %r:2 = scf.for %t = %c2 to %c20 step %c3 iter_args(%n = %n0, %acc = %v) -> (tensor<i32>, tensor<8xf32>) : i32 {
    %n32 = tensor.extract %n[] : tensor<i32>
    %row = arith.index_cast %n32 : i32 to index
    %a1 = tensor.insert %x into %acc[%row] : tensor<8xf32>
    %e = tensor.empty() : tensor<i32>
    %next = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
        ins(%one, %n : tensor<i32>, tensor<i32>) outs(%e : tensor<i32>) {
    ^bb0(%a: i32, %b: i32, %o: i32):
      %s = arith.addi %a, %b : i32
      linalg.yield %s : i32
    } -> tensor<i32>
    scf.yield %next, %a1 : tensor<i32>, tensor<8xf32>
  }
  return %r#1 : tensor<8xf32>
}

// Counting down from 7 in an index carry, the count read after the loop:
// the body reads 7 + -1 * k, and the carry keeps its increment for the
// result.
// CHECK-LABEL: func.func @down_counter_read_after
// CHECK:         %[[R:.*]]:2 = scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[N:.*]] = %[[INIT:[^,]*]], %{{.*}} = %{{.*}}) -> (index, tensor<8xf32>) {
// CHECK:           %[[T:.*]] = arith.muli %[[IV]], %{{.*}} : index
// CHECK:           %[[NOW:.*]] = arith.addi %[[INIT]], %[[T]] : index
// CHECK:           tensor.insert %{{.*}} into %{{.*}}[%[[NOW]]]
// CHECK:           %[[NEXT:.*]] = arith.addi %{{.*}}, %[[N]] : index
// CHECK:           scf.yield %[[NEXT]], %{{.*}} : index, tensor<8xf32>
// CHECK:         return %[[R]]#0, %[[R]]#1
func.func @down_counter_read_after(%v: tensor<8xf32>, %x: f32) -> (index, tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c7 = arith.constant 7 : index
  %m1 = arith.constant -1 : index
  %r:2 = scf.for %t = %c0 to %c8 step %c1 iter_args(%n = %c7, %acc = %v) -> (index, tensor<8xf32>) {
    %a1 = tensor.insert %x into %acc[%n] : tensor<8xf32>
    %next = arith.addi %m1, %n : index
    scf.yield %next, %a1 : index, tensor<8xf32>
  }
  return %r#0, %r#1 : index, tensor<8xf32>
}

// A carry that doubles is no counter: read as it is.
// CHECK-LABEL: func.func @doubling_carry
// CHECK:         scf.for %{{.*}} iter_args(%[[N:.*]] = %{{.*}}, %{{.*}} = %{{.*}}) -> (index, tensor<8xf32>) {
// CHECK:           tensor.insert %{{.*}} into %{{.*}}[%[[N]]]
func.func @doubling_carry(%v: tensor<8xf32>, %x: f32) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:2 = scf.for %t = %c0 to %c3 step %c1 iter_args(%n = %c1, %acc = %v) -> (index, tensor<8xf32>) {
    %a1 = tensor.insert %x into %acc[%n] : tensor<8xf32>
    %next = arith.addi %n, %n : index
    scf.yield %next, %a1 : index, tensor<8xf32>
  }
  return %r#1 : tensor<8xf32>
}

// The next count read in the body too (a row written at n + 1): read as
// init + k + 1, and the increment then feeds the yield alone, which keeps
// the count as it came.
// CHECK-LABEL: func.func @next_count_read
// CHECK:         scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[N:.*]] = %[[INIT:[^,]*]], %{{.*}} = %{{.*}}) -> (index, tensor<8xf32>) {
// CHECK:           %[[NOW:.*]] = arith.addi %[[INIT]], %[[IV]] : index
// CHECK:           %[[NEXT:.*]] = arith.addi %[[NOW]], %[[C1:.*]] : index
// CHECK:           tensor.insert %{{.*}} into %{{.*}}[%[[NEXT]]]
// CHECK:           scf.yield %[[N]], %{{.*}} : index, tensor<8xf32>
func.func @next_count_read(%v: tensor<8xf32>, %x: f32) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %r:2 = scf.for %t = %c0 to %c7 step %c1 iter_args(%n = %c0, %acc = %v) -> (index, tensor<8xf32>) {
    %next = arith.addi %n, %c1 : index
    %a1 = tensor.insert %x into %acc[%next] : tensor<8xf32>
    scf.yield %next, %a1 : index, tensor<8xf32>
  }
  return %r#1 : tensor<8xf32>
}
