// A tiny U-Net-shaped step (see forward-recompute.test): encoder e1 -> e2 ->
// e3, decoder d3 -> d2 -> s1 with skips e2 -> d2 and e1 -> s1, loss = sum(s1),
// and a "gradient" that reads only the loss. 4 KiB per tensor.
func.func @unet(%x: tensor<1024xf32>) -> (tensor<f32>, tensor<1024xf32>) {
  %e1 = math.exp %x : tensor<1024xf32>
  %e2 = math.exp %e1 : tensor<1024xf32>
  %e3 = math.exp %e2 : tensor<1024xf32>
  %d3 = math.exp %e3 : tensor<1024xf32>
  %d2 = arith.addf %d3, %e2 : tensor<1024xf32>
  %s1 = arith.addf %d2, %e1 : tensor<1024xf32>
  %zero = arith.constant 0.0 : f32
  %acc0 = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%acc0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%s1 : tensor<1024xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %l = tensor.extract %loss[] : tensor<f32>
  %e = tensor.empty() : tensor<1024xf32>
  %g = linalg.fill ins(%l : f32) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  return %loss, %g : tensor<f32>, tensor<1024xf32>
}
