// RUN: remat-opt %s -remat-test-scan-match -verify-diagnostics -o /dev/null
//
// An index computed once and read many times is decomposed once (IndexExpr.cpp:
// Decomposition): each add of this chain reads the one before twice, so
// following every path took 2^33 steps (the build before hung here). The
// depth limit (32) leaves the start of the chain opaque.

func.func @f(%j: index) -> index {
  %a0 = arith.addi %j, %j : index
  %a1 = arith.addi %a0, %a0 : index
  %a2 = arith.addi %a1, %a1 : index
  %a3 = arith.addi %a2, %a2 : index
  %a4 = arith.addi %a3, %a3 : index
  %a5 = arith.addi %a4, %a4 : index
  %a6 = arith.addi %a5, %a5 : index
  %a7 = arith.addi %a6, %a6 : index
  %a8 = arith.addi %a7, %a7 : index
  %a9 = arith.addi %a8, %a8 : index
  %a10 = arith.addi %a9, %a9 : index
  %a11 = arith.addi %a10, %a10 : index
  %a12 = arith.addi %a11, %a11 : index
  %a13 = arith.addi %a12, %a12 : index
  %a14 = arith.addi %a13, %a13 : index
  %a15 = arith.addi %a14, %a14 : index
  %a16 = arith.addi %a15, %a15 : index
  %a17 = arith.addi %a16, %a16 : index
  %a18 = arith.addi %a17, %a17 : index
  %a19 = arith.addi %a18, %a18 : index
  %a20 = arith.addi %a19, %a19 : index
  %a21 = arith.addi %a20, %a20 : index
  %a22 = arith.addi %a21, %a21 : index
  %a23 = arith.addi %a22, %a22 : index
  %a24 = arith.addi %a23, %a23 : index
  %a25 = arith.addi %a24, %a24 : index
  %a26 = arith.addi %a25, %a25 : index
  %a27 = arith.addi %a26, %a26 : index
  %a28 = arith.addi %a27, %a27 : index
  %a29 = arith.addi %a28, %a28 : index
  %a30 = arith.addi %a29, %a29 : index
  %a31 = arith.addi %a30, %a30 : index
  %a32 = arith.addi %a31, %a31 : index
  %a33 = arith.addi %a32, %a32 : index
  %a34 = arith.addi %a33, %a33 : index
  %a35 = arith.addi %a34, %a34 : index
  %a36 = arith.addi %a35, %a35 : index
  %a37 = arith.addi %a36, %a36 : index
  %a38 = arith.addi %a37, %a37 : index
  %a39 = arith.addi %a38, %a38 : index
  %a40 = arith.addi %a39, %a39 : index
  %a41 = arith.addi %a40, %a40 : index
  %a42 = arith.addi %a41, %a41 : index
  %a43 = arith.addi %a42, %a42 : index
  %a44 = arith.addi %a43, %a43 : index
  %a45 = arith.addi %a44, %a44 : index
  %a46 = arith.addi %a45, %a45 : index
  %a47 = arith.addi %a46, %a46 : index
  %a48 = arith.addi %a47, %a47 : index
  %a49 = arith.addi %a48, %a48 : index
  %a50 = arith.addi %a49, %a49 : index
  %a51 = arith.addi %a50, %a50 : index
  %a52 = arith.addi %a51, %a51 : index
  %a53 = arith.addi %a52, %a52 : index
  %a54 = arith.addi %a53, %a53 : index
  %a55 = arith.addi %a54, %a54 : index
  %a56 = arith.addi %a55, %a55 : index
  %a57 = arith.addi %a56, %a56 : index
  %a58 = arith.addi %a57, %a57 : index
  %a59 = arith.addi %a58, %a58 : index
  // expected-remark-re @+1 {{index = 4294967296*%{{[0-9]+}} - %arg0}}
  %r = arith.subi %a59, %j {test.index} : index
  return %r : index
}
