// A GPipe pipeline-parallel training step as JAX / MaxText write it under
// shard_map (issue 50), per rank of a 2-stage pipeline: stage s holds layer
// s of the stacked weights [P, 16, 16] (its slice, w: [1, 16, 16]); the
// layer is y = tanh(h W). M = 4 micro-batches of 4 x 16 (x, replicated;
// stage 0 reads them) run forward in M + P - 1 = 5 iterations: every stage
// applies its layer to the micro-batch it holds and shard.shift passes the
// result to the next stage (offset 1); the iterations where stage s holds
// no micro-batch (i - s outside 0 .. M-1, the bubble) compute on what they
// hold and are masked. The stage's inputs and outputs of every iteration
// are stashed [5, 4, 16] for the backward, which runs the iterations in
// reverse, shifting the input gradients back (offset -1). The last stage
// computes the loss, sum((y - t)^2) / (M * 4 * 16) against t, and the
// output gradients; an all_reduce gives every stage the loss.
// Results: the loss and the stage's weight gradient [1, 16, 16].
// gpipe_p2.single.mlir is the single-device twin (both layers, no shifts).
shard.grid @grid(shape = 2)
#id = affine_map<(i, j) -> (i, j)>
#sc = affine_map<(i, j) -> ()>
#tn_a = affine_map<(i, j, n) -> (n, i)>
#tn_b = affine_map<(i, j, n) -> (n, j)>
#tn_o = affine_map<(i, j, n) -> (i, j)>
#nt_a = affine_map<(n, i, j) -> (n, j)>
#nt_b = affine_map<(n, i, j) -> (i, j)>
#nt_o = affine_map<(n, i, j) -> (n, i)>

func.func @gpipe_p2(%x: tensor<4x4x16xf32>, %t: tensor<4x4x16xf32>,
                    %w: tensor<1x16x16xf32>)
    -> (tensor<f32> {remat.loss}, tensor<1x16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %zero = arith.constant 0.0 : f32
  // The stage: this device's coordinate on the grid's one axis.
  %s = shard.process_linear_index on @grid : index
  %first = arith.cmpi eq, %s, %c0 : index
  %last = arith.cmpi eq, %s, %c1 : index
  %wl = tensor.extract_slice %w[0, 0, 0] [1, 16, 16] [1, 1, 1] : tensor<1x16x16xf32> to tensor<16x16xf32>
  %state_e = tensor.empty() : tensor<4x16xf32>
  %state0 = linalg.fill ins(%zero : f32) outs(%state_e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %st_in_e = tensor.empty() : tensor<5x4x16xf32>
  %st_out_e = tensor.empty() : tensor<5x4x16xf32>
  %loss_e = tensor.empty() : tensor<f32>
  %loss0 = linalg.fill ins(%zero : f32) outs(%loss_e : tensor<f32>) -> tensor<f32>
  // forward: iteration i, stage s on micro-batch i - s
  %fwd:4 = scf.for %i = %c0 to %c5 step %c1
      iter_args(%state = %state0, %st_in = %st_in_e, %st_out = %st_out_e, %lacc = %loss0)
      -> (tensor<4x16xf32>, tensor<5x4x16xf32>, tensor<5x4x16xf32>, tensor<f32>) {
    // Stage 0 reads micro-batch i (the last one again in the bubble), the
    // others what the previous stage shifted to them.
    %mx = arith.minui %i, %c3 : index
    %x_i = tensor.extract_slice %x[%mx, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<4x4x16xf32> to tensor<4x16xf32>
    %in_e = tensor.empty() : tensor<4x16xf32>
    %in = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = ["parallel", "parallel"]}
        ins(%x_i, %state, %first : tensor<4x16xf32>, tensor<4x16xf32>, i1) outs(%in_e : tensor<4x16xf32>) {
    ^bb0(%a: f32, %b: f32, %f: i1, %out: f32):
      %r = arith.select %f, %a, %b : f32
      linalg.yield %r : f32
    } -> tensor<4x16xf32>
    %h_e = tensor.empty() : tensor<4x16xf32>
    %h_z = linalg.fill ins(%zero : f32) outs(%h_e : tensor<4x16xf32>) -> tensor<4x16xf32>
    %h = linalg.matmul ins(%in, %wl : tensor<4x16xf32>, tensor<16x16xf32>) outs(%h_z : tensor<4x16xf32>) -> tensor<4x16xf32>
    %y_e = tensor.empty() : tensor<4x16xf32>
    %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%h : tensor<4x16xf32>) outs(%y_e : tensor<4x16xf32>) {
    ^bb0(%a: f32, %out: f32):
      %r = math.tanh %a : f32
      linalg.yield %r : f32
    } -> tensor<4x16xf32>
    %st_in_n = tensor.insert_slice %in into %st_in[%i, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<4x16xf32> into tensor<5x4x16xf32>
    %st_out_n = tensor.insert_slice %y into %st_out[%i, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<4x16xf32> into tensor<5x4x16xf32>
    // The last stage finishes micro-batch i - 1 (none at i = 0: masked).
    %ge1 = arith.cmpi uge, %i, %c1 : index
    %valid = arith.andi %last, %ge1 : i1
    %im1 = arith.subi %i, %c1 : index
    %mt = arith.select %ge1, %im1, %c0 : index
    %t_i = tensor.extract_slice %t[%mt, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<4x4x16xf32> to tensor<4x16xf32>
    %lacc_n = linalg.generic {indexing_maps = [#id, #id, #sc, #sc], iterator_types = ["reduction", "reduction"]}
        ins(%y, %t_i, %valid : tensor<4x16xf32>, tensor<4x16xf32>, i1) outs(%lacc : tensor<f32>) {
    ^bb0(%a: f32, %b: f32, %v: i1, %out: f32):
      %d = arith.subf %a, %b : f32
      %sq = arith.mulf %d, %d : f32
      %sum = arith.addf %out, %sq : f32
      %r = arith.select %v, %sum, %out : f32
      linalg.yield %r : f32
    } -> tensor<f32>
    // To the next stage; stage 0 receives zeros (no previous stage).
    %next = shard.shift %y on @grid grid_axes = [0] shift_axis = 0 offset = 1 : tensor<4x16xf32> -> tensor<4x16xf32>
    scf.yield %next, %st_in_n, %st_out_n, %lacc_n : tensor<4x16xf32>, tensor<5x4x16xf32>, tensor<5x4x16xf32>, tensor<f32>
  }
  %loss_l_e = tensor.empty() : tensor<f32>
  %loss_l = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%fwd#3 : tensor<f32>) outs(%loss_l_e : tensor<f32>) {
  ^bb0(%a: f32, %out: f32):
    %inv = arith.constant 0.00390625 : f32
    %r = arith.mulf %a, %inv : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  // Only the last stage's is not zero: the sum gives every stage the loss.
  %loss = shard.all_reduce %loss_l on @grid grid_axes = [0] reduction = sum : tensor<f32> -> tensor<f32>
  // backward: iteration k runs forward iteration i = 4 - k in reverse
  %g_e = tensor.empty() : tensor<4x16xf32>
  %g0 = linalg.fill ins(%zero : f32) outs(%g_e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %dw_e = tensor.empty() : tensor<16x16xf32>
  %dw0 = linalg.fill ins(%zero : f32) outs(%dw_e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %bwd:2 = scf.for %k = %c0 to %c5 step %c1 iter_args(%g = %g0, %dw = %dw0)
      -> (tensor<4x16xf32>, tensor<16x16xf32>) {
    %i = arith.subi %c4, %k : index
    %in_i = tensor.extract_slice %fwd#1[%i, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<5x4x16xf32> to tensor<4x16xf32>
    %y_i = tensor.extract_slice %fwd#2[%i, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<5x4x16xf32> to tensor<4x16xf32>
    %ge1 = arith.cmpi uge, %i, %c1 : index
    %im1 = arith.subi %i, %c1 : index
    %mt = arith.select %ge1, %im1, %c0 : index
    %t_i = tensor.extract_slice %t[%mt, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<4x4x16xf32> to tensor<4x16xf32>
    // Stage s holds micro-batch i - s when 0 <= i - s < M; else masked.
    %ges = arith.cmpi uge, %i, %s : index
    %ims = arith.subi %i, %s : index
    %ltm = arith.cmpi ult, %ims, %c4 : index
    %work = arith.andi %ges, %ltm : i1
    // The output gradient: the loss's on the last stage, else what the
    // next stage shifted back; through tanh.
    %dp_e = tensor.empty() : tensor<4x16xf32>
    %dpre = linalg.generic {indexing_maps = [#id, #id, #id, #sc, #sc, #id], iterator_types = ["parallel", "parallel"]}
        ins(%y_i, %t_i, %g, %last, %work : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, i1, i1) outs(%dp_e : tensor<4x16xf32>) {
    ^bb0(%yv: f32, %tv: f32, %gv: f32, %l: i1, %wk: i1, %out: f32):
      %scale = arith.constant 0.0078125 : f32
      %one = arith.constant 1.0 : f32
      %d = arith.subf %yv, %tv : f32
      %dl = arith.mulf %d, %scale : f32
      %go = arith.select %l, %dl, %gv : f32
      %y2 = arith.mulf %yv, %yv : f32
      %dt = arith.subf %one, %y2 : f32
      %dp = arith.mulf %go, %dt : f32
      %r = arith.select %wk, %dp, %zero : f32
      linalg.yield %r : f32
    } -> tensor<4x16xf32>
    %dw_n = linalg.generic {indexing_maps = [#tn_a, #tn_b, #tn_o], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%in_i, %dpre : tensor<4x16xf32>, tensor<4x16xf32>) outs(%dw : tensor<16x16xf32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %m = arith.mulf %a, %b : f32
      %r = arith.addf %out, %m : f32
      linalg.yield %r : f32
    } -> tensor<16x16xf32>
    %gx_e = tensor.empty() : tensor<4x16xf32>
    %gx_z = linalg.fill ins(%zero : f32) outs(%gx_e : tensor<4x16xf32>) -> tensor<4x16xf32>
    %gx = linalg.generic {indexing_maps = [#nt_a, #nt_b, #nt_o], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%dpre, %wl : tensor<4x16xf32>, tensor<16x16xf32>) outs(%gx_z : tensor<4x16xf32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %m = arith.mulf %a, %b : f32
      %r = arith.addf %out, %m : f32
      linalg.yield %r : f32
    } -> tensor<4x16xf32>
    // Back to the previous stage; the last stage receives zeros.
    %gnext = shard.shift %gx on @grid grid_axes = [0] shift_axis = 0 offset = -1 : tensor<4x16xf32> -> tensor<4x16xf32>
    scf.yield %gnext, %dw_n : tensor<4x16xf32>, tensor<16x16xf32>
  }
  %dw = tensor.expand_shape %bwd#1 [[0, 1], [2]] output_shape [1, 16, 16] : tensor<16x16xf32> into tensor<1x16x16xf32>
  return %loss, %dw : tensor<f32>, tensor<1x16x16xf32>
}
