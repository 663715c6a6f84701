// Recognition of scans and every refusal, then the shape of the rewrite.
// RUN: remat-opt %s -remat-checkpoint-scans=slots=2 -split-input-file -verify-diagnostics | FileCheck %s

// A scan of T = 4 steps: the forward loop stacks its carry, the backward
// loop reads row 3 - j. With 2 slots the carry (8 B) is kept at position 0
// and at the first split; t(4, 2) = r T - beta(3, r - 1) with r = 2
// (beta(2, 1) = 3 < 4 <= beta(2, 2) = 6) is 8 - 4 = 4 advances, plus the
// step from carry_3 to carry_4: 5 forward steps. Slot 0 is %h0 itself (it
// stays unchanged), so the slot stack has one row, for the other slot.
// CHECK-LABEL: func.func @scan
// CHECK-SAME: (%[[H0:.*]]: tensor<2xf32>)
// CHECK-NOT: tensor<4x2xf32>
// CHECK: tensor.empty() : tensor<1x2xf32>
// CHECK: tensor.empty() : tensor<2xindex>
// The forward loop stops before the last step, which follows it.
// CHECK: scf.for %{{.*}} = %{{.*}} to %c3{{.*}} step
// CHECK: scf.if
// CHECK: math.sin
// CHECK: linalg.copy
// CHECK: math.sin
// The first backward step, then the interpreter over the other actions,
// which carries a working buffer: each action copies the top slot into it
// (slot 0 from %h0, the others from the stack) and advances it in place.
// CHECK: math.cos
// CHECK: %[[WORK:.*]] = tensor.empty() : tensor<2xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c{{[0-9]+}}{{.*}} step {{.*}} iter_args({{.*}}%[[W:.*]] = %[[WORK]],
// CHECK: scf.if
// CHECK: scf.if
// CHECK-NEXT: linalg.copy ins(%[[H0]] : tensor<2xf32>) outs(%[[W]] : tensor<2xf32>)
// CHECK: } else {
// CHECK: tensor.extract_slice
// CHECK-NEXT: linalg.copy ins(%{{.*}} : tensor<2xf32>) outs(%[[W]] : tensor<2xf32>)
// CHECK: scf.for
// CHECK: math.sin
// CHECK: math.cos
// CHECK: } else {
// CHECK: scf.while
// CHECK-NOT: tensor<4x2xf32>
// CHECK: return
func.func @scan(%h0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{scan of 4 steps checkpointed with 2 slots of 8 B (stacks of 32 B dropped): 5 forward steps (the minimum for 2 checkpoints plus one)}}
  %f:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<2xf32>, tensor<4x2xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    scf.yield %hn, %s1 : tensor<2xf32>, tensor<4x2xf32>
  }
  %b = scf.for %j = %c0 to %c4 step %c1 iter_args(%d = %f#0) -> (tensor<2xf32>) {
    %i = arith.subi %c3, %j : index
    %hi = tensor.extract_slice %f#1[%i, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %c = math.cos %hi : tensor<2xf32>
    %dn = arith.mulf %d, %c : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %f#0, %b : tensor<2xf32>, tensor<2xf32>
}

// -----

// A stack also read after the loop other than at a carry's row (two rows
// at once, as a loss over every step's output reads it whole), beside one
// the backward loop reads: the rewrite drops that one and keeps writing
// the first, row by row as the body did, in the forward loop and in the
// step peeled after it; the backward loop's reads are recomputed.
// CHECK-LABEL: func.func @kept_whole
// CHECK: %[[S0:.*]] = tensor.empty() : tensor<4x2xf32>
// CHECK-NOT: tensor.empty() : tensor<4x64xf32>
// CHECK: %[[F:.*]]:6 = scf.for {{.*}} iter_args({{.*}}%[[S:.*]] = %[[S0]]) -> ({{.*}}, tensor<4x2xf32>)
// CHECK: %[[ROW:.*]] = tensor.insert_slice %{{.*}} into %[[S]]
// CHECK: scf.yield {{.*}}, %[[ROW]] : {{.*}}, tensor<4x2xf32>
// CHECK: %[[LAST:.*]] = tensor.insert_slice %{{.*}} into %[[F]]#5[%c3
// CHECK: tensor.extract_slice %[[LAST]][0, 0] [2, 2] [1, 1]
func.func @kept_whole(%h0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  %q0 = tensor.empty() : tensor<4x64xf32>
  // expected-remark @+1 {{scan of 4 steps checkpointed with 2 slots of 8 B (stacks of 1024 B dropped, 32 B kept for their reads after the loop): 5 forward steps}}
  %f:3 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %s = %s0, %q = %q0) -> (tensor<2xf32>, tensor<4x2xf32>, tensor<4x64xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    %x = tensor.extract %hn[%c0] : tensor<2xf32>
    %v0 = tensor.empty() : tensor<64xf32>
    %v = linalg.fill ins(%x : f32) outs(%v0 : tensor<64xf32>) -> tensor<64xf32>
    %q1 = tensor.insert_slice %v into %q[%i, 0] [1, 64] [1, 1] : tensor<64xf32> into tensor<4x64xf32>
    scf.yield %hn, %s1, %q1 : tensor<2xf32>, tensor<4x2xf32>, tensor<4x64xf32>
  }
  %two = tensor.extract_slice %f#1[0, 0] [2, 2] [1, 1] : tensor<4x2xf32> to tensor<2x2xf32>
  %b = scf.for %j = %c0 to %c4 step %c1 iter_args(%d = %f#0) -> (tensor<2xf32>) {
    %i = arith.subi %c3, %j : index
    %yi = tensor.extract_slice %f#2[%i, 0] [1, 64] [1, 1] : tensor<4x64xf32> to tensor<64xf32>
    %y = tensor.extract %yi[%c0] : tensor<64xf32>
    %c = tensor.from_elements %y, %y : tensor<2xf32>
    %dn = arith.mulf %d, %c : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %b, %two : tensor<2xf32>, tensor<2x2xf32>
}

// -----

// Every stack also read after the loop (here after the one reading it
// back): checkpointing would drop none of them and only add its slots.
func.func @kept_after_backward(%h0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{loop not checkpointed: its stacks are all also read after the loop (tensor.extract_slice), the last time after the loop reading them back: checkpointing would drop none of them}}
  %f:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<2xf32>, tensor<4x2xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    scf.yield %hn, %s1 : tensor<2xf32>, tensor<4x2xf32>
  }
  // expected-remark @+1 {{loop not checkpointed: it stacks no per-iteration value}}
  %b = scf.for %j = %c0 to %c4 step %c1 iter_args(%d = %f#0) -> (tensor<2xf32>) {
    %i = arith.subi %c3, %j : index
    %hi = tensor.extract_slice %f#1[%i, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %c = math.cos %hi : tensor<2xf32>
    %dn = arith.mulf %d, %c : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  %two = tensor.extract_slice %f#1[0, 0] [2, 2] [1, 1] : tensor<4x2xf32> to tensor<2x2xf32>
  return %b, %two : tensor<2xf32>, tensor<2x2xf32>
}

// -----

// The same in the online form (a loop to a run-time bound): the emitted
// forward scf.while carries the kept stack and writes its rows as the body
// did; the other stack is dropped. (The lifetime model counts no copy of
// the positions there, as bufferization makes none;
// Inputs/rnn_dynamic_loss_all.mlir runs it on the CPU.)
// CHECK-LABEL: func.func @kept_online
// CHECK: %[[S0:.*]] = tensor.empty() : tensor<4x2xf32>
// CHECK-NOT: tensor.empty() : tensor<4x64xf32>
// CHECK: %[[F:.*]]:8 = scf.while ({{.*}}%[[S:.*]] = %[[S0]]) : ({{.*}}, tensor<4x2xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
// CHECK: tensor.extract_slice %[[F]]#7[0, 0] [2, 2] [1, 1]
func.func @kept_online(%h0: tensor<2xf32>, %n: index) -> (tensor<2xf32>, tensor<2x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  %q0 = tensor.empty() : tensor<4x64xf32>
  // expected-remark @+1 {{loop to a run-time bound of at most 4 steps checkpointed online with 2 slots of 8 B (stacks of 1024 B dropped, 32 B kept for their reads after the loop)}}
  %f:3 = scf.for %i = %c0 to %n step %c1 iter_args(%h = %h0, %s = %s0, %q = %q0) -> (tensor<2xf32>, tensor<4x2xf32>, tensor<4x64xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    %x = tensor.extract %hn[%c0] : tensor<2xf32>
    %v0 = tensor.empty() : tensor<64xf32>
    %v = linalg.fill ins(%x : f32) outs(%v0 : tensor<64xf32>) -> tensor<64xf32>
    %q1 = tensor.insert_slice %v into %q[%i, 0] [1, 64] [1, 1] : tensor<64xf32> into tensor<4x64xf32>
    scf.yield %hn, %s1, %q1 : tensor<2xf32>, tensor<4x2xf32>, tensor<4x64xf32>
  }
  %two = tensor.extract_slice %f#1[0, 0] [2, 2] [1, 1] : tensor<4x2xf32> to tensor<2x2xf32>
  %nm1 = arith.subi %n, %c1 : index
  %b = scf.for %j = %c0 to %n step %c1 iter_args(%d = %f#0) -> (tensor<2xf32>) {
    %i = arith.subi %nm1, %j : index
    %yi = tensor.extract_slice %f#2[%i, 0] [1, 64] [1, 1] : tensor<4x64xf32> to tensor<64xf32>
    %y = tensor.extract %yi[%c0] : tensor<64xf32>
    %c = tensor.from_elements %y, %y : tensor<2xf32>
    %dn = arith.mulf %d, %c : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %b, %two : tensor<2xf32>, tensor<2x2xf32>
}

// -----

// A scan carrying an integer scalar beside its state (a count kept as it
// goes): the slots hold rows of tensors, so it is left as it is, with the
// way out. (A float scalar, a loss summed in an f32, is carried as a
// tensor<f32> first: tensor-carries.mlir, Inputs/rnn_loss_scalar.mlir.)
// The remark names this reason, not "iteration argument #1 is not a
// statically shaped tensor", and says nothing of scalar carries of loops
// that stack nothing.
func.func @scalar_carry(%h0: tensor<2xf32>) -> (tensor<2xf32>, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{loop not checkpointed: its iteration argument #1 (i32) is carried but is not a tensor of a static shape, and only those are kept in the checkpoints: carry a scalar as a 0-d tensor (tensor.from_elements before the loop, tensor.extract in the body)}}
  %f:3 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %l = %z, %s = %s0) -> (tensor<2xf32>, i32, tensor<4x2xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    %ln = arith.addi %l, %one : i32
    scf.yield %hn, %ln, %s1 : tensor<2xf32>, i32, tensor<4x2xf32>
  }
  // expected-remark @+1 {{loop not checkpointed: it stacks no per-iteration value}}
  %b = scf.for %j = %c0 to %c4 step %c1 iter_args(%d = %f#0) -> (tensor<2xf32>) {
    %i = arith.subi %c3, %j : index
    %hi = tensor.extract_slice %f#2[%i, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %c = math.cos %hi : tensor<2xf32>
    %dn = arith.mulf %d, %c : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %b, %f#1 : tensor<2xf32>, i32
}

// -----

// A loop that carries a scalar and no stack (an accumulation): named for
// what it lacks, a stack.
func.func @scalar_no_stack(%x: tensor<2xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  // expected-remark @+1 {{loop not checkpointed: it stacks no per-iteration value}}
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %z) -> (f32) {
    %e = tensor.extract %x[%c0] : tensor<2xf32>
    %n = arith.addf %a, %e : f32
    scf.yield %n : f32
  }
  return %r : f32
}

// -----

// A loop that carries no stack (micro-batch accumulation): left alone.
func.func @no_stack(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-remark @+1 {{loop not checkpointed: it stacks no per-iteration value}}
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %x) -> (tensor<2xf32>) {
    %n = math.sin %a : tensor<2xf32>
    scf.yield %n : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

// Rows read in forward order: not a reversal of the forward loop.
func.func @out_of_order(%h0: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{loop not checkpointed: its stack (result #1) is read at row j, which neither the forward iteration it reverses nor the one before wrote (rows read out of order)}}
  %f:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<2xf32>, tensor<4x2xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    scf.yield %hn, %s1 : tensor<2xf32>, tensor<4x2xf32>
  }
  // expected-remark @+1 {{loop not checkpointed: it stacks no per-iteration value}}
  %b = scf.for %j = %c0 to %c4 step %c1 iter_args(%d = %f#0) -> (tensor<2xf32>) {
    %hi = tensor.extract_slice %f#1[%j, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %dn = arith.mulf %d, %hi : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %b : tensor<2xf32>
}

// -----

// A call in the body may have side effects: never re-run.
func.func private @log(tensor<2xf32>)
func.func @side_effects(%h0: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{loop not checkpointed: its body has side effects}}
  %f:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<2xf32>, tensor<4x2xf32>) {
    func.call @log(%h) : (tensor<2xf32>) -> ()
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    scf.yield %hn, %s1 : tensor<2xf32>, tensor<4x2xf32>
  }
  // expected-remark @+1 {{loop not checkpointed: it stacks no per-iteration value}}
  %b = scf.for %j = %c0 to %c4 step %c1 iter_args(%d = %f#0) -> (tensor<2xf32>) {
    %i = arith.subi %c3, %j : index
    %hi = tensor.extract_slice %f#1[%i, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %dn = arith.mulf %d, %hi : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %b : tensor<2xf32>
}

// -----

// A step other than 1 to a run-time bound (from 0 by 1 it is checkpointed online:
// checkpoint-scans-while.mlir).
func.func @step_two(%h0: tensor<2xf32>, %n: index) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{loop not checkpointed: its bounds are neither constants nor a constant to a run-time value by 1}}
  %f:2 = scf.for %i = %c0 to %n step %c2 iter_args(%h = %h0, %s = %s0) -> (tensor<2xf32>, tensor<4x2xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    scf.yield %hn, %s1 : tensor<2xf32>, tensor<4x2xf32>
  }
  return %f#0 : tensor<2xf32>
}

// -----

// A stack read row by row, in order, by a loop of its own (a loss over
// every step, summed as it goes) beside the backward loop, which reads the
// other stack in reverse: the loop that reverses the forward one is the
// backward loop (tried from the last reader up), and the other's reads
// keep the stack they read, as a read after the loop does.
// CHECK-LABEL: func.func @kept_by_loop
// CHECK: %[[S0:.*]] = tensor.empty() : tensor<4x2xf32>
// CHECK-NOT: tensor.empty() : tensor<4x64xf32>
// CHECK: %[[F:.*]]:6 = scf.for {{.*}} iter_args({{.*}}%[[S:.*]] = %[[S0]]) -> ({{.*}}, tensor<4x2xf32>)
// CHECK: %[[LAST:.*]] = tensor.insert_slice %{{.*}} into %[[F]]#5[%c3
// CHECK: scf.for %[[K:.*]] = %c0 to %c4 step %c1 iter_args
// CHECK-NEXT: tensor.extract_slice %[[LAST]][%[[K]], 0] [1, 2] [1, 1]
func.func @kept_by_loop(%h0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  %q0 = tensor.empty() : tensor<4x64xf32>
  // expected-remark @+1 {{scan of 4 steps checkpointed with 2 slots of 8 B (stacks of 1024 B dropped, 32 B kept for their reads after the loop): 5 forward steps}}
  %f:3 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %s = %s0, %q = %q0) -> (tensor<2xf32>, tensor<4x2xf32>, tensor<4x64xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    %x = tensor.extract %hn[%c0] : tensor<2xf32>
    %v0 = tensor.empty() : tensor<64xf32>
    %v = linalg.fill ins(%x : f32) outs(%v0 : tensor<64xf32>) -> tensor<64xf32>
    %q1 = tensor.insert_slice %v into %q[%i, 0] [1, 64] [1, 1] : tensor<64xf32> into tensor<4x64xf32>
    scf.yield %hn, %s1, %q1 : tensor<2xf32>, tensor<4x2xf32>, tensor<4x64xf32>
  }
  // expected-remark @+1 {{loop not checkpointed: it stacks no per-iteration value}}
  %loss = scf.for %k = %c0 to %c4 step %c1 iter_args(%l = %h0) -> (tensor<2xf32>) {
    %hk = tensor.extract_slice %f#1[%k, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %ln = arith.addf %l, %hk : tensor<2xf32>
    scf.yield %ln : tensor<2xf32>
  }
  %b = scf.for %j = %c0 to %c4 step %c1 iter_args(%d = %f#0) -> (tensor<2xf32>) {
    %i = arith.subi %c3, %j : index
    %yi = tensor.extract_slice %f#2[%i, 0] [1, 64] [1, 1] : tensor<4x64xf32> to tensor<64xf32>
    %y = tensor.extract %yi[%c0] : tensor<64xf32>
    %c = tensor.from_elements %y, %y : tensor<2xf32>
    %dn = arith.mulf %d, %c : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %b, %loss : tensor<2xf32>, tensor<2xf32>
}

// -----

// Rows read by two different loops, each reversing the forward one: the
// last is taken for the backward loop, the first's reads keep the one
// stack. Nothing is dropped, but the stack's last read comes before the
// backward loop: the rewrite frees it there, the backward re-runs the steps
// from its slots.
func.func @two_readers(%h0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{scan of 4 steps checkpointed with 2 slots of 8 B (stacks of 32 B kept for their reads after the loop, none dropped)}}
  %f:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<2xf32>, tensor<4x2xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    scf.yield %hn, %s1 : tensor<2xf32>, tensor<4x2xf32>
  }
  // expected-remark @+1 {{loop not checkpointed: it stacks no per-iteration value}}
  %b = scf.for %j = %c0 to %c4 step %c1 iter_args(%d = %f#0) -> (tensor<2xf32>) {
    %i = arith.subi %c3, %j : index
    %hi = tensor.extract_slice %f#1[%i, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %dn = arith.mulf %d, %hi : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  %b2 = scf.for %j = %c0 to %c4 step %c1 iter_args(%d = %f#0) -> (tensor<2xf32>) {
    %i = arith.subi %c3, %j : index
    %hi = tensor.extract_slice %f#1[%i, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %dn = arith.addf %d, %hi : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %b, %b2 : tensor<2xf32>, tensor<2xf32>
}

// -----

// A stack kept for its read after the loop beside a dropped one that
// weighs less than the two carries the rewrite holds where the kept one is
// whole (the last step's, peeled, and the one entering it): the kept one's
// read comes before the backward loop, so the rewrite frees it there, and
// checkpointing is planned (the pipeline keeps the program as written where
// the plan is no better).
func.func @kept_small_drop(%h0: tensor<8xf32>) -> (tensor<8xf32>, tensor<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %s0 = tensor.empty() : tensor<4x8xf32>
  %q0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{scan of 4 steps checkpointed with 2 slots of 32 B (stacks of 32 B dropped, 128 B kept for their reads after the loop)}}
  %f:3 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %s = %s0, %q = %q0) -> (tensor<8xf32>, tensor<4x8xf32>, tensor<4x2xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<4x8xf32>
    %hn = math.sin %h : tensor<8xf32>
    %two = tensor.extract_slice %hn[0] [2] [1] : tensor<8xf32> to tensor<2xf32>
    %q1 = tensor.insert_slice %two into %q[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    scf.yield %hn, %s1, %q1 : tensor<8xf32>, tensor<4x8xf32>, tensor<4x2xf32>
  }
  %rows = tensor.extract_slice %f#1[0, 0] [2, 8] [1, 1] : tensor<4x8xf32> to tensor<2x8xf32>
  %b = scf.for %j = %c0 to %c4 step %c1 iter_args(%d = %f#0) -> (tensor<8xf32>) {
    %i = arith.subi %c3, %j : index
    %yi = tensor.extract_slice %f#2[%i, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %c = math.cos %yi : tensor<2xf32>
    %y = tensor.extract %c[%c0] : tensor<2xf32>
    %cv = tensor.from_elements %y, %y, %y, %y, %y, %y, %y, %y : tensor<8xf32>
    %dn = arith.mulf %d, %cv : tensor<8xf32>
    scf.yield %dn : tensor<8xf32>
  }
  return %b, %rows : tensor<8xf32>, tensor<2x8xf32>
}
