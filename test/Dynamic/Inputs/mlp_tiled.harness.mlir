// Harness of @mlp_dynamic (Inputs/mlp_tiled.mlir, a copy of mlp_dynamic.harness.mlir): calls it at batch 1, 3 and 256 (the bound) and
// prints the loss and both gradients of each call. Values: x[i, j] =
// ((7 i + 3 j + seed) mod 11 - 5) / 8, exact in f32.
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

  %n1 = arith.constant 1 : index
  %x1_e = tensor.empty(%n1) : tensor<?x64xf32>
  %x1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%x1_e : tensor<?x64xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
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

  %loss1, %gw1_1, %gw2_1 = func.call @mlp_dynamic(%x1, %w1, %w2) : (tensor<?x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) -> (tensor<f32>, tensor<64x64xf32>, tensor<64x64xf32>)
  %loss1_u = tensor.cast %loss1 : tensor<f32> to tensor<*xf32>
  func.call @printMemrefF32(%loss1_u) : (tensor<*xf32>) -> ()
  %gw1_1_u = tensor.cast %gw1_1 : tensor<64x64xf32> to tensor<*xf32>
  func.call @printMemrefF32(%gw1_1_u) : (tensor<*xf32>) -> ()
  %gw2_1_u = tensor.cast %gw2_1 : tensor<64x64xf32> to tensor<*xf32>
  func.call @printMemrefF32(%gw2_1_u) : (tensor<*xf32>) -> ()
  %n3 = arith.constant 3 : index
  %x3_e = tensor.empty(%n3) : tensor<?x64xf32>
  %x3 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%x3_e : tensor<?x64xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
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

  %loss3, %gw1_3, %gw2_3 = func.call @mlp_dynamic(%x3, %w1, %w2) : (tensor<?x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) -> (tensor<f32>, tensor<64x64xf32>, tensor<64x64xf32>)
  %loss3_u = tensor.cast %loss3 : tensor<f32> to tensor<*xf32>
  func.call @printMemrefF32(%loss3_u) : (tensor<*xf32>) -> ()
  %gw1_3_u = tensor.cast %gw1_3 : tensor<64x64xf32> to tensor<*xf32>
  func.call @printMemrefF32(%gw1_3_u) : (tensor<*xf32>) -> ()
  %gw2_3_u = tensor.cast %gw2_3 : tensor<64x64xf32> to tensor<*xf32>
  func.call @printMemrefF32(%gw2_3_u) : (tensor<*xf32>) -> ()
  %n256 = arith.constant 256 : index
  %x256_e = tensor.empty(%n256) : tensor<?x64xf32>
  %x256 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%x256_e : tensor<?x64xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
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

  %loss256, %gw1_256, %gw2_256 = func.call @mlp_dynamic(%x256, %w1, %w2) : (tensor<?x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) -> (tensor<f32>, tensor<64x64xf32>, tensor<64x64xf32>)
  %loss256_u = tensor.cast %loss256 : tensor<f32> to tensor<*xf32>
  func.call @printMemrefF32(%loss256_u) : (tensor<*xf32>) -> ()
  %gw1_256_u = tensor.cast %gw1_256 : tensor<64x64xf32> to tensor<*xf32>
  func.call @printMemrefF32(%gw1_256_u) : (tensor<*xf32>) -> ()
  %gw2_256_u = tensor.cast %gw2_256 : tensor<64x64xf32> to tensor<*xf32>
  func.call @printMemrefF32(%gw2_256_u) : (tensor<*xf32>) -> ()
  return
}
