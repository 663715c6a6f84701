// Written by hand, the way a frontend lowering a two-stage pipeline
// (torch.distributed.pipelining's per-rank stage programs) might: one
// scf.index_switch on the stage, each case that stage's program, with
// point-to-point shard.send / shard.recv to a partner named by a constant
// (not computed from the stage index), transposes as linalg.transpose,
// the loss's gradient scale 2 / (M R D) = 2 / 64. One micro-batch
// (M = 1) of 4 x 16; stage s holds layer s, y = tanh(h W). The same step
// as gen_pipeline.py --pipeline 1f1b-async -P 2 -M 1 writes (its harness
// and single twin check this one).
shard.grid @pp(shape = 2)

func.func @f1ba_p2_m1(%x: tensor<1x4x16xf32>, %t: tensor<1x4x16xf32>,
                      %w: tensor<1x16x16xf32>)
    -> (tensor<f32> {remat.loss}, tensor<1x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %stage = shard.process_multi_index on @pp axes = [0] : index
  %W = tensor.collapse_shape %w [[0, 1], [2]] : tensor<1x16x16xf32> into tensor<16x16xf32>
  %Wt_e = tensor.empty() : tensor<16x16xf32>
  %Wt = linalg.transpose ins(%W : tensor<16x16xf32>) outs(%Wt_e : tensor<16x16xf32>) permutation = [1, 0]
  %r:2 = scf.index_switch %stage -> tensor<f32>, tensor<16x16xf32>
  case 0 {
    %x0 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<1x4x16xf32> into tensor<4x16xf32>
    %h_e = tensor.empty() : tensor<4x16xf32>
    %h_z = linalg.fill ins(%zero : f32) outs(%h_e : tensor<4x16xf32>) -> tensor<4x16xf32>
    %h = linalg.matmul ins(%x0, %W : tensor<4x16xf32>, tensor<16x16xf32>) outs(%h_z : tensor<4x16xf32>) -> tensor<4x16xf32>
    %y_e = tensor.empty() : tensor<4x16xf32>
    %y = linalg.map { math.tanh } ins(%h : tensor<4x16xf32>) outs(%y_e : tensor<4x16xf32>)
    %sent = shard.send %y on @pp grid_axes = [0] destination = [1] : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %g_e = tensor.empty() : tensor<4x16xf32>
    %g = shard.recv %g_e on @pp grid_axes = [0] source = [1] : (tensor<4x16xf32>) -> tensor<4x16xf32>
    // d = g (1 - y^2); dW = x0^T d
    %d_e = tensor.empty() : tensor<4x16xf32>
    %d = linalg.map ins(%g, %y : tensor<4x16xf32>, tensor<4x16xf32>) outs(%d_e : tensor<4x16xf32>)
      (%gv: f32, %yv: f32, %o: f32) {
        %one = arith.constant 1.0 : f32
        %y2 = arith.mulf %yv, %yv : f32
        %dt = arith.subf %one, %y2 : f32
        %r0 = arith.mulf %gv, %dt : f32
        linalg.yield %r0 : f32
      }
    %xt_e = tensor.empty() : tensor<16x4xf32>
    %xt = linalg.transpose ins(%x0 : tensor<4x16xf32>) outs(%xt_e : tensor<16x4xf32>) permutation = [1, 0]
    %dw_e = tensor.empty() : tensor<16x16xf32>
    %dw_z = linalg.fill ins(%zero : f32) outs(%dw_e : tensor<16x16xf32>) -> tensor<16x16xf32>
    %dw = linalg.matmul ins(%xt, %d : tensor<16x4xf32>, tensor<4x16xf32>) outs(%dw_z : tensor<16x16xf32>) -> tensor<16x16xf32>
    %l_e = tensor.empty() : tensor<f32>
    %l = linalg.fill ins(%zero : f32) outs(%l_e : tensor<f32>) -> tensor<f32>
    scf.yield %l, %dw : tensor<f32>, tensor<16x16xf32>
  }
  case 1 {
    %a_e = tensor.empty() : tensor<4x16xf32>
    %a = shard.recv %a_e on @pp grid_axes = [0] source = [0] : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %h_e = tensor.empty() : tensor<4x16xf32>
    %h_z = linalg.fill ins(%zero : f32) outs(%h_e : tensor<4x16xf32>) -> tensor<4x16xf32>
    %h = linalg.matmul ins(%a, %W : tensor<4x16xf32>, tensor<16x16xf32>) outs(%h_z : tensor<4x16xf32>) -> tensor<4x16xf32>
    %y_e = tensor.empty() : tensor<4x16xf32>
    %y = linalg.map { math.tanh } ins(%h : tensor<4x16xf32>) outs(%y_e : tensor<4x16xf32>)
    %t0 = tensor.collapse_shape %t [[0, 1], [2]] : tensor<1x4x16xf32> into tensor<4x16xf32>
    // loss = sum((y - t)^2) / 64
    %s_e = tensor.empty() : tensor<f32>
    %s_z = linalg.fill ins(%zero : f32) outs(%s_e : tensor<f32>) -> tensor<f32>
    %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
        ins(%y, %t0 : tensor<4x16xf32>, tensor<4x16xf32>) outs(%s_z : tensor<f32>) {
    ^bb0(%yv: f32, %tv: f32, %acc: f32):
      %e = arith.subf %yv, %tv : f32
      %e2 = arith.mulf %e, %e : f32
      %sum = arith.addf %acc, %e2 : f32
      linalg.yield %sum : f32
    } -> tensor<f32>
    %l_e = tensor.empty() : tensor<f32>
    %l = linalg.map ins(%s : tensor<f32>) outs(%l_e : tensor<f32>)
      (%sv: f32, %o: f32) {
        %inv = arith.constant 0.015625 : f32
        %r0 = arith.mulf %sv, %inv : f32
        linalg.yield %r0 : f32
      }
    // d = 2 / 64 (y - t) (1 - y^2); dW = a^T d; gx = d W^T
    %d_e = tensor.empty() : tensor<4x16xf32>
    %d = linalg.map ins(%y, %t0 : tensor<4x16xf32>, tensor<4x16xf32>) outs(%d_e : tensor<4x16xf32>)
      (%yv: f32, %tv: f32, %o: f32) {
        %one = arith.constant 1.0 : f32
        %scale = arith.constant 0.03125 : f32
        %e = arith.subf %yv, %tv : f32
        %ge = arith.mulf %e, %scale : f32
        %y2 = arith.mulf %yv, %yv : f32
        %dt = arith.subf %one, %y2 : f32
        %r0 = arith.mulf %ge, %dt : f32
        linalg.yield %r0 : f32
      }
    %at_e = tensor.empty() : tensor<16x4xf32>
    %at = linalg.transpose ins(%a : tensor<4x16xf32>) outs(%at_e : tensor<16x4xf32>) permutation = [1, 0]
    %dw_e = tensor.empty() : tensor<16x16xf32>
    %dw_z = linalg.fill ins(%zero : f32) outs(%dw_e : tensor<16x16xf32>) -> tensor<16x16xf32>
    %dw = linalg.matmul ins(%at, %d : tensor<16x4xf32>, tensor<4x16xf32>) outs(%dw_z : tensor<16x16xf32>) -> tensor<16x16xf32>
    %gx_e = tensor.empty() : tensor<4x16xf32>
    %gx_z = linalg.fill ins(%zero : f32) outs(%gx_e : tensor<4x16xf32>) -> tensor<4x16xf32>
    %gx = linalg.matmul ins(%d, %Wt : tensor<4x16xf32>, tensor<16x16xf32>) outs(%gx_z : tensor<4x16xf32>) -> tensor<4x16xf32>
    %sent = shard.send %gx on @pp grid_axes = [0] destination = [0] : (tensor<4x16xf32>) -> tensor<4x16xf32>
    scf.yield %l, %dw : tensor<f32>, tensor<16x16xf32>
  }
  default {
    %l_e = tensor.empty() : tensor<f32>
    %l = linalg.fill ins(%zero : f32) outs(%l_e : tensor<f32>) -> tensor<f32>
    %dw_e = tensor.empty() : tensor<16x16xf32>
    %dw = linalg.fill ins(%zero : f32) outs(%dw_e : tensor<16x16xf32>) -> tensor<16x16xf32>
    scf.yield %l, %dw : tensor<f32>, tensor<16x16xf32>
  }
  %loss = shard.all_reduce %r#0 on @pp grid_axes = [0] reduction = sum : tensor<f32> -> tensor<f32>
  %dw3 = tensor.expand_shape %r#1 [[0, 1], [2]] output_shape [1, 16, 16] : tensor<16x16xf32> into tensor<1x16x16xf32>
  return %loss, %dw3 : tensor<f32>, tensor<1x16x16xf32>
}
