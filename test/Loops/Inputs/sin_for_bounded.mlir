// sin_for.mlir with an argument of a size known only at run time (bounded
// at 64), of which the step returns a slice: the function is analysed at
// its bounds, on a copy (ShapeBounds.h), and the runs of the emitted loops
// must reach that copy. test/Loops/region-runs.test.
func.func @sin_for(%h0: tensor<64xf32>, %x: tensor<?xf32> {remat.bounds = array<i64: 64>}) -> (tensor<64xf32> {remat.loss}, tensor<64xf32>, tensor<8xf32>) {
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
  %y = tensor.extract_slice %x[0] [8] [1] : tensor<?xf32> to tensor<8xf32>
  return %f#0, %b, %y : tensor<64xf32>, tensor<64xf32>, tensor<8xf32>
}
