// An evaluation loop: sums a loss over micro-batches and counts them. Its
// loss and second result come from one scf.for, but the body computes no
// gradient, so it is not a micro-batch training step.
#id = affine_map<(i) -> (i)>
#red = affine_map<(i) -> ()>
func.func @eval_loop(%x: tensor<4x8xf32>) -> (tensor<f32> {remat.loss}, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %l0 = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%l = %l0, %n = %c0) -> (tensor<f32>, index) {
    %row = tensor.extract_slice %x[%i, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<8xf32>
    %s = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["reduction"]}
        ins(%row : tensor<8xf32>) outs(%l : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %sq = arith.mulf %in, %in : f32
      %a = arith.addf %out, %sq : f32
      linalg.yield %a : f32
    } -> tensor<f32>
    %n1 = arith.addi %n, %c1 : index
    scf.yield %s, %n1 : tensor<f32>, index
  }
  return %r#0, %r#1 : tensor<f32>, index
}
