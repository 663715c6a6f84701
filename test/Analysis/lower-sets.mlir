// Lower sets of the forward graph (Kusumoto et al. 2019, Sec. 2 and 4.3).
// RUN: remat-opt %s -remat-test-lower-sets -verify-diagnostics

// A diamond a -> {b, c} -> d. Lower sets (closed under predecessors):
// {}, {a}, {a,b}, {a,c}, {a,b,c}, {a,b,c,d}: 6. L_v is v with its ancestors;
// its boundary holds the members read from outside L_v.
// expected-remark @+1 {{4 forward ops, 6 lower sets}}
func.func @diamond(%x: tensor<64xf32>) -> tensor<64xf32> {
  // L_a = {a}: a is read by b and c, outside. 256 B.
  // expected-remark @+1 {{L_v has 1 ops (256 B), boundary 1 ops}}
  %a = math.exp %x : tensor<64xf32>
  // L_b = {a, b}: a is read by c, b by d.
  // expected-remark @+1 {{L_v has 2 ops (512 B), boundary 2 ops}}
  %b = math.tanh %a : tensor<64xf32>
  // expected-remark @+1 {{L_v has 2 ops (512 B), boundary 2 ops}}
  %c = math.exp %a : tensor<64xf32>
  // L_d = V: nothing outside. d is the loss, a result every schedule holds,
  // so the model counts it in its base, not in M(L): 3 x 256 B.
  // expected-remark @+1 {{L_v has 4 ops (768 B), boundary 0 ops}}
  %d = arith.addf %b, %c : tensor<64xf32>
  return %d : tensor<64xf32>
}
