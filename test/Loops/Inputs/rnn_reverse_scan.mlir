// The tanh RNN of rnn.mlir (same ops, same results bit for bit), written by
// hand as a reverse scan lowers (lax.scan(..., reverse=True)): the forward
// loop an scf.while counting an i32 %i32 down from 63 while >= 0, storing h
// at row index_cast(%i32) (rows falling); the backward loop an scf.while
// counting %j up from 0 while %j < 64, reading row %j
// (test/Loops/variants.test).
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
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cT = arith.constant 64 : index
  %fill_zero = arith.constant 0.0 : f32
  %fill_one = arith.constant 1.0 : f32
  // forward: h_{t+1} = tanh(h_t w), h_t stacked
  %h_stack_e = tensor.empty() : tensor<64x32x64xf32>
  %c63_i32 = arith.constant 63 : i32
  %c0_i32 = arith.constant 0 : i32
  %c1_i32 = arith.constant 1 : i32
  %fw:3 = scf.while (%iw = %c63_i32, %hw = %h0, %stw = %h_stack_e) : (i32, tensor<32x64xf32>, tensor<64x32x64xf32>) -> (i32, tensor<32x64xf32>, tensor<64x32x64xf32>) {
    %more = arith.cmpi sge, %iw, %c0_i32 : i32
    scf.condition(%more) %iw, %hw, %stw : i32, tensor<32x64xf32>, tensor<64x32x64xf32>
  } do {
  ^bb0(%i32: i32, %h: tensor<32x64xf32>, %st_h: tensor<64x32x64xf32>):
    %inext = arith.subi %i32, %c1_i32 : i32
    %i = arith.index_cast %i32 : i32 to index
    %st_h_next = tensor.insert_slice %h into %st_h[%i, 0, 0] [1, 32, 64] [1, 1, 1] : tensor<32x64xf32> into tensor<64x32x64xf32>
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
    scf.yield %inext, %y, %st_h_next : i32, tensor<32x64xf32>, tensor<64x32x64xf32>
  }
  %loss_e = tensor.empty() : tensor<f32>
  %loss_z = linalg.fill ins(%fill_zero : f32) outs(%loss_e : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id2, #red2], iterator_types = ["reduction", "reduction"]}
      ins(%fw#1 : tensor<32x64xf32>) outs(%loss_z : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  // backward: dloss/dh_T = 1
  %dT_e = tensor.empty() : tensor<32x64xf32>
  %dT_z = linalg.fill ins(%fill_one : f32) outs(%dT_e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %gw0_e = tensor.empty() : tensor<64x64xf32>
  %gw0_z = linalg.fill ins(%fill_zero : f32) outs(%gw0_e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %bw:3 = scf.while (%jw = %c0, %dw = %dT_z, %gww = %gw0_z) : (index, tensor<32x64xf32>, tensor<64x64xf32>) -> (index, tensor<32x64xf32>, tensor<64x64xf32>) {
    %go = arith.cmpi slt, %jw, %cT : index
    scf.condition(%go) %jw, %dw, %gww : index, tensor<32x64xf32>, tensor<64x64xf32>
  } do {
  ^bb0(%j: index, %d: tensor<32x64xf32>, %gw: tensor<64x64xf32>):
    %jnext = arith.addi %j, %c1 : index
    %h_i = tensor.extract_slice %fw#2[%j, 0, 0] [1, 32, 64] [1, 1, 1] : tensor<64x32x64xf32> to tensor<32x64xf32>
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
    scf.yield %jnext, %d_next, %gw_next : index, tensor<32x64xf32>, tensor<64x64xf32>
  }
  return %loss, %bw#2, %bw#1 : tensor<f32>, tensor<64x64xf32>, tensor<32x64xf32>
}
