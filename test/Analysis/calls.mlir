// A call that stays (not inlined: -remat-rematerialize run alone, or a
// callee the inliner leaves) is one node costed by its callee's body: the
// callee's time, and as workspace its peak above its arguments less the
// results the node already owns. It is recomputable when nothing in the
// callee has effects. A callee with no body is opaque: its results only.
// RUN: remat-opt %s -remat-test-training-graph=alignment=1 -verify-diagnostics

// @layer: two exps of 64 f32 (256 B, time 256 each). Its peak above %x is
// %y + %z = 512 B, while it runs; %z is the call's result (256 B), so the
// workspace is 512 - 256 = 256 B and the time 2 x 256 = 512.
// expected-remark @+1 {{2 forward ops, 0 backward ops, loss math.exp#1}}
func.func private @layer(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-remark @+1 {{forward, recomputable, bytes [256], time 256}}
  %y = math.exp %x : tensor<64xf32>
  // expected-remark @+1 {{forward, recomputable, bytes [256], time 256}}
  %z = math.exp %y : tensor<64xf32>
  return %z : tensor<64xf32>
}

// @logged calls something opaque: not re-runnable.
// expected-remark @+1 {{1 forward ops, 0 backward ops, loss func.call#0}}
func.func private @logged(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-remark @+1 {{forward, never recomputed, bytes [256], time 64}}
  %y = func.call @opaque(%x) : (tensor<64xf32>) -> tensor<64xf32>
  return %y : tensor<64xf32>
}

func.func private @opaque(tensor<64xf32>) -> tensor<64xf32>

// expected-remark @+1 {{4 forward ops, 1 backward ops, loss linalg.generic#3}}
func.func @step(%x: tensor<64xf32>) -> (tensor<f32>, tensor<64xf32>) {
  // expected-remark @+1 {{forward, recomputable, bytes [256], time 512.00, workspace 256}}
  %a = func.call @layer(%x) : (tensor<64xf32>) -> tensor<64xf32>
  // Its callee's body calls an external function: never re-run.
  // expected-remark @+1 {{forward, never recomputed, bytes [256], time 64.00}}
  %b = func.call @logged(%a) : (tensor<64xf32>) -> tensor<64xf32>
  // No body: the results alone.
  // expected-remark @+1 {{forward, never recomputed, bytes [256], time 64.00}}
  %c = func.call @opaque(%b) : (tensor<64xf32>) -> tensor<64xf32>
  %init = tensor.empty() : tensor<f32>
  // expected-remark @+1 {{forward, recomputable, bytes [4], time 64}}
  %loss = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                          iterator_types = ["reduction"]}
      ins(%c : tensor<64xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  // expected-remark @+1 {{backward, bytes [256], time 64}}
  %g = arith.mulf %c, %a : tensor<64xf32>
  return %loss, %g : tensor<f32>, tensor<64xf32>
}
