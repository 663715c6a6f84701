// RUN: remat-opt %s -remat-time-nodes="keys=%t.keys.json runs=7 warmup=2" | FileCheck %s
// RUN: FileCheck %s --check-prefix=KEYS < %t.keys.json
//
// The planner costs a loop from its body's ops (the body's peak and time,
// times the trip count), so the loop is not timed whole: its body becomes a
// function of the iteration's arguments and of what it reads from above,
// and that function's nodes are timed like the step's, in program order.
// Here the body's one node is the insert into the accumulator (the
// extracts and the add are scalars, which are no planner nodes); then the
// step's exp and the gradient. The body function itself is gone: only the
// nodes' functions remain.
// The insert writes into the accumulator, an input of its node: each call
// gets a fresh copy of it, made before the timer starts (a call writing
// into the one input every call reads would be copied inside the window,
// by bufferization, where the step writes in place). The exp writes into
// nothing it reads: its input is passed as it is.
// CHECK: func.func private @__remat_time_all(%{{.*}}: i1, %{{.*}}: index, %[[RUNS:.*]]: index)
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<f32>)
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[RUNS]]
// CHECK-NEXT: tensor.empty() : tensor<f32>
// CHECK-NEXT: %[[FRESH:.*]] = linalg.copy ins(%[[ACC]] : tensor<f32>)
// CHECK-NEXT: call @remat_timer_start
// CHECK-NEXT: call @__remat_time_node0(%{{.*}}, %[[FRESH]])
// CHECK: %[[X:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[RUNS]]
// CHECK-NEXT: call @remat_timer_start
// CHECK-NEXT: call @__remat_time_node1(%[[X]])
// CHECK: call @__remat_time_node2
// CHECK-NOT: __remat_time_body
// CHECK: func.func private @__remat_time_node0(%{{.*}}: f32, %{{.*}}: tensor<f32>) -> tensor<f32>
// CHECK-NEXT: tensor.insert
// CHECK: func.func private @__remat_time_node1(%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: math.exp
// KEYS: "function": "loop"
// KEYS: "node": 0
// KEYS-NEXT: "ops": [
// KEYS-NEXT: {
// KEYS-NEXT: "key": "n"
// KEYS: "node": 1
// KEYS: "key": "g"
// KEYS: "node": 2
// KEYS: "key": "h0"
// KEYS: "key": "d"
func.func @loop(%x: tensor<4xf32>) -> (tensor<f32> {remat.loss}, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<f32> loc("acc0")
  %l = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %e) -> tensor<f32> {
    %v = tensor.extract %x[%i] : tensor<4xf32> loc("v")
    %a = tensor.extract %acc[] : tensor<f32> loc("a")
    %s = arith.addf %a, %v : f32 loc("s")
    %n = tensor.insert %s into %acc[] : tensor<f32> loc("n")
    scf.yield %n : tensor<f32>
  } loc("loop")
  %g = math.exp %x : tensor<4xf32> loc("g")
  %h = tensor.empty() : tensor<4xf32> loc("h0")
  %d = linalg.generic {indexing_maps = [affine_map<(i) -> ()>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%l, %g : tensor<f32>, tensor<4xf32>) outs(%h : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4xf32> loc("d")
  return %l, %d : tensor<f32>, tensor<4xf32>
}
