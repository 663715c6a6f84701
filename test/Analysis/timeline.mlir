// The lifetime timeline of a function in its current order: values live from
// their definition to their last use, arguments throughout, results from
// their definition on. Every tensor here is 64 x f32 = 256 B.
// RUN: remat-opt %s -remat-test-timeline -verify-diagnostics

// expected-remark @+1 {{peak 1280 B}}
func.func @chain(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  // x + a = 512.
  // expected-remark @+1 {{holds 512 B while running, 512 B live after}}
  %a = math.exp %x : tensor<64xf32>
  // x + a + b = 768.
  // expected-remark @+1 {{holds 768 B while running, 768 B live after}}
  %b = math.exp %a : tensor<64xf32>
  // x + a + b + l = 1024; b dies here.
  // expected-remark @+1 {{holds 1024 B while running, 768 B live after}}
  %l = math.exp %b : tensor<64xf32>
  // The backward reads a: x + a + l + g = 1024, then a dies.
  // expected-remark @+1 {{holds 1024 B while running, 768 B live after}}
  %g = arith.mulf %a, %l : tensor<64xf32>
  // x + l + g + h = 1024 and g dies... no: g is read again below.
  // expected-remark @+1 {{holds 1024 B while running, 1024 B live after}}
  %h = arith.addf %g, %x : tensor<64xf32>
  // x + l + g + h + r = 1280 (the peak); g and h die.
  // expected-note @+2 {{peak reached here}}
  // expected-remark @+1 {{holds 1280 B while running, 768 B live after}}
  %r = arith.mulf %g, %h : tensor<64xf32>
  return %l, %r : tensor<64xf32>, tensor<64xf32>
}

// Recomputation regions are flattened: their block arguments are the
// inputs, and values inside die at their last use inside.
// expected-remark @+1 {{peak 1024 B}}
func.func @flattened(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  // expected-remark @+1 {{holds 512 B while running, 512 B live after}}
  %a = math.exp %x : tensor<64xf32>
  // expected-remark @+1 {{holds 768 B while running, 512 B live after}}
  %l = math.exp %a : tensor<64xf32>
  %r = remat.recompute ins(%x : tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%in: tensor<64xf32>):
    // x + l + t = 768.
    // expected-remark @+1 {{holds 768 B while running, 768 B live after}}
    %t = math.exp %in : tensor<64xf32>
    // x + l + t + u = 1024, t dies.
    // expected-note @+2 {{peak reached here}}
    // expected-remark @+1 {{holds 1024 B while running, 768 B live after}}
    %u = math.tanh %t : tensor<64xf32>
    remat.yield %u : tensor<64xf32>
  }
  // x + l + r + s = 1024; r dies.
  // expected-remark @+1 {{holds 1024 B while running, 768 B live after}}
  %s = arith.mulf %r, %l : tensor<64xf32>
  return %l, %s : tensor<64xf32>, tensor<64xf32>
}

// Views own no bytes but keep what they view alive: %v is read by the last
// op, so %w stays live until then.
// expected-remark @+1 {{peak 1024 B}}
func.func @views(%x: tensor<8x8xf32>) -> tensor<64xf32> {
  // expected-remark @+1 {{holds 512 B while running, 512 B live after}}
  %w = math.exp %x : tensor<8x8xf32>
  // expected-remark @+1 {{holds 512 B while running, 512 B live after}}
  %v = tensor.collapse_shape %w [[0, 1]] : tensor<8x8xf32> into tensor<64xf32>
  // expected-remark @+1 {{holds 768 B while running, 768 B live after}}
  %y = math.tanh %x : tensor<8x8xf32>
  // x + w + y + z = 1024, the peak (first reached here); y dies.
  // expected-note @+2 {{peak reached here}}
  // expected-remark @+1 {{holds 1024 B while running, 768 B live after}}
  %z = math.exp %y : tensor<8x8xf32>
  // expected-remark @+1 {{holds 768 B while running, 768 B live after}}
  %zf = tensor.collapse_shape %z [[0, 1]] : tensor<8x8xf32> into tensor<64xf32>
  // x + w + z + out = 1024 again; w and z die here.
  // expected-remark @+1 {{holds 1024 B while running, 512 B live after}}
  %out = arith.addf %v, %zf : tensor<64xf32>
  return %out : tensor<64xf32>
}
