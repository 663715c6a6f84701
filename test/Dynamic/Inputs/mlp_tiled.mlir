// Inputs/mlp_dynamic.mlir on one tile of its batch, as upstream tiling
// writes it: the step reads the first min(rows, 48) rows of %x
// (affine.min, then tensor.extract_slice). %x is bounded at 256 rows;
// every intermediate at 48.
#id = affine_map<(i, j) -> (i, j)>
#red = affine_map<(i, j) -> ()>
#tn_a = affine_map<(i, j, n) -> (n, i)>
#tn_b = affine_map<(i, j, n) -> (n, j)>
#tn_o = affine_map<(i, j, n) -> (i, j)>
#nt_a = affine_map<(n, i, j) -> (n, j)>
#nt_b = affine_map<(n, i, j) -> (i, j)>
#nt_o = affine_map<(n, i, j) -> (n, i)>

func.func @mlp_dynamic(%x: tensor<?x64xf32> {remat.bounds = array<i64: 256, 64>},
                       %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>)
    -> (tensor<f32> {remat.loss}, tensor<64x64xf32>, tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %rows = tensor.dim %x, %c0 : tensor<?x64xf32>
  // The rows of one tile, as upstream tiling writes them.
  %n = affine.min affine_map<(d0) -> (d0, 48)>(%rows)
  %xs = tensor.extract_slice %x[0, 0] [%n, 64] [1, 1] : tensor<?x64xf32> to tensor<?x64xf32>
  // forward
  %h1_e = tensor.empty(%n) : tensor<?x64xf32>
  %h1_z = linalg.fill ins(%zero : f32) outs(%h1_e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %h1 = linalg.matmul ins(%xs, %w1 : tensor<?x64xf32>, tensor<64x64xf32>) outs(%h1_z : tensor<?x64xf32>) -> tensor<?x64xf32>
  %a1_e = tensor.empty(%n) : tensor<?x64xf32>
  %a1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h1 : tensor<?x64xf32>) outs(%a1_e : tensor<?x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x64xf32>
  %h2_e = tensor.empty(%n) : tensor<?x64xf32>
  %h2_z = linalg.fill ins(%zero : f32) outs(%h2_e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %h2 = linalg.matmul ins(%a1, %w2 : tensor<?x64xf32>, tensor<64x64xf32>) outs(%h2_z : tensor<?x64xf32>) -> tensor<?x64xf32>
  %a2_e = tensor.empty(%n) : tensor<?x64xf32>
  %a2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h2 : tensor<?x64xf32>) outs(%a2_e : tensor<?x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x64xf32>
  %loss_e = tensor.empty() : tensor<f32>
  %loss_z = linalg.fill ins(%zero : f32) outs(%loss_e : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["reduction", "reduction"]}
      ins(%a2 : tensor<?x64xf32>) outs(%loss_z : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %sq = arith.mulf %in, %in : f32
    %s = arith.addf %out, %sq : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  // backward: d2 = 2 a2 [h2 > 0], dw2 = a1^T d2, d1 = (d2 w2^T) [h1 > 0], dw1 = x^T d1
  %d2_e = tensor.empty(%n) : tensor<?x64xf32>
  %d2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a2, %h2 : tensor<?x64xf32>, tensor<?x64xf32>) outs(%d2_e : tensor<?x64xf32>) {
  ^bb0(%a: f32, %h: f32, %out: f32):
    %two = arith.constant 2.0 : f32
    %g = arith.mulf %a, %two : f32
    %pos = arith.cmpf ogt, %h, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x64xf32>
  %gw2_e = tensor.empty() : tensor<64x64xf32>
  %gw2_z = linalg.fill ins(%zero : f32) outs(%gw2_e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %gw2 = linalg.generic {indexing_maps = [#tn_a, #tn_b, #tn_o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a1, %d2 : tensor<?x64xf32>, tensor<?x64xf32>) outs(%gw2_z : tensor<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  %da1_e = tensor.empty(%n) : tensor<?x64xf32>
  %da1_z = linalg.fill ins(%zero : f32) outs(%da1_e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %da1 = linalg.generic {indexing_maps = [#nt_a, #nt_b, #nt_o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%d2, %w2 : tensor<?x64xf32>, tensor<64x64xf32>) outs(%da1_z : tensor<?x64xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x64xf32>
  %d1_e = tensor.empty(%n) : tensor<?x64xf32>
  %d1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%da1, %h1 : tensor<?x64xf32>, tensor<?x64xf32>) outs(%d1_e : tensor<?x64xf32>) {
  ^bb0(%d: f32, %h: f32, %out: f32):
    %pos = arith.cmpf ogt, %h, %zero : f32
    %r = arith.select %pos, %d, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x64xf32>
  %gw1_e = tensor.empty() : tensor<64x64xf32>
  %gw1_z = linalg.fill ins(%zero : f32) outs(%gw1_e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %gw1 = linalg.generic {indexing_maps = [#tn_a, #tn_b, #tn_o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xs, %d1 : tensor<?x64xf32>, tensor<?x64xf32>) outs(%gw1_z : tensor<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %loss, %gw1, %gw2 : tensor<f32>, tensor<64x64xf32>, tensor<64x64xf32>
}
