func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = math.exp %x : tensor<4xf32>
  %r = remat.recompute ins(%e : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = math.exp %a : tensor<4xf32>
    remat.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
