// branch_read_after.mlir with the other ranks' initial value of dW's
// partial sum made of ones instead of zeros: the two fills differ, so CSE
// does not merge them and the branch keeps yielding the outside fill on
// rank 0 and a fresh buffer on the others. Written per rank, by hand.
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d0)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  shard.grid @grid(shape = 2)
  func.func @step(%arg0: tensor<4x16xf32>, %arg1: tensor<16x16xf32>) -> (tensor<f32>, tensor<16x16xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x16xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x16xf32>) -> tensor<4x16xf32>
    %2 = linalg.matmul ins(%arg0, %arg1 : tensor<4x16xf32>, tensor<16x16xf32>) outs(%1 : tensor<4x16xf32>) -> tensor<4x16xf32>
    %all_gather = shard.all_gather %2 on @grid grid_axes = [0] gather_axis = 0 : tensor<4x16xf32> -> tensor<8x16xf32>
    %cast = tensor.cast %all_gather : tensor<8x16xf32> to tensor<8x16xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%cast : tensor<8x16xf32>) outs(%cast : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = math.tanh %in : f32
      linalg.yield %15 : f32
    } -> tensor<8x16xf32>
    %4 = tensor.empty() : tensor<f32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<f32>) -> tensor<f32>
    %reduced = linalg.reduce ins(%3 : tensor<8x16xf32>) outs(%5 : tensor<f32>) dimensions = [0, 1] 
      (%in: f32, %init: f32) {
        %15 = arith.addf %in, %init : f32
        linalg.yield %15 : f32
      }
    %all_slice = shard.all_slice %3 on @grid grid_axes = [0] slice_axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%all_slice, %all_slice : tensor<4x16xf32>, tensor<4x16xf32>) outs(%all_slice : tensor<4x16xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %15 = arith.mulf %in, %in_1 : f32
      linalg.yield %15 : f32
    } -> tensor<4x16xf32>
    %7 = tensor.empty() : tensor<4x16xf32>
    %8 = linalg.fill ins(%cst_0 : f32) outs(%7 : tensor<4x16xf32>) -> tensor<4x16xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %6 : tensor<4x16xf32>, tensor<4x16xf32>) outs(%8 : tensor<4x16xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %15 = arith.subf %in, %in_1 : f32
      linalg.yield %15 : f32
    } -> tensor<4x16xf32>
    %10 = tensor.empty() : tensor<16x16xf32>
    %11 = linalg.fill ins(%cst : f32) outs(%10 : tensor<16x16xf32>) -> tensor<16x16xf32>
    %proc_linear_idx = shard.process_multi_index on @grid axes = [0] : index
    %grid_shape = shard.grid_shape @grid axes = [0] : index
    %c0 = arith.constant 0 : index
    %12 = arith.cmpi eq, %proc_linear_idx, %c0 : index
    %13 = scf.if %12 -> (tensor<16x16xf32>) {
      scf.yield %11 : tensor<16x16xf32>
    } else {
      %15 = tensor.empty() : tensor<16x16xf32>
      %cst_1 = arith.constant 1.000000e+00 : f32
      %16 = linalg.fill ins(%cst_1 : f32) outs(%15 : tensor<16x16xf32>) -> tensor<16x16xf32>
      scf.yield %16 : tensor<16x16xf32>
    }
    %14 = linalg.matmul indexing_maps = [#map1, #map2, #map3] ins(%arg0, %9 : tensor<4x16xf32>, tensor<4x16xf32>) outs(%13 : tensor<16x16xf32>) -> tensor<16x16xf32>
    %all_reduce = shard.all_reduce %14 on @grid grid_axes = [0] : tensor<16x16xf32> -> tensor<16x16xf32>
    // %11 (zeros) read after the branch: the else path's fresh buffer
    // cannot be the fill's.
    %e = tensor.empty() : tensor<16x16xf32>
    %sum = linalg.add ins(%all_reduce, %11 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
    return %reduced, %sum : tensor<f32>, tensor<16x16xf32>
  }
}

