// Every verifier error of the dialect, with its message.
// RUN: remat-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

func.func @arg_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.recompute' op has 1 inputs but its region takes 2 arguments}}
  %r = remat.recompute ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    remat.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @arg_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{input #0 has type 'tensor<4xf32>' but region argument #0 has type 'tensor<4xf16>'}}
  %r = remat.recompute ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf16>):
    remat.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @yield_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{yields 2 values but has 1 results}}
  %r = remat.recompute ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    remat.yield %a, %a : tensor<4xf32>, tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @yield_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{yields 'tensor<4xf32>' as value #0 but result #0 has type 'tensor<8xf32>'}}
  %r = remat.recompute ins(%x : tensor<4xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<4xf32>):
    remat.yield %a : tensor<4xf32>
  }
  return %x : tensor<4xf32>
}

// -----

// The region is isolated from above: clones may only read the inputs.
func.func @captures(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = remat.recompute -> tensor<4xf32> {
    // expected-error @+1 {{using value defined outside the region}}
    %e = math.exp %x : tensor<4xf32>
    remat.yield %e : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @yield_outside(%x: tensor<4xf32>) {
  // expected-error @+1 {{'remat.yield' op expects parent op 'remat.recompute'}}
  remat.yield %x : tensor<4xf32>
}

// -----

func.func @empty_name(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.op' op needs a non-empty op name}}
  %y = remat.op ""(%x) {cost = #remat.cost<bytes = 16>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @dynamic_without_bytes(%x: tensor<4xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'aten.nonzero' has dynamically shaped results: its cost must give their size in bytes}}
  %y = remat.op "aten.nonzero"(%x) {cost = #remat.cost<time = 1.0>} : (tensor<4xf32>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

func.func @missing_cost(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{requires attribute 'cost'}}
  %y = remat.op "aten.relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @negative_bytes(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cost bytes must be non-negative, got -1}}
  %y = math.exp %x {remat.cost = #remat.cost<bytes = -1>} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @negative_time(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cost time must be finite and non-negative, got -2}}
  %y = math.exp %x {remat.cost = #remat.cost<time = -2.0>} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @negative_workspace(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cost workspace must be non-negative, got -8}}
  %y = math.exp %x {remat.cost = #remat.cost<workspace = -8>} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @unknown_cost_field(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown cost field 'flops'; expected time, bytes or workspace}}
  %y = math.exp %x {remat.cost = #remat.cost<flops = 3>} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @duplicate_cost_field(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cost field 'bytes' given twice}}
  %y = math.exp %x {remat.cost = #remat.cost<bytes = 3, bytes = 4>} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @policy_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.policy' must be #remat.policy<keep|recompute>}}
  %y = math.exp %x {remat.policy = "keep"} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @policy_value(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{expected ::remat::Policy to be one of: keep, recompute}}
  // expected-error @+1 {{failed to parse Remat_PolicyAttr parameter 'value'}}
  %y = math.exp %x {remat.policy = #remat.policy<sometimes>} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @policy_without_results() {
  // expected-error @+1 {{'remat.policy' on an op without results has no effect}}
  "test.op"() {remat.policy = #remat.policy<keep>} : () -> ()
  return
}

// -----

func.func @cost_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.cost' must be a #remat.cost<...>}}
  %y = math.exp %x {remat.cost = 3 : i64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @stage_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.stage' must be an integer}}
  %y = math.exp %x {remat.stage = 1.0 : f32} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @stage_negative(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.stage' must be non-negative}}
  %y = math.exp %x {remat.stage = -1 : i64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @loss_on_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.loss' belongs on a function result, not on an op}}
  %y = math.exp %x {remat.loss} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @unknown_attr(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown remat attribute 'remat.keep'}}
  %y = math.exp %x {remat.keep} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{'remat.loss' takes no value}}
func.func @loss_value(%x: tensor<f32>) -> (tensor<f32> {remat.loss = 1 : i64}) {
  return %x : tensor<f32>
}

// -----

// expected-error @+1 {{results #0 and #1 are both marked 'remat.loss'}}
func.func @two_losses(%x: tensor<f32>) -> (tensor<f32> {remat.loss}, tensor<f32> {remat.loss}) {
  return %x, %x : tensor<f32>, tensor<f32>
}

// -----

// expected-error @+1 {{'remat.weight' is not a remat result attribute}}
func.func @unknown_result_attr(%x: tensor<f32>) -> (tensor<f32> {remat.weight}) {
  return %x : tensor<f32>
}

// -----

// expected-error @+1 {{'remat.loss' on argument #0 is not a remat argument attribute (remat.bounds is)}}
func.func @loss_on_arg(%x: tensor<f32> {remat.loss}) -> tensor<f32> {
  return %x : tensor<f32>
}

// -----

func.func @own_node_elsewhere(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.own_node' is a unit attribute on a tensor.insert_slice}}
  %y = math.exp %x {remat.own_node} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @own_node_value(%x: tensor<2xf32>, %s: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.own_node' is a unit attribute on a tensor.insert_slice}}
  %y = tensor.insert_slice %x into %s[0] [2] [1] {remat.own_node = 1 : i64} : tensor<2xf32> into tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @host_copy_read(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.offload' op result is a host copy, read only by remat.prefetch and func.return; 'math.exp' reads it}}
  %h = remat.offload %x : tensor<4xf32>
  %e = math.exp %h : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

func.func @prefetch_of_device_value(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.prefetch' op reads a host copy: its operand must be the result of a remat.offload}}
  %d = remat.prefetch %x : tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

func.func @host_copy_type(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.offload' op failed to verify that all of {input, result} have same type}}
  %h = "remat.offload"(%x) : (tensor<4xf32>) -> tensor<8xf32>
  %d = "remat.prefetch"(%h) : (tensor<8xf32>) -> tensor<8xf32>
  return %d : tensor<8xf32>
}

// -----

func.func @host_copy_memref(%x: memref<4xf32>) {
  // expected-error @+1 {{'remat.offload' op operand #0 must be ranked tensor of any type values, but got 'memref<4xf32>'}}
  %h = "remat.offload"(%x) : (memref<4xf32>) -> memref<4xf32>
  return
}

// -----

func.func @host_mark_elsewhere(%x: memref<4xf32>) {
  // expected-error @+1 {{'remat.host' is a unit attribute on a memref.alloc}}
  %a = memref.alloca() {remat.host} : memref<4xf32>
  return
}

// -----

func.func @host_stack_rank() -> tensor<f32> {
  // expected-error @+1 {{'remat.host_empty' op makes a stack: a tensor of rank 1 or more, got 'tensor<f32>'}}
  %s = remat.host_empty : tensor<f32>
  return %s : tensor<f32>
}

// -----

func.func @offload_row_type(%x: tensor<3x2xf32>, %i: index) -> tensor<4x2x3xf32> {
  %s = remat.host_empty : tensor<4x2x3xf32>
  // expected-error @+1 {{'remat.offload_row' op the value must be one row of the stack, 'tensor<2x3xf32>', got 'tensor<3x2xf32>'}}
  %t = remat.offload_row %x into %s[%i] : tensor<3x2xf32> into tensor<4x2x3xf32>
  return %t : tensor<4x2x3xf32>
}

// -----

func.func @prefetch_row_type(%i: index) -> tensor<2x3xf64> {
  %s = remat.host_empty : tensor<4x2x3xf32>
  // expected-error @+1 {{'remat.prefetch_row' op the result must be one row of the stack, 'tensor<2x3xf32>', got 'tensor<2x3xf64>'}}
  %r = remat.prefetch_row %s[%i] : tensor<4x2x3xf32> to tensor<2x3xf64>
  return %r : tensor<2x3xf64>
}

// -----

func.func @host_stack_dynamic(%n: index) {
  // expected-error @+1 {{'remat.host_empty' op result #0 must be statically shaped tensor}}
  %s = "remat.host_empty"() : () -> tensor<?x2xf32>
  return
}

// -----

func.func @overwrites_range(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{overwrites operand 1 of 1 (and needs a result)}}
  %y = remat.op "f"(%x) {cost = #remat.cost<time = 1.0>, overwrites = 1} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @overwrites_type(%x: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{overwrites operand 0 of type 'tensor<4xf16>', which does not hold its first result 'tensor<4xf32>'}}
  %y = remat.op "f"(%x) {cost = #remat.cost<time = 1.0>, overwrites = 0} : (tensor<4xf16>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
