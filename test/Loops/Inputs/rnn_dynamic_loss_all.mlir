// The RNN of rnn_dynamic.mlir (T = 64 rows, batch 32, width 64: h_{t+1} =
// tanh(h_t w), a forward scf.for to min(%n, 64), a bound known at run time)
// with a loss over every step's output besides the last state: a second
// stack, zero-filled, holds y_t = h_{t+1} and the loss sums it whole (the
// rows past the run stay 0). The backward loop reads only the stack of h:
// that one is dropped, the stack of y kept for the loss, in the online form
// (a run-time trip count). The lifetime model must not count a copy of the
// online positions (8 B a slot) that bufferization does not make: a read
// of the positions nested before the write in an scf.if, taken for a read
// after it, would put the peak over by it.
// variants.test runs it on the CPU at 97 %, 70 % and the smallest budget,
// 40 of the 64 steps (rnn_dynamic_loss_all.harness.mlir).
#id2 = affine_map<(i, j) -> (i, j)>
#nt_a = affine_map<(n, i, j) -> (n, j)>
#nt_b = affine_map<(n, i, j) -> (i, j)>
#nt_o = affine_map<(n, i, j) -> (n, i)>
#red2 = affine_map<(i, j) -> ()>
#tn_a = affine_map<(i, j, n) -> (n, i)>
#tn_b = affine_map<(i, j, n) -> (n, j)>
#tn_o = affine_map<(i, j, n) -> (i, j)>

func.func @rnn(%h0: tensor<32x64xf32>, %w: tensor<64x64xf32>, %n: index)
    -> (tensor<f32> {remat.loss}, tensor<64x64xf32>, tensor<32x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cT = arith.constant 64 : index
  %fill_zero = arith.constant 0.0 : f32
  %fill_one = arith.constant 1.0 : f32
  // forward: h_{t+1} = tanh(h_t w), h_t stacked
  %trip = arith.minsi %n, %cT : index
  %trip_m1 = arith.subi %trip, %c1 : index
  %h_stack_e = tensor.empty() : tensor<64x32x64xf32>
  %y_stack_e = tensor.empty() : tensor<64x32x64xf32>
  %y_stack_z = linalg.fill ins(%fill_zero : f32) outs(%y_stack_e : tensor<64x32x64xf32>) -> tensor<64x32x64xf32>
  %fwd:3 = scf.for %i = %c0 to %trip step %c1 iter_args(%h = %h0, %st_h = %h_stack_e, %st_y = %y_stack_z) -> (tensor<32x64xf32>, tensor<64x32x64xf32>, tensor<64x32x64xf32>) {
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
    %st_y_next = tensor.insert_slice %y into %st_y[%i, 0, 0] [1, 32, 64] [1, 1, 1] : tensor<32x64xf32> into tensor<64x32x64xf32>
    scf.yield %y, %st_h_next, %st_y_next : tensor<32x64xf32>, tensor<64x32x64xf32>, tensor<64x32x64xf32>
  }
  %all_e = tensor.empty() : tensor<f32>
  %all_z = linalg.fill ins(%fill_zero : f32) outs(%all_e : tensor<f32>) -> tensor<f32>
  %all = linalg.generic {indexing_maps = [affine_map<(t, i, j) -> (t, i, j)>, affine_map<(t, i, j) -> ()>], iterator_types = ["reduction", "reduction", "reduction"]}
      ins(%fwd#2 : tensor<64x32x64xf32>) outs(%all_z : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %loss_e = tensor.empty() : tensor<f32>
  %loss_z = linalg.fill ins(%fill_zero : f32) outs(%loss_e : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id2, #red2], iterator_types = ["reduction", "reduction"]}
      ins(%fwd#0 : tensor<32x64xf32>) outs(%all : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  // backward: dloss/dh_T = 1
  %dT_e = tensor.empty() : tensor<32x64xf32>
  %dT_z = linalg.fill ins(%fill_one : f32) outs(%dT_e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %gw0_e = tensor.empty() : tensor<64x64xf32>
  %gw0_z = linalg.fill ins(%fill_zero : f32) outs(%gw0_e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %bwd:2 = scf.for %j = %c0 to %trip step %c1 iter_args(%d = %dT_z, %gw = %gw0_z) -> (tensor<32x64xf32>, tensor<64x64xf32>) {
    %i_2 = arith.subi %trip_m1, %j : index
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
    scf.yield %d_next, %gw_next : tensor<32x64xf32>, tensor<64x64xf32>
  }
  return %loss, %bwd#1, %bwd#0 : tensor<f32>, tensor<64x64xf32>, tensor<32x64xf32>
}
