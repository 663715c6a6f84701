func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %one = arith.constant 1.0 : f32
  %x = call @fib(%one, %one) : (f32, f32) -> tensor<12xf32>
  %u = tensor.cast %x : tensor<12xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
