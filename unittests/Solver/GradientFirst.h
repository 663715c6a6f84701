//===- GradientFirst.h - A step whose gradient is made early ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The offload tests' graph for results returned from the host.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_UNITTESTS_SOLVER_GRADIENTFIRST_H
#define REMAT_UNITTESTS_SOLVER_GRADIENTFIRST_H

#include "remat/Solver/Core/TrainingGraph.h"

namespace remat {

// x -> f1 -> a (100 B); bw1 reads a and makes the gradient g1 (100 B, a
// result); mid (20 units) reads a; bw2 reads a and mid's m and makes r
// (200 B, a result). Kept on the device, g1 is live through bw2: 410 B;
// bw2 alone holds a + m + r = 310 B.
struct GradientFirst {
  TrainingGraph g;
  TensorId a, g1, m, r;
  NodeId f1, bw1, mid, bw2;
  GradientFirst() {
    TensorId x = g.addInput("x", 0);
    f1 = g.addNode("f1", NodeKind::Forward, 10, {x}, {100});
    a = g.node(f1).outputs[0];
    bw1 = g.addNode("bw1", NodeKind::Backward, 10, {a}, {100});
    g1 = g.node(bw1).outputs[0];
    mid = g.addNode("mid", NodeKind::Backward, 20, {a}, {10});
    m = g.node(mid).outputs[0];
    bw2 = g.addNode("bw2", NodeKind::Backward, 10, {a, m}, {200});
    r = g.node(bw2).outputs[0];
    g.markRequired(g1);
    g.markRequired(r);
  }
};

} // namespace remat

#endif // REMAT_UNITTESTS_SOLVER_GRADIENTFIRST_H
