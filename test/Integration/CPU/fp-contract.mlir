// -remat-lower-to-cpu lets LLVM fuse a float multiply and the add it feeds
// (fp-contract, default true), as PyTorch's CPU kernels and the NVPTX back
// end do. x = y = 1 + 2^-12 and z = -(1 + 2^-11): x * y = 1 + 2^-11 + 2^-24
// exactly, which float32 rounds (a tie, to even) to 1 + 2^-11, so the
// product rounded apart and then added gives 0; a fused multiply-add rounds
// once and gives 2^-24 = 5.96046e-08. Needs a CPU with FMA (x86-64 with the
// fma flag, as this project's machines).
// REQUIRES: cpu-fma
//
// RUN: remat-opt %s --remat-lower-to-cpu -o %t.fused.mlir
// RUN: mlir-runner %t.fused.mlir -e main -entry-point-result=void -shared-libs=%remat_runtime,%mlir_c_runner_utils,%mlir_runner_utils | FileCheck %s --check-prefix=FUSED
// RUN: remat-opt %s "--remat-lower-to-cpu=fp-contract=false" -o %t.apart.mlir
// RUN: mlir-runner %t.apart.mlir -e main -entry-point-result=void -shared-libs=%remat_runtime,%mlir_c_runner_utils,%mlir_runner_utils | FileCheck %s --check-prefix=APART
// RUN: FileCheck %s --check-prefix=FLAGS < %t.fused.mlir
// RUN: FileCheck %s --check-prefix=NOFLAGS < %t.apart.mlir

// FUSED: [5.96046e-08,  5.96046e-08,  5.96046e-08,  5.96046e-08]
// APART: [0,  0,  0,  0]
// FLAGS: llvm.fmul {{.*}} {fastmathFlags = #llvm.fastmath<contract>} : f32
// NOFLAGS-NOT: contract

#map = affine_map<(d0) -> (d0)>
// Not inlined into @main by the lowering, and its operands are loaded from
// memory in the loop, so nothing is folded at compile time.
func.func @muladd(%x: tensor<4xf32>, %y: tensor<4xf32>, %z: tensor<4xf32>) -> tensor<4xf32> {
  %init = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel"]}
      ins(%x, %y, %z : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %p, %c : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  // 1 + 2^-12 and -(1 + 2^-11), written exactly.
  %x = arith.constant dense<1.000244140625> : tensor<4xf32>
  %z = arith.constant dense<-1.00048828125> : tensor<4xf32>
  %r = func.call @muladd(%x, %x, %z) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %u = tensor.cast %r : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
