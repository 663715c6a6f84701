// exp(1) + tanh(exp(1)), with exp(1) computed twice (a recomputation region
// as remat-rematerialize leaves it).
func.func @step(%x: tensor<256xf32>) -> tensor<256xf32> {
  %a = math.exp %x : tensor<256xf32>
  %b = math.tanh %a : tensor<256xf32>
  %r = remat.recompute ins(%x : tensor<256xf32>) -> tensor<256xf32> {
  ^bb0(%y: tensor<256xf32>):
    %0 = math.exp %y : tensor<256xf32>
    remat.yield %0 : tensor<256xf32>
  }
  %s = arith.addf %r, %b : tensor<256xf32>
  return %s : tensor<256xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %x = linalg.fill ins(%one : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %r = call @step(%x) : (tensor<256xf32>) -> tensor<256xf32>
  %u = tensor.cast %r : tensor<256xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
