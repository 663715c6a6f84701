// A loop carrying a row of a larger tensor that nothing else reads,
// writing each step's value into it (slice-carried-in-place.test; its
// SLICE_READ line becomes a read of another row after the loop).
#id2 = affine_map<(i, j) -> (i, j)>
#id3 = affine_map<(r, i, j) -> (r, i, j)>
#bc3 = affine_map<(r, i, j) -> (i, j)>
func.func @step(%x: tensor<4x16xf32>) -> (tensor<f32>, tensor<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %be = tensor.empty() : tensor<5x4x16xf32>
  %big = linalg.generic {indexing_maps = [#bc3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<4x16xf32>) outs(%be : tensor<5x4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<5x4x16xf32>
  %row = tensor.extract_slice %big[2, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<5x4x16xf32> to tensor<4x16xf32>
  %res = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %row) -> (tensor<4x16xf32>) {
    %ne = tensor.empty() : tensor<4x16xf32>
    %n = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%acc, %x : tensor<4x16xf32>, tensor<4x16xf32>) outs(%ne : tensor<4x16xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %m = arith.mulf %a, %half : f32
      %r = arith.addf %m, %b : f32
      linalg.yield %r : f32
    } -> tensor<4x16xf32>
    %c = linalg.copy ins(%n : tensor<4x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
    scf.yield %c : tensor<4x16xf32>
  }
  // SLICE_READ
  %le = tensor.empty() : tensor<f32>
  %lz = linalg.fill ins(%zero : f32) outs(%le : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%res : tensor<4x16xf32>) outs(%lz : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  // d(sum(res^2)/2)/d res
  %ge = tensor.empty() : tensor<4x16xf32>
  %g = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%res : tensor<4x16xf32>) outs(%ge : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %half : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  return %l, %g : tensor<f32>, tensor<4x16xf32>
}
