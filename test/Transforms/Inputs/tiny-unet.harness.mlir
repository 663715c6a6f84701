// Harness of @unet (test/Integration/CPU/run.sh MODEL HARNESS): x = 0.001;
// prints the loss and the gradient.
func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %c = arith.constant 0.001 : f32
  %e = tensor.empty() : tensor<1024xf32>
  %x = linalg.fill ins(%c : f32) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  %loss, %g = func.call @unet(%x) : (tensor<1024xf32>) -> (tensor<f32>, tensor<1024xf32>)
  %lu = tensor.cast %loss : tensor<f32> to tensor<*xf32>
  func.call @printMemrefF32(%lu) : (tensor<*xf32>) -> ()
  %gu = tensor.cast %g : tensor<1024xf32> to tensor<*xf32>
  func.call @printMemrefF32(%gu) : (tensor<*xf32>) -> ()
  return
}
