// Harness of @step (Inputs/recomputing_adjoint.mlir): x[i] = -1 + i/8192,
// then prints the loss and the gradient.
func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %e = tensor.empty() : tensor<1024xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%e : tensor<1024xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    %scale = arith.constant 1.220703125e-04 : f32
    %one = arith.constant 1.0 : f32
    %s = arith.mulf %f, %scale : f32
    %v = arith.subf %s, %one : f32
    linalg.yield %v : f32
  } -> tensor<1024xf32>
  %l, %g = func.call @step(%x) : (tensor<1024xf32>) -> (tensor<f32>, tensor<1024xf32>)
  %lu = tensor.cast %l : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%lu) : (tensor<*xf32>) -> ()
  %gu = tensor.cast %g : tensor<1024xf32> to tensor<*xf32>
  call @printMemrefF32(%gu) : (tensor<*xf32>) -> ()
  return
}
