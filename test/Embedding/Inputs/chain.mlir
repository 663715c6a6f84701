// The exp chain of test/Transforms/rematerialize-chain.mlir: no-remat peak
// 7172 B, floor 4100 B.
func.func @chain(%x: tensor<256xf32>) -> (tensor<f32>, tensor<256xf32>) {
  %a1 = math.exp %x : tensor<256xf32>
  %a2 = math.exp %a1 : tensor<256xf32>
  %a3 = math.exp %a2 : tensor<256xf32>
  %a4 = math.exp %a3 : tensor<256xf32>
  %init = tensor.empty() : tensor<f32>
  %loss = linalg.reduce ins(%a4 : tensor<256xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  // Backward: d exp(u)/du = exp(u), so g_{i-1} = g_i * a_i.
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %g4 = linalg.fill ins(%one : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %g3 = arith.mulf %g4, %a4 : tensor<256xf32>
  %g2 = arith.mulf %g3, %a3 : tensor<256xf32>
  %g1 = arith.mulf %g2, %a2 : tensor<256xf32>
  %gx = arith.mulf %g1, %a1 : tensor<256xf32>
  return %loss, %gx : tensor<f32>, tensor<256xf32>
}
