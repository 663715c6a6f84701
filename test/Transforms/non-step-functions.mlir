// RUN: remat-opt %s -verify-diagnostics -remat-rematerialize="budget=100% report=%t.json"
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// The runs below check diagnostics with FileCheck, on the input without
// its expected-remark annotations.
// RUN: sed -e 's/expected-remark.*//' %s > %t.plain.mlir
// RUN: remat-opt %t.plain.mlir -remat-rematerialize="budget=100% functions=step" 2>&1 | FileCheck %s --allow-empty --check-prefix=SELECTED
// RUN: not remat-opt %t.plain.mlir -remat-rematerialize="budget=100% functions=main" 2>&1 | FileCheck %s --check-prefix=NOTSTEP
// RUN: not remat-opt %t.plain.mlir -remat-rematerialize="budget=100% functions=nosuch" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: remat-opt %t.plain.mlir --remat-budget=100% --remat-functions=step -o /dev/null 2>&1 | FileCheck %s --allow-empty --check-prefix=SELECTED

// A module is not only a training step: a driver (@main, returning
// nothing), an eval function (the loss alone) and an init function
// (parameters computed from nothing the first result needs) sit next to @step. They are skipped with
// a remark and listed in the report; @step is planned. functions= selects
// by name, and selecting a function that is not a step is an error. (These
// used to fail the whole run: "the function returns nothing".)

func.func @step(%x: tensor<64xf32>, %w: tensor<64xf32>) -> (tensor<f32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %a = linalg.mul ins(%x, %w : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %z = arith.constant dense<0.0> : tensor<f32>
  %l = linalg.reduce ins(%a : tensor<64xf32>) outs(%z : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %e2 = tensor.empty() : tensor<64xf32>
  %dw = linalg.mul ins(%x, %a : tensor<64xf32>, tensor<64xf32>) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  return %l, %dw : tensor<f32>, tensor<64xf32>
}

// expected-remark @+1 {{remat: skipped @main, not a training step: it returns nothing}}
func.func @main() {
  return
}

// expected-remark @+1 {{remat: skipped @eval, not a training step: it returns no value computed from its loss's computation besides the loss (no gradient)}}
func.func @eval(%x: tensor<64xf32>) -> tensor<f32> {
  %z = arith.constant dense<0.0> : tensor<f32>
  %l = linalg.reduce ins(%x : tensor<64xf32>) outs(%z : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %l : tensor<f32>
}

// expected-remark @+1 {{remat: skipped @init, not a training step: it returns no value computed from its loss's computation besides the loss (no gradient)}}
func.func @init() -> (tensor<64xf32>, tensor<64xf32>) {
  %c = arith.constant dense<0.5> : tensor<64xf32>
  %d = arith.constant dense<0.25> : tensor<64xf32>
  return %c, %d : tensor<64xf32>, tensor<64xf32>
}

// REPORT: "skipped": [
// REPORT: "name": "main"
// REPORT: "reason": "it returns nothing
// REPORT: "name": "eval"
// REPORT: "name": "init"

// SELECTED-NOT: error
// SELECTED-NOT: skipped
// NOTSTEP: error: @main is selected by functions= but is not a training step: it returns nothing
// UNKNOWN: error: -remat-rematerialize: functions= names @nosuch, which this module does not define
