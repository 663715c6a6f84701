// The CPU pipeline frees buffers where the planner says, and libRematRuntime
// measures it. Four 1 KiB tensors: x (the argument), a = exp(x),
// b = -a, c = exp(b), d = c + x (returned).
//   upstream (free at the end of the block): x a b c d          = 5120 bytes
//   early (free after the last use): at most x and two others   = 3072 bytes
//   arena: b reuses a, c reuses b in place: x + 1 KiB arena + d = 3072 bytes
// The results are the same in every mode.
//
// RUN: remat-opt %s --remat-lower-to-cpu=buffers=upstream -o %t.up.mlir
// RUN: env REMAT_REPORT_PEAK=1 mlir-runner %t.up.mlir -e main -entry-point-result=void -shared-libs=%remat_runtime,%mlir_c_runner_utils,%mlir_runner_utils > %t.up.out 2> %t.up.err
// RUN: FileCheck %s --check-prefix=UPSTREAM < %t.up.err
// RUN: remat-opt %s --remat-lower-to-cpu -o %t.early.mlir
// RUN: env REMAT_REPORT_PEAK=1 mlir-runner %t.early.mlir -e main -entry-point-result=void -shared-libs=%remat_runtime,%mlir_c_runner_utils,%mlir_runner_utils > %t.early.out 2> %t.early.err
// RUN: FileCheck %s --check-prefix=EARLY < %t.early.err
// RUN: remat-opt %s "--remat-lower-to-cpu=buffers=arena" -o %t.arena.mlir 2> %t.arena.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.arena.remarks
// RUN: env REMAT_REPORT_PEAK=1 mlir-runner %t.arena.mlir -e main -entry-point-result=void -shared-libs=%remat_runtime,%mlir_c_runner_utils,%mlir_runner_utils > %t.arena.out 2> %t.arena.err
// RUN: FileCheck %s --check-prefix=ARENA < %t.arena.err
// RUN: FileCheck %s --check-prefix=OUT < %t.early.out
// The planned peak, computed before running, is what the runtime measures.
// RUN: remat-opt %s --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" -remat-plan-buffers -remat-report-buffer-peak -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: sed -e 's/base@ = 0x[0-9a-f]*//' %t.up.out > %t.up.txt
// RUN: sed -e 's/base@ = 0x[0-9a-f]*//' %t.early.out > %t.early.txt
// RUN: sed -e 's/base@ = 0x[0-9a-f]*//' %t.arena.out > %t.arena.txt
// RUN: diff %t.up.txt %t.early.txt
// RUN: diff %t.up.txt %t.arena.txt

// UPSTREAM: window_peak_bytes=5120 window_base_bytes=1024
// UPSTREAM: peak_bytes=5120
// EARLY: window_peak_bytes=3072 window_base_bytes=1024
// EARLY: peak_bytes=3072
// REMARK: remark: arena of 1024 bytes for 3 buffers (sum 3072 bytes); at most 1024 bytes live at once, 2 written in place
// ARENA: window_peak_bytes=3072 window_base_bytes=1024
// STATIC: remark: buffers peak at 2048 bytes; arguments 1024 bytes; with arguments 3072 bytes
// STATIC: remark: buffers peak at 3072 bytes; arguments 0 bytes; with arguments 3072 bytes
// OUT: data =
// OUT-NEXT: [1.06599, 1.06599,

#id = affine_map<(i) -> (i)>

func.func @step(%x: tensor<256xf32>) -> tensor<256xf32> {
  %e1 = tensor.empty() : tensor<256xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<256xf32>) outs(%e1 : tensor<256xf32>) {
  ^bb0(%in: f32, %o: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<256xf32>
  %e2 = tensor.empty() : tensor<256xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<256xf32>) outs(%e2 : tensor<256xf32>) {
  ^bb0(%in: f32, %o: f32):
    %v = arith.negf %in : f32
    linalg.yield %v : f32
  } -> tensor<256xf32>
  %e3 = tensor.empty() : tensor<256xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : tensor<256xf32>) outs(%e3 : tensor<256xf32>) {
  ^bb0(%in: f32, %o: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<256xf32>
  %e4 = tensor.empty() : tensor<256xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%c, %x : tensor<256xf32>, tensor<256xf32>) outs(%e4 : tensor<256xf32>) {
  ^bb0(%in0: f32, %in1: f32, %o: f32):
    %v = arith.addf %in0, %in1 : f32
    linalg.yield %v : f32
  } -> tensor<256xf32>
  return %d : tensor<256xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @remat_reset_peak()
func.func private @remat_print_peak()

func.func @main() {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %x = linalg.fill ins(%one : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  call @remat_reset_peak() : () -> ()
  %r = call @step(%x) : (tensor<256xf32>) -> tensor<256xf32>
  call @remat_print_peak() : () -> ()
  %u = tensor.cast %r : tensor<256xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
