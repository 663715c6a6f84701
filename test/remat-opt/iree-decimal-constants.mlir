// Output for IREE prints large constants in decimal (IREE reads MLIR 22's
// hex of an i1 tensor as one bit per element), whichever way IREE's form is
// asked for: -remat-fit's option, the pass in a pipeline, or the pass's own
// flag. An explicit --mlir-print-elementsattrs-with-hex-if-larger wins; the
// default output stays hex.
// RUN: remat-opt %s | FileCheck %s --check-prefix=HEX
// RUN: remat-opt %s --remat-inline-recompute=barriers=iree | FileCheck %s
// RUN: remat-opt %s --pass-pipeline='builtin.module(func.func(remat-inline-recompute{barriers=iree}))' | FileCheck %s
// RUN: remat-opt %s --pass-pipeline='builtin.module(func.func(remat-inline-recompute{barriers=iree}))' \
// RUN:   --mlir-print-elementsattrs-with-hex-if-larger=10 | FileCheck %s --check-prefix=HEX
// HEX: dense<"0x
// CHECK: dense<[true, false, false, true,
// CHECK-NOT: 0x

func.func @mask() -> tensor<128xi1> {
  %c = arith.constant dense<[true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false]> : tensor<128xi1>
  return %c : tensor<128xi1>
}
