// The tanh RNN of rnn.mlir (same ops, same results bit for bit), written by
// hand as affine code generators write a loop over pairs of positions: both
// loops are affine.for stepping by 2 over 0..128, the state of step t at
// row t = i floordiv 2, the backward reading row (126 - j) floordiv 2.
// The pipeline's lower-affine turns them into scf.for loops whose rows are
// select-and-divide sequences (test/Loops/variants.test).
// Results: loss, dloss/dw, dloss/dh0. Arguments: %h0 tensor<32x64xf32>, %w tensor<64x64xf32>
#id2 = affine_map<(i, j) -> (i, j)>
#nt_a = affine_map<(n, i, j) -> (n, j)>
#nt_b = affine_map<(n, i, j) -> (i, j)>
#nt_o = affine_map<(n, i, j) -> (n, i)>
#red2 = affine_map<(i, j) -> ()>
#tn_a = affine_map<(i, j, n) -> (n, i)>
#tn_b = affine_map<(i, j, n) -> (n, j)>
#tn_o = affine_map<(i, j, n) -> (i, j)>

func.func @rnn(%h0: tensor<32x64xf32>, %w: tensor<64x64xf32>)
    -> (tensor<f32> {remat.loss}, tensor<64x64xf32>, tensor<32x64xf32>) {
  %fill_zero = arith.constant 0.0 : f32
  %fill_one = arith.constant 1.0 : f32
  // forward: h_{t+1} = tanh(h_t w), h_t stacked
  %h_stack_e = tensor.empty() : tensor<64x32x64xf32>
  %fwd:2 = affine.for %i = 0 to 128 step 2 iter_args(%h = %h0, %st_h = %h_stack_e) -> (tensor<32x64xf32>, tensor<64x32x64xf32>) {
    %t = affine.apply affine_map<(d0) -> (d0 floordiv 2)>(%i)
    %st_h_next = tensor.insert_slice %h into %st_h[%t, 0, 0] [1, 32, 64] [1, 1, 1] : tensor<32x64xf32> into tensor<64x32x64xf32>
    %p_e = tensor.empty() : tensor<32x64xf32>
    %p_z = linalg.fill ins(%fill_zero : f32) outs(%p_e : tensor<32x64xf32>) -> tensor<32x64xf32>
    %p = linalg.matmul ins(%h, %w : tensor<32x64xf32>, tensor<64x64xf32>) outs(%p_z : tensor<32x64xf32>) -> tensor<32x64xf32>
    %y_e = tensor.empty() : tensor<32x64xf32>
    %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%p : tensor<32x64xf32>) outs(%y_e : tensor<32x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = math.tanh %in : f32
      linalg.yield %r : f32
    } -> tensor<32x64xf32>
    affine.yield %y, %st_h_next : tensor<32x64xf32>, tensor<64x32x64xf32>
  }
  %loss_e = tensor.empty() : tensor<f32>
  %loss_z = linalg.fill ins(%fill_zero : f32) outs(%loss_e : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id2, #red2], iterator_types = ["reduction", "reduction"]}
      ins(%fwd#0 : tensor<32x64xf32>) outs(%loss_z : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  // backward: dloss/dh_T = 1
  %dT_e = tensor.empty() : tensor<32x64xf32>
  %dT_z = linalg.fill ins(%fill_one : f32) outs(%dT_e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %gw0_e = tensor.empty() : tensor<64x64xf32>
  %gw0_z = linalg.fill ins(%fill_zero : f32) outs(%gw0_e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %bwd:2 = affine.for %j = 0 to 128 step 2 iter_args(%d = %dT_z, %gw = %gw0_z) -> (tensor<32x64xf32>, tensor<64x64xf32>) {
    %i_2 = affine.apply affine_map<(d0) -> ((126 - d0) floordiv 2)>(%j)
    %h_i = tensor.extract_slice %fwd#1[%i_2, 0, 0] [1, 32, 64] [1, 1, 1] : tensor<64x32x64xf32> to tensor<32x64xf32>
    %p_r_e = tensor.empty() : tensor<32x64xf32>
    %p_r_z = linalg.fill ins(%fill_zero : f32) outs(%p_r_e : tensor<32x64xf32>) -> tensor<32x64xf32>
    %p_r = linalg.matmul ins(%h_i, %w : tensor<32x64xf32>, tensor<64x64xf32>) outs(%p_r_z : tensor<32x64xf32>) -> tensor<32x64xf32>
    %y_r_e = tensor.empty() : tensor<32x64xf32>
    %y_r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%p_r : tensor<32x64xf32>) outs(%y_r_e : tensor<32x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = math.tanh %in : f32
      linalg.yield %r : f32
    } -> tensor<32x64xf32>
    %da_e = tensor.empty() : tensor<32x64xf32>
    %da = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%d, %y_r : tensor<32x64xf32>, tensor<32x64xf32>) outs(%da_e : tensor<32x64xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %one = arith.constant 1.0 : f32
      %y2 = arith.mulf %in2, %in2 : f32
      %s = arith.subf %one, %y2 : f32
      %r = arith.mulf %in, %s : f32
      linalg.yield %r : f32
    } -> tensor<32x64xf32>
    %gwc_e = tensor.empty() : tensor<64x64xf32>
    %gwc_z = linalg.fill ins(%fill_zero : f32) outs(%gwc_e : tensor<64x64xf32>) -> tensor<64x64xf32>
    %gwc = linalg.generic {indexing_maps = [#tn_a, #tn_b, #tn_o], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%h_i, %da : tensor<32x64xf32>, tensor<32x64xf32>) outs(%gwc_z : tensor<64x64xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      %r = arith.addf %out, %m : f32
      linalg.yield %r : f32
    } -> tensor<64x64xf32>
    %gw_next_e = tensor.empty() : tensor<64x64xf32>
    %gw_next = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%gw, %gwc : tensor<64x64xf32>, tensor<64x64xf32>) outs(%gw_next_e : tensor<64x64xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %r = arith.addf %in, %in2 : f32
      linalg.yield %r : f32
    } -> tensor<64x64xf32>
    %d_next_e = tensor.empty() : tensor<32x64xf32>
    %d_next_z = linalg.fill ins(%fill_zero : f32) outs(%d_next_e : tensor<32x64xf32>) -> tensor<32x64xf32>
    %d_next = linalg.generic {indexing_maps = [#nt_a, #nt_b, #nt_o], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%da, %w : tensor<32x64xf32>, tensor<64x64xf32>) outs(%d_next_z : tensor<32x64xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      %r = arith.addf %out, %m : f32
      linalg.yield %r : f32
    } -> tensor<32x64xf32>
    affine.yield %d_next, %gw_next : tensor<32x64xf32>, tensor<64x64xf32>
  }
  return %loss, %bwd#1, %bwd#0 : tensor<f32>, tensor<64x64xf32>, tensor<32x64xf32>
}
