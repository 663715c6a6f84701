// In-place ops (remat.op's `overwrites`, as Inductor's kernels write over a
// buffer they free): the plan's memory holds an overwritten input and the
// op's result once when the op is the input's last read. x, a, b are
// 1024 B each, the loss 64 B (aligned).
// RUN: remat-opt %s -split-input-file --remat-budget=2368B --remarks-filter=remat -o /dev/null 2>&1 | FileCheck %s --check-prefix=FITS
// RUN: remat-opt %s -split-input-file --remat-budget=2368B | FileCheck %s --check-prefix=PLAN
// The same functions without the attribute: a, b and x live together.
// RUN: sed 's/, overwrites = 0//' %s | not remat-opt -split-input-file --remat-budget=2368B -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAIN

// f2 is a's last reader: 2112 B (the loss's op) instead of 3072 (f2).
// FITS: remark: [Analysis] Fits {{.*}} Remark="peak 2112 B already within the budget of 2368 B
// PLAIN: error: cannot fit @last_read into 2368 B {{.*}} the smallest budget it can meet is 3072 B
func.func @last_read(%x: tensor<256xf32>) -> (tensor<f32> {remat.loss}, tensor<256xf32>) {
  %a = remat.op "f1"(%x) {cost = #remat.cost<time = 1.0, bytes = 1024>} : (tensor<256xf32>) -> tensor<256xf32>
  %b = remat.op "f2"(%a) {cost = #remat.cost<time = 1.0, bytes = 1024>, overwrites = 0} : (tensor<256xf32>) -> tensor<256xf32>
  %l = remat.op "sum"(%b) {cost = #remat.cost<time = 1.0, bytes = 4>} : (tensor<256xf32>) -> tensor<f32>
  %g = remat.op "grad"(%l, %x) {cost = #remat.cost<time = 1.0, bytes = 1024>} : (tensor<f32>, tensor<256xf32>) -> tensor<256xf32>
  return %l, %g : tensor<f32>, tensor<256xf32>
}

// -----

// The gradient reads a again: as written f2 is not its last read (3136 B at
// the loss's op). At 2368 B the plan frees a at f2 (2048 B while f2 runs)
// and recomputes f1 for the gradient (x, a, the loss and g: 2368 B).
// FITS: remark: [Passed] Rematerialized {{.*}} Function=read_again {{.*}} peak 3136 B -> 2368 B (budget 2368 B), 1 ops recomputed
// PLAN-LABEL: func.func @read_again
// PLAN: remat.op "f1"
// PLAN: remat.op "f2"
// PLAN: remat.op "sum"
// PLAN: remat.recompute
// PLAN: remat.op "f1"
// PLAN: remat.op "grad"
// PLAIN: error: cannot fit @read_again into 2368 B {{.*}} the smallest budget it can meet is 3072 B
func.func @read_again(%x: tensor<256xf32>) -> (tensor<f32> {remat.loss}, tensor<64xf32>) {
  %a = remat.op "f1"(%x) {cost = #remat.cost<time = 1.0, bytes = 1024>} : (tensor<256xf32>) -> tensor<256xf32>
  %b = remat.op "f2"(%a) {cost = #remat.cost<time = 1.0, bytes = 1024>, overwrites = 0} : (tensor<256xf32>) -> tensor<256xf32>
  %l = remat.op "sum"(%b) {cost = #remat.cost<time = 1.0, bytes = 4>} : (tensor<256xf32>) -> tensor<f32>
  %g = remat.op "grad"(%l, %a) {cost = #remat.cost<time = 1.0, bytes = 256>} : (tensor<f32>, tensor<256xf32>) -> tensor<64xf32>
  return %l, %g : tensor<f32>, tensor<64xf32>
}
