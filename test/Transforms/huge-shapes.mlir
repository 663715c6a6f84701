// RUN: remat-opt %s -split-input-file -verify-diagnostics -remat-rematerialize="budget=1GiB"

// Static shapes whose byte count does not fit in int64 are refused by name,
// never planned with a wrapped size (4611686018427387904 f32 used to count
// 0 bytes) or called dynamic.

// expected-error @+1 {{argument #0 ('tensor<4611686018427387904xf32>') takes more than 2^63 - 1 bytes}}
func.func @huge_argument(%x: tensor<4611686018427387904xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %l = math.exp %w : tensor<4xf32>
  %g = math.exp %l : tensor<4xf32>
  return %l, %g : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @huge_result(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<100000000000x100000000000xf32>) {
  %l = math.exp %x : tensor<4xf32>
  %i0 = arith.constant 0 : index
  %c = tensor.extract %l[%i0] : tensor<4xf32>
  %e = tensor.empty() : tensor<100000000000x100000000000xf32>
  // expected-error @+1 {{result #0 ('tensor<100000000000x100000000000xf32>') takes more than 2^63 - 1 bytes}}
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<100000000000x100000000000xf32>) -> tensor<100000000000x100000000000xf32>
  return %l, %f : tensor<4xf32>, tensor<100000000000x100000000000xf32>
}
