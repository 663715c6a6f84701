// RUN: remat-opt %s -split-input-file -remat-lower-to-cpu -verify-diagnostics
// RUN: remat-opt %s -split-input-file -remat-check-executable=target=gpu | FileCheck %s --check-prefix=GPU

// The CPU lowering has one memory: a host copy stops it with one error, at
// the first copy, naming the pipeline that lowers it. The GPU lowering's
// check lets it through.
// GPU: remat.offload
func.func @offloaded(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = math.exp %x : tensor<4xf32>
  // expected-error @+1 {{copies a value to host memory, which -remat-lower-to-cpu cannot lower (it has one memory): lower with -remat-lower-to-gpu (emulate=true runs it without a GPU), or plan without offload=true (--remat-offload)}}
  %h = remat.offload %e : tensor<4xf32>
  %f = math.exp %x : tensor<4xf32>
  %h2 = remat.offload %f : tensor<4xf32>
  %d = remat.prefetch %h : tensor<4xf32>
  %d2 = remat.prefetch %h2 : tensor<4xf32>
  %s = arith.addf %d, %d2 : tensor<4xf32>
  return %s : tensor<4xf32>
}


// -----

// So does a host stack (a scan's rows kept in host memory).
// GPU: remat.host_empty
func.func @host_stack(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{copies a value to host memory, which -remat-lower-to-cpu cannot lower}}
  %s = remat.host_empty : tensor<2x4xf32>
  %t = remat.offload_row %x into %s[%c0] : tensor<4xf32> into tensor<2x4xf32>
  %r = remat.prefetch_row %t[%c0] : tensor<2x4xf32> to tensor<4xf32>
  return %r : tensor<4xf32>
}
