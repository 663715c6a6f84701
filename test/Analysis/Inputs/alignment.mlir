// A 16x16 f32 value (1024 B) and a 4-byte loss: what each alignment makes
// of them (test/Integration/CPU/alignment.test).
func.func @step(%x: tensor<16x16xf32>) -> (tensor<f32>, tensor<16x16xf32>) {
  %h = math.exp %x : tensor<16x16xf32>
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%h : tensor<16x16xf32>) outs(%z : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  %g = arith.mulf %h, %x : tensor<16x16xf32>
  return %l, %g : tensor<f32>, tensor<16x16xf32>
}
