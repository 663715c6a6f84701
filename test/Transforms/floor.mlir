// A refused budget explains the smallest one: at the peak of the plan for
// it, every live byte in one part (arguments, results and gradients as
// produced, the op running at the peak, each value no plan may recompute
// with the reason, the rest), the same parts in the report, adding up to
// it. An unknown op is never recomputed, and its remark says why.
// RUN: not remat-opt %s --allow-unregistered-dialect --remat-budget=1% --remat-report=%t.json -o %t.mlir 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: remat-opt %s --allow-unregistered-dialect --remat-budget=100% --remarks-filter=remat -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// Smallest budget: the arguments x, w (16384 B each), the loss (4 B, a
// 64-byte buffer at the default alignment), the gelu (16384 B, never
// recomputed, live until dw), and t1, t2, t3 of the op at the peak (16384 B
// each) = 98368 B, the peak of the program as written.
// CHECK: error: cannot fit @step into 983 B (1.0% of its peak without rematerialization, 98368 B) {{.*}}; the smallest budget it can meet is 98368 B (100.0%); at its peak (notes):
// CHECK: note: 32768 B: the arguments (live throughout)
// CHECK: note: 64 B: results and gradients already produced (live to the end)
// CHECK: floor.mlir:46:9: note: 49152 B: the inputs, outputs and workspace of the op running at the peak ('linalg.add'), live together
// CHECK: floor.mlir:35:8: note: 16384 B: kept, never recomputed: unknown op 'mydialect.gelu'
// REPORT: "floor": [
// REPORT: "bytes": 32768,
// REPORT-NEXT: "kind": "arguments"
// REPORT: "bytes": 49152,
// REPORT-NEXT: "kind": "peak-op",
// REPORT: "op": "linalg.add"
// REPORT: "bytes": 16384,
// REPORT-NEXT: "kind": "not-recomputable",
// REPORT: "op": "mydialect.gelu",
// REPORT-NEXT: "why": "unknown op 'mydialect.gelu'
// REMARK: floor.mlir:35:8: remark: [Analysis] Kept {{.*}}kept (16384 B), never recomputed: unknown op 'mydialect.gelu' (unregistered: its side effects are unknown
func.func @step(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> (tensor<f32>, tensor<64x64xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %h = linalg.matmul ins(%x, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  %g = "mydialect.gelu"(%h) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %s0 = tensor.empty() : tensor<f32>
  %sz = linalg.fill ins(%c0 : f32) outs(%s0 : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%g : tensor<64x64xf32>) outs(%sz : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %b: f32) {
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    }
  %t1 = math.exp %x : tensor<64x64xf32>
  %t2 = math.exp %w : tensor<64x64xf32>
  %e3 = tensor.empty() : tensor<64x64xf32>
  %t3 = linalg.add ins(%t1, %t2 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e3 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e4 = tensor.empty() : tensor<64x64xf32>
  %dw = linalg.mul ins(%t3, %g : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e4 : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %l, %dw : tensor<f32>, tensor<64x64xf32>
}

// The same step as an importer writes it, every op's location only a name
// (`loc("add_3")`): the notes are placed at the function and name the op,
// not printed as `<unknown>:0`.
// RUN: sed -e 's/\(%%t3 = linalg.add .*\)$/\1 loc("add_3")/' -e 's/\(%g = "mydialect.gelu".*\)$/\1 loc("gelu_1")/' %s > %t.named.mlir
// RUN: not remat-opt %t.named.mlir --allow-unregistered-dialect --remat-budget=1% -o /dev/null 2>&1 | FileCheck %s --check-prefix=NAMED
// NAMED-NOT: <unknown>
// NAMED: named.mlir:[[#FUNC:]]:1: note: at 'add_3': 49152 B: the inputs, outputs and workspace of the op running at the peak ('linalg.add'), live together
// NAMED: named.mlir:[[#FUNC]]:1: note: at 'gelu_1': 16384 B: kept, never recomputed: unknown op 'mydialect.gelu'
