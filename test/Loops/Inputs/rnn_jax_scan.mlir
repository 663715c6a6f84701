// The tanh RNN of rnn.mlir (same ops on the floats, same results bit for
// bit), written by hand as JAX's lax.scan reaches SCF through StableHLO
// (stablehlo-legalize-to-linalg, then stablehlo-legalize-control-flow):
//  * the counters are 0-d tensors (tensor<i32>), compared and incremented by
//    linalg.generic ops of rank 0, the condition read with tensor.extract;
//  * every value the body uses is carried (the weight, and in the backward
//    loop the stack of states), yielded unchanged;
//  * the stack starts as zeros and each row index is normalized as JAX
//    does for a traced index (select(i < 0, i + 64, i)), then clamped into
//    [0, 63] as the lowering of dynamic_update_slice and dynamic_slice does
//    (maxsi, minsi), the row reshaped to 1x32x64 and back;
//  * the backward loop is the reverse scan of the transpose: a counter from
//    0 while < 64, reading row 64 - j - 1.
// Results: loss, dloss/dw, dloss/dh0. Arguments: %h0 tensor<32x64xf32>, %w tensor<64x64xf32>
#id2 = affine_map<(i, j) -> (i, j)>
#nt_a = affine_map<(n, i, j) -> (n, j)>
#nt_b = affine_map<(n, i, j) -> (i, j)>
#nt_o = affine_map<(n, i, j) -> (n, i)>
#red2 = affine_map<(i, j) -> ()>
#tn_a = affine_map<(i, j, n) -> (n, i)>
#tn_b = affine_map<(i, j, n) -> (n, j)>
#tn_o = affine_map<(i, j, n) -> (i, j)>
#scalar = affine_map<() -> ()>

func.func @rnn(%h0: tensor<32x64xf32>, %w: tensor<64x64xf32>)
    -> (tensor<f32> {remat.loss}, tensor<64x64xf32>, tensor<32x64xf32>) {
  %i0 = arith.constant dense<0> : tensor<i32>
  %i1 = arith.constant dense<1> : tensor<i32>
  %i64 = arith.constant dense<64> : tensor<i32>
  %c0 = arith.constant 0 : index
  %c63 = arith.constant 63 : index
  %fill_zero = arith.constant 0.0 : f32
  %fill_one = arith.constant 1.0 : f32
  %ys_e = tensor.empty() : tensor<64x32x64xf32>
  %ys0 = linalg.fill ins(%fill_zero : f32) outs(%ys_e : tensor<64x32x64xf32>) -> tensor<64x32x64xf32>
  %fw:4 = scf.while (%it = %i0, %wc = %w, %hc = %h0, %ys = %ys0)
      : (tensor<i32>, tensor<64x64xf32>, tensor<32x64xf32>, tensor<64x32x64xf32>)
      -> (tensor<i32>, tensor<64x64xf32>, tensor<32x64xf32>, tensor<64x32x64xf32>) {
    %lt_e = tensor.empty() : tensor<i1>
    %lt = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
        ins(%it, %i64 : tensor<i32>, tensor<i32>) outs(%lt_e : tensor<i1>) {
    ^bb0(%a: i32, %b: i32, %o: i1):
      %r = arith.cmpi slt, %a, %b : i32
      linalg.yield %r : i1
    } -> tensor<i1>
    %more = tensor.extract %lt[] : tensor<i1>
    scf.condition(%more) %it, %wc, %hc, %ys
        : tensor<i32>, tensor<64x64xf32>, tensor<32x64xf32>, tensor<64x32x64xf32>
  } do {
  ^bb0(%i: tensor<i32>, %wb: tensor<64x64xf32>, %h: tensor<32x64xf32>, %st: tensor<64x32x64xf32>):
    %p_e = tensor.empty() : tensor<32x64xf32>
    %p_z = linalg.fill ins(%fill_zero : f32) outs(%p_e : tensor<32x64xf32>) -> tensor<32x64xf32>
    %p = linalg.matmul ins(%h, %wb : tensor<32x64xf32>, tensor<64x64xf32>) outs(%p_z : tensor<32x64xf32>) -> tensor<32x64xf32>
    %y_e = tensor.empty() : tensor<32x64xf32>
    %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%p : tensor<32x64xf32>) outs(%y_e : tensor<32x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = math.tanh %in : f32
      linalg.yield %r : f32
    } -> tensor<32x64xf32>
    %neg_e = tensor.empty() : tensor<i1>
    %neg = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
        ins(%i, %i0 : tensor<i32>, tensor<i32>) outs(%neg_e : tensor<i1>) {
    ^bb0(%a: i32, %b: i32, %o: i1):
      %r = arith.cmpi slt, %a, %b : i32
      linalg.yield %r : i1
    } -> tensor<i1>
    %wrap_e = tensor.empty() : tensor<i32>
    %wrap = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
        ins(%i, %i64 : tensor<i32>, tensor<i32>) outs(%wrap_e : tensor<i32>) {
    ^bb0(%a: i32, %b: i32, %o: i32):
      %r = arith.addi %a, %b : i32
      linalg.yield %r : i32
    } -> tensor<i32>
    %sel_e = tensor.empty() : tensor<i32>
    %sel = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar, #scalar], iterator_types = []}
        ins(%neg, %wrap, %i : tensor<i1>, tensor<i32>, tensor<i32>) outs(%sel_e : tensor<i32>) {
    ^bb0(%c: i1, %a: i32, %b: i32, %o: i32):
      %r = arith.select %c, %a, %b : i32
      linalg.yield %r : i32
    } -> tensor<i32>
    %row_i32 = tensor.extract %sel[] : tensor<i32>
    %row_any = arith.index_cast %row_i32 : i32 to index
    %row_lo = arith.maxsi %row_any, %c0 : index
    %row = arith.minsi %row_lo, %c63 : index
    %h3 = tensor.expand_shape %h [[0, 1], [2]] output_shape [1, 32, 64] : tensor<32x64xf32> into tensor<1x32x64xf32>
    %st_next = tensor.insert_slice %h3 into %st[%row, 0, 0] [1, 32, 64] [1, 1, 1] : tensor<1x32x64xf32> into tensor<64x32x64xf32>
    %inext_e = tensor.empty() : tensor<i32>
    %inext = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
        ins(%i, %i1 : tensor<i32>, tensor<i32>) outs(%inext_e : tensor<i32>) {
    ^bb0(%a: i32, %b: i32, %o: i32):
      %r = arith.addi %a, %b : i32
      linalg.yield %r : i32
    } -> tensor<i32>
    scf.yield %inext, %wb, %y, %st_next
        : tensor<i32>, tensor<64x64xf32>, tensor<32x64xf32>, tensor<64x32x64xf32>
  }
  %loss_e = tensor.empty() : tensor<f32>
  %loss_z = linalg.fill ins(%fill_zero : f32) outs(%loss_e : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id2, #red2], iterator_types = ["reduction", "reduction"]}
      ins(%fw#2 : tensor<32x64xf32>) outs(%loss_z : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  // backward: dloss/dh_T = 1; the transposed scan runs in reverse
  %dT_e = tensor.empty() : tensor<32x64xf32>
  %dT_z = linalg.fill ins(%fill_one : f32) outs(%dT_e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %gw0_e = tensor.empty() : tensor<64x64xf32>
  %gw0_z = linalg.fill ins(%fill_zero : f32) outs(%gw0_e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %bw:5 = scf.while (%jt = %i0, %wc = %w, %ysc = %fw#3, %dc = %dT_z, %gwc0 = %gw0_z)
      : (tensor<i32>, tensor<64x64xf32>, tensor<64x32x64xf32>, tensor<32x64xf32>, tensor<64x64xf32>)
      -> (tensor<i32>, tensor<64x64xf32>, tensor<64x32x64xf32>, tensor<32x64xf32>, tensor<64x64xf32>) {
    %lt_e = tensor.empty() : tensor<i1>
    %lt = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
        ins(%jt, %i64 : tensor<i32>, tensor<i32>) outs(%lt_e : tensor<i1>) {
    ^bb0(%a: i32, %b: i32, %o: i1):
      %r = arith.cmpi slt, %a, %b : i32
      linalg.yield %r : i1
    } -> tensor<i1>
    %more = tensor.extract %lt[] : tensor<i1>
    scf.condition(%more) %jt, %wc, %ysc, %dc, %gwc0
        : tensor<i32>, tensor<64x64xf32>, tensor<64x32x64xf32>, tensor<32x64xf32>, tensor<64x64xf32>
  } do {
  ^bb0(%j: tensor<i32>, %wb: tensor<64x64xf32>, %ysb: tensor<64x32x64xf32>, %d: tensor<32x64xf32>, %gw: tensor<64x64xf32>):
    %rev_e = tensor.empty() : tensor<i32>
    %rev = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
        ins(%i64, %j : tensor<i32>, tensor<i32>) outs(%rev_e : tensor<i32>) {
    ^bb0(%a: i32, %b: i32, %o: i32):
      %r = arith.subi %a, %b : i32
      linalg.yield %r : i32
    } -> tensor<i32>
    %idx_e = tensor.empty() : tensor<i32>
    %idx = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
        ins(%rev, %i1 : tensor<i32>, tensor<i32>) outs(%idx_e : tensor<i32>) {
    ^bb0(%a: i32, %b: i32, %o: i32):
      %r = arith.subi %a, %b : i32
      linalg.yield %r : i32
    } -> tensor<i32>
    %neg_e = tensor.empty() : tensor<i1>
    %neg = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
        ins(%idx, %i0 : tensor<i32>, tensor<i32>) outs(%neg_e : tensor<i1>) {
    ^bb0(%a: i32, %b: i32, %o: i1):
      %r = arith.cmpi slt, %a, %b : i32
      linalg.yield %r : i1
    } -> tensor<i1>
    %wrap_e = tensor.empty() : tensor<i32>
    %wrap = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
        ins(%idx, %i64 : tensor<i32>, tensor<i32>) outs(%wrap_e : tensor<i32>) {
    ^bb0(%a: i32, %b: i32, %o: i32):
      %r = arith.addi %a, %b : i32
      linalg.yield %r : i32
    } -> tensor<i32>
    %sel_e = tensor.empty() : tensor<i32>
    %sel = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar, #scalar], iterator_types = []}
        ins(%neg, %wrap, %idx : tensor<i1>, tensor<i32>, tensor<i32>) outs(%sel_e : tensor<i32>) {
    ^bb0(%c: i1, %a: i32, %b: i32, %o: i32):
      %r = arith.select %c, %a, %b : i32
      linalg.yield %r : i32
    } -> tensor<i32>
    %row_i32 = tensor.extract %sel[] : tensor<i32>
    %row_any = arith.index_cast %row_i32 : i32 to index
    %row_lo = arith.maxsi %row_any, %c0 : index
    %row = arith.minsi %row_lo, %c63 : index
    %h_i3 = tensor.extract_slice %ysb[%row, 0, 0] [1, 32, 64] [1, 1, 1] : tensor<64x32x64xf32> to tensor<1x32x64xf32>
    %h_i = tensor.collapse_shape %h_i3 [[0, 1], [2]] : tensor<1x32x64xf32> into tensor<32x64xf32>
    %p_r_e = tensor.empty() : tensor<32x64xf32>
    %p_r_z = linalg.fill ins(%fill_zero : f32) outs(%p_r_e : tensor<32x64xf32>) -> tensor<32x64xf32>
    %p_r = linalg.matmul ins(%h_i, %wb : tensor<32x64xf32>, tensor<64x64xf32>) outs(%p_r_z : tensor<32x64xf32>) -> tensor<32x64xf32>
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
        ins(%da, %wb : tensor<32x64xf32>, tensor<64x64xf32>) outs(%d_next_z : tensor<32x64xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.mulf %in, %in2 : f32
      %r = arith.addf %out, %m : f32
      linalg.yield %r : f32
    } -> tensor<32x64xf32>
    %jnext_e = tensor.empty() : tensor<i32>
    %jnext = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
        ins(%j, %i1 : tensor<i32>, tensor<i32>) outs(%jnext_e : tensor<i32>) {
    ^bb0(%a: i32, %b: i32, %o: i32):
      %r = arith.addi %a, %b : i32
      linalg.yield %r : i32
    } -> tensor<i32>
    scf.yield %jnext, %wb, %ysb, %d_next, %gw_next
        : tensor<i32>, tensor<64x64xf32>, tensor<64x32x64xf32>, tensor<32x64xf32>, tensor<64x64xf32>
  }
  return %loss, %bw#4, %bw#3 : tensor<f32>, tensor<64x64xf32>, tensor<32x64xf32>
}
