// The single-device twin of gpipe_p2.mlir: both layers of the stacked
// weights [2, 16, 16] on one device, the 4 micro-batches one after the
// other (forward through both layers, then backward), the gradients
// summed over them. Results: the loss and the stacked weight gradient;
// stage s of the pipeline returns its slice s.
#id = affine_map<(i, j) -> (i, j)>
#red = affine_map<(i, j) -> ()>
#tn_a = affine_map<(i, j, n) -> (n, i)>
#tn_b = affine_map<(i, j, n) -> (n, j)>
#tn_o = affine_map<(i, j, n) -> (i, j)>
#nt_a = affine_map<(n, i, j) -> (n, j)>
#nt_b = affine_map<(n, i, j) -> (i, j)>
#nt_o = affine_map<(n, i, j) -> (n, i)>

func.func @gpipe_p2_single(%x: tensor<4x4x16xf32>, %t: tensor<4x4x16xf32>,
                           %w: tensor<2x16x16xf32>)
    -> (tensor<f32> {remat.loss}, tensor<2x16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %w0 = tensor.extract_slice %w[0, 0, 0] [1, 16, 16] [1, 1, 1] : tensor<2x16x16xf32> to tensor<16x16xf32>
  %w1 = tensor.extract_slice %w[1, 0, 0] [1, 16, 16] [1, 1, 1] : tensor<2x16x16xf32> to tensor<16x16xf32>
  %loss_e = tensor.empty() : tensor<f32>
  %loss0 = linalg.fill ins(%zero : f32) outs(%loss_e : tensor<f32>) -> tensor<f32>
  %dw_e0 = tensor.empty() : tensor<16x16xf32>
  %dw00 = linalg.fill ins(%zero : f32) outs(%dw_e0 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %dw_e1 = tensor.empty() : tensor<16x16xf32>
  %dw10 = linalg.fill ins(%zero : f32) outs(%dw_e1 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %acc:3 = scf.for %m = %c0 to %c4 step %c1 iter_args(%lacc = %loss0, %dw0 = %dw00, %dw1 = %dw10)
      -> (tensor<f32>, tensor<16x16xf32>, tensor<16x16xf32>) {
    %x_m = tensor.extract_slice %x[%m, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<4x4x16xf32> to tensor<4x16xf32>
    %t_m = tensor.extract_slice %t[%m, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<4x4x16xf32> to tensor<4x16xf32>
    // forward: y1 = tanh(x W0), y2 = tanh(y1 W1)
    %h1_e = tensor.empty() : tensor<4x16xf32>
    %h1_z = linalg.fill ins(%zero : f32) outs(%h1_e : tensor<4x16xf32>) -> tensor<4x16xf32>
    %h1 = linalg.matmul ins(%x_m, %w0 : tensor<4x16xf32>, tensor<16x16xf32>) outs(%h1_z : tensor<4x16xf32>) -> tensor<4x16xf32>
    %y1_e = tensor.empty() : tensor<4x16xf32>
    %y1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%h1 : tensor<4x16xf32>) outs(%y1_e : tensor<4x16xf32>) {
    ^bb0(%a: f32, %out: f32):
      %r = math.tanh %a : f32
      linalg.yield %r : f32
    } -> tensor<4x16xf32>
    %h2_e = tensor.empty() : tensor<4x16xf32>
    %h2_z = linalg.fill ins(%zero : f32) outs(%h2_e : tensor<4x16xf32>) -> tensor<4x16xf32>
    %h2 = linalg.matmul ins(%y1, %w1 : tensor<4x16xf32>, tensor<16x16xf32>) outs(%h2_z : tensor<4x16xf32>) -> tensor<4x16xf32>
    %y2_e = tensor.empty() : tensor<4x16xf32>
    %y2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%h2 : tensor<4x16xf32>) outs(%y2_e : tensor<4x16xf32>) {
    ^bb0(%a: f32, %out: f32):
      %r = math.tanh %a : f32
      linalg.yield %r : f32
    } -> tensor<4x16xf32>
    %lacc_n = linalg.generic {indexing_maps = [#id, #id, #red], iterator_types = ["reduction", "reduction"]}
        ins(%y2, %t_m : tensor<4x16xf32>, tensor<4x16xf32>) outs(%lacc : tensor<f32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %d = arith.subf %a, %b : f32
      %sq = arith.mulf %d, %d : f32
      %r = arith.addf %out, %sq : f32
      linalg.yield %r : f32
    } -> tensor<f32>
    // backward: d2 = (y2 - t) / 128 (1 - y2^2), dW1 += y1^T d2,
    // d1 = (d2 W1^T) (1 - y1^2), dW0 += x^T d1
    %d2_e = tensor.empty() : tensor<4x16xf32>
    %d2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%y2, %t_m : tensor<4x16xf32>, tensor<4x16xf32>) outs(%d2_e : tensor<4x16xf32>) {
    ^bb0(%yv: f32, %tv: f32, %out: f32):
      %scale = arith.constant 0.0078125 : f32
      %one = arith.constant 1.0 : f32
      %d = arith.subf %yv, %tv : f32
      %dl = arith.mulf %d, %scale : f32
      %y2v = arith.mulf %yv, %yv : f32
      %dt = arith.subf %one, %y2v : f32
      %r = arith.mulf %dl, %dt : f32
      linalg.yield %r : f32
    } -> tensor<4x16xf32>
    %dw1_n = linalg.generic {indexing_maps = [#tn_a, #tn_b, #tn_o], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%y1, %d2 : tensor<4x16xf32>, tensor<4x16xf32>) outs(%dw1 : tensor<16x16xf32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %p = arith.mulf %a, %b : f32
      %r = arith.addf %out, %p : f32
      linalg.yield %r : f32
    } -> tensor<16x16xf32>
    %g1_e = tensor.empty() : tensor<4x16xf32>
    %g1_z = linalg.fill ins(%zero : f32) outs(%g1_e : tensor<4x16xf32>) -> tensor<4x16xf32>
    %g1 = linalg.generic {indexing_maps = [#nt_a, #nt_b, #nt_o], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%d2, %w1 : tensor<4x16xf32>, tensor<16x16xf32>) outs(%g1_z : tensor<4x16xf32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %p = arith.mulf %a, %b : f32
      %r = arith.addf %out, %p : f32
      linalg.yield %r : f32
    } -> tensor<4x16xf32>
    %d1_e = tensor.empty() : tensor<4x16xf32>
    %d1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%g1, %y1 : tensor<4x16xf32>, tensor<4x16xf32>) outs(%d1_e : tensor<4x16xf32>) {
    ^bb0(%gv: f32, %yv: f32, %out: f32):
      %one = arith.constant 1.0 : f32
      %y2v = arith.mulf %yv, %yv : f32
      %dt = arith.subf %one, %y2v : f32
      %r = arith.mulf %gv, %dt : f32
      linalg.yield %r : f32
    } -> tensor<4x16xf32>
    %dw0_n = linalg.generic {indexing_maps = [#tn_a, #tn_b, #tn_o], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x_m, %d1 : tensor<4x16xf32>, tensor<4x16xf32>) outs(%dw0 : tensor<16x16xf32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %p = arith.mulf %a, %b : f32
      %r = arith.addf %out, %p : f32
      linalg.yield %r : f32
    } -> tensor<16x16xf32>
    scf.yield %lacc_n, %dw0_n, %dw1_n : tensor<f32>, tensor<16x16xf32>, tensor<16x16xf32>
  }
  %loss_o_e = tensor.empty() : tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%acc#0 : tensor<f32>) outs(%loss_o_e : tensor<f32>) {
  ^bb0(%a: f32, %out: f32):
    %inv = arith.constant 0.00390625 : f32
    %r = arith.mulf %a, %inv : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %dw_e = tensor.empty() : tensor<2x16x16xf32>
  %dw_0 = tensor.insert_slice %acc#1 into %dw_e[0, 0, 0] [1, 16, 16] [1, 1, 1] : tensor<16x16xf32> into tensor<2x16x16xf32>
  %dw = tensor.insert_slice %acc#2 into %dw_0[1, 0, 0] [1, 16, 16] [1, 1, 1] : tensor<16x16xf32> into tensor<2x16x16xf32>
  return %loss, %dw : tensor<f32>, tensor<2x16x16xf32>
}
