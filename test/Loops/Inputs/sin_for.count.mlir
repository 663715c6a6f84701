// Harness of sin_for.mlir for test/Loops/region-runs.test: one call, one
// output line (the commas the counted model prints), then its outputs. The
// counted model declares @printComma itself.
func.func private @printNewline()
func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %h0 = arith.constant dense<0.5> : tensor<64xf32>
  %h, %d = func.call @sin_for(%h0) : (tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>)
  func.call @printNewline() : () -> ()
  %u = tensor.cast %d : tensor<64xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  func.call @printNewline() : () -> ()
  return
}
