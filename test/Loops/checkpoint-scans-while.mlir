// Scans whose forward loop is an scf.while (the trip count known only when
// it ends): recognition, every refusal, and the shape of the online rewrite.
// RUN: remat-opt %s -remat-checkpoint-scans=slots=2 -split-input-file -verify-diagnostics | FileCheck %s

// At most 4 steps, run while i < %n: the forward loop stacks its carry at
// the counter, the backward loop runs to the counter's result reading row
// (count-1)-j. With 2 slots the online rule is optimal up to
// beta(2, 2) - 1 = 5 steps (each step past the two slots costs one
// advance); for all 4 steps: 4 + (4 - 2) = 6 forward steps. Position 0 is
// never dropped, so slot 0 is the init itself and the stack has one row.
// CHECK-LABEL: func.func @while_scan
// CHECK-NOT: tensor<4x2xf32>
// CHECK: tensor.empty() : tensor<1x2xf32>
// CHECK: tensor.empty() : tensor<2xindex>
// The forward loop keeps the original condition and decides each store.
// CHECK: scf.while
// CHECK: arith.cmpi slt
// CHECK: scf.condition
// CHECK: } do {
// CHECK: scf.if
// CHECK: math.sin
// CHECK: linalg.copy
// No peeled step: the interpreter runs until no step is left to reverse.
// CHECK-NOT: math.cos
// CHECK: scf.while
// CHECK: arith.cmpi sgt
// CHECK: scf.condition
// CHECK: math.sin
// CHECK: math.cos
// CHECK-NOT: tensor<4x2xf32>
// CHECK: return
func.func @while_scan(%h0: tensor<2xf32>, %n: index) -> (tensor<2xf32>, tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{while loop of at most 4 steps checkpointed online with 2 slots of 8 B (stacks of 32 B dropped): the fewest forward steps for 2 checkpoints while it runs at most 5 steps; 6 forward steps if it runs all 4}}
  %f:3 = scf.while (%i = %c0, %h = %h0, %s = %s0) : (index, tensor<2xf32>, tensor<4x2xf32>) -> (index, tensor<2xf32>, tensor<4x2xf32>) {
    %more = arith.cmpi slt, %i, %n : index
    scf.condition(%more) %i, %h, %s : index, tensor<2xf32>, tensor<4x2xf32>
  } do {
  ^bb0(%i: index, %h: tensor<2xf32>, %s: tensor<4x2xf32>):
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    %i1 = arith.addi %i, %c1 : index
    scf.yield %i1, %hn, %s1 : index, tensor<2xf32>, tensor<4x2xf32>
  }
  %last = arith.subi %f#0, %c1 : index
  %b = scf.for %j = %c0 to %f#0 step %c1 iter_args(%d = %f#1) -> (tensor<2xf32>) {
    %i = arith.subi %last, %j : index
    %hi = tensor.extract_slice %f#2[%i, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %c = math.cos %hi : tensor<2xf32>
    %dn = arith.mulf %d, %c : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %f#1, %b : tensor<2xf32>, tensor<2xf32>
}

// -----

// A condition on the carry (run until it converges): the same rewrite.
// CHECK-LABEL: func.func @until_small
// CHECK-NOT: tensor<8x2xf32>
// CHECK: tensor.extract
// CHECK: arith.cmpf
// CHECK: scf.condition
func.func @until_small(%h0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %tol = arith.constant 0.5 : f32
  %s0 = tensor.empty() : tensor<8x2xf32>
  // expected-remark @+1 {{while loop of at most 8 steps checkpointed online with 2 slots}}
  %f:3 = scf.while (%i = %c0, %h = %h0, %s = %s0) : (index, tensor<2xf32>, tensor<8x2xf32>) -> (index, tensor<2xf32>, tensor<8x2xf32>) {
    %x = tensor.extract %h[%c0] : tensor<2xf32>
    %big = arith.cmpf ogt, %x, %tol : f32
    %room = arith.cmpi slt, %i, %c8 : index
    %more = arith.andi %big, %room : i1
    scf.condition(%more) %i, %h, %s : index, tensor<2xf32>, tensor<8x2xf32>
  } do {
  ^bb0(%i: index, %h: tensor<2xf32>, %s: tensor<8x2xf32>):
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<8x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    %i1 = arith.addi %c1, %i : index
    scf.yield %i1, %hn, %s1 : index, tensor<2xf32>, tensor<8x2xf32>
  }
  %last = arith.subi %f#0, %c1 : index
  %b = scf.for %j = %c0 to %f#0 step %c1 iter_args(%d = %f#1) -> (tensor<2xf32>) {
    %i = arith.subi %last, %j : index
    %hi = tensor.extract_slice %f#2[%i, 0] [1, 2] [1, 1] : tensor<8x2xf32> to tensor<2xf32>
    %c = math.cos %hi : tensor<2xf32>
    %dn = arith.mulf %d, %c : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %f#1, %b : tensor<2xf32>, tensor<2xf32>
}

// -----

// An scf.for to a bound known only at run time (at most 4 steps: the
// stacks' rows): checkpointed online too, the forward loop becoming an
// scf.while on i < %n.
// CHECK-LABEL: func.func @for_to_n
// CHECK-NOT: tensor<4x2xf32>
// CHECK: scf.while
// CHECK: arith.cmpi slt, %{{.*}}, %arg1
// CHECK: scf.condition
// CHECK: math.sin
// CHECK: scf.while
// CHECK: math.cos
func.func @for_to_n(%h0: tensor<2xf32>, %n: index) -> (tensor<2xf32>, tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{loop to a run-time bound of at most 4 steps checkpointed online with 2 slots of 8 B (stacks of 32 B dropped)}}
  %f:2 = scf.for %i = %c0 to %n step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<2xf32>, tensor<4x2xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    scf.yield %hn, %s1 : tensor<2xf32>, tensor<4x2xf32>
  }
  %last = arith.subi %n, %c1 : index
  %b = scf.for %j = %c0 to %n step %c1 iter_args(%d = %f#0) -> (tensor<2xf32>) {
    %i = arith.subi %last, %j : index
    %hi = tensor.extract_slice %f#1[%i, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %c = math.cos %hi : tensor<2xf32>
    %dn = arith.mulf %d, %c : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %f#0, %b : tensor<2xf32>, tensor<2xf32>
}

// -----

// No counter from a constant by 1 (it starts at a run-time value): refused.
// (One from 1 is a counter: Inputs/rnn_while_from1.mlir, run.test.)
func.func @no_counter(%h0: tensor<2xf32>, %n: index, %start: index) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{loop not checkpointed: it has no counter from a constant by 1}}
  %f:3 = scf.while (%i = %start, %h = %h0, %s = %s0) : (index, tensor<2xf32>, tensor<4x2xf32>) -> (index, tensor<2xf32>, tensor<4x2xf32>) {
    %more = arith.cmpi slt, %i, %n : index
    scf.condition(%more) %i, %h, %s : index, tensor<2xf32>, tensor<4x2xf32>
  } do {
  ^bb0(%i: index, %h: tensor<2xf32>, %s: tensor<4x2xf32>):
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    %i1 = arith.addi %i, %c1 : index
    scf.yield %i1, %hn, %s1 : index, tensor<2xf32>, tensor<4x2xf32>
  }
  return %f#1 : tensor<2xf32>
}

// -----

// A counted while whose i8 counter would pass 127 (while i <= 127: 128
// iterations, the counter 128 after the last): refused, not planned as if
// it ended.
func.func @wraps(%h0: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : i8
  %c1 = arith.constant 1 : i8
  %c127 = arith.constant 127 : i8
  %s0 = tensor.empty() : tensor<128x2xf32>
  // expected-remark @+1 {{loop not checkpointed: its counter wraps around before its last iteration ends}}
  %f:3 = scf.while (%i = %c0, %h = %h0, %s = %s0) : (i8, tensor<2xf32>, tensor<128x2xf32>) -> (i8, tensor<2xf32>, tensor<128x2xf32>) {
    %more = arith.cmpi sle, %i, %c127 : i8
    scf.condition(%more) %i, %h, %s : i8, tensor<2xf32>, tensor<128x2xf32>
  } do {
  ^bb0(%i: i8, %h: tensor<2xf32>, %s: tensor<128x2xf32>):
    %row = arith.index_cast %i : i8 to index
    %s1 = tensor.insert_slice %h into %s[%row, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<128x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    %i1 = arith.addi %i, %c1 : i8
    scf.yield %i1, %hn, %s1 : i8, tensor<2xf32>, tensor<128x2xf32>
  }
  return %f#1 : tensor<2xf32>
}

// -----

// An online while whose i32 counter starts at a constant (2147483600) so
// close to the type's end that it would wrap before the stack's last row
// (64 rows: 2147483664) is written: refused. From 0 it would be one.
func.func @online_wraps(%h0: tensor<2xf32>, %n: i32) -> tensor<2xf32> {
  %c0 = arith.constant 2147483600 : i32
  %c1 = arith.constant 1 : i32
  %s0 = tensor.empty() : tensor<64x2xf32>
  // expected-remark @+1 {{loop not checkpointed: its counter wraps around before the stacks' last row is written}}
  %f:3 = scf.while (%i = %c0, %h = %h0, %s = %s0) : (i32, tensor<2xf32>, tensor<64x2xf32>) -> (i32, tensor<2xf32>, tensor<64x2xf32>) {
    %more = arith.cmpi slt, %i, %n : i32
    scf.condition(%more) %i, %h, %s : i32, tensor<2xf32>, tensor<64x2xf32>
  } do {
  ^bb0(%i: i32, %h: tensor<2xf32>, %s: tensor<64x2xf32>):
    %k = arith.subi %i, %c0 : i32
    %row = arith.index_cast %k : i32 to index
    %s1 = tensor.insert_slice %h into %s[%row, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<64x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    %i1 = arith.addi %i, %c1 : i32
    scf.yield %i1, %hn, %s1 : i32, tensor<2xf32>, tensor<64x2xf32>
  }
  return %f#1 : tensor<2xf32>
}

// -----

// A condition that hands the body other values than its arguments: refused.
func.func @reordered(%h0: tensor<2xf32>, %n: index) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{loop not checkpointed: its condition does not pass its arguments on unchanged to the body}}
  %f:3 = scf.while (%i = %c0, %h = %h0, %s = %s0) : (index, tensor<2xf32>, tensor<4x2xf32>) -> (index, tensor<2xf32>, tensor<4x2xf32>) {
    %more = arith.cmpi slt, %i, %n : index
    %hs = math.sin %h : tensor<2xf32>
    scf.condition(%more) %i, %hs, %s : index, tensor<2xf32>, tensor<4x2xf32>
  } do {
  ^bb0(%i: index, %h: tensor<2xf32>, %s: tensor<4x2xf32>):
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    %i1 = arith.addi %i, %c1 : index
    scf.yield %i1, %hn, %s1 : index, tensor<2xf32>, tensor<4x2xf32>
  }
  return %f#1 : tensor<2xf32>
}

// -----

// The backward loop runs to a bound of its own, not the counter's result:
// the remark names both trip counts.
func.func @other_bound(%h0: tensor<2xf32>, %n: index) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c3 = arith.constant 3 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{loop not checkpointed: the loop reading its stacks does not run n iterations (4)}}
  %f:3 = scf.while (%i = %c0, %h = %h0, %s = %s0) : (index, tensor<2xf32>, tensor<4x2xf32>) -> (index, tensor<2xf32>, tensor<4x2xf32>) {
    %more = arith.cmpi slt, %i, %n : index
    scf.condition(%more) %i, %h, %s : index, tensor<2xf32>, tensor<4x2xf32>
  } do {
  ^bb0(%i: index, %h: tensor<2xf32>, %s: tensor<4x2xf32>):
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    %i1 = arith.addi %i, %c1 : index
    scf.yield %i1, %hn, %s1 : index, tensor<2xf32>, tensor<4x2xf32>
  }
  // expected-remark @+1 {{loop not checkpointed: it stacks no per-iteration value}}
  %b = scf.for %j = %c0 to %c4 step %c1 iter_args(%d = %f#1) -> (tensor<2xf32>) {
    %i = arith.subi %c3, %j : index
    %hi = tensor.extract_slice %f#2[%i, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %c = math.cos %hi : tensor<2xf32>
    %dn = arith.mulf %d, %c : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %b : tensor<2xf32>
}

// -----

// A condition with side effects (a call of an external function): refused.
func.func private @log(index)
func.func @effects(%h0: tensor<2xf32>, %n: index) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{loop not checkpointed: its condition has side effects}}
  %f:3 = scf.while (%i = %c0, %h = %h0, %s = %s0) : (index, tensor<2xf32>, tensor<4x2xf32>) -> (index, tensor<2xf32>, tensor<4x2xf32>) {
    func.call @log(%i) : (index) -> ()
    %more = arith.cmpi slt, %i, %n : index
    scf.condition(%more) %i, %h, %s : index, tensor<2xf32>, tensor<4x2xf32>
  } do {
  ^bb0(%i: index, %h: tensor<2xf32>, %s: tensor<4x2xf32>):
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    %i1 = arith.addi %i, %c1 : index
    scf.yield %i1, %hn, %s1 : index, tensor<2xf32>, tensor<4x2xf32>
  }
  return %f#1 : tensor<2xf32>
}
