// Harness of @delayed (Inputs/delayed_backward.mlir): x[m, i, j] =
// sin(0.1 (m + 1) + 0.3 i + 0.7 j), W[i, j] = 0.25 cos(i - 2 j); prints
// the loss and dW.
func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %xe = tensor.empty() : tensor<6x4x8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(m, i, j) -> (m, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%xe : tensor<6x4x8xf32>) {
  ^bb0(%out: f32):
    %m = linalg.index 0 : index
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %mi = arith.index_cast %m : index to i64
    %ii = arith.index_cast %i : index to i64
    %ji = arith.index_cast %j : index to i64
    %mf = arith.sitofp %mi : i64 to f32
    %if = arith.sitofp %ii : i64 to f32
    %jf = arith.sitofp %ji : i64 to f32
    %one = arith.constant 1.0 : f32
    %a = arith.constant 0.1 : f32
    %b = arith.constant 0.3 : f32
    %c = arith.constant 0.7 : f32
    %m1 = arith.addf %mf, %one : f32
    %t0 = arith.mulf %m1, %a : f32
    %t1 = arith.mulf %if, %b : f32
    %t2 = arith.mulf %jf, %c : f32
    %s0 = arith.addf %t0, %t1 : f32
    %s1 = arith.addf %s0, %t2 : f32
    %v = math.sin %s1 : f32
    linalg.yield %v : f32
  } -> tensor<6x4x8xf32>
  %we = tensor.empty() : tensor<8x8xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%we : tensor<8x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %ji = arith.index_cast %j : index to i64
    %if = arith.sitofp %ii : i64 to f32
    %jf = arith.sitofp %ji : i64 to f32
    %two = arith.constant 2.0 : f32
    %q = arith.constant 0.25 : f32
    %j2 = arith.mulf %jf, %two : f32
    %d = arith.subf %if, %j2 : f32
    %cs = math.cos %d : f32
    %v = arith.mulf %cs, %q : f32
    linalg.yield %v : f32
  } -> tensor<8x8xf32>
  %l, %g = func.call @delayed(%x, %w) : (tensor<6x4x8xf32>, tensor<8x8xf32>) -> (tensor<f32>, tensor<8x8xf32>)
  %lu = tensor.cast %l : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%lu) : (tensor<*xf32>) -> ()
  %gu = tensor.cast %g : tensor<8x8xf32> to tensor<*xf32>
  call @printMemrefF32(%gu) : (tensor<*xf32>) -> ()
  return
}
