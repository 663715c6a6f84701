// x[t + 2] = x[t + 1] + 2 x[t] over a 1-D stack written and read with
// tensor.insert / tensor.extract (scalar rows), x[0] = a and x[1] = b
// inserted before the loop, 10 steps: with a = b = 1 the stack holds
// 1 1 3 5 11 21 43 85 171 341 683 1365 (exact in f32; x[t + 2] =
// 2 x[t + 1] + x[t], the two rows swapped, would give 1 1 3 7 17 ...).
// forward-stack-reads-run.test runs it with its reads of the stack as
// written and forwarded into carries (-remat-normalize-input).
module {
  func.func @fib(%a: f32, %b: f32) -> tensor<12xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c10 = arith.constant 10 : index
    %e = tensor.empty() : tensor<12xf32>
    %s0 = tensor.insert %a into %e[%c0] : tensor<12xf32>
    %s1 = tensor.insert %b into %s0[%c1] : tensor<12xf32>
    %r = scf.for %t = %c0 to %c10 step %c1 iter_args(%s = %s1) -> (tensor<12xf32>) {
      %t1 = arith.addi %t, %c1 : index
      %x1 = tensor.extract %s[%t1] : tensor<12xf32>
      %x0 = tensor.extract %s[%t] : tensor<12xf32>
      %x0x2 = arith.addf %x0, %x0 : f32
      %n = arith.addf %x1, %x0x2 : f32
      %t2 = arith.addi %t, %c2 : index
      %w = tensor.insert %n into %s[%t2] : tensor<12xf32>
      scf.yield %w : tensor<12xf32>
    }
    return %r : tensor<12xf32>
  }
}
