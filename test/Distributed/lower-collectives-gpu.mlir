// RUN: remat-opt %s --remat-lower-collectives=target=gpu -verify-diagnostics
// RUN: sed 's|// expected-.*||' %s > %t.mlir
// RUN: not remat-opt %t.mlir --remat-lower-to-gpu=emulate=true 2>&1 | FileCheck %s
//
// The GPU path runs no collectives: the error names the one that does.

shard.grid @grid(shape = 2)
func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'shard.all_reduce' cannot be lowered by -remat-lower-to-gpu (it runs no collectives); lower the program with -remat-lower-to-cpu and run it under mpiexec (test/Integration/CPU/run.sh with RANKS=N)}}
  %r = shard.all_reduce %x on @grid grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}
// CHECK: error: 'shard.all_reduce' cannot be lowered by -remat-lower-to-gpu
// CHECK-NOT: error
