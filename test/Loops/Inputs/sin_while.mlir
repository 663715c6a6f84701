// A while loop of at most 16 steps, run while i < %n: h' = sin(h), h stacked
// at the counter; the backward loop multiplies by cos(h_i) in reverse.
// Used by test/Loops/while-steps.test to count the forward steps the
// online rewrite executes.
func.func @sin_while(%h0: tensor<2xf32>, %n: index) -> (tensor<2xf32> {remat.loss}, tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %s0 = tensor.empty() : tensor<16x2xf32>
  %f:3 = scf.while (%i = %c0, %h = %h0, %s = %s0) : (index, tensor<2xf32>, tensor<16x2xf32>) -> (index, tensor<2xf32>, tensor<16x2xf32>) {
    %below_n = arith.cmpi slt, %i, %n : index
    %below_T = arith.cmpi slt, %i, %c16 : index
    %more = arith.andi %below_n, %below_T : i1
    scf.condition(%more) %i, %h, %s : index, tensor<2xf32>, tensor<16x2xf32>
  } do {
  ^bb0(%i: index, %h: tensor<2xf32>, %s: tensor<16x2xf32>):
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<16x2xf32>
    %hn = math.sin %h : tensor<2xf32>
    %i1 = arith.addi %i, %c1 : index
    scf.yield %i1, %hn, %s1 : index, tensor<2xf32>, tensor<16x2xf32>
  }
  %last = arith.subi %f#0, %c1 : index
  %b = scf.for %j = %c0 to %f#0 step %c1 iter_args(%d = %f#1) -> (tensor<2xf32>) {
    %i = arith.subi %last, %j : index
    %hi = tensor.extract_slice %f#2[%i, 0] [1, 2] [1, 1] : tensor<16x2xf32> to tensor<2xf32>
    %c = math.cos %hi : tensor<2xf32>
    %dn = arith.mulf %d, %c : tensor<2xf32>
    scf.yield %dn : tensor<2xf32>
  }
  return %f#1, %b : tensor<2xf32>, tensor<2xf32>
}
