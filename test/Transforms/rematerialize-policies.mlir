// User hints and safety rules of -remat-rematerialize, on the exp chain of
// rematerialize-chain.mlir (1024 B per activation, floor 4100 B).
// RUN: remat-opt %s -split-input-file -remat-rematerialize="budget=100% alignment=1" | FileCheck %s
// RUN: remat-opt %s -split-input-file -remat-rematerialize="budget=6148 alignment=1" --remarks-filter=remat -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARKS

// #remat.policy<recompute> holds even when the budget needs no saving: a2
// is not kept across the forward/backward boundary but recomputed from a1
// right before the backward op that reads it.
// CHECK-LABEL: func.func @recompute_hint
// CHECK:       %[[A1:.*]] = math.exp %arg0
// CHECK:       arith.mulf
// CHECK-NEXT:  %[[G2:.*]] = arith.mulf
// CHECK-NEXT:  %[[A2:.*]] = remat.recompute ins(%[[A1]] : tensor<256xf32>)
// CHECK-NEXT:  ^bb0(%[[IN:.*]]: tensor<256xf32>):
// CHECK-NEXT:    %[[R:.*]] = math.exp %[[IN]] : tensor<256xf32>
// CHECK-NEXT:    remat.yield %[[R]]
// CHECK:       arith.mulf %[[G2]], %[[A2]]
// REMARKS-DAG: :[[@LINE+1]]:1: remark: [Passed] Rematerialized {{.*}}strategy auto
func.func @recompute_hint(%x: tensor<256xf32>) -> (tensor<f32>, tensor<256xf32>) {
  // REMARKS-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark:
  %a1 = math.exp %x : tensor<256xf32>
  // REMARKS-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: [Passed] Recomputed {{.*}}recomputed
  %a2 = math.exp %a1 {remat.policy = #remat.policy<recompute>} : tensor<256xf32>
  // REMARKS-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark:
  %a3 = math.exp %a2 : tensor<256xf32>
  // REMARKS-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark:
  %a4 = math.exp %a3 : tensor<256xf32>
  %init = tensor.empty() : tensor<f32>
  // REMARKS-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: [Analysis] Kept {{.*}}kept {{[(]}}4 B{{[)]}}
  %loss = linalg.reduce ins(%a4 : tensor<256xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %g4 = linalg.fill ins(%one : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %g3 = arith.mulf %g4, %a4 : tensor<256xf32>
  %g2 = arith.mulf %g3, %a3 : tensor<256xf32>
  %g1 = arith.mulf %g2, %a2 : tensor<256xf32>
  %gx = arith.mulf %g1, %a1 : tensor<256xf32>
  return %loss, %gx : tensor<f32>, tensor<256xf32>
}

// -----

// Kept values and random ops are never recomputed: with a1 and a2 pinned
// (a keep hint, a random op) the pass may only drop a3 and a4. At 100% it
// changes nothing; at 6148 B (x, a1, a2, g4, a4, g3 and the loss at %g3)
// it recomputes a3 from a2.
// CHECK-LABEL: func.func @pinned
// CHECK-NOT:   remat.recompute
// CHECK:       return
// REMARKS-DAG: :[[@LINE+1]]:1: remark: [Passed] Rematerialized {{.*}}strategy auto
func.func @pinned(%x: tensor<256xf32>) -> (tensor<f32>, tensor<256xf32>) {
  // REMARKS-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: [Analysis] Kept {{.*}}kept {{[(]}}1024 B{{[)]}}
  %a1 = math.exp %x {remat.policy = #remat.policy<keep>} : tensor<256xf32>
  // REMARKS-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: [Analysis] Kept {{.*}}kept {{[(]}}1024 B{{[)]}}
  %a2 = remat.op "aten.dropout"(%a1) {cost = #remat.cost<time = 1.0>, random} : (tensor<256xf32>) -> tensor<256xf32>
  // REMARKS-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: [Passed] Recomputed {{.*}}recomputed
  %a3 = math.exp %a2 : tensor<256xf32>
  // REMARKS-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark:
  %a4 = math.exp %a3 : tensor<256xf32>
  %init = tensor.empty() : tensor<f32>
  // REMARKS-DAG: :[[@LINE+1]]:{{[0-9]+}}: remark: [Analysis] Kept {{.*}}kept {{[(]}}4 B{{[)]}}
  %loss = linalg.reduce ins(%a4 : tensor<256xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %g4 = linalg.fill ins(%one : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %g3 = arith.mulf %g4, %a4 : tensor<256xf32>
  %g2 = arith.mulf %g3, %a3 : tensor<256xf32>
  %g1 = arith.mulf %g2, %a2 : tensor<256xf32>
  %gx = arith.mulf %g1, %a1 : tensor<256xf32>
  return %loss, %gx : tensor<f32>, tensor<256xf32>
}
