// Harness of gpipe_p2.single.mlir: the values of gpipe_p2.harness.mlir,
// the weights whole. Prints the loss and both layers' gradients [2, 16, 16].
func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %x_e = tensor.empty() : tensor<4x4x16xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%x_e : tensor<4x4x16xf32>) {
  ^bb0(%out: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %lin = affine.apply affine_map<(d0, d1, d2) -> (((d0 * 64 + d1 * 16 + d2 * 1) * 7 + 3) mod 11)>(%i0, %i1, %i2)
    %l = arith.index_cast %lin : index to i32
    %f = arith.sitofp %l : i32 to f32
    %off = arith.constant 5.0 : f32
    %scale = arith.constant 0.125 : f32
    %c = arith.subf %f, %off : f32
    %v = arith.mulf %c, %scale : f32
    linalg.yield %v : f32
  } -> tensor<4x4x16xf32>
  %t_e = tensor.empty() : tensor<4x4x16xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%t_e : tensor<4x4x16xf32>) {
  ^bb0(%out: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %lin = affine.apply affine_map<(d0, d1, d2) -> (((d0 * 64 + d1 * 16 + d2 * 1) * 5 + 1) mod 13)>(%i0, %i1, %i2)
    %l = arith.index_cast %lin : index to i32
    %f = arith.sitofp %l : i32 to f32
    %off = arith.constant 6.0 : f32
    %scale = arith.constant 0.1 : f32
    %c = arith.subf %f, %off : f32
    %v = arith.mulf %c, %scale : f32
    linalg.yield %v : f32
  } -> tensor<4x4x16xf32>
  %w_full_e = tensor.empty() : tensor<2x16x16xf32>
  %w_full = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%w_full_e : tensor<2x16x16xf32>) {
  ^bb0(%out: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %lin = affine.apply affine_map<(d0, d1, d2) -> (((d0 * 256 + d1 * 16 + d2 * 1) * 7 + 2) mod 11)>(%i0, %i1, %i2)
    %l = arith.index_cast %lin : index to i32
    %f = arith.sitofp %l : i32 to f32
    %off = arith.constant 5.0 : f32
    %scale = arith.constant 0.04 : f32
    %c = arith.subf %f, %off : f32
    %v = arith.mulf %c, %scale : f32
    linalg.yield %v : f32
  } -> tensor<2x16x16xf32>
  %loss, %dw = func.call @gpipe_p2_single(%x, %t, %w_full) : (tensor<4x4x16xf32>, tensor<4x4x16xf32>, tensor<2x16x16xf32>) -> (tensor<f32>, tensor<2x16x16xf32>)
  %loss_u = tensor.cast %loss : tensor<f32> to tensor<*xf32>
  func.call @printMemrefF32(%loss_u) : (tensor<*xf32>) -> ()
  %dw_u = tensor.cast %dw : tensor<2x16x16xf32> to tensor<*xf32>
  func.call @printMemrefF32(%dw_u) : (tensor<*xf32>) -> ()
  return
}
