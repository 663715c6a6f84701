// A scan of 16 steps in an scf.for: h' = sin(h), h stacked at the
// induction variable; the backward loop multiplies by cos(h_i) in reverse.
// Used by test/Loops/region-runs.test: its forward steps (the sines) are
// counted on the CPU and by the time model.
func.func @sin_for(%h0: tensor<64xf32>) -> (tensor<64xf32> {remat.loss}, tensor<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  %s0 = tensor.empty() : tensor<16x64xf32>
  %f:2 = scf.for %i = %c0 to %c16 step %c1 iter_args(%h = %h0, %s = %s0) -> (tensor<64xf32>, tensor<16x64xf32>) {
    %s1 = tensor.insert_slice %h into %s[%i, 0] [1, 64] [1, 1] : tensor<64xf32> into tensor<16x64xf32>
    %hn = math.sin %h : tensor<64xf32>
    scf.yield %hn, %s1 : tensor<64xf32>, tensor<16x64xf32>
  }
  %b = scf.for %j = %c0 to %c16 step %c1 iter_args(%d = %f#0) -> (tensor<64xf32>) {
    %i = arith.subi %c15, %j : index
    %hi = tensor.extract_slice %f#1[%i, 0] [1, 64] [1, 1] : tensor<16x64xf32> to tensor<64xf32>
    %c = math.cos %hi : tensor<64xf32>
    %dn = arith.mulf %d, %c : tensor<64xf32>
    scf.yield %dn : tensor<64xf32>
  }
  return %f#0, %b : tensor<64xf32>, tensor<64xf32>
}
