// A flat stack, written by hand: the tanh RNN of rnn.mlir (T = 64, batch 32,
// width 64) stacking h_t, [32, 64], at rows [32 t, 32 t + 32) of one
// [2048, 64] tensor, as a frontend that flattens time and batch writes it;
// the backward reads the block at 32 (63 - j) through affine.apply.
// Results: loss, dloss/dw, dloss/dh0 (as rnn.mlir's: rnn.harness.mlir runs it).
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
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cT = arith.constant 64 : index
  %fill_zero = arith.constant 0.0 : f32
  %fill_one = arith.constant 1.0 : f32
  %cB = arith.constant 32 : index
  // forward: h_{t+1} = tanh(h_t w), h_t stacked
  %h_stack_e = tensor.empty() : tensor<2048x64xf32>
  %fwd:2 = scf.for %i = %c0 to %cT step %c1 iter_args(%h = %h0, %st_h = %h_stack_e) -> (tensor<32x64xf32>, tensor<2048x64xf32>) {
    %off = arith.muli %i, %cB : index
    %st_h_next = tensor.insert_slice %h into %st_h[%off, 0] [32, 64] [1, 1] : tensor<32x64xf32> into tensor<2048x64xf32>
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
    scf.yield %y, %st_h_next : tensor<32x64xf32>, tensor<2048x64xf32>
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
  %bwd:2 = scf.for %j = %c0 to %cT step %c1 iter_args(%d = %dT_z, %gw = %gw0_z) -> (tensor<32x64xf32>, tensor<64x64xf32>) {
    %off_r = affine.apply affine_map<(d0) -> ((63 - d0) * 32)>(%j)
    %h_i = tensor.extract_slice %fwd#1[%off_r, 0] [32, 64] [1, 1] : tensor<2048x64xf32> to tensor<32x64xf32>
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
    scf.yield %d_next, %gw_next : tensor<32x64xf32>, tensor<64x64xf32>
  }
  return %loss, %bwd#1, %bwd#0 : tensor<f32>, tensor<64x64xf32>, tensor<32x64xf32>
}
