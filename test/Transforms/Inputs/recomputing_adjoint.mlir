// A training step written by hand the way a hand adjoint or the output of
// jax.checkpoint is: the loss is sum(exp(exp(exp(exp(x))))), and its
// backward keeps only d and recomputes every other activation from %x
// right before the gradient step that reads it (a, b and c die in the
// forward). Its peak as written, with every buffer at its exact size
// (alignment 1): %x, the loss and four 4 KiB values (at the first product:
// d, b3 dying, c3, gb; then gb, a4, b4, ga...), 20484 B. Merged into the
// forward values by upstream's CSE, a, b and c would be held across the
// step: 28676 B at the first product.
func.func @step(%x: tensor<1024xf32>) -> (tensor<f32> {remat.loss}, tensor<1024xf32>) {
  %zero = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<1024xf32>
  %a = linalg.exp ins(%x : tensor<1024xf32>) outs(%ea : tensor<1024xf32>) -> tensor<1024xf32>
  %eb = tensor.empty() : tensor<1024xf32>
  %b = linalg.exp ins(%a : tensor<1024xf32>) outs(%eb : tensor<1024xf32>) -> tensor<1024xf32>
  %ec = tensor.empty() : tensor<1024xf32>
  %c = linalg.exp ins(%b : tensor<1024xf32>) outs(%ec : tensor<1024xf32>) -> tensor<1024xf32>
  %ed = tensor.empty() : tensor<1024xf32>
  %d = linalg.exp ins(%c : tensor<1024xf32>) outs(%ed : tensor<1024xf32>) -> tensor<1024xf32>
  %el = tensor.empty() : tensor<f32>
  %zl = linalg.fill ins(%zero : f32) outs(%el : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%d : tensor<1024xf32>) outs(%zl : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  // d(loss)/dc = d (read from the forward); d(loss)/db = d * c, c recomputed.
  %ea3 = tensor.empty() : tensor<1024xf32>
  %a3 = linalg.exp ins(%x : tensor<1024xf32>) outs(%ea3 : tensor<1024xf32>) -> tensor<1024xf32>
  %eb3 = tensor.empty() : tensor<1024xf32>
  %b3 = linalg.exp ins(%a3 : tensor<1024xf32>) outs(%eb3 : tensor<1024xf32>) -> tensor<1024xf32>
  %ec3 = tensor.empty() : tensor<1024xf32>
  %c3 = linalg.exp ins(%b3 : tensor<1024xf32>) outs(%ec3 : tensor<1024xf32>) -> tensor<1024xf32>
  %egb = tensor.empty() : tensor<1024xf32>
  %gb = linalg.mul ins(%d, %c3 : tensor<1024xf32>, tensor<1024xf32>) outs(%egb : tensor<1024xf32>) -> tensor<1024xf32>
  // d(loss)/da = gb * b, b recomputed.
  %ea4 = tensor.empty() : tensor<1024xf32>
  %a4 = linalg.exp ins(%x : tensor<1024xf32>) outs(%ea4 : tensor<1024xf32>) -> tensor<1024xf32>
  %eb4 = tensor.empty() : tensor<1024xf32>
  %b4 = linalg.exp ins(%a4 : tensor<1024xf32>) outs(%eb4 : tensor<1024xf32>) -> tensor<1024xf32>
  %ega = tensor.empty() : tensor<1024xf32>
  %ga = linalg.mul ins(%gb, %b4 : tensor<1024xf32>, tensor<1024xf32>) outs(%ega : tensor<1024xf32>) -> tensor<1024xf32>
  // d(loss)/dx = ga * a, a recomputed.
  %ea5 = tensor.empty() : tensor<1024xf32>
  %a5 = linalg.exp ins(%x : tensor<1024xf32>) outs(%ea5 : tensor<1024xf32>) -> tensor<1024xf32>
  %egx = tensor.empty() : tensor<1024xf32>
  %gx = linalg.mul ins(%ga, %a5 : tensor<1024xf32>, tensor<1024xf32>) outs(%egx : tensor<1024xf32>) -> tensor<1024xf32>
  return %l, %gx : tensor<f32>, tensor<1024xf32>
}
