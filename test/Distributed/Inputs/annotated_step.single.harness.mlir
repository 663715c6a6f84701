// Harness of annotated_step.single.mlir: x[i][j] = 0.1 * ((16 i + j) mod 7) - 0.3,
// w[i][j] = 0.05 * ((16 i + j) mod 7) - 0.3; prints the loss and dW.
func.func private @printMemrefF32(tensor<*xf32>)
func.func @main() {
  %x_e = tensor.empty() : tensor<8x16xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%x_e : tensor<8x16xf32>) {
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
    %o = arith.constant -0.3 : f32
    %v0 = arith.mulf %mf, %s : f32
    %v = arith.addf %v0, %o : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  %w_e = tensor.empty() : tensor<16x16xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%w_e : tensor<16x16xf32>) {
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
    %s = arith.constant 0.05 : f32
    %o = arith.constant -0.3 : f32
    %v0 = arith.mulf %mf, %s : f32
    %v = arith.addf %v0, %o : f32
    linalg.yield %v : f32
  } -> tensor<16x16xf32>
  %l, %dw = func.call @step(%x, %w) : (tensor<8x16xf32>, tensor<16x16xf32>) -> (tensor<f32>, tensor<16x16xf32>)
  %lu = tensor.cast %l : tensor<f32> to tensor<*xf32>
  func.call @printMemrefF32(%lu) : (tensor<*xf32>) -> ()
  %du = tensor.cast %dw : tensor<16x16xf32> to tensor<*xf32>
  func.call @printMemrefF32(%du) : (tensor<*xf32>) -> ()
  return
}
