// Harness of mpi_dialect_p2.mlir: x = [1, 2, 3, 4], w = 0.5; prints the
// loss (both ranks: 0.5 + 1 + 1.5 + 2 = 5).
func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %x = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %w = arith.constant dense<[0.5, 0.5, 0.5, 0.5]> : tensor<4xf32>
  %l, %g = func.call @step(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  %u = tensor.cast %l : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
