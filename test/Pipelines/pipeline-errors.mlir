// RUN: remat-opt %s -split-input-file -allow-unregistered-dialect "--remat-lower-to-gpu=format=isa" -verify-diagnostics

// A planning-only op stops the GPU lowering at the op.
func.func @planning_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'aten.convolution' is a planning-only remat.op and cannot be lowered}}
  %y = remat.op "aten.convolution"(%x) {cost = #remat.cost<bytes = 16>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A scalar read from a tensor and returned would be read from device memory
// by the host: no GPU lowering, reported at the op that reads it.
func.func @scalar_result(%x: tensor<4xf32>) -> f32 {
  %c1 = arith.constant 1 : index
  %e = math.exp %x : tensor<4xf32>
  // expected-error @+1 {{'memref.load' has no GPU lowering here: it runs on device memory and the host needs its result}}
  %v = tensor.extract %e[%c1] : tensor<4xf32>
  // expected-note @+1 {{used on the host here}}
  return %v : f32
}

// -----

// An op on memrefs that does not say how it touches memory cannot be placed.
func.func @opaque(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = math.exp %x : tensor<4xf32>
  %m = bufferization.to_buffer %e : tensor<4xf32> to memref<4xf32>
  // expected-error @+1 {{'test.opaque' has no GPU lowering: it uses a memref but does not say how it accesses memory}}
  "test.opaque"(%m) : (memref<4xf32>) -> ()
  return %e : tensor<4xf32>
}
