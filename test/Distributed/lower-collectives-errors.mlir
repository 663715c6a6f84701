// RUN: remat-opt %s --remat-lower-collectives --split-input-file -verify-diagnostics
//
// What the runtime cannot do is an error naming the op and what it can.

shard.grid @grid(shape = 2)
func.func @bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  // expected-error @+1 {{cannot lower 'shard.all_reduce' of 'bf16' elements: the MPI runtime moves f32, f64, i32 and i64}}
  %r = shard.all_reduce %x on @grid grid_axes = [0] : tensor<4xbf16> -> tensor<4xbf16>
  return %r : tensor<4xbf16>
}

// -----

shard.grid @grid(shape = 2)
func.func @widening(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{cannot lower 'shard.all_reduce' from 'f32' to 'f64': it must keep its element type}}
  %r = shard.all_reduce %x on @grid grid_axes = [0] : tensor<4xf32> -> tensor<4xf64>
  return %r : tensor<4xf64>
}

// -----

shard.grid @grid(shape = 2)
func.func @average(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot lower 'shard.all_reduce' with reduction average: the MPI runtime reduces with sum, max, min or product}}
  %r = shard.all_reduce %x on @grid grid_axes = [0] reduction = average : tensor<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @annotated(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot lower 'shard.sharding': -remat-lower-to-cpu runs per-rank programs whose communication is all_reduce, all_gather, reduce_scatter, all_slice, all_to_all or shift (partition annotated programs first with sharding-propagation and shard-partition)}}
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %y = shard.shard %x to %s : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

shard.grid @big(shape = 70000)
func.func @big_grid(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot lower 'shard.all_reduce': its grid must have 1 to 4 dimensions of at most 65535 devices}}
  %r = shard.all_reduce %x on @big grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @shift_bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  // expected-error @+1 {{cannot lower 'shard.shift' of 'bf16' elements: the MPI runtime moves f32, f64, i32 and i64}}
  %r = shard.shift %x on @grid grid_axes = [0] shift_axis = 0 offset = 1 : tensor<4xbf16> -> tensor<4xbf16>
  return %r : tensor<4xbf16>
}
