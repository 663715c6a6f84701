// Harness of test/Dynamic/Inputs/mlp_dynamic.mlir on the whole batch of 258
// rows that mlp_uneven.mlir's 4 ranks share (values as
// mlp_dynamic.harness.mlir's).
func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %w1_e = tensor.empty() : tensor<64x64xf32>
  %w1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%w1_e : tensor<64x64xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %lin = affine.apply affine_map<(i, j) -> ((i * 7 + j * 3 + 1) mod 11)>(%i, %j)
    %l = arith.index_cast %lin : index to i32
    %f = arith.sitofp %l : i32 to f32
    %five = arith.constant 5.0 : f32
    %eighth = arith.constant 0.125 : f32
    %c = arith.subf %f, %five : f32
    %v = arith.mulf %c, %eighth : f32
    linalg.yield %v : f32
  } -> tensor<64x64xf32>

  %w2_e = tensor.empty() : tensor<64x64xf32>
  %w2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%w2_e : tensor<64x64xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %lin = affine.apply affine_map<(i, j) -> ((i * 7 + j * 3 + 2) mod 11)>(%i, %j)
    %l = arith.index_cast %lin : index to i32
    %f = arith.sitofp %l : i32 to f32
    %five = arith.constant 5.0 : f32
    %eighth = arith.constant 0.125 : f32
    %c = arith.subf %f, %five : f32
    %v = arith.mulf %c, %eighth : f32
    linalg.yield %v : f32
  } -> tensor<64x64xf32>

  %n = arith.constant 258 : index
  %start = arith.constant 0 : index
  %x_e = tensor.empty(%n) : tensor<?x64xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%x_e : tensor<?x64xf32>) {
  ^bb0(%out: f32):
    %i0 = linalg.index 0 : index
    %i = arith.addi %i0, %start : index
    %j = linalg.index 1 : index
    %lin = affine.apply affine_map<(i, j) -> ((i * 7 + j * 3 + 3) mod 11)>(%i, %j)
    %l = arith.index_cast %lin : index to i32
    %f = arith.sitofp %l : i32 to f32
    %five = arith.constant 5.0 : f32
    %eighth = arith.constant 0.125 : f32
    %c = arith.subf %f, %five : f32
    %v = arith.mulf %c, %eighth : f32
    linalg.yield %v : f32
  } -> tensor<?x64xf32>

  %loss, %gw1, %gw2 = func.call @mlp_dynamic(%x, %w1, %w2) : (tensor<?x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) -> (tensor<f32>, tensor<64x64xf32>, tensor<64x64xf32>)
  %loss_u = tensor.cast %loss : tensor<f32> to tensor<*xf32>
  func.call @printMemrefF32(%loss_u) : (tensor<*xf32>) -> ()
  %gw1_u = tensor.cast %gw1 : tensor<64x64xf32> to tensor<*xf32>
  func.call @printMemrefF32(%gw1_u) : (tensor<*xf32>) -> ()
  %gw2_u = tensor.cast %gw2 : tensor<64x64xf32> to tensor<*xf32>
  func.call @printMemrefF32(%gw2_u) : (tensor<*xf32>) -> ()
  return
}
