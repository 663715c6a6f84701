// Harness of mlp_uneven.mlir: rank r takes rows start .. start + n - 1 of
// the batch of 258 that mlp_uneven.single.harness.mlir builds whole, with
// n = 65 on ranks 0 and 1, 64 on ranks 2 and 3
// (start = 64 r + min(r, 2)).
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

  %r = shard.process_linear_index on @grid : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %base = arith.muli %r, %c64 : index
  %first = arith.minui %r, %c2 : index
  %start = arith.addi %base, %first : index
  %small = arith.cmpi ult, %r, %c2 : index
  %c65 = arith.constant 65 : index
  %n = arith.select %small, %c65, %c64 : index
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

  %loss, %gw1, %gw2 = func.call @mlp_uneven(%x, %w1, %w2) : (tensor<?x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) -> (tensor<f32>, tensor<64x64xf32>, tensor<64x64xf32>)
  %loss_u = tensor.cast %loss : tensor<f32> to tensor<*xf32>
  func.call @printMemrefF32(%loss_u) : (tensor<*xf32>) -> ()
  %gw1_u = tensor.cast %gw1 : tensor<64x64xf32> to tensor<*xf32>
  func.call @printMemrefF32(%gw1_u) : (tensor<*xf32>) -> ()
  %gw2_u = tensor.cast %gw2 : tensor<64x64xf32> to tensor<*xf32>
  func.call @printMemrefF32(%gw2_u) : (tensor<*xf32>) -> ()
  return
}
