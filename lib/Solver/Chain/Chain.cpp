//===- Chain.cpp - Stage-level graph of a chain ---------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Chain/Chain.h"

#include <algorithm>
#include <string>

namespace remat {

ChainGraph buildChainGraph(const ChainSpec &chain) {
  ChainGraph cg;
  const int L = chain.length();
  cg.length = L;
  cg.forward.assign(L + 2, kNone);
  cg.backward.assign(L + 2, kNone);
  cg.a.assign(L + 2, kNone);
  cg.residual.assign(L + 2, kNone);
  cg.delta.assign(L + 1, kNone);
  TrainingGraph &g = cg.graph;

  cg.a[0] = g.addInput("a0", chain.a0);
  for (int l = 1; l <= L + 1; ++l) {
    ChainStage st = l <= L ? chain.stages[l - 1] : chain.loss;
    std::string idx = std::to_string(l);
    NodeId f = g.addNode("F" + idx, NodeKind::Forward, st.uf, {cg.a[l - 1]},
                         {st.a, std::max<int64_t>(0, st.abar - st.a)}, st.of);
    cg.forward[l] = f;
    cg.a[l] = g.node(f).outputs[0];
    cg.residual[l] = g.node(f).outputs[1];
    g.tensor(cg.a[l]).name = "a" + idx;
    g.tensor(cg.residual[l]).name = "r" + idx;
  }
  // Backward stages run from the loss down; delta^{l-1} is B^l's output.
  for (int l = L + 1; l >= 1; --l) {
    ChainStage st = l <= L ? chain.stages[l - 1] : chain.loss;
    int64_t deltaBytes =
        l - 1 == 0 ? chain.delta0 : chain.stages[l - 2].delta;
    std::vector<TensorId> in;
    if (l <= L)
      in.push_back(cg.delta[l]);
    if (st.tape || l == L + 1) { // The loss stage always runs its forward.
      in.push_back(cg.a[l]);
      in.push_back(cg.residual[l]);
    }
    in.push_back(cg.a[l - 1]);
    std::string idx = std::to_string(l);
    NodeId b = g.addNode("B" + idx, NodeKind::Backward, st.ub, in,
                         {deltaBytes}, st.ob);
    cg.backward[l] = b;
    cg.delta[l - 1] = g.node(b).outputs[0];
    g.tensor(cg.delta[l - 1]).name = "d" + std::to_string(l - 1);
  }
  g.markRequired(cg.delta[0]);
  return cg;
}

} // namespace remat
