// A stack written in two parts whose last write is yielded for two
// iteration arguments: not split (the second argument carries the packed
// tensor on). part-stacks.test.
func.func @f(%x: tensor<4xf32>) -> (tensor<8x4xf32>, tensor<8x2x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %e = tensor.empty() : tensor<8x2x4xf32>
  %r:2 = scf.for %i = %c0 to %c8 step %c1 iter_args(%s = %e, %t = %e) -> (tensor<8x2x4xf32>, tensor<8x2x4xf32>) {
    %a = tensor.insert_slice %x into %s[%i, 0, 0] [1, 1, 4] [1, 1, 1] : tensor<4xf32> into tensor<8x2x4xf32>
    %b = tensor.insert_slice %x into %a[%i, 1, 0] [1, 1, 4] [1, 1, 1] : tensor<4xf32> into tensor<8x2x4xf32>
    scf.yield %b, %b : tensor<8x2x4xf32>, tensor<8x2x4xf32>
  }
  %p = tensor.extract_slice %r#0[0, 0, 0] [8, 1, 4] [1, 1, 1] : tensor<8x2x4xf32> to tensor<8x4xf32>
  return %p, %r#1 : tensor<8x4xf32>, tensor<8x2x4xf32>
}
