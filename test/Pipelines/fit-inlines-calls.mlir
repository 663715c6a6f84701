// -remat-fit inlines calls before planning: a step whose layers are calls
// of a private function is planned as the inlined code (each exp its own
// node, recomputable), and the callee goes once unused. Without inlining
// the three calls are opaque, non-recomputable nodes and nothing below the
// peak fits.
// RUN: remat-opt %s --remat-budget=81% | FileCheck %s
// RUN: remat-opt %s --remat-budget=81% --remat-report=- -o /dev/null | FileCheck %s --check-prefix=REPORT

// CHECK-NOT: func.func private @layer
// CHECK-LABEL: func.func @step
// CHECK-NOT: call
// CHECK: remat.recompute
// CHECK: return
// REPORT: "fitted": true
// REPORT: "strategy": "{{[a-z-]+}}"
func.func private @layer(%x: tensor<64xf32>) -> tensor<64xf32> {
  %y = math.exp %x : tensor<64xf32>
  return %y : tensor<64xf32>
}

func.func @step(%x: tensor<64xf32>) -> (tensor<f32>, tensor<64xf32>) {
  %a = func.call @layer(%x) : (tensor<64xf32>) -> tensor<64xf32>
  %b = func.call @layer(%a) : (tensor<64xf32>) -> tensor<64xf32>
  %c = func.call @layer(%b) : (tensor<64xf32>) -> tensor<64xf32>
  %init = tensor.empty() : tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                          iterator_types = ["reduction"]}
      ins(%c : tensor<64xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  // d loss / dx = c * b * a (the chain rule through three exps).
  %g1 = arith.mulf %c, %b : tensor<64xf32>
  %g2 = arith.mulf %g1, %a : tensor<64xf32>
  return %loss, %g2 : tensor<f32>, tensor<64xf32>
}
