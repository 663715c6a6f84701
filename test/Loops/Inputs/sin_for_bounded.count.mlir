// Harness of sin_for_bounded.mlir for test/Loops/region-runs.test.
func.func private @printNewline()
func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %h0 = arith.constant dense<0.5> : tensor<64xf32>
  %x = arith.constant dense<0.25> : tensor<64xf32>
  %xd = tensor.cast %x : tensor<64xf32> to tensor<?xf32>
  %h, %d, %y = func.call @sin_for(%h0, %xd) : (tensor<64xf32>, tensor<?xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<8xf32>)
  func.call @printNewline() : () -> ()
  %u = tensor.cast %d : tensor<64xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  func.call @printNewline() : () -> ()
  return
}
