// RUN: remat-opt %s -remat-fuse-elementwise-chains | FileCheck %s

// A layer as JAX lowers it: the bias broadcast to the batch, added, tanh.
// The broadcast and the add, each read once, fuse into the tanh: one
// linalg.generic reads the matmul's result and the bias and writes the
// activation, no buffer in between.
// CHECK-LABEL: func.func @layer
// CHECK:       %[[MM:.*]] = linalg.matmul
// CHECK-NEXT:  %[[E:.*]] = tensor.empty() : tensor<8x4xf32>
// CHECK-NEXT:  %[[H:.*]] = linalg.generic
// CHECK-SAME:    ins(%[[MM]], %{{.*}} : tensor<8x4xf32>, tensor<4xf32>)
// CHECK:         arith.addf
// CHECK-NEXT:    math.tanh
// CHECK:       return %[[H]]
// CHECK-NOT:   linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @layer(%x: tensor<8x3xf32>, %w: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<8x3xf32>, tensor<3x4xf32>) outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
  %e1 = tensor.empty() : tensor<8x4xf32>
  %bb = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<4xf32>) outs(%e1 : tensor<8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x4xf32>
  %e2 = tensor.empty() : tensor<8x4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bb : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e2 : tensor<8x4xf32>) {
  ^bb0(%in: f32, %in1: f32, %out: f32):
    %s = arith.addf %in, %in1 : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  %e3 = tensor.empty() : tensor<8x4xf32>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x4xf32>) outs(%e3 : tensor<8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<8x4xf32>
  return %h : tensor<8x4xf32>
}

// A value read twice (the activation, also a residual of the backward pass)
// is not fused into either reader: it would be computed twice.
// CHECK-LABEL: func.func @two_readers
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT:   linalg.generic
func.func @two_readers(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.tanh %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%t : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%t : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  return %n, %m : tensor<8xf32>, tensor<8xf32>
}

// A producer outside a loop is not moved into the loop's body, which runs
// it once per iteration.
// CHECK-LABEL: func.func @outside_loop
// CHECK:       %[[T:.*]] = linalg.generic
// CHECK:       scf.for
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[T]]
func.func @outside_loop(%a: tensor<8xf32>, %n: index) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<8xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.tanh %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (tensor<8xf32>) {
    %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%t, %acc : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%in: f32, %in1: f32, %out: f32):
      %0 = arith.addf %in, %in1 : f32
      linalg.yield %0 : f32
    } -> tensor<8xf32>
    scf.yield %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
