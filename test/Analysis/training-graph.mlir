// The forward/backward split, sizes and recomputability the planner sees.
// RUN: remat-opt %s -remat-test-training-graph=alignment=1 -split-input-file -verify-diagnostics

// x: 64 f32 = 256 B. The loss is the first result. Forward = what the loss
// depends on; the rest (the gradient) is backward. The tensor.empty the sum
// writes into joins the sum's node (one buffer); the constant is a free
// value, not a node.
// expected-remark @+1 {{2 forward ops, 2 backward ops, loss linalg.generic#1}}
func.func @split(%x: tensor<64xf32>) -> (tensor<f32>, tensor<64xf32>) {
  // expected-remark @+1 {{forward, recomputable, bytes [256], time 256}}
  %e = math.exp %x : tensor<64xf32>
  %init = tensor.empty() : tensor<f32>
  // Sum: 64 iterations x 1 addf.
  // expected-remark @+1 {{forward, recomputable, bytes [4], time 64}}
  %loss = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                          iterator_types = ["reduction"]}
      ins(%e : tensor<64xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %one = arith.constant 1.0 : f32
  // Writes into %e, which is read again: a buffer of its own.
  // expected-remark @+1 {{backward, bytes [256], time 64}}
  %g = linalg.fill ins(%one : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  // d/dx sum(exp x) = exp x, times the incoming gradient.
  // expected-remark @+1 {{backward, bytes [256], time 64}}
  %dx = arith.mulf %g, %e : tensor<64xf32>
  return %loss, %dx : tensor<f32>, tensor<64xf32>
}

// -----

// remat.loss picks the loss; ops with side effects, random remat.ops and
// #remat.policy<keep> are never recomputed; views own no bytes; remat.cost
// overrides the model.
// expected-remark @+1 {{6 forward ops, 0 backward ops, loss arith.addf#5}}
func.func @loss_attr(%x: tensor<8x8xf32>) -> (tensor<64xf32>, tensor<8x8xf32> {remat.loss}) {
  // math ops count 4 FLOPs per element (transcendentals).
  // expected-remark @+1 {{forward, never recomputed, bytes [256], time 256}}
  %k = math.tanh %x {remat.policy = #remat.policy<keep>} : tensor<8x8xf32>
  // expected-remark @+1 {{forward, never recomputed, bytes [256], time 5}}
  %d = remat.op "aten.dropout"(%k) {cost = #remat.cost<time = 5.0>, random} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @+1 {{forward, recomputable, bytes [0], time 0}}
  %flat = tensor.collapse_shape %d [[0, 1]] : tensor<8x8xf32> into tensor<64xf32>
  // expected-remark @+1 {{forward, recomputable, bytes [1000], time 7}}
  %m = math.exp %flat {remat.cost = #remat.cost<time = 7.0, bytes = 1000>} : tensor<64xf32>
  // expected-remark @+1 {{forward, recomputable, bytes [0], time 0}}
  %back = tensor.expand_shape %m [[0, 1]] output_shape [8, 8] : tensor<64xf32> into tensor<8x8xf32>
  // expected-remark @+1 {{forward, recomputable, bytes [256], time 64}}
  %l = arith.addf %back, %x : tensor<8x8xf32>
  return %flat, %l : tensor<64xf32>, tensor<8x8xf32>
}

// -----

// A pooling window read as an input is a buffer that lives while the op
// runs: workspace. A transposed parameter read by one op is one too.
// expected-remark @+1 {{1 forward ops, 0 backward ops, loss linalg.matmul#0}}
func.func @workspace(%a: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %te = tensor.empty() : tensor<8x16xf32>
  %wt = linalg.transpose ins(%w : tensor<16x8xf32>) outs(%te : tensor<8x16xf32>) permutation = [1, 0]
  %init = tensor.empty() : tensor<4x16xf32>
  // Time: 1024 (matmul) + 128 (transpose); workspace: the 512 B transpose.
  // expected-remark @+1 {{forward, recomputable, bytes [256], time 1152.00, workspace 512}}
  %c = linalg.matmul ins(%a, %wt : tensor<4x8xf32>, tensor<8x16xf32>)
                     outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

// -----

// A matmul costs 2*M*N*K FLOPs (one mulf and one addf per iteration).
// expected-remark @+1 {{1 forward ops, 0 backward ops, loss linalg.matmul#0}}
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %init = tensor.empty() : tensor<4x16xf32>
  // expected-remark @+1 {{forward, recomputable, bytes [256], time 1024}}
  %c = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
                     outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

// -----

// An accumulation chain: each update writes into the computed value before
// it (outs(%acc)), as a gradient summed step by step. Every update is a node
// of its own, reading only its own step's values; its result is the buffer
// it writes into (no bytes of its own, that buffer stays alive for it).
// expected-remark @+1 {{2 forward ops, 3 backward ops, loss linalg.generic#1}}
func.func @accumulate(%x: tensor<64xf32>, %y: tensor<64xf32>) -> (tensor<f32>, tensor<64xf32>) {
  // expected-remark @+1 {{forward, recomputable, bytes [256], time 256}}
  %e = math.exp %x : tensor<64xf32>
  %init = tensor.empty() : tensor<f32>
  // expected-remark @+1 {{forward, recomputable, bytes [4], time 64}}
  %loss = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                          iterator_types = ["reduction"]}
      ins(%e : tensor<64xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  // expected-remark @+1 {{backward, bytes [256], time 64}}
  %g = arith.mulf %e, %y : tensor<64xf32>
  // expected-remark @+1 {{backward, bytes [0], time 64}}
  %g2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                        iterator_types = ["parallel"]}
      ins(%e : tensor<64xf32>) outs(%g : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  // expected-remark @+1 {{backward, bytes [0], time 64}}
  %g3 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                        iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%g2 : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %loss, %g3 : tensor<f32>, tensor<64xf32>
}
