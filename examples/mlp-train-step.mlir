// One training step of a 3-layer perceptron (batch 4, widths 8-16-16-4,
// ReLU), forward and backward, in linalg on tensors. The loss is the sum of
// the outputs; the results are the loss and the three weight gradients.
//
//   h1 = x W1      a1 = relu(h1)
//   h2 = a1 W2     a2 = relu(h2)
//   y  = a2 W3     loss = sum(y)
//
// Backward (dy = 1): dW3 = a2^T dy, da2 = dy W3^T, dh2 = da2 * [h2 > 0],
// dW2 = a1^T dh2, da1 = dh2 W2^T, dh1 = da1 * [h1 > 0], dW1 = x^T dh1.

#relu_map = affine_map<(i, j) -> (i, j)>
#sum_in = affine_map<(i, j) -> (i, j)>
#sum_out = affine_map<(i, j) -> ()>

func.func @mlp_train_step(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32>,
                          %w2: tensor<16x16xf32>, %w3: tensor<16x4xf32>)
    -> (tensor<f32> {remat.loss}, tensor<8x16xf32>, tensor<16x16xf32>,
        tensor<16x4xf32>) {
  %zero = arith.constant 0.0 : f32

  // Forward.
  %e1 = tensor.empty() : tensor<4x16xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %h1 = linalg.matmul ins(%x, %w1 : tensor<4x8xf32>, tensor<8x16xf32>)
                      outs(%z1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %a1 = linalg.generic {indexing_maps = [#relu_map, #relu_map],
                        iterator_types = ["parallel", "parallel"]}
      ins(%h1 : tensor<4x16xf32>) outs(%e1 : tensor<4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %h2 = linalg.matmul ins(%a1, %w2 : tensor<4x16xf32>, tensor<16x16xf32>)
                      outs(%z1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %a2 = linalg.generic {indexing_maps = [#relu_map, #relu_map],
                        iterator_types = ["parallel", "parallel"]}
      ins(%h2 : tensor<4x16xf32>) outs(%e1 : tensor<4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %e3 = tensor.empty() : tensor<4x4xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %y = linalg.matmul ins(%a2, %w3 : tensor<4x16xf32>, tensor<16x4xf32>)
                     outs(%z3 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#sum_in, #sum_out],
                          iterator_types = ["reduction", "reduction"]}
      ins(%y : tensor<4x4xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>

  // Backward.
  %one = arith.constant 1.0 : f32
  %dy = linalg.fill ins(%one : f32) outs(%e3 : tensor<4x4xf32>) -> tensor<4x4xf32>
  // dW3 = a2^T dy
  %a2t_e = tensor.empty() : tensor<16x4xf32>
  %a2t = linalg.transpose ins(%a2 : tensor<4x16xf32>) outs(%a2t_e : tensor<16x4xf32>) permutation = [1, 0]
  %ew3 = tensor.empty() : tensor<16x4xf32>
  %zw3 = linalg.fill ins(%zero : f32) outs(%ew3 : tensor<16x4xf32>) -> tensor<16x4xf32>
  %dw3 = linalg.matmul ins(%a2t, %dy : tensor<16x4xf32>, tensor<4x4xf32>)
                       outs(%zw3 : tensor<16x4xf32>) -> tensor<16x4xf32>
  // da2 = dy W3^T ; dh2 = da2 * [h2 > 0]
  %w3t_e = tensor.empty() : tensor<4x16xf32>
  %w3t = linalg.transpose ins(%w3 : tensor<16x4xf32>) outs(%w3t_e : tensor<4x16xf32>) permutation = [1, 0]
  %da2 = linalg.matmul ins(%dy, %w3t : tensor<4x4xf32>, tensor<4x16xf32>)
                       outs(%z1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %dh2 = linalg.generic {indexing_maps = [#relu_map, #relu_map, #relu_map],
                         iterator_types = ["parallel", "parallel"]}
      ins(%da2, %h2 : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e1 : tensor<4x16xf32>) {
  ^bb0(%g: f32, %h: f32, %out: f32):
    %pos = arith.cmpf ogt, %h, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  // dW2 = a1^T dh2
  %a1t_e = tensor.empty() : tensor<16x4xf32>
  %a1t = linalg.transpose ins(%a1 : tensor<4x16xf32>) outs(%a1t_e : tensor<16x4xf32>) permutation = [1, 0]
  %ew2 = tensor.empty() : tensor<16x16xf32>
  %zw2 = linalg.fill ins(%zero : f32) outs(%ew2 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %dw2 = linalg.matmul ins(%a1t, %dh2 : tensor<16x4xf32>, tensor<4x16xf32>)
                       outs(%zw2 : tensor<16x16xf32>) -> tensor<16x16xf32>
  // da1 = dh2 W2^T ; dh1 = da1 * [h1 > 0]
  %w2t_e = tensor.empty() : tensor<16x16xf32>
  %w2t = linalg.transpose ins(%w2 : tensor<16x16xf32>) outs(%w2t_e : tensor<16x16xf32>) permutation = [1, 0]
  %da1 = linalg.matmul ins(%dh2, %w2t : tensor<4x16xf32>, tensor<16x16xf32>)
                       outs(%z1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %dh1 = linalg.generic {indexing_maps = [#relu_map, #relu_map, #relu_map],
                         iterator_types = ["parallel", "parallel"]}
      ins(%da1, %h1 : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e1 : tensor<4x16xf32>) {
  ^bb0(%g: f32, %h: f32, %out: f32):
    %pos = arith.cmpf ogt, %h, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  // dW1 = x^T dh1
  %xt_e = tensor.empty() : tensor<8x4xf32>
  %xt = linalg.transpose ins(%x : tensor<4x8xf32>) outs(%xt_e : tensor<8x4xf32>) permutation = [1, 0]
  %ew1 = tensor.empty() : tensor<8x16xf32>
  %zw1 = linalg.fill ins(%zero : f32) outs(%ew1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %dw1 = linalg.matmul ins(%xt, %dh1 : tensor<8x4xf32>, tensor<4x16xf32>)
                       outs(%zw1 : tensor<8x16xf32>) -> tensor<8x16xf32>

  return %loss, %dw1, %dw2, %dw3
      : tensor<f32>, tensor<8x16xf32>, tensor<16x16xf32>, tensor<16x4xf32>
}
