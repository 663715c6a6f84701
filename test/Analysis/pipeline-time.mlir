// The critical path of a pipelined step (lib/Analysis/PipelineTime.cpp):
// every device's ops replayed with the messages between them. Costs are
// given in the IR (#remat.cost); every expected number is worked out by
// hand in the comment above it: an op takes its time; a message is a
// rendezvous, as the MPI runtime's are (a synchronous send): the send and
// its receive both end at the later of their starts plus their time; a
// shift sends to the next device and receives from the previous one at
// once, and ends when both are there.
// RUN: remat-opt %s -remat-report-pipeline-time -split-input-file -verify-diagnostics -o /dev/null

shard.grid @g(shape = 2)

// Stage 0 computes three micro-batches (10 each) and sends each (1); stage
// 1 receives each (1) and computes it (30). Message 1: stage 0 starts it
// at 10, stage 1 at 0: both at 11. Stage 1 computes to 41; stage 0's
// second send starts at 21 and waits for stage 1's receive: both at 42;
// stage 0 computes to 52, waits until stage 1 computes to 72: both 73;
// stage 1 computes to 103. Busy: stage 0 3 x 11 = 33, stage 1 3 x 31 = 93.
// expected-remark @below {{pipeline critical path 103; each device finishes at 73, 103, busy 33, 93}}
func.func @forward_chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %s = shard.process_linear_index on @g : index
  %first = arith.cmpi eq, %s, %c0 : index
  %r = scf.for %k = %c0 to %c3 step %c1 iter_args(%a = %x) -> tensor<4xf32> {
    %y = scf.if %first -> tensor<4xf32> {
      %f = math.exp %a {remat.cost = #remat.cost<time = 10.0>} : tensor<4xf32>
      %sent = shard.send %f on @g grid_axes = [0] destination = [1] {remat.cost = #remat.cost<time = 1.0>} : (tensor<4xf32>) -> tensor<4xf32>
      scf.yield %f : tensor<4xf32>
    } else {
      %got = shard.recv %a on @g grid_axes = [0] source = [0] {remat.cost = #remat.cost<time = 1.0>} : (tensor<4xf32>) -> tensor<4xf32>
      %g = math.exp %got {remat.cost = #remat.cost<time = 30.0>} : tensor<4xf32>
      scf.yield %g : tensor<4xf32>
    }
    scf.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

shard.grid @g(shape = 3)

// Lock-step, GPipe style: two iterations of a stage's layer (10, 20 and 5 on
// stages 0-2, chosen by a switch on the stage) and a shift to the next
// stage (2; stage 0 only sends, stage 2 only receives). Iteration 1: the
// shifts start at 10, 20 and 5; stage 0's send meets stage 1 at 20, stage
// 1's meets stage 2 at 20: every shift ends at 22. Iteration 2: starts at
// 32, 42 and 27: all end at 44. Busy: 2 x 12, 2 x 22, 2 x 7.
// expected-remark @below {{pipeline critical path 44; each device finishes at 44, 44, 44, busy 24, 44, 14}}
func.func @gpipe_shift(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %s = shard.process_linear_index on @g : index
  %r = scf.for %k = %c0 to %c2 step %c1 iter_args(%a = %x) -> tensor<4xf32> {
    %y = scf.index_switch %s -> tensor<4xf32>
    case 0 {
      %f = math.exp %a {remat.cost = #remat.cost<time = 10.0>} : tensor<4xf32>
      scf.yield %f : tensor<4xf32>
    }
    case 1 {
      %f = math.exp %a {remat.cost = #remat.cost<time = 20.0>} : tensor<4xf32>
      scf.yield %f : tensor<4xf32>
    }
    default {
      %f = math.exp %a {remat.cost = #remat.cost<time = 5.0>} : tensor<4xf32>
      scf.yield %f : tensor<4xf32>
    }
    %n = shard.shift %y on @g grid_axes = [0] shift_axis = 0 offset = 1 {remat.cost = #remat.cost<time = 2.0>} : tensor<4xf32> -> tensor<4xf32>
    scf.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

shard.grid @g(shape = 2)

// What online scan checkpointing writes: an scf.while counting to a bound
// from the stage index (stage s runs s + 1 iterations of 10) and a position
// kept in a tensor<2xindex> (inserted, extracted) bounding a loop of 5 per
// iteration; then a shift (2). Stage 0: 10, then 5: 15; stage 1: 20, then
// 10: 30. The shift ends at 32 on both. Busy: 10 + 5 + 2 = 17 and 32.
// expected-remark @below {{pipeline critical path 32; each device finishes at 32, 32, busy 17, 32}}
func.func @while_and_positions(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = shard.process_linear_index on @g : index
  %bound = arith.addi %s, %c1 : index
  %r:2 = scf.while (%i = %c0, %a = %x) : (index, tensor<4xf32>) -> (index, tensor<4xf32>) {
    %go = arith.cmpi ult, %i, %bound : index
    scf.condition(%go) %i, %a : index, tensor<4xf32>
  } do {
  ^bb0(%i: index, %a: tensor<4xf32>):
    %f = math.exp %a {remat.cost = #remat.cost<time = 10.0>} : tensor<4xf32>
    %n = arith.addi %i, %c1 : index
    scf.yield %n, %f : index, tensor<4xf32>
  }
  %e = tensor.empty() {remat.cost = #remat.cost<time = 0.0>} : tensor<2xindex>
  %p = tensor.insert %r#0 into %e[%c1] {remat.cost = #remat.cost<time = 0.0>} : tensor<2xindex>
  %m = tensor.extract %p[%c1] : tensor<2xindex>
  %l = scf.for %k = %c0 to %m step %c1 iter_args(%a = %r#1) -> tensor<4xf32> {
    %g = math.exp %a {remat.cost = #remat.cost<time = 5.0>} : tensor<4xf32>
    scf.yield %g : tensor<4xf32>
  }
  %n = shard.shift %l on @g grid_axes = [0] shift_axis = 0 offset = 1 {remat.cost = #remat.cost<time = 2.0>} : tensor<4xf32> -> tensor<4xf32>
  return %n : tensor<4xf32>
}

// -----

shard.grid @g(shape = 2)

// Stage 1 receives twice, stage 0 sends once: as written it would hang.
// expected-remark @below {{no pipeline critical path: device 1 waits for a message from device 0 that is never sent}}
func.func @receive_never_sent(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %s = shard.process_linear_index on @g : index
  %first = arith.cmpi eq, %s, %c0 : index
  %r = scf.if %first -> tensor<4xf32> {
    %sent = shard.send %x on @g grid_axes = [0] destination = [1] : (tensor<4xf32>) -> tensor<4xf32>
    scf.yield %x : tensor<4xf32>
  } else {
    %l = scf.for %k = %c0 to %c2 step %c1 iter_args(%a = %x) -> tensor<4xf32> {
      %got = shard.recv %a on @g grid_axes = [0] source = [0] : (tensor<4xf32>) -> tensor<4xf32>
      scf.yield %got : tensor<4xf32>
    }
    scf.yield %l : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

shard.grid @g(shape = 2)

// expected-remark @below {{no pipeline critical path: device 0 sends device 1 a message it never receives}}
func.func @send_never_received(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %s = shard.process_linear_index on @g : index
  %first = arith.cmpi eq, %s, %c0 : index
  scf.if %first {
    %sent = shard.send %x on @g grid_axes = [0] destination = [1] : (tensor<4xf32>) -> tensor<4xf32>
  }
  return %x : tensor<4xf32>
}

// -----

shard.grid @g(shape = 2)

// A branch on data: not what a schedule decides with.
// expected-remark @below {{no pipeline critical path: on device 0: a branch is not decided by the device index and the loop counters (scf.if at}}
func.func @branch_on_data(%x: tensor<4xf32>, %flag: tensor<i1>) -> tensor<4xf32> {
  %b = tensor.extract %flag[] : tensor<i1>
  %s = shard.process_linear_index on @g : index
  %r = scf.if %b -> tensor<4xf32> {
    %sent = shard.shift %x on @g grid_axes = [0] shift_axis = 0 offset = 1 : tensor<4xf32> -> tensor<4xf32>
    scf.yield %sent : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

shard.grid @g(shape = 2)

// No messages between devices: not a pipeline, nothing said.
func.func @no_messages(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = shard.process_linear_index on @g : index
  %y = shard.all_reduce %x on @g grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

shard.grid @g(shape = 2)

// A while loop whose condition reads an argument: its trip count, and so
// its messages, are not decided by the device index and the counters.
// expected-remark @below {{no pipeline critical path: on device 0: a loop's condition is not decided by the device index and the loop counters (scf.while at}}
func.func @messages_in_a_while(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = shard.process_linear_index on @g : index
  %r:2 = scf.while (%i = %c0, %a = %x) : (index, tensor<4xf32>) -> (index, tensor<4xf32>) {
    %go = arith.cmpi ult, %i, %n : index
    scf.condition(%go) %i, %a : index, tensor<4xf32>
  } do {
  ^bb0(%i: index, %a: tensor<4xf32>):
    %y = shard.shift %a on @g grid_axes = [0] shift_axis = 0 offset = 1 : tensor<4xf32> -> tensor<4xf32>
    %j = arith.addi %i, %c1 : index
    scf.yield %j, %y : index, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}
