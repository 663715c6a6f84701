// RUN: remat-opt %s -split-input-file -remat-time-nodes="keys=%t.keys.json runs=7 warmup=2" -verify-diagnostics | FileCheck %s
// RUN: FileCheck %s --check-prefix=KEYS < %t.keys.json
//
// Every planner node of the step becomes a function of what it reads (its
// initial values inside, constants cloned in), and @__remat_time_all times
// each one after the other: `warmup` untimed calls, `runs` calls between
// timer 0's start and stop, then (when recording) the timer is printed and
// reset. @main runs it twice: a warm-up pass (2 untimed calls of every
// node, none timed, nothing printed), then the timed pass (2 untimed, 7
// timed). The keys file names the ops of every node, in the same order, by
// their cost-table key.
#id = affine_map<(i) -> (i)>
#red = affine_map<(i) -> ()>
func.func @step(%x: tensor<8xf32> loc("x"), %w: tensor<8xf32>) -> (tensor<f32> {remat.loss}, tensor<8xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32> loc("e")
  %h = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %w : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8xf32> loc("h")
  %le = tensor.empty() : tensor<f32> loc("le")
  %lz = linalg.fill ins(%c0 : f32) outs(%le : tensor<f32>) -> tensor<f32> loc("lz")
  %l = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["reduction"]}
      ins(%h : tensor<8xf32>) outs(%lz : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<f32> loc("loss")
  %ge = tensor.empty() : tensor<8xf32> loc("ge")
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %h : tensor<8xf32>, tensor<8xf32>) outs(%ge : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8xf32> loc("dw")
  return %l, %g : tensor<f32>, tensor<8xf32>
}
// The step is unchanged; three nodes: h, the loss (with its fill), dw.
// CHECK-LABEL: func.func @step(
// CHECK: func.func private @remat_timer_start(i64)
// CHECK: func.func private @remat_timer_stop(i64)
// CHECK: func.func private @remat_timer_print(i64)
// CHECK: func.func private @remat_timer_reset()
// CHECK: func.func private @__remat_time_all(%[[RECORD:.*]]: i1, %[[WARMUP:.*]]: index, %[[RUNS:.*]]: index)
// CHECK: %[[X:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8xf32>)
// CHECK: %[[W:.*]] = linalg.fill
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[WARMUP]]
// CHECK-NEXT: func.call @__remat_time_node0(%[[X]], %[[W]])
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[RUNS]]
// CHECK-NEXT: func.call @remat_timer_start
// CHECK-NEXT: func.call @__remat_time_node0
// CHECK-NEXT: func.call @remat_timer_stop
// CHECK: scf.if %[[RECORD]]
// CHECK-NEXT: call @remat_timer_print
// CHECK-NEXT: call @remat_timer_reset
// CHECK: call @__remat_time_node1
// CHECK: call @__remat_time_node2
// CHECK: func.func private @__remat_time_node0(%{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: linalg.generic
// CHECK: func.func private @__remat_time_node1(%{{.*}}: tensor<8xf32>) -> tensor<f32>
// CHECK-NEXT: arith.constant 0.0
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.generic
// CHECK: func.func @main()
// CHECK-DAG: %[[FALSE:.*]] = arith.constant false
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: call @__remat_time_all(%[[FALSE]], %[[TWO]], %[[ZERO]])
// CHECK-DAG: %[[TRUE:.*]] = arith.constant true
// CHECK-DAG: %[[TWO2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[SEVEN:.*]] = arith.constant 7 : index
// CHECK: call @__remat_time_all(%[[TRUE]], %[[TWO2]], %[[SEVEN]])
// KEYS: "function": "step"
// KEYS: "node": 0
// KEYS: "key": "e"
// KEYS: "key": "h"
// KEYS: "node": 1
// KEYS: "key": "le"
// KEYS: "key": "lz"
// KEYS: "key": "loss"
// KEYS: "node": 2
// KEYS: "key": "ge"
// KEYS: "key": "dw"

// -----

// expected-error @+1 {{-remat-time-nodes writes its own @main; this module has one (time the step without its harness)}}
module {
  func.func @main() {
    return
  }
}
