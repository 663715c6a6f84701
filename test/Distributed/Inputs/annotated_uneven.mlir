// annotated_step.mlir with x of 10 rows split over 4 devices: an uneven
// split, which upstream's shard-partition (MLIR 22) does not partition and
// --remat-partition refuses at the annotation (uneven-annotated.mlir).
shard.grid @grid(shape = 4)
func.func @step(%x: tensor<10x16xf32>, %w: tensor<16x16xf32>) -> (tensor<f32>, tensor<16x16xf32>) {
  %split = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %repl = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %xs = shard.shard %x to %split : tensor<10x16xf32>
  %xu = shard.shard %xs to %split annotate_for_users : tensor<10x16xf32>
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<10x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<10x16xf32>) -> tensor<10x16xf32>
  %y = linalg.matmul ins(%xu, %w : tensor<10x16xf32>, tensor<16x16xf32>) outs(%f : tensor<10x16xf32>) -> tensor<10x16xf32>
  %t = math.tanh %y : tensor<10x16xf32>
  %l0 = tensor.empty() : tensor<f32>
  %l1 = linalg.fill ins(%z : f32) outs(%l0 : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%t : tensor<10x16xf32>) outs(%l1 : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %b: f32) { %s = arith.addf %a, %b : f32
      linalg.yield %s : f32 }
  %ls = shard.shard %l to %repl : tensor<f32>
  // dy = 1 - tanh^2; dW = x^T dy
  %t2 = arith.mulf %t, %t : tensor<10x16xf32>
  %oe = tensor.empty() : tensor<10x16xf32>
  %ones = linalg.fill ins(%one : f32) outs(%oe : tensor<10x16xf32>) -> tensor<10x16xf32>
  %dy = arith.subf %ones, %t2 : tensor<10x16xf32>
  %ge = tensor.empty() : tensor<16x16xf32>
  %gf = linalg.fill ins(%z : f32) outs(%ge : tensor<16x16xf32>) -> tensor<16x16xf32>
  %dw = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] ins(%xu, %dy : tensor<10x16xf32>, tensor<10x16xf32>) outs(%gf : tensor<16x16xf32>) -> tensor<16x16xf32>
  %dws = shard.shard %dw to %repl : tensor<16x16xf32>
  return %ls, %dws : tensor<f32>, tensor<16x16xf32>
}
