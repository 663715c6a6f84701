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

// Symbols and a trip count known at run time; floordiv stays opaque.
func.func @symbols(%j: index, %n: index) -> (index, index) {
  // expected-remark @+1 {{index = 2*%arg1 - %arg0 - 1}}
  %a = affine.apply affine_map<(d0)[s0] -> (s0 * 2 - d0 - 1)>(%j)[%n] {test.index}
  // expected-remark-re @+1 {{index = %{{[0-9]+}}}}
  %b = affine.apply affine_map<(d0) -> (d0 floordiv 2)>(%j) {test.index}
  return %a, %b : index, index
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
