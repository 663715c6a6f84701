func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = remat.recompute ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>) remat.yield
  }
  return %r : tensor<4xf32>
}
