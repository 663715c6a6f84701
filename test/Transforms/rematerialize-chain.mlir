// -remat-rematerialize on a chain of four exps and its gradient. Every
// tensor<256xf32> is 1024 B, the loss 4 B, x (an argument) is always live.
// Without rematerialization the peak is 7172 B, at %g3: x, a1..a4, loss,
// g4 and g3. Any schedule that computes the loss during the forward pass
// holds x, g4, a4, g3 and the loss at %g3: 4100 B is the floor.
//
// RUN: remat-opt %s -remat-test-timeline="quiet alignment=1" 2>&1 | FileCheck %s --check-prefix=BEFORE
// BEFORE: remark: peak 7172 B
//
// At the floor the optimum (the brute-force oracle's: 6 recomputed exps)
// keeps a4 from the forward pass for %g3, then recomputes each earlier
// activation from x right before the backward op that reads it, one region
// each (nothing else fits next to the gradient being propagated).
// RUN: remat-opt %s -remat-rematerialize="budget=4100 strategy=revolve alignment=1" | FileCheck %s --check-prefix=FLOOR
// RUN: remat-opt %s -remat-rematerialize="budget=4100 alignment=1" | FileCheck %s --check-prefix=FLOOR
// FLOOR-LABEL: func.func @chain
// FLOOR-COUNT-4: math.exp
// FLOOR:       %[[LOSS:.*]] = linalg.reduce ins(%[[A4:[^ ]*]] :
// FLOOR:       %[[G4:.*]] = linalg.fill
// FLOOR-NEXT:  %[[G3:.*]] = arith.mulf %[[G4]], %[[A4]]
// FLOOR-NEXT:  %[[A3:.*]] = remat.recompute ins(%arg0
// FLOOR-NEXT:  ^bb0
// FLOOR-COUNT-3: math.exp
// FLOOR-NEXT:  remat.yield
// FLOOR-NEXT:  }
// FLOOR-NEXT:  %[[G2:.*]] = arith.mulf %[[G3]], %[[A3]]
// FLOOR-NEXT:  %[[A2:.*]] = remat.recompute ins(%arg0
// FLOOR-NEXT:  ^bb0
// FLOOR-COUNT-2: math.exp
// FLOOR-NEXT:  remat.yield
// FLOOR-NEXT:  }
// FLOOR-NEXT:  %[[G1:.*]] = arith.mulf %[[G2]], %[[A2]]
// FLOOR-NEXT:  %[[A1:.*]] = remat.recompute ins(%arg0
// FLOOR-NEXT:  ^bb0
// FLOOR-NEXT:  math.exp
// FLOOR-NEXT:  remat.yield
// FLOOR-NEXT:  }
// FLOOR-NEXT:  %[[GX:.*]] = arith.mulf %[[G1]], %[[A1]]
// FLOOR-NEXT:  return %[[LOSS]], %[[GX]]
//
// The guarantee, checked by the lifetime analysis on the output, for every
// strategy that reaches the budget, at several budgets.
// RUN: remat-opt %s -remat-rematerialize="budget=4100 strategy=revolve alignment=1" | remat-opt -remat-test-timeline="quiet max-peak=4100 alignment=1" 2>&1 | FileCheck %s --check-prefix=PEAK4100
// RUN: remat-opt %s -remat-rematerialize="budget=4100 alignment=1" | remat-opt -remat-test-timeline="quiet max-peak=4100 alignment=1" 2>&1 | FileCheck %s --check-prefix=PEAK4100
// PEAK4100: remark: peak 4100 B
// RUN: remat-opt %s -remat-rematerialize="budget=6148 alignment=1" | remat-opt -remat-test-timeline="quiet max-peak=6148 alignment=1"
// RUN: remat-opt %s -remat-rematerialize="budget=5124 alignment=1" | remat-opt -remat-test-timeline="quiet max-peak=5124 alignment=1"
// RUN: remat-opt %s -remat-rematerialize="budget=5124 strategy=revolve alignment=1" | remat-opt -remat-test-timeline="quiet max-peak=5124 alignment=1"
// RUN: remat-opt %s -remat-rematerialize="budget=6148 strategy=chen-sqrt alignment=1" | remat-opt -remat-test-timeline="quiet max-peak=6148 alignment=1"
// RUN: remat-opt %s -remat-rematerialize="budget=6148 strategy=lowerset-exact alignment=1" | remat-opt -remat-test-timeline="quiet max-peak=6148 alignment=1"
// RUN: remat-opt %s -remat-rematerialize="budget=6148 strategy=lowerset-approx alignment=1" | remat-opt -remat-test-timeline="quiet max-peak=6148 alignment=1"
// Percentages are of the peak without rematerialization: 60% = 4303 B.
// RUN: remat-opt %s -remat-rematerialize="budget=60% alignment=1" | remat-opt -remat-test-timeline="quiet max-peak=4303 alignment=1"
//
// A budget that already fits changes nothing.
// RUN: remat-opt %s -remat-rematerialize="budget=8KiB alignment=1" | FileCheck %s --check-prefix=FITS
// FITS-NOT: remat.recompute
//
// Below the floor: an error naming the smallest budget (the pass returns
// before touching the IR).
// RUN: remat-opt %s -remat-rematerialize="budget=4099 alignment=1" -verify-diagnostics

// expected-note @+4 {{1024 B: the arguments (live throughout)}}
// expected-note @+3 {{4 B: results and gradients already produced}}
// expected-note @+17 {{3072 B: the inputs, outputs and workspace of the op running at the peak ('arith.mulf')}}
// expected-error @+1 {{cannot fit @chain into 4099 B (57.2% of its peak without rematerialization, 7172 B) with strategy 'auto'; the smallest budget it can meet is 4100 B (57.2%)}}
func.func @chain(%x: tensor<256xf32>) -> (tensor<f32>, tensor<256xf32>) {
  %a1 = math.exp %x : tensor<256xf32>
  %a2 = math.exp %a1 : tensor<256xf32>
  %a3 = math.exp %a2 : tensor<256xf32>
  %a4 = math.exp %a3 : tensor<256xf32>
  %init = tensor.empty() : tensor<f32>
  %loss = linalg.reduce ins(%a4 : tensor<256xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  // Backward: d exp(u)/du = exp(u), so g_{i-1} = g_i * a_i.
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %g4 = linalg.fill ins(%one : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %g3 = arith.mulf %g4, %a4 : tensor<256xf32>
  %g2 = arith.mulf %g3, %a3 : tensor<256xf32>
  %g1 = arith.mulf %g2, %a2 : tensor<256xf32>
  %gx = arith.mulf %g1, %a1 : tensor<256xf32>
  return %loss, %gx : tensor<f32>, tensor<256xf32>
}
