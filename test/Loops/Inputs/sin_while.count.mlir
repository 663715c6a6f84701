// Harness of sin_while.mlir for test/Loops/while-steps.test: runs it for
// n = 1, 3, 5, 9 and 16 steps, one output line per call (the commas the
// counted model prints, then its outputs). The counted model declares
// @printComma itself.
func.func private @printNewline()
func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %h0 = arith.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %ns = arith.constant dense<[1, 3, 5, 9, 16]> : tensor<5xindex>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  scf.for %k = %c0 to %c5 step %c1 {
    %n = tensor.extract %ns[%k] : tensor<5xindex>
    %h, %d = func.call @sin_while(%h0, %n) : (tensor<2xf32>, index) -> (tensor<2xf32>, tensor<2xf32>)
    func.call @printNewline() : () -> ()
    %u = tensor.cast %d : tensor<2xf32> to tensor<*xf32>
    func.call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
    func.call @printNewline() : () -> ()
  }
  return
}
