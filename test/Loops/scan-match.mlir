// RUN: remat-opt %s -remat-test-scan-match -split-input-file -verify-diagnostics -o /dev/null
//
// What the scan recognizer proves (ScanLoops.h), without the rewrite: row
// indexes as affine sums whatever their spelling, the rows each stack is
// written at (alpha * k + beta in the forward iteration k), the backward
// loop's index, and what each read gets back. The CPU runs of these layouts
// are in test/Loops/variants.test.

// One affine sum, five spellings.
func.func @spellings(%j: index, %n: index) -> (index, index, index, index, index) {
  %c63 = arith.constant 63 : index
  %cm1 = arith.constant -1 : index
  // expected-remark @+1 {{index = -%arg0 + 63}}
  %a = arith.subi %c63, %j {test.index} : index
  // expected-remark @+1 {{index = -%arg0 + 63}}
  %b = affine.apply affine_map<(d0) -> (63 - d0)>(%j) {test.index}
  // expected-remark @+1 {{index = -%arg0 + 63}}
  %c = index.sub %c63, %j {test.index}
  %j64 = arith.index_cast %j : index to i64
  %c63i = arith.constant 63 : i64
  %d64 = arith.subi %c63i, %j64 : i64
  // expected-remark @+1 {{index = -%arg0 + 63}}
  %d = arith.index_cast %d64 {test.index} : i64 to index
  %mj = arith.muli %j, %cm1 : index
  // expected-remark @+1 {{index = -%arg0 + 63}}
  %e = arith.addi %mj, %c63 {test.index} : index
  return %a, %b, %c, %d, %e : index, index, index, index, index
}

// -----

// Symbols and a trip count known at run time; a floordiv of what it does
// not divide stays opaque.
func.func @symbols(%j: index, %n: index) -> (index, index) {
  // expected-remark @+1 {{index = 2*%arg1 - %arg0 - 1}}
  %a = affine.apply affine_map<(d0)[s0] -> (s0 * 2 - d0 - 1)>(%j)[%n] {test.index}
  // expected-remark-re @+1 {{index = %{{[0-9]+}}}}
  %b = affine.apply affine_map<(d0) -> (d0 floordiv 2)>(%j) {test.index}
  return %a, %b : index, index
}

// -----

// Divisions by a constant of a sum whose coefficients it divides: floor and
// ceil (affine, arith, index) and mod, whatever the constant's sign; a
// truncating division when exact; an unsigned one or a truncating one that
// rounds only where the sum is known non-negative (not here: %j is any
// index), so those stay opaque.
func.func @divisions(%j: index) -> (index, index, index, index, index, index, index, index, index, index) {
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %j4 = arith.muli %j, %c2 : index
  %j4b = arith.muli %j4, %c2 : index
  %n3 = arith.subi %j4b, %c3 : index
  // expected-remark @+1 {{index = 2*%arg0 - 2}}
  %a = arith.floordivsi %n3, %c2 {test.index} : index
  // expected-remark @+1 {{index = 2*%arg0 - 1}}
  %b = arith.ceildivsi %n3, %c2 {test.index} : index
  // expected-remark @+1 {{index = 2*%arg0 + 3}}
  %c = affine.apply affine_map<(d0) -> ((d0 * 4 + 6) floordiv 2)>(%j) {test.index}
  // expected-remark @+1 {{index = 2*%arg0 + 1}}
  %d = affine.apply affine_map<(d0) -> ((d0 * 4 + 1) ceildiv 2)>(%j) {test.index}
  // expected-remark @+1 {{index = 1}}
  %e = affine.apply affine_map<(d0) -> ((d0 * 4 + 7) mod 2)>(%j) {test.index}
  %n6 = arith.addi %j4b, %c6 : index
  // expected-remark @+1 {{index = 2*%arg0 + 3}}
  %f = arith.divsi %n6, %c2 {test.index} : index
  // expected-remark @+1 {{index = 2*%arg0 - 2}}
  %g = arith.shrsi %n3, %c1 {test.index} : index
  // expected-remark-re @+1 {{index = %{{[0-9]+}}}}
  %h = arith.divsi %n3, %c2 {test.index} : index
  // expected-remark-re @+1 {{index = %{{[0-9]+}}}}
  %i = index.divu %n6, %c2 {test.index}
  // A select on the sign of %j, which no range decides here: opaque.
  %c0 = arith.constant 0 : index
  %neg = arith.cmpi slt, %j, %c0 : index
  // expected-remark-re @+1 {{index = %{{[0-9]+}}}}
  %k = arith.select %neg, %c0, %j {test.index} : index
  return %a, %b, %c, %d, %e, %f, %g, %h, %i, %k : index, index, index, index, index, index, index, index, index, index
}

// -----

// h_0 at row 0 of T+1 rows, h_{i+1} at row i+1 (torch.stack([h0..hT])); the
// backward is a downward scf.while reading h_{i+1} at row j+1 (the row the
// reversed step stacks) and h_i at row j (the carry entering it). The loss
// reads the last row: the final carry.
func.func @next_row(%h0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<5x2xf32>
  %s0 = tensor.insert_slice %h0 into %e[0, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<5x2xf32>
  // expected-remark @+1 {{scan: T = 4, index 0 + 1*k; stack #1 rows 1*k + 1; backward index %c3 + -1*m}}
  %f:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<2xf32>, tensor<5x2xf32>) {
    %hn = math.sin %h : tensor<2xf32>
    %r = affine.apply affine_map<(d0) -> (d0 + 1)>(%i)
    %s1 = tensor.insert_slice %hn into %s[%r, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<5x2xf32>
    scf.yield %hn, %s1 : tensor<2xf32>, tensor<5x2xf32>
  }
  // expected-remark @+1 {{reads carry final #0}}
  %last = tensor.extract_slice %f#1[4, 0] [1, 2] [1, 1] : tensor<5x2xf32> to tensor<2xf32>
  %b:2 = scf.while (%j = %c3, %d = %last) : (index, tensor<2xf32>) -> (index, tensor<2xf32>) {
    %more = arith.cmpi sle, %c0, %j : index
    scf.condition(%more) %j, %d : index, tensor<2xf32>
  } do {
  ^bb0(%j: index, %d: tensor<2xf32>):
    %jn = arith.addi %j, %c1 : index
    // expected-remark @+1 {{reads row of stack #1}}
    %y = tensor.extract_slice %f#1[%jn, 0] [1, 2] [1, 1] : tensor<5x2xf32> to tensor<2xf32>
    // expected-remark @+1 {{reads carry entering #0}}
    %x = tensor.extract_slice %f#1[%j, 0] [1, 2] [1, 1] : tensor<5x2xf32> to tensor<2xf32>
    %c = math.cos %x : tensor<2xf32>
    %dn = arith.mulf %d, %c : tensor<2xf32>
    %dm = arith.mulf %dn, %y : tensor<2xf32>
    %jm = arith.subi %j, %c1 : index
    scf.yield %jm, %dm : index, tensor<2xf32>
  }
  return %f#0, %b#1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// Rows written in reverse (T-1-i) by a loop from 2 to 6, read at row j.
func.func @reversed_rows(%h0: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{scan: T = 4, index 2 + 1*k; stack #1 rows -1*k + 3; backward index %c0 + 1*m}}
  %f:2 = scf.for %i = %c2 to %c6 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<2xf32>, tensor<4x2xf32>) {
    %r = index.sub %c5, %i
    %s1 = tensor.insert_slice %h into %s[%r, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    scf.yield %hn, %s1 : tensor<2xf32>, tensor<4x2xf32>
  }
  %b = scf.for %j = %c0 to %c4 step %c1 iter_args(%d = %f#0) -> (tensor<2xf32>) {
    // expected-remark @+1 {{reads row of stack #1}}
    %x = tensor.extract_slice %f#1[%j, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %dn = arith.mulf %d, %x : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %b : tensor<2xf32>
}

// -----

// Read one row off: the remark names the row as written.
func.func @off_by_two(%h0: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c1b = arith.constant 1 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{not a scan: its stack (result #1) is read at row -j + 1, which neither the forward iteration it reverses nor the one before wrote (rows read out of order)}}
  %f:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<2xf32>, tensor<4x2xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    scf.yield %hn, %s1 : tensor<2xf32>, tensor<4x2xf32>
  }
  // expected-remark @+1 {{not a scan}}
  %b = scf.for %j = %c0 to %c4 step %c1 iter_args(%d = %f#0) -> (tensor<2xf32>) {
    %r = affine.apply affine_map<(d0) -> (1 - d0)>(%j)
    %x = tensor.extract_slice %f#1[%r, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %dn = arith.mulf %d, %x : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %b : tensor<2xf32>
}

// -----

// The row of the carry entering the first step is not its initial value
// (nothing was stored at row 0 before the loop).
func.func @no_initial_row(%h0: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %s0 = tensor.empty() : tensor<5x2xf32>
  // expected-remark @+1 {{not a scan: its stack (result #1) is read at row -j + 3 (the carry entering the step it reverses) but row 0 is not the carry's initial value, stored before the loop}}
  %f:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<2xf32>, tensor<5x2xf32>) {
    %hn = math.sin %h : tensor<2xf32>
    %r = arith.addi %i, %c1 : index
    %s1 = tensor.insert_slice %hn into %s[%r, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<5x2xf32>
    scf.yield %hn, %s1 : tensor<2xf32>, tensor<5x2xf32>
  }
  // expected-remark @+1 {{not a scan}}
  %b = scf.for %j = %c0 to %c4 step %c1 iter_args(%d = %f#0) -> (tensor<2xf32>) {
    %r = arith.subi %c3, %j : index
    %x = tensor.extract_slice %f#1[%r, 0] [1, 2] [1, 1] : tensor<5x2xf32> to tensor<2xf32>
    %dn = arith.mulf %d, %x : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %b : tensor<2xf32>
}

// -----

// Rows two apart: not one row per iteration.
func.func @stride_two(%h0: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %s0 = tensor.empty() : tensor<8x2xf32>
  // expected-remark @+1 {{not a scan: its stack (iteration argument #1) is written at row 2*i, not one row further each iteration (i + c or c - i)}}
  %f:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<2xf32>, tensor<8x2xf32>) {
    %r = affine.apply affine_map<(d0) -> (d0 * 2)>(%i)
    %s1 = tensor.insert_slice %h into %s[%r, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<8x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    scf.yield %hn, %s1 : tensor<2xf32>, tensor<8x2xf32>
  }
  return %f#0 : tensor<2xf32>
}

// -----

// A loop stepping by 2 from 1: its rows are the quotient (i - 1) / 2 = k,
// here by an unsigned division (i >= 1, so the numerator is never negative:
// floor division), and the backward loop, also by 2, reads row
// (7 - j) floordiv 2 = 3 - m of its iteration m, written as `mlir-opt --lower-affine`
// writes it: a select on the sign of 7 - j, which m in [0, 3] decides.
func.func @step_two(%h0: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{scan: T = 4, index 1 + 2*k; stack #1 rows 1*k + 0; backward index %c0 + 2*m}}
  %f:2 = scf.for %i = %c1 to %c9 step %c2 iter_args(%h = %h0, %s = %s0) -> (tensor<2xf32>, tensor<4x2xf32>) {
    %im1 = arith.subi %i, %c1 : index
    %r = arith.divui %im1, %c2 : index
    %s1 = tensor.insert_slice %h into %s[%r, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    scf.yield %hn, %s1 : tensor<2xf32>, tensor<4x2xf32>
  }
  %b = scf.for %j = %c0 to %c8 step %c2 iter_args(%d = %f#0) -> (tensor<2xf32>) {
    %cm1 = arith.constant -1 : index
    %c7 = arith.constant 7 : index
    %n = arith.subi %c7, %j : index
    %neg = arith.cmpi slt, %n, %c0 : index
    %nm = arith.subi %cm1, %n : index
    %sel = arith.select %neg, %nm, %n : index
    %q = arith.divsi %sel, %c2 : index
    %qm = arith.subi %cm1, %q : index
    %r = arith.select %neg, %qm, %q : index
    // expected-remark @+1 {{reads row of stack #1}}
    %x = tensor.extract_slice %f#1[%r, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %dn = arith.mulf %d, %x : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %b : tensor<2xf32>
}

// -----

// Stepping by 2 but writing row i: rows 0, 2, 4, 6, two apart.
func.func @step_two_undivided(%h0: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %s0 = tensor.empty() : tensor<8x2xf32>
  // expected-remark @+1 {{not a scan: its stack (iteration argument #1) is written at row i (2*k at step k), not one row further each iteration (i + c or c - i)}}
  %f:2 = scf.for %i = %c0 to %c8 step %c2 iter_args(%h = %h0, %s = %s0) -> (tensor<2xf32>, tensor<8x2xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<8x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    scf.yield %hn, %s1 : tensor<2xf32>, tensor<8x2xf32>
  }
  return %f#0 : tensor<2xf32>
}

// -----

// A downward while that stops one row early (j > 0): 3 iterations, not 4.
func.func @short_while(%h0: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{not a scan: the loop reading its stacks does not run 4 iterations (3)}}
  %f:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<2xf32>, tensor<4x2xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    scf.yield %hn, %s1 : tensor<2xf32>, tensor<4x2xf32>
  }
  // expected-remark @+1 {{not a scan}}
  %b:2 = scf.while (%j = %c3, %d = %f#0) : (index, tensor<2xf32>) -> (index, tensor<2xf32>) {
    %more = arith.cmpi sgt, %j, %c0 : index
    scf.condition(%more) %j, %d : index, tensor<2xf32>
  } do {
  ^bb0(%j: index, %d: tensor<2xf32>):
    %x = tensor.extract_slice %f#1[%j, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %dn = arith.mulf %d, %x : tensor<2xf32>
    %jm = arith.subi %j, %c1 : index
    scf.yield %jm, %dn : index, tensor<2xf32>
  }
  return %b#1 : tensor<2xf32>
}

// -----

// A downward while counting by 2 (6, 4, 2, 0: 4 iterations) reading row
// j floordiv 2 (by a right shift; j >= 0 throughout, so a floor division),
// which is 3 - m of its iteration m: the row forward iteration 3 - m wrote.
func.func @while_by_two(%h0: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{scan: T = 4, index 0 + 1*k; stack #1 rows 1*k + 0; backward index %c6 + -2*m}}
  %f:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<2xf32>, tensor<4x2xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    scf.yield %hn, %s1 : tensor<2xf32>, tensor<4x2xf32>
  }
  %b:2 = scf.while (%j = %c6, %d = %f#0) : (index, tensor<2xf32>) -> (index, tensor<2xf32>) {
    %more = arith.cmpi sge, %j, %c0 : index
    scf.condition(%more) %j, %d : index, tensor<2xf32>
  } do {
  ^bb0(%j: index, %d: tensor<2xf32>):
    %r = arith.shrui %j, %c1 : index
    // expected-remark @+1 {{reads row of stack #1}}
    %x = tensor.extract_slice %f#1[%r, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %dn = arith.mulf %d, %x : tensor<2xf32>
    %jm = arith.subi %j, %c2 : index
    scf.yield %jm, %dn : index, tensor<2xf32>
  }
  return %b#1 : tensor<2xf32>
}

// -----

// Counting down by 2 from 7 until it equals 0: it never does.
func.func @while_passes_its_bound(%h0: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{not a scan: the while loop reading its stacks stops only at its bound (cmpi ne), which its step may pass over (the distance is not a multiple of the step)}}
  %f:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<2xf32>, tensor<4x2xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    scf.yield %hn, %s1 : tensor<2xf32>, tensor<4x2xf32>
  }
  // expected-remark @+1 {{not a scan}}
  %b:2 = scf.while (%j = %c7, %d = %f#0) : (index, tensor<2xf32>) -> (index, tensor<2xf32>) {
    %more = arith.cmpi ne, %j, %c0 : index
    scf.condition(%more) %j, %d : index, tensor<2xf32>
  } do {
  ^bb0(%j: index, %d: tensor<2xf32>):
    %r = arith.shrui %j, %c1 : index
    %x = tensor.extract_slice %f#1[%r, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %dn = arith.mulf %d, %x : tensor<2xf32>
    %jm = arith.subi %j, %c2 : index
    scf.yield %jm, %dn : index, tensor<2xf32>
  }
  return %b#1 : tensor<2xf32>
}

// -----

// The backward row (6 - j) floordiv 2 as `mlir-opt --lower-affine` writes it:
// 3 + floordiv(-j, 2), the floordiv a select on the sign of -j, which is 0
// at m = 0 and negative after, so no range decides it. Read once assuming
// -j < 0 (then j >= 2: -1 - (-j) = j - 1 >= 1, a floor division) and once
// assuming -j >= 0 (j = 0), both branches are -m: the row is 3 - m.
func.func @step_two_lowered(%h0: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %cm1 = arith.constant -1 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{scan: T = 4, index 0 + 1*k; stack #1 rows 1*k + 0; backward index %c0 + 2*m}}
  %f:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<2xf32>, tensor<4x2xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    scf.yield %hn, %s1 : tensor<2xf32>, tensor<4x2xf32>
  }
  %b = scf.for %j = %c0 to %c8 step %c2 iter_args(%d = %f#0) -> (tensor<2xf32>) {
    %x = arith.muli %j, %cm1 overflow<nsw> : index
    %neg = arith.cmpi slt, %x, %c0 : index
    %xm = arith.subi %cm1, %x : index
    %sel = arith.select %neg, %xm, %x : index
    %q = arith.divsi %sel, %c2 : index
    %qm = arith.subi %cm1, %q : index
    %fl = arith.select %neg, %qm, %q : index
    %r = arith.addi %fl, %c3 : index
    // expected-remark @+1 {{reads row of stack #1}}
    %v = tensor.extract_slice %f#1[%r, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %dn = arith.mulf %d, %v : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %b : tensor<2xf32>
}

// -----

// The same select with branches that differ (j itself where -j < 0, 0
// where not): no sum, the row stays opaque and the read is refused.
func.func @step_two_select_differs(%h0: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %cm1 = arith.constant -1 : index
  %s0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark-re @+1 {{not a scan: its stack (result #1) is read at row %{{[0-9]+}}, which neither the forward iteration it reverses nor the one before wrote (rows read out of order)}}
  %f:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<2xf32>, tensor<4x2xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    scf.yield %hn, %s1 : tensor<2xf32>, tensor<4x2xf32>
  }
  // expected-remark @+1 {{not a scan}}
  %b = scf.for %j = %c0 to %c8 step %c2 iter_args(%d = %f#0) -> (tensor<2xf32>) {
    %x = arith.muli %j, %cm1 : index
    %neg = arith.cmpi slt, %x, %c0 : index
    %r = arith.select %neg, %j, %c0 : index
    %v = tensor.extract_slice %f#1[%r, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %dn = arith.mulf %d, %v : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %b : tensor<2xf32>
}

// -----

// A backward loop by 2 reading row 6 - j undivided: rows 6, 4, 2, 0 where
// the reversal needs 3, 2, 1, 0. The remark gives the row in the backward
// iteration m too.
func.func @backward_step_undivided(%h0: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %s0 = tensor.empty() : tensor<8x2xf32>
  // expected-remark @+1 {{not a scan: its stack (result #1) is read at row -j + 6 (-2*m + 6 at step m), which neither the forward iteration it reverses nor the one before wrote (rows read out of order)}}
  %f:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<2xf32>, tensor<8x2xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<8x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    scf.yield %hn, %s1 : tensor<2xf32>, tensor<8x2xf32>
  }
  // expected-remark @+1 {{not a scan}}
  %b = scf.for %j = %c0 to %c8 step %c2 iter_args(%d = %f#0) -> (tensor<2xf32>) {
    %r = arith.subi %c6, %j : index
    %v = tensor.extract_slice %f#1[%r, 0] [1, 2] [1, 1] : tensor<8x2xf32> to tensor<2xf32>
    %dn = arith.mulf %d, %v : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %b : tensor<2xf32>
}

// -----

// A reverse scan as a frontend lowers it: the forward loop an scf.while
// counting an i32 down from 3 while >= 0 (T = 4 known: index 3 - k), rows
// falling with the counter; the backward loop counts up from the forward
// counter's result + 1 (= 0 after the loop) while < 4, reading row j.
func.func @counted_while_down(%h0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : index
  %one = arith.constant 1 : index
  %e = tensor.empty() : tensor<4x2xf32>
  // expected-remark-re @+1 {{scan: T = 4, index 3 + -1*k; stack #2 rows -1*k + 3; backward index %{{[0-9]+}} + 1*m}}
  %f:3 = scf.while (%i = %c3, %h = %h0, %s = %e) : (i32, tensor<2xf32>, tensor<4x2xf32>) -> (i32, tensor<2xf32>, tensor<4x2xf32>) {
    %more = arith.cmpi sge, %i, %c0 : i32
    scf.condition(%more) %i, %h, %s : i32, tensor<2xf32>, tensor<4x2xf32>
  } do {
  ^bb0(%i: i32, %h: tensor<2xf32>, %s: tensor<4x2xf32>):
    %row = arith.index_cast %i : i32 to index
    %s1 = tensor.insert_slice %h into %s[%row, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    %in = arith.subi %i, %c1 : i32
    scf.yield %in, %hn, %s1 : i32, tensor<2xf32>, tensor<4x2xf32>
  }
  %after = arith.index_cast %f#0 : i32 to index
  %start = arith.addi %after, %one : index
  %b:2 = scf.while (%j = %start, %d = %h0) : (index, tensor<2xf32>) -> (index, tensor<2xf32>) {
    %more = arith.cmpi slt, %j, %c4 : index
    scf.condition(%more) %j, %d : index, tensor<2xf32>
  } do {
  ^bb0(%j: index, %d: tensor<2xf32>):
    // expected-remark @+1 {{reads row of stack #2}}
    %x = tensor.extract_slice %f#2[%j, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %c = math.cos %x : tensor<2xf32>
    %dn = arith.mulf %d, %c : tensor<2xf32>
    %jn = arith.addi %j, %one : index
    scf.yield %jn, %dn : index, tensor<2xf32>
  }
  return %f#1, %b#1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// A counted forward while from 2 by 2 while i < 10 (T = 4, index 2 + 2k,
// rows i / 2 - 1 = k); the backward scf.for runs to the counter's result
// (10 after the loop) by 2 from 2, reading row (%f#0 - 2 - j) / 2, the
// row forward iteration T-1-m wrote.
func.func @counted_while_to_counter(%h0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c10 = arith.constant 10 : index
  %e = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{scan: T = 4, index 2 + 2*k; stack #2 rows 1*k + 0; backward index %c2 + 2*m}}
  %f:3 = scf.while (%i = %c2, %h = %h0, %s = %e) : (index, tensor<2xf32>, tensor<4x2xf32>) -> (index, tensor<2xf32>, tensor<4x2xf32>) {
    %more = arith.cmpi slt, %i, %c10 : index
    scf.condition(%more) %i, %h, %s : index, tensor<2xf32>, tensor<4x2xf32>
  } do {
  ^bb0(%i: index, %h: tensor<2xf32>, %s: tensor<4x2xf32>):
    %row = affine.apply affine_map<(d0) -> (d0 floordiv 2 - 1)>(%i)
    %s1 = tensor.insert_slice %h into %s[%row, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    %in = arith.addi %i, %c2 : index
    scf.yield %in, %hn, %s1 : index, tensor<2xf32>, tensor<4x2xf32>
  }
  %b = scf.for %j = %c2 to %f#0 step %c2 iter_args(%d = %h0) -> (tensor<2xf32>) {
    %r = affine.apply affine_map<(d0)[s0] -> ((s0 - 2 - d0) floordiv 2)>(%j)[%f#0]
    // expected-remark @+1 {{reads row of stack #2}}
    %x = tensor.extract_slice %f#2[%r, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %c = math.cos %x : tensor<2xf32>
    %dn = arith.mulf %d, %c : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %f#1, %b : tensor<2xf32>, tensor<2xf32>
}

// -----

// The same forward loop, its stack read by a loop of another trip count:
// refused, the remark naming both.
func.func @counted_while_other_trip(%h0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c10 = arith.constant 10 : index
  %e = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{not a scan: the loop reading its stacks does not run 4 iterations (3)}}
  %f:3 = scf.while (%i = %c2, %h = %h0, %s = %e) : (index, tensor<2xf32>, tensor<4x2xf32>) -> (index, tensor<2xf32>, tensor<4x2xf32>) {
    %more = arith.cmpi slt, %i, %c10 : index
    scf.condition(%more) %i, %h, %s : index, tensor<2xf32>, tensor<4x2xf32>
  } do {
  ^bb0(%i: index, %h: tensor<2xf32>, %s: tensor<4x2xf32>):
    %row = affine.apply affine_map<(d0) -> (d0 floordiv 2 - 1)>(%i)
    %s1 = tensor.insert_slice %h into %s[%row, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<4x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    %in = arith.addi %i, %c2 : index
    scf.yield %in, %hn, %s1 : index, tensor<2xf32>, tensor<4x2xf32>
  }
  // expected-remark @+1 {{not a scan}}
  %b = scf.for %j = %c0 to %c3 step %c1 iter_args(%d = %h0) -> (tensor<2xf32>) {
    %x = tensor.extract_slice %f#2[%j, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %dn = arith.mulf %d, %x : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %f#1, %b : tensor<2xf32>, tensor<2xf32>
}

// -----

// A batch-first stack (rows [0, k, 0] of [3, 1, 2]: the time axis is 1)
// also read whole after the forward loop (a loss over every step): kept
// for that read; the backward loop reads the other stack.
func.func @batch_first_kept(%h0: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x32x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %s0 = tensor.empty() : tensor<3x32x2xf32>
  %q0 = tensor.empty() : tensor<32x3x2xf32>
  // expected-remark @+1 {{scan: T = 32, index 0 + 1*k; stack #1 rows 1*k + 0 along axis 1, kept for reads after the loop; stack #2 rows 1*k + 0; backward index %c0 + 1*m}}
  %f:3 = scf.for %i = %c0 to %c32 step %c1 iter_args(%h = %h0, %s = %s0, %q = %q0) -> (tensor<3x2xf32>, tensor<3x32x2xf32>, tensor<32x3x2xf32>) {
    %s1 = tensor.insert_slice %h into %s[0, %i, 0] [3, 1, 2] [1, 1, 1] : tensor<3x2xf32> into tensor<3x32x2xf32>
    %hn = math.sin %h : tensor<3x2xf32>
    %q1 = tensor.insert_slice %hn into %q[%i, 0, 0] [1, 3, 2] [1, 1, 1] : tensor<3x2xf32> into tensor<32x3x2xf32>
    scf.yield %hn, %s1, %q1 : tensor<3x2xf32>, tensor<3x32x2xf32>, tensor<32x3x2xf32>
  }
  %all = math.exp %f#1 : tensor<3x32x2xf32>
  %b = scf.for %j = %c0 to %c32 step %c1 iter_args(%d = %f#0) -> (tensor<3x2xf32>) {
    %k = arith.subi %c31, %j : index
    // expected-remark @+1 {{reads row of stack #2}}
    %yk = tensor.extract_slice %f#2[%k, 0, 0] [1, 3, 2] [1, 1, 1] : tensor<32x3x2xf32> to tensor<3x2xf32>
    %c = math.cos %yk : tensor<3x2xf32>
    %dn = arith.mulf %d, %c : tensor<3x2xf32>
    scf.yield %dn : tensor<3x2xf32>
  }
  return %b, %all : tensor<3x2xf32>, tensor<3x32x2xf32>
}
