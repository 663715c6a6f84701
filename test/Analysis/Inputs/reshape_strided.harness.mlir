// Harness of reshape_strided.mlir: x = 0.25 everywhere; prints the loss
// and g.
func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %c = arith.constant 0.25 : f32
  %e = tensor.empty() : tensor<4x4x8xf32>
  %x = linalg.fill ins(%c : f32) outs(%e : tensor<4x4x8xf32>) -> tensor<4x4x8xf32>
  %l, %g = func.call @step(%x) : (tensor<4x4x8xf32>) -> (tensor<f32>, tensor<64xf32>)
  %lu = tensor.cast %l : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%lu) : (tensor<*xf32>) -> ()
  %gu = tensor.cast %g : tensor<64xf32> to tensor<*xf32>
  call @printMemrefF32(%gu) : (tensor<*xf32>) -> ()
  return
}
