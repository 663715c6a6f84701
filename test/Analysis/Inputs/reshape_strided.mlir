// A tensor.reshape of a slice along an inner dim: bufferization copies
// the strided slice first (memref.reshape takes identity layouts), so the
// reshape has a buffer of its own (test/Analysis/reshape-copy-property.test).
func.func @step(%x: tensor<4x4x8xf32>) -> (tensor<f32> {remat.loss}, tensor<64xf32>) {
  %ae = tensor.empty() : tensor<4x4x8xf32>
  %a = linalg.map { math.exp } ins(%x : tensor<4x4x8xf32>) outs(%ae : tensor<4x4x8xf32>)
  %s = tensor.extract_slice %a[0, 0, 4] [4, 4, 4] [1, 1, 1] : tensor<4x4x8xf32> to tensor<4x4x4xf32>
  %shape = arith.constant dense<[64]> : tensor<1xindex>
  %v = tensor.reshape %s(%shape) : (tensor<4x4x4xf32>, tensor<1xindex>) -> tensor<64xf32>
  %he = tensor.empty() : tensor<64xf32>
  %h = linalg.map { math.exp } ins(%v : tensor<64xf32>) outs(%he : tensor<64xf32>)
  %c0 = arith.constant 0.0 : f32
  %le = tensor.empty() : tensor<f32>
  %lz = linalg.fill ins(%c0 : f32) outs(%le : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%h : tensor<64xf32>) outs(%lz : tensor<f32>) dimensions = [0]
    (%p: f32, %q: f32) {
      %u = arith.addf %p, %q : f32
      linalg.yield %u : f32
    }
  %ge = tensor.empty() : tensor<64xf32>
  %g = linalg.map { arith.mulf } ins(%v, %h : tensor<64xf32>, tensor<64xf32>) outs(%ge : tensor<64xf32>)
  return %l, %g : tensor<f32>, tensor<64xf32>
}
