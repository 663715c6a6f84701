// REQUIRES: mpich
// The collectives' C ABI from JIT-compiled code (CollectiveABI.h): a
// program lowered by upstream passes calls the runtime through
// llvm.emit_c_interface wrappers with unranked memrefs, on 2 MPI ranks run
// as run.sh runs RANKS=2 (remat_run_ranks: rank 0's stdout, then rank 1's;
// the ranks' stderr in the same order; peak lines prefixed by rank=R).
//
// RUN: mlir-opt %s --convert-scf-to-cf '--finalize-memref-to-llvm=use-generic-functions=true use-aligned-alloc=true' --convert-arith-to-llvm --convert-func-to-llvm --convert-cf-to-llvm --reconcile-unrealized-casts -o %t.llvm.mlir
// RUN: rm -rf %t.ranks
// RUN: bash -c 'source %remat_src_root/test/Integration/run-common.sh && REMAT_REPORT_PEAK=1 remat_run_ranks test 2 %t.ranks mlir-runner %t.llvm.mlir -e main -entry-point-result=void -shared-libs=%remat_runtime,%remat_mpi_runtime,%mlir_c_runner_utils,%mlir_runner_utils' > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err

// Rank r's input: in[i][j] = 10 r + 3 i + j. Each rank prints its rank,
// then the results; after the first two, the peak of the call above the
// bytes live before it.
// CHECK: {{^}}0{{$}}
// all_reduce (sum): its ring chunk of 3 f32 rounds up to 64 bytes.
// CHECK: sizes = [2, 3]
// CHECK-NEXT: {{\[}}[10, 12, 14],
// CHECK-NEXT: [16, 18, 20]]
// CHECK-NEXT: {{^}}64{{$}}
// all_gather, gather_axis 1: rank 0's block, then rank 1's; the blocks are
// strided in the result, so they pass through a send and a receive buffer
// (2 x 24 bytes, rounded up to 64).
// CHECK: sizes = [2, 6]
// CHECK-NEXT: {{\[}}[0, 1, 2, 10, 11, 12],
// CHECK-NEXT: [3, 4, 5, 13, 14, 15]]
// CHECK-NEXT: {{^}}64{{$}}
// reduce_scatter (sum), scatter_axis 0: row r of the sum.
// CHECK: sizes = [1, 3]
// CHECK-NEXT: {{\[}}[10, 12, 14]]
// all_slice of i64 [100 r, 100 r + 1, 100 r + 2, 100 r + 3]: part r.
// CHECK: [0, 1]
// CHECK: {{^}}1{{$}}
// CHECK: sizes = [2, 3]
// CHECK-NEXT: {{\[}}[10, 12, 14],
// CHECK-NEXT: [16, 18, 20]]
// CHECK-NEXT: {{^}}64{{$}}
// CHECK: sizes = [2, 6]
// CHECK-NEXT: {{\[}}[0, 1, 2, 10, 11, 12],
// CHECK-NEXT: [3, 4, 5, 13, 14, 15]]
// CHECK-NEXT: {{^}}64{{$}}
// CHECK: sizes = [1, 3]
// CHECK-NEXT: {{\[}}[16, 18, 20]]
// CHECK: [102, 103]

// ERR: rank=0 peak_bytes=
// ERR-NEXT: rank=1 peak_bytes=

func.func private @rematCollectiveF32(i64, i64, i64, i64, i64, i64, memref<*xf32>, memref<*xf32>) attributes {llvm.emit_c_interface}
func.func private @rematCollectiveI64(i64, i64, i64, i64, i64, i64, memref<*xi64>, memref<*xi64>) attributes {llvm.emit_c_interface}
func.func private @rematProcessLinearIndex(i64) -> i64
func.func private @remat_reset_peak()
func.func private @remat_live_bytes() -> i64
func.func private @remat_peak_bytes() -> i64
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
func.func private @printMemrefI64(memref<*xi64>) attributes {llvm.emit_c_interface}
func.func private @printI64(i64)
func.func private @printNewline()

// Prints the peak since remat_reset_peak above `base`.
func.func @workspace(%base: i64) {
  %peak = func.call @remat_peak_bytes() : () -> i64
  %ws = arith.subi %peak, %base : i64
  func.call @printI64(%ws) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %grid = arith.constant 2 : i64    // shape [2]
  %axes = arith.constant 1 : i64    // grid axes [0]
  %allReduce = arith.constant 0 : i64
  %allGather = arith.constant 1 : i64
  %reduceScatter = arith.constant 2 : i64
  %allSlice = arith.constant 3 : i64
  %r = func.call @rematProcessLinearIndex(%grid) : (i64) -> i64
  func.call @printI64(%r) : (i64) -> ()
  func.call @printNewline() : () -> ()

  %in = memref.alloc() : memref<2x3xf32>
  %ten = arith.constant 10 : i64
  %rbase = arith.muli %r, %ten : i64
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %i3 = arith.muli %i, %c3 : index
      %k = arith.addi %i3, %j : index
      %ki = arith.index_cast %k : index to i64
      %v = arith.addi %rbase, %ki : i64
      %f = arith.sitofp %v : i64 to f32
      memref.store %f, %in[%i, %j] : memref<2x3xf32>
    }
  }
  %inU = memref.cast %in : memref<2x3xf32> to memref<*xf32>

  %sum = memref.alloc() {alignment = 64 : i64} : memref<2x3xf32>
  %sumU = memref.cast %sum : memref<2x3xf32> to memref<*xf32>
  func.call @remat_reset_peak() : () -> ()
  %b0 = func.call @remat_live_bytes() : () -> i64
  func.call @rematCollectiveF32(%allReduce, %zero, %zero, %zero, %grid, %axes, %inU, %sumU) : (i64, i64, i64, i64, i64, i64, memref<*xf32>, memref<*xf32>) -> ()
  func.call @printMemrefF32(%sumU) : (memref<*xf32>) -> ()
  func.call @workspace(%b0) : (i64) -> ()

  %gathered = memref.alloc() {alignment = 64 : i64} : memref<2x6xf32>
  %gatheredU = memref.cast %gathered : memref<2x6xf32> to memref<*xf32>
  func.call @remat_reset_peak() : () -> ()
  %b1 = func.call @remat_live_bytes() : () -> i64
  func.call @rematCollectiveF32(%allGather, %zero, %one, %zero, %grid, %axes, %inU, %gatheredU) : (i64, i64, i64, i64, i64, i64, memref<*xf32>, memref<*xf32>) -> ()
  func.call @printMemrefF32(%gatheredU) : (memref<*xf32>) -> ()
  func.call @workspace(%b1) : (i64) -> ()

  %part = memref.alloc() {alignment = 64 : i64} : memref<1x3xf32>
  %partU = memref.cast %part : memref<1x3xf32> to memref<*xf32>
  func.call @rematCollectiveF32(%reduceScatter, %zero, %zero, %zero, %grid, %axes, %inU, %partU) : (i64, i64, i64, i64, i64, i64, memref<*xf32>, memref<*xf32>) -> ()
  func.call @printMemrefF32(%partU) : (memref<*xf32>) -> ()

  %ints = memref.alloc() : memref<4xi64>
  %hundred = arith.constant 100 : i64
  %ibase = arith.muli %r, %hundred : i64
  scf.for %i = %c0 to %c4 step %c1 {
    %ii = arith.index_cast %i : index to i64
    %v = arith.addi %ibase, %ii : i64
    memref.store %v, %ints[%i] : memref<4xi64>
  }
  %intsU = memref.cast %ints : memref<4xi64> to memref<*xi64>
  %slice = memref.alloc() : memref<2xi64>
  %sliceU = memref.cast %slice : memref<2xi64> to memref<*xi64>
  func.call @rematCollectiveI64(%allSlice, %zero, %zero, %zero, %grid, %axes, %intsU, %sliceU) : (i64, i64, i64, i64, i64, i64, memref<*xi64>, memref<*xi64>) -> ()
  func.call @printMemrefI64(%sliceU) : (memref<*xi64>) -> ()

  memref.dealloc %slice : memref<2xi64>
  memref.dealloc %ints : memref<4xi64>
  memref.dealloc %part : memref<1x3xf32>
  memref.dealloc %gathered : memref<2x6xf32>
  memref.dealloc %sum : memref<2x3xf32>
  memref.dealloc %in : memref<2x3xf32>
  return
}
