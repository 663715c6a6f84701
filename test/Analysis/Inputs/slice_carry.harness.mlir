// Harness of slice_carry.mlir: x[i, j] = ((16 i + j) mod 7) / 10.
func.func private @printMemrefF32(tensor<*xf32>)
func.func @main() {
  %xe = tensor.empty() : tensor<4x16xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%xe : tensor<4x16xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c16 = arith.constant 16 : index
    %c7 = arith.constant 7 : index
    %r = arith.muli %i, %c16 : index
    %l = arith.addi %r, %j : index
    %m = arith.remui %l, %c7 : index
    %mi = arith.index_cast %m : index to i32
    %mf = arith.sitofp %mi : i32 to f32
    %s = arith.constant 0.1 : f32
    %v = arith.mulf %mf, %s : f32
    linalg.yield %v : f32
  } -> tensor<4x16xf32>
  %l, %r = func.call @step(%x) : (tensor<4x16xf32>) -> (tensor<f32>, tensor<4x16xf32>)
  %lu = tensor.cast %l : tensor<f32> to tensor<*xf32>
  func.call @printMemrefF32(%lu) : (tensor<*xf32>) -> ()
  %ru = tensor.cast %r : tensor<4x16xf32> to tensor<*xf32>
  func.call @printMemrefF32(%ru) : (tensor<*xf32>) -> ()
  return
}
