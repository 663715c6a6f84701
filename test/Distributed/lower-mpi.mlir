// -remat-lower-mpi: upstream mpi ops become MPICH calls; a function using
// them starts MPI through the runtime first unless the module has
// mpi.init; the MPI:Implementation entry the lowering reads is gone after.
// RUN: remat-opt %s -split-input-file -remat-lower-mpi | FileCheck %s

// CHECK-LABEL: module {
// CHECK-DAG: llvm.func @MPI_Send(
// CHECK-DAG: llvm.func @MPI_Comm_rank(
// CHECK-DAG: func.func private @rematStartMpi()
// CHECK-LABEL: func.func @send_first
// CHECK-NOT: mpi.
// CHECK: call @rematStartMpi() : () -> ()
// CHECK-NOT: mpi.
// CHECK: llvm.call @MPI_Comm_rank
// CHECK-NOT: mpi.
// CHECK: llvm.call @MPI_Send
func.func @send_first(%m: memref<4xf32>) {
  %comm = mpi.comm_world : !mpi.comm
  %rank = mpi.comm_rank(%comm) : i32
  %tag = arith.constant 7 : i32
  mpi.send(%m, %tag, %rank, %comm) : memref<4xf32>, i32, i32
  return
}

// -----

// The program starts MPI itself: no call of the runtime's start.
// CHECK-LABEL: module attributes {dlti.map = #dlti.map<"other" = 1 : i32>}
// CHECK-NOT: rematStartMpi
// CHECK: llvm.call @MPI_Init
module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "MPICH", "other" = 1 : i32>} {
  func.func @starts() {
    mpi.init
    return
  }
}

// -----

// No mpi ops: nothing changes.
// CHECK-LABEL: func.func @plain
// CHECK-NOT: rematStartMpi
func.func @plain(%x: f32) -> f32 {
  return %x : f32
}
