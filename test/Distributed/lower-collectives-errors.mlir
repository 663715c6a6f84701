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
  // expected-error @+1 {{cannot lower 'shard.sharding': -remat-lower-to-cpu runs per-rank programs whose communication is all_reduce, all_gather, reduce_scatter, all_slice, all_to_all, shift, send or recv (partition annotated programs first with sharding-propagation and shard-partition)}}
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

// -----

// A shift only the devices that take a branch on their index run: the
// others never send or receive, and their partners would wait forever.
shard.grid @grid(shape = 2)
func.func @shift_under_rank_if(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %s = shard.process_linear_index on @grid : index
  %first = arith.cmpi eq, %s, %c0 : index
  // expected-note @+1 {{this 'scf.if' depends on the device index}}
  %r = scf.if %first -> tensor<4xf32> {
    // expected-error @+1 {{cannot lower 'shard.shift': it runs under control flow that depends on the device index ('scf.if'), so some devices of its group may not run it and the others would wait for them forever; run it on every device and mask the data instead (as a pipeline bubble does: select what is sent and what is kept, not whether to communicate)}}
    %y = shard.shift %x on @grid grid_axes = [0] shift_axis = 0 offset = 1 : tensor<4xf32> -> tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A loop whose trip count depends on the stage (a 1F1B warm-up of P - s
// forwards written as a loop): the stages run different numbers of shifts.
shard.grid @grid(shape = 4)
func.func @shift_in_rank_loop(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %s = shard.process_multi_index on @grid axes = [0] : index
  %n = arith.subi %c4, %s : index
  // expected-note @+1 {{this 'scf.for' depends on the device index}}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> tensor<4xf32> {
    // expected-error @+1 {{cannot lower 'shard.shift': it runs under control flow that depends on the device index ('scf.for')}}
    %y = shard.shift %a on @grid grid_axes = [0] shift_axis = 0 offset = 1 : tensor<4xf32> -> tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// The same through a call, a loop-carried value and any collective: the
// condition is the stage index carried through the loop, the all_reduce is
// in a function called under it.
shard.grid @grid(shape = 2)
func.func private @reduce(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot lower 'shard.all_reduce': it runs under control flow that depends on the device index ('scf.if')}}
  %r = shard.all_reduce %x on @grid grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @reduce_under_carried_index(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %s = shard.process_linear_index on @grid : index
  %r:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %x, %k = %c0) -> (tensor<4xf32>, index) {
    %odd = arith.cmpi ne, %k, %c0 : index
    // expected-note @+1 {{this 'scf.if' depends on the device index}}
    %y = scf.if %odd -> tensor<4xf32> {
      %z = func.call @reduce(%a) : (tensor<4xf32>) -> tensor<4xf32>
      scf.yield %z : tensor<4xf32>
    } else {
      scf.yield %a : tensor<4xf32>
    }
    scf.yield %y, %s : tensor<4xf32>, index
  }
  return %r#0 : tensor<4xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @recv_without_source(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot lower 'shard.recv' without a source: name the device it receives from}}
  %r = shard.recv %x on @grid grid_axes = [0] : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @send_of_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  // expected-error @+1 {{cannot lower 'shard.send' of 'f16' elements: the MPI runtime moves f32, f64, i32 and i64}}
  %r = shard.send %x on @grid grid_axes = [0] destination = [1] : (tensor<4xf16>) -> tensor<4xf16>
  return %r : tensor<4xf16>
}
