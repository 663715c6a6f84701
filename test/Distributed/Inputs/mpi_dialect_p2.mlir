// A two-rank step written with upstream's mpi dialect instead of shard ops,
// as a frontend that already lowers to MPI might: rank 0 computes y = x * w
// and sends it (mpi.send of the tensor's buffer), rank 1 receives it into a
// buffer of its own; each returns the sum of what it holds as its loss and
// x * x as its gradient. Used by mpi-dialect.test.
func.func @step(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<f32> {remat.loss}, tensor<4xf32>) {
  %comm = mpi.comm_world : !mpi.comm
  %rank = mpi.comm_rank(%comm) : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %tag = arith.constant 7 : i32
  %first = arith.cmpi eq, %rank, %c0 : i32
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.mul ins(%x, %w : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %got = scf.if %first -> tensor<4xf32> {
    %m = bufferization.to_buffer %y : tensor<4xf32> to memref<4xf32>
    mpi.send(%m, %tag, %c1, %comm) : memref<4xf32>, i32, i32
    scf.yield %y : tensor<4xf32>
  } else {
    %buf = memref.alloc() : memref<4xf32>
    mpi.recv(%buf, %tag, %c0, %comm) : memref<4xf32>, i32, i32
    %t = bufferization.to_tensor %buf restrict writable : memref<4xf32> to tensor<4xf32>
    scf.yield %t : tensor<4xf32>
  }
  %z = tensor.empty() : tensor<f32>
  %cst = arith.constant 0.0 : f32
  %zf = linalg.fill ins(%cst : f32) outs(%z : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%got : tensor<4xf32>) outs(%zf : tensor<f32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  %gw = linalg.mul ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %l, %gw : tensor<f32>, tensor<4xf32>
}
