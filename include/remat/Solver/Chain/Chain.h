//===- Chain.h - The chain view of a training graph (rotor notation) -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A chain of L stages (Beaumont et al., "Optimal re-materialization
// strategies for heterogeneous chains", Sec. 3.1). Stage l (1-based) has a
// forward F^l: a^{l-1} -> a^l storing abar^l (its autograd history, which
// contains a^l) and a backward B^l: (delta^l, abar^l, a^{l-1}) -> delta^{l-1}.
// The loss is the implicit stage L+1 with zero costs.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_CHAIN_CHAIN_H
#define REMAT_SOLVER_CHAIN_CHAIN_H

#include "remat/Solver/Core/TrainingGraph.h"

#include <cstdint>
#include <vector>

namespace remat {

struct ChainStage {
  double uf = 0, ub = 0; ///< Forward / backward time.
  int64_t a = 0;         ///< Bytes of a^l.
  int64_t abar = 0;      ///< Bytes of abar^l (includes a^l).
  int64_t delta = 0;     ///< Bytes of delta^l.
  /// Forward / backward workspace. Op-level chains may give o_b < 0: minus
  /// the bytes of delta^l that B^l passes on unchanged into delta^{l-1}
  /// (accumulated parameter gradients), which the model would count twice.
  int64_t of = 0, ob = 0;
  /// B^l reads abar^l (the stage's own forward values). False when it reads
  /// only a^{l-1} and delta^l (exp's or relu's backward moved up one stage,
  /// see ChainView.h): then B^l may run without F_all^l right before it.
  bool tape = true;
};

struct ChainSpec {
  int64_t a0 = 0;     ///< Bytes of the chain input a^0.
  int64_t delta0 = 0; ///< Bytes of delta^0 (the input gradient, required).
  std::vector<ChainStage> stages; ///< Stages 1..L (the loss is implicit).
  /// The loss stage L+1: zero costs in the papers; an op-level graph's last
  /// group (the loss computation and its backward) may have real costs.
  /// a^{L+1} is never a checkpoint (its bytes only count as part of abar)
  /// and delta^{L+1} does not exist (loss.delta is unused).
  ChainStage loss;
  int length() const { return static_cast<int>(stages.size()); }
};

/// The stage-level graph of a chain, with a fixed numbering the chain
/// strategies rely on. For stage l in 1..L+1 (L+1 is the loss):
///   forward node F^l: reads a^{l-1}; outputs {a^l, r^l} where r^l holds the
///     rest of abar^l (bytes abar - a, clamped at 0: measured tables may list
///     abar < a, e.g. rotor's Table 2 stage 4);
///   backward node B^l: reads delta^l (absent for l = L+1), a^l, r^l and
///     a^{l-1}; outputs delta^{l-1}.
/// a^0 is the only graph input; delta^0 is the only required output.
struct ChainGraph {
  TrainingGraph graph;
  int length = 0; ///< L (the loss stage L+1 is included in the graph).
  std::vector<NodeId> forward;    ///< forward[l] = F^l, l in 1..L+1.
  std::vector<NodeId> backward;   ///< backward[l] = B^l, l in 1..L+1.
  std::vector<TensorId> a;        ///< a[l] = a^l, l in 0..L+1.
  std::vector<TensorId> residual; ///< residual[l] = r^l, l in 1..L+1.
  std::vector<TensorId> delta;    ///< delta[l] = delta^l, l in 0..L.
};

ChainGraph buildChainGraph(const ChainSpec &chain);

} // namespace remat

#endif // REMAT_SOLVER_CHAIN_CHAIN_H
