// A training step written by hand as one loop with a delayed backward, the
// way a pipeline runtime that interleaves forward and backward work writes
// it (not by gen_pipeline.py): iteration k runs the forward of micro-batch
// f = min(k, 5) of x [6, 4, 8] (h = tanh(a W)) and stashes a and h in rings
// of 3 rows ([3, 4, 8], rank-preserving [1, 4, 8] slices, expand_shape /
// collapse_shape around them, no mask: iteration 6 re-runs micro-batch 5
// into row 0, free again), adds sum(h^2) to the loss while k < 6, then runs
// the backward of micro-batch k - 1 from the rows it stashed (row
// (k + 2) mod 3), scaled by 0 at k = 0, and accumulates dW += a^T g,
// g = 2 h (1 - h^2). Results, scaled after the loop: loss = the mean over
// micro-batches of sum(h^2), and its gradient with respect to W.
#id = affine_map<(i, j) -> (i, j)>
#sc = affine_map<(i, j) -> ()>
#tn_a = affine_map<(i, j, n) -> (n, i)>
#tn_b = affine_map<(i, j, n) -> (n, j)>
#tn_o = affine_map<(i, j, n) -> (i, j)>
func.func @delayed(%x: tensor<6x4x8xf32>, %w: tensor<8x8xf32>)
    -> (tensor<f32> {remat.loss}, tensor<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ring_e = tensor.empty() : tensor<3x4x8xf32>
  %ring0 = linalg.fill ins(%zero : f32) outs(%ring_e : tensor<3x4x8xf32>) -> tensor<3x4x8xf32>
  %loss_e = tensor.empty() : tensor<f32>
  %loss0 = linalg.fill ins(%zero : f32) outs(%loss_e : tensor<f32>) -> tensor<f32>
  %dw_e = tensor.empty() : tensor<8x8xf32>
  %dw0 = linalg.fill ins(%zero : f32) outs(%dw_e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r:4 = scf.for %k = %c0 to %c7 step %c1
      iter_args(%ra = %ring0, %rh = %ring0, %loss = %loss0, %dw = %dw0)
      -> (tensor<3x4x8xf32>, tensor<3x4x8xf32>, tensor<f32>, tensor<8x8xf32>) {
    %f = arith.minui %k, %c5 : index
    %wslot = arith.remui %k, %c3 : index
    %a3 = tensor.extract_slice %x[%f, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<6x4x8xf32> to tensor<1x4x8xf32>
    %a = tensor.collapse_shape %a3 [[0, 1], [2]] : tensor<1x4x8xf32> into tensor<4x8xf32>
    %p_e = tensor.empty() : tensor<4x8xf32>
    %p_z = linalg.fill ins(%zero : f32) outs(%p_e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %p = linalg.matmul ins(%a, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%p_z : tensor<4x8xf32>) -> tensor<4x8xf32>
    %h_e = tensor.empty() : tensor<4x8xf32>
    %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%p : tensor<4x8xf32>) outs(%h_e : tensor<4x8xf32>) {
    ^bb0(%v: f32, %o: f32):
      %t = math.tanh %v : f32
      linalg.yield %t : f32
    } -> tensor<4x8xf32>
    %h3 = tensor.expand_shape %h [[0, 1], [2]] output_shape [1, 4, 8] : tensor<4x8xf32> into tensor<1x4x8xf32>
    %ra_n = tensor.insert_slice %a3 into %ra[%wslot, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<1x4x8xf32> into tensor<3x4x8xf32>
    %rh_n = tensor.insert_slice %h3 into %rh[%wslot, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<1x4x8xf32> into tensor<3x4x8xf32>
    %fwd = arith.cmpi ult, %k, %c6 : index
    %lm = arith.select %fwd, %one, %zero : f32
    %loss_n = linalg.generic {indexing_maps = [#id, #sc], iterator_types = ["reduction", "reduction"]}
        ins(%h : tensor<4x8xf32>) outs(%loss : tensor<f32>) {
    ^bb0(%v: f32, %acc: f32):
      %sq = arith.mulf %v, %v : f32
      %m = arith.mulf %sq, %lm : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    } -> tensor<f32>
    // The backward of micro-batch k - 1, from row (k + 2) mod 3.
    %kb = arith.addi %k, %c2 : index
    %rslot = arith.remui %kb, %c3 : index
    %bwd = arith.cmpi uge, %k, %c1 : index
    %bm = arith.select %bwd, %one, %zero : f32
    %sa3 = tensor.extract_slice %ra_n[%rslot, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<3x4x8xf32> to tensor<1x4x8xf32>
    %sh3 = tensor.extract_slice %rh_n[%rslot, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<3x4x8xf32> to tensor<1x4x8xf32>
    %sa = tensor.collapse_shape %sa3 [[0, 1], [2]] : tensor<1x4x8xf32> into tensor<4x8xf32>
    %sh = tensor.collapse_shape %sh3 [[0, 1], [2]] : tensor<1x4x8xf32> into tensor<4x8xf32>
    %g_e = tensor.empty() : tensor<4x8xf32>
    %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%sh : tensor<4x8xf32>) outs(%g_e : tensor<4x8xf32>) {
    ^bb0(%v: f32, %o: f32):
      %two = arith.constant 2.0 : f32
      %v2 = arith.mulf %v, %v : f32
      %d = arith.subf %one, %v2 : f32
      %t = arith.mulf %v, %d : f32
      %t2 = arith.mulf %t, %two : f32
      %m = arith.mulf %t2, %bm : f32
      linalg.yield %m : f32
    } -> tensor<4x8xf32>
    %dw_n = linalg.generic {indexing_maps = [#tn_a, #tn_b, #tn_o], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%sa, %g : tensor<4x8xf32>, tensor<4x8xf32>) outs(%dw : tensor<8x8xf32>) {
    ^bb0(%u: f32, %v: f32, %acc: f32):
      %m = arith.mulf %u, %v : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    } -> tensor<8x8xf32>
    scf.yield %ra_n, %rh_n, %loss_n, %dw_n : tensor<3x4x8xf32>, tensor<3x4x8xf32>, tensor<f32>, tensor<8x8xf32>
  }
  %inv = arith.constant 0.16666667 : f32
  %lm_e = tensor.empty() : tensor<f32>
  %lmean = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%r#2 : tensor<f32>) outs(%lm_e : tensor<f32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %inv : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %gm_e = tensor.empty() : tensor<8x8xf32>
  %gmean = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r#3 : tensor<8x8xf32>) outs(%gm_e : tensor<8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %inv : f32
    linalg.yield %m : f32
  } -> tensor<8x8xf32>
  return %lmean, %gmean : tensor<f32>, tensor<8x8xf32>
}
