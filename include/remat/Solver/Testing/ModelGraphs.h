//===- ModelGraphs.h - Deterministic graphs shaped like real networks ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Op-level training graphs for benchmarks and tests: a forward description
// turned into forward + backward nodes the way reverse-mode autodiff does it,
// and generators shaped like GoogLeNet (inception modules: four parallel
// branches joined by a concat, two auxiliary classifier heads), ResNet
// (bottleneck blocks with residual adds) and U-Net (long skip connections).
// Times follow the lower-set paper's model (Kusumoto et al. 2019, Sec. 3):
// 10 for convolutions, 1 for every other op; backward ops cost twice their
// forward op. Sizes are float32 tensors of a batch of 32.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SOLVER_TESTING_MODELGRAPHS_H
#define REMAT_SOLVER_TESTING_MODELGRAPHS_H

#include "remat/Solver/Core/TrainingGraph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace remat {

/// Records forward ops, then appends their backward ops in build().
class ForwardGraphBuilder {
public:
  /// A graph input: data (no gradient) or a parameter (its gradient is a
  /// required output).
  TensorId input(const std::string &name, int64_t bytes, bool parameter);
  /// A forward op with one output per entry of `outBytes`. Its backward op
  /// reads the gradient of each output, the op's inputs when
  /// `gradReadsInputs` (conv, matmul) and its outputs when `gradReadsOutputs`
  /// (relu, softmax), and produces one gradient per differentiable input.
  NodeId op(const std::string &name, const std::string &type, double time,
            std::vector<TensorId> inputs, const std::vector<int64_t> &outBytes,
            bool gradReadsInputs = true, bool gradReadsOutputs = false,
            int64_t workspace = 0);
  /// Shorthand for a single-output op; returns its output tensor.
  TensorId value(const std::string &name, const std::string &type, double time,
                 std::vector<TensorId> inputs, int64_t bytes,
                 bool gradReadsInputs = true, bool gradReadsOutputs = false);
  TrainingGraph &graph() { return g_; }

  /// The training graph: forward ops as recorded (same ids), then backward
  /// ops in reverse order. A value read by several ops gets an accumulation
  /// node summing its gradient contributions. `loss` is marked required.
  TrainingGraph build(TensorId loss) const;

private:
  TrainingGraph g_;
  std::vector<char> param_;        ///< Per tensor: a parameter input.
  std::vector<char> readsIn_, readsOut_; ///< Per forward node.
};

/// About `n` nodes (forward + backward) shaped like Chainer's GoogLeNet:
/// stem, inception modules (branches conv | proj-relu-conv | proj-relu-conv |
/// pool-proj, concat, relu), auxiliary heads after 1/3 and 2/3 of the modules
/// whose losses are summed with the main loss. n = 268 is about the size of
/// the lower-set paper's GoogLeNet (134 forward functions).
TrainingGraph googlenetLike(int n);
/// About `n` nodes shaped like ResNet: bottleneck blocks (conv-bn-relu x3 and
/// a residual add), a projection shortcut at each stage change.
TrainingGraph resnetLike(int n);
/// About `n` nodes shaped like U-Net: encoder levels whose outputs are
/// concatenated into the decoder levels of the same depth.
TrainingGraph unetLike(int n);

/// The three shapes above, for benchmarks that take the shape as a number.
enum class ModelShape { GoogLeNet = 0, ResNet = 1, UNet = 2 };
TrainingGraph modelGraph(ModelShape shape, int n);
const char *modelShapeName(ModelShape shape);

struct RandomBranchyOptions {
  int64_t maxBytes = 5;    ///< Output sizes drawn from 1..maxBytes.
  int maxTime = 5;         ///< Forward times drawn from 1..maxTime.
  int maxInputs = 2;       ///< Each op reads 1..maxInputs earlier values.
  int twoOutputPercent = 15;   ///< Ops with two outputs.
  int nonRecomputablePercent = 0; ///< Ops that must run exactly once.
  int64_t maxWorkspace = 0;
};

/// A small random training DAG whose forward part branches (unlike a chain
/// with skips, it has many lower sets): op i reads 1..maxInputs values drawn
/// from the graph input, the parameter and the outputs of ops < i; every
/// output not read by a later op feeds the final loss op. Deterministic.
TrainingGraph randomBranchyDag(uint64_t seed, int numForward,
                               const RandomBranchyOptions &opts = {});

} // namespace remat

#endif // REMAT_SOLVER_TESTING_MODELGRAPHS_H
