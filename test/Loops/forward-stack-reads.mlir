// RUN: remat-opt %s -remat-normalize-input | FileCheck %s
// RUN: remat-opt %s -remat-checkpoint-scans=slots=2 -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
//
// A loop that reads back rows of a stack it writes carries those values
// instead (lib/Loops/ForwardStackReads.cpp), where the row read is provably
// the one an earlier iteration, or the code before the loop, wrote. The
// rows the forwarded loops compute are checked on the CPU by
// forward-stack-reads-run.test (Fibonacci numbers, and the same bits as
// the loops not forwarded).

// hs[t + 1] = 2 hs[t]: one row back, h0 at row 0.
// CHECK-LABEL: func.func @one_back
// CHECK-SAME:    (%[[H0:.*]]: tensor<4xf32>)
// CHECK:         %[[S0:.*]] = tensor.insert_slice %[[H0]]
// CHECK:         scf.for %[[T:.*]] = {{.*}} iter_args(%[[S:.*]] = %[[S0]], %[[H:.*]] = %[[H0]])
// CHECK-NOT:       tensor.extract_slice
// CHECK:           %[[N:.*]] = arith.addf %[[H]], %[[H]]
// CHECK:           %[[W:.*]] = tensor.insert_slice %[[N]] into %[[S]]
// CHECK:           scf.yield %[[W]], %[[N]]
func.func @one_back(%h0: tensor<4xf32>) -> tensor<9x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %e = tensor.empty() : tensor<9x4xf32>
  %s0 = tensor.insert_slice %h0 into %e[0, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<9x4xf32>
  %r = scf.for %t = %c0 to %c8 step %c1 iter_args(%s = %s0) -> (tensor<9x4xf32>) {
    %h = tensor.extract_slice %s[%t, 0] [1, 4] [1, 1] : tensor<9x4xf32> to tensor<4xf32>
    %n = arith.addf %h, %h : tensor<4xf32>
    %t1 = arith.addi %t, %c1 : index
    %w = tensor.insert_slice %n into %s[%t1, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<9x4xf32>
    scf.yield %w : tensor<9x4xf32>
  }
  return %r : tensor<9x4xf32>
}

// x[t + 2] = x[t + 1] + x[t] (two rows back: a shift register of two
// carries, from rows 1 and 0), in an scf.while counting t.
// CHECK-LABEL: func.func @two_back
// CHECK-SAME:    (%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>)
// CHECK:         scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %[[B]], %{{.*}} = %[[A]])
// CHECK:           scf.condition
// CHECK:         ^bb0(%[[T:.*]]: index, %[[S:.*]]: tensor<12xf32>, %[[X1:.*]]: tensor<f32>, %[[X2:.*]]: tensor<f32>):
// CHECK-NOT:       tensor.extract_slice
// CHECK:           %[[N:.*]] = arith.addf %[[X1]], %[[X2]]
// CHECK:           scf.yield %{{.*}}, %{{.*}}, %[[N]], %[[X1]]
func.func @two_back(%a: tensor<f32>, %b: tensor<f32>) -> tensor<12xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c10 = arith.constant 10 : index
  %e = tensor.empty() : tensor<12xf32>
  %s0 = tensor.insert_slice %a into %e[0] [1] [1] : tensor<f32> into tensor<12xf32>
  %s1 = tensor.insert_slice %b into %s0[1] [1] [1] : tensor<f32> into tensor<12xf32>
  %r:2 = scf.while (%t = %c0, %s = %s1) : (index, tensor<12xf32>) -> (index, tensor<12xf32>) {
    %more = arith.cmpi slt, %t, %c10 : index
    scf.condition(%more) %t, %s : index, tensor<12xf32>
  } do {
  ^bb0(%t: index, %s: tensor<12xf32>):
    %t1 = arith.addi %t, %c1 : index
    %x1 = tensor.extract_slice %s[%t1] [1] [1] : tensor<12xf32> to tensor<f32>
    %x0 = tensor.extract_slice %s[%t] [1] [1] : tensor<12xf32> to tensor<f32>
    %n = arith.addf %x1, %x0 : tensor<f32>
    %t2 = arith.addi %t, %c2 : index
    %w = tensor.insert_slice %n into %s[%t2] [1] [1] : tensor<f32> into tensor<12xf32>
    %next = arith.addi %t, %c1 : index
    scf.yield %next, %w : index, tensor<12xf32>
  }
  return %r#1 : tensor<12xf32>
}

// Not forwarded: the row read is the one this iteration writes (zero rows
// back: the stack as it entered holds no value there yet).
// REMARK: remark: loop not checkpointed: its stack (iteration argument #0) is read in the body (tensor.extract_slice of row i) as well as written at row i: only a read of a row an earlier iteration or the code before the loop wrote can be carried instead
// CHECK-LABEL: func.func @same_row
// CHECK:         scf.for {{.*}} -> (tensor<8x4xf32>)
// CHECK:           tensor.extract_slice
func.func @same_row(%e: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %t = %c0 to %c8 step %c1 iter_args(%s = %e) -> (tensor<8x4xf32>) {
    %h = tensor.extract_slice %s[%t, 0] [1, 4] [1, 1] : tensor<8x4xf32> to tensor<4xf32>
    %n = arith.addf %h, %h : tensor<4xf32>
    %w = tensor.insert_slice %n into %s[%t, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<8x4xf32>
    scf.yield %w : tensor<8x4xf32>
  }
  return %r : tensor<8x4xf32>
}

// Not forwarded: row 0, read at the first step, was not written before the
// loop (the stack an argument: its rows are not known values).
// REMARK: remark: loop not checkpointed: its stack (iteration argument #0) is read in the body (tensor.extract_slice of row i) as well as written at row i + 1: only
// CHECK-LABEL: func.func @no_initial_row
// CHECK:         scf.for {{.*}} -> (tensor<9x4xf32>)
// CHECK:           tensor.extract_slice
func.func @no_initial_row(%e: tensor<9x4xf32>) -> tensor<9x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %t = %c0 to %c8 step %c1 iter_args(%s = %e) -> (tensor<9x4xf32>) {
    %h = tensor.extract_slice %s[%t, 0] [1, 4] [1, 1] : tensor<9x4xf32> to tensor<4xf32>
    %n = arith.addf %h, %h : tensor<4xf32>
    %t1 = arith.addi %t, %c1 : index
    %w = tensor.insert_slice %n into %s[%t1, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<9x4xf32>
    scf.yield %w : tensor<9x4xf32>
  }
  return %r : tensor<9x4xf32>
}

// Not forwarded: a row read at an index not affine in the step (t * t).
// REMARK: remark: loop not checkpointed: its stack (iteration argument #0) is read in the body (tensor.extract_slice of row %{{[0-9]+}}) as well as written at row i + 1: only
// CHECK-LABEL: func.func @not_affine
// CHECK:         scf.for {{.*}} -> (tensor<9x4xf32>)
// CHECK:           tensor.extract_slice
func.func @not_affine(%h0: tensor<4xf32>) -> tensor<9x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %e = tensor.empty() : tensor<9x4xf32>
  %s0 = tensor.insert_slice %h0 into %e[0, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<9x4xf32>
  %r = scf.for %t = %c0 to %c3 step %c1 iter_args(%s = %s0) -> (tensor<9x4xf32>) {
    %tt = arith.muli %t, %t : index
    %h = tensor.extract_slice %s[%tt, 0] [1, 4] [1, 1] : tensor<9x4xf32> to tensor<4xf32>
    %n = arith.addf %h, %h : tensor<4xf32>
    %t1 = arith.addi %t, %c1 : index
    %w = tensor.insert_slice %n into %s[%t1, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<9x4xf32>
    scf.yield %w : tensor<9x4xf32>
  }
  return %r : tensor<9x4xf32>
}
