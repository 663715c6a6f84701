// RUN: remat-opt %s -remat-reversed-maps-to-select -split-input-file -verify-diagnostics | FileCheck %s

// A kernel flip (what a convolution's input gradient reads): each reversed
// term c - d becomes a new reduction loop r over [0, c], read at r, the
// value kept where d + r == c. The output, which the body never read, is
// filled with zeros first: the select reads no uninitialized element.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d0, d4, d5)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @flip
// CHECK: %[[E:.*]] = tensor.empty() : tensor<5x4x3x3xf32>
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<5x4x3x3xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME: ins(%{{.*}} : tensor<4x5x3x3xf32>) outs(%[[F]] : tensor<5x4x3x3xf32>)
// CHECK-SAME: frontend.tag
// CHECK: %[[D2:.*]] = linalg.index 2
// CHECK: %[[R4:.*]] = linalg.index 4
// CHECK: %[[S:.*]] = arith.addi %[[D2]], %[[R4]]
// CHECK: arith.cmpi eq, %[[S]], %c2
// CHECK: %[[K:.*]] = arith.andi
// CHECK: %[[V:.*]] = arith.select %[[K]], %in, %out
// CHECK: linalg.yield %[[V]]
func.func @flip(%w: tensor<4x5x3x3xf32>) -> tensor<5x4x3x3xf32> {
  %e = tensor.empty() : tensor<5x4x3x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d0, -d2 + 2, -d3 + 2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%w : tensor<4x5x3x3xf32>) outs(%e : tensor<5x4x3x3xf32>) attrs = {frontend.tag} {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> tensor<5x4x3x3xf32>
  return %r : tensor<5x4x3x3xf32>
}

// -----

// A reversed term beside another (x + c - k, a grouped convolution's input
// gradient as remat's importer writes it): r would appear in no map alone,
// so the op keeps its maps, with a warning.
func.func @in_conv(%x: tensor<10xf32>, %k: tensor<3xf32>) -> tensor<8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  // expected-warning @below {{reads at a reversed index that cannot be rewritten}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 + 2 - d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %k : tensor<10xf32>, tensor<3xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
