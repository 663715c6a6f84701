// RUN: remat-opt %s -split-input-file -remat-inline-recompute=barriers=iree-ordered | FileCheck %s

// barriers=iree-ordered: as iree, and in a function whose plan recomputes,
// every result of a linalg op of the function's own body behind a barrier
// of its own, so that IREE gives each op a partition of its own and frees
// each result after its last use; a fill stays unfenced (IREE 3.13 computed
// wrong results with its accumulator fenced), and so do ops in a loop's
// body and ops that are not linalg's.
// CHECK-LABEL: func.func @ordered
// CHECK:       %[[F:.*]] = linalg.fill
// CHECK-NOT:   "util.optimization_barrier"(%[[F]])
// CHECK:       %[[E:.*]] = linalg.generic {{.*}} outs(%[[F]]
// CHECK:       %[[EF:.*]] = "util.optimization_barrier"(%[[E]])
// CHECK:       "util.optimization_barrier"(%[[EF]])
// CHECK:       %[[R:.*]] = linalg.generic
// CHECK:       %[[RF:.*]] = "util.optimization_barrier"(%[[R]])
// CHECK:       %[[OUT:.*]] = "util.optimization_barrier"(%[[RF]])
// CHECK:       %[[S:.*]] = arith.addf %[[EF]], %[[OUT]]
// CHECK:       scf.for
// CHECK-NOT:   util.optimization_barrier
// CHECK:       scf.yield
// CHECK:       return
#id = affine_map<(d0) -> (d0)>
func.func @ordered(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %r = remat.recompute ins(%e : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>) {
    ^bb0(%b: f32, %o: f32):
      %v = math.exp %b : f32
      linalg.yield %v : f32
    } -> tensor<4xf32>
    remat.yield %0 : tensor<4xf32>
  }
  %s = arith.addf %e, %r : tensor<4xf32>
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %s) -> tensor<4xf32> {
    %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%acc : tensor<4xf32>) outs(%acc : tensor<4xf32>) {
    ^bb0(%b: f32, %o: f32):
      %v = math.exp %b : f32
      linalg.yield %v : f32
    } -> tensor<4xf32>
    scf.yield %g : tensor<4xf32>
  }
  return %l : tensor<4xf32>
}

// -----

// A function whose plan recomputes nothing keeps IREE's own fusion and
// packing: nothing fenced.
// CHECK-LABEL: func.func @unplanned
// CHECK-NOT:   util.optimization_barrier
// CHECK:       return
#id = affine_map<(d0) -> (d0)>
func.func @unplanned(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %e : tensor<4xf32>
}
