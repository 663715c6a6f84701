//===- Join.cpp - Join graphs: builder, recogniser, minimum memory --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/Solver/Join/Join.h"

#include <algorithm>

namespace remat {

std::vector<int> JoinSpec::lengths() const {
  std::vector<int> l;
  for (const JoinBranch &b : branches)
    l.push_back(b.length());
  return l;
}

JoinSpec JoinSpec::uniform(const std::vector<int> &lengths, double uf,
                           double ub, double ut) {
  JoinSpec s;
  s.ut = ut;
  for (int len : lengths) {
    JoinBranch b;
    JoinStage st;
    st.uf = uf;
    st.ub = ub;
    b.stages.assign(std::max(0, len), st);
    s.branches.push_back(b);
  }
  return s;
}

JoinSpec joinFromChains(const std::vector<ChainSpec> &chains, double ut,
                        int64_t ot) {
  JoinSpec s;
  s.ut = ut;
  s.ot = ot;
  for (const ChainSpec &c : chains) {
    JoinBranch b;
    b.x0 = c.a0;
    b.xbar0 = c.delta0;
    for (const ChainStage &cs : c.stages)
      b.stages.push_back({cs.uf, cs.ub, cs.a, cs.delta, cs.of, cs.ob});
    s.branches.push_back(b);
  }
  return s;
}

JoinGraph buildJoinGraph(const JoinSpec &spec) {
  JoinGraph jg;
  TrainingGraph &g = jg.graph;
  JoinView &v = jg.view;
  v.spec = spec;
  const int k = spec.k();
  v.forward.resize(k);
  v.backward.resize(k);
  v.x.resize(k);
  v.xbar.resize(k);
  auto name = [](const char *p, int j, int i) {
    return std::string(p) + std::to_string(j + 1) + "_" + std::to_string(i);
  };
  for (int j = 0; j < k; ++j) {
    const JoinBranch &b = spec.branches[j];
    v.x[j].push_back(g.addInput(name("x", j, 0), b.x0));
    for (int i = 0; i < b.length(); ++i) {
      const JoinStage &st = b.stages[i];
      NodeId f = g.addNode(name("F", j, i), NodeKind::Forward, st.uf,
                           {v.x[j][i]}, {st.x}, st.of);
      v.forward[j].push_back(f);
      TensorId out = g.node(f).outputs[0];
      g.tensor(out).name = name("x", j, i + 1);
      v.x[j].push_back(out);
    }
  }
  std::vector<TensorId> turnIn;
  std::vector<int64_t> turnOut;
  for (int j = 0; j < k; ++j) {
    const JoinBranch &b = spec.branches[j];
    turnIn.push_back(v.x[j].back());
    turnOut.push_back(b.length() ? b.stages.back().xbar : b.xbar0);
  }
  v.turn = g.addNode("Turn", NodeKind::Backward, spec.ut, turnIn, turnOut,
                     spec.ot);
  for (int j = 0; j < k; ++j) {
    const JoinBranch &b = spec.branches[j];
    const int len = b.length();
    v.xbar[j].assign(len + 1, kNone);
    v.backward[j].assign(len, kNone);
    v.xbar[j][len] = g.node(v.turn).outputs[j];
    g.tensor(v.xbar[j][len]).name = name("xbar", j, len);
    for (int i = len - 1; i >= 0; --i) {
      int64_t bytes = i == 0 ? b.xbar0 : b.stages[i - 1].xbar;
      NodeId bn = g.addNode(name("B", j, i), NodeKind::Backward,
                            b.stages[i].ub, {v.x[j][i], v.xbar[j][i + 1]},
                            {bytes}, b.stages[i].ob);
      v.backward[j][i] = bn;
      v.xbar[j][i] = g.node(bn).outputs[0];
      g.tensor(v.xbar[j][i]).name = name("xbar", j, i);
    }
    g.markRequired(v.xbar[j][0]);
  }
  return jg;
}

namespace {

/// recognizeJoin's checks in order: the turn, then per branch its backward
/// chain (from the turn's output down to a required gradient) and its
/// forward chain (from a graph input up to the turn), then the branches
/// without stages, then that nothing else is in the graph. Each check that
/// fails says why and stops the rest, so the first failure is reported.
class JoinRecognizer {
public:
  explicit JoinRecognizer(const TrainingGraph &g) : g(g) {}

  std::optional<JoinView> run();
  const std::string &reason() const { return why; }

private:
  bool fail(const std::string &msg) {
    why = msg;
    return false;
  }
  bool producedBy(TensorId t, NodeKind kind) const {
    NodeId p = g.tensor(t).producer;
    return p != kNone && g.node(p).kind == kind;
  }
  const Node &turnNode() const { return g.node(v.turn); }

  bool findTurn();
  bool walkBackward(int j, std::vector<TensorId> &xs);
  bool walkForward(int j, std::vector<TensorId> &xs);
  bool placeEmptyBranches();
  bool coversGraph();
  void measureBranches();

  const TrainingGraph &g;
  std::string why;
  JoinView v;
  int k = 0;
  std::vector<char> seen, turnInUsed;
  std::vector<int> emptyBranches;
};

std::optional<JoinView> JoinRecognizer::run() {
  if (auto err = g.verify()) {
    fail("malformed graph: " + *err);
    return std::nullopt;
  }
  if (!findTurn())
    return std::nullopt;
  for (int j = 0; j < k; ++j) {
    std::vector<TensorId> xs;
    if (!walkBackward(j, xs))
      return std::nullopt;
    if (xs.empty()) {
      emptyBranches.push_back(j);
      continue;
    }
    if (!walkForward(j, xs))
      return std::nullopt;
  }
  if (!placeEmptyBranches() || !coversGraph())
    return std::nullopt;
  measureBranches();
  return v;
}

/// The turn: the only backward node that reads no backward value.
bool JoinRecognizer::findTurn() {
  NodeId turn = kNone;
  for (NodeId n = 0; n < g.numNodes(); ++n) {
    if (g.isForward(n))
      continue;
    bool readsGrad = false;
    for (TensorId t : g.node(n).inputs)
      readsGrad |= producedBy(t, NodeKind::Backward);
    if (readsGrad)
      continue;
    if (turn != kNone)
      return fail("not a join: several backward nodes ('" +
                  g.node(turn).name + "', '" + g.node(n).name +
                  "') read only forward values");
    turn = n;
  }
  if (turn == kNone)
    return fail("not a join: no backward node reads only forward values");
  const Node &tn = g.node(turn);
  k = static_cast<int>(tn.outputs.size());
  if (k == 0 || tn.inputs.size() != tn.outputs.size())
    return fail("not a join: the turn '" + tn.name +
                "' must read as many values as it produces gradients");
  v.turn = turn;
  v.spec.ut = tn.time;
  v.spec.ot = tn.workspace;
  v.forward.resize(k);
  v.backward.resize(k);
  v.x.resize(k);
  v.xbar.resize(k);
  seen.assign(g.numNodes(), 0);
  turnInUsed.assign(k, 0);
  seen[turn] = 1;
  return true;
}

/// Branch j's backward chain x̄_l -> ... -> x̄_0 from the turn's output j;
/// `xs`: the forward values x_0 .. x_{l-1} its steps read.
bool JoinRecognizer::walkBackward(int j, std::vector<TensorId> &xs) {
  std::vector<TensorId> xbar{turnNode().outputs[j]};
  std::vector<NodeId> bwd;
  while (true) {
    TensorId cur = xbar.back();
    const auto &cons = g.consumers(cur);
    if (cons.empty())
      break;
    if (cons.size() != 1 || g.isRequired(cur))
      return fail("not a join: gradient '" + g.tensor(cur).name +
                  "' is read by several nodes or is itself required");
    NodeId b = cons[0];
    const Node &bn = g.node(b);
    if (bn.kind != NodeKind::Backward || seen[b] || bn.outputs.size() != 1 ||
        bn.inputs.size() != 2)
      return fail("not a join: '" + bn.name +
                  "' is not a backward step (x_i, x̄_{i+1}) -> x̄_i");
    TensorId xin = bn.inputs[0] == cur ? bn.inputs[1] : bn.inputs[0];
    if (!g.isInput(xin) && !producedBy(xin, NodeKind::Forward))
      return fail("not a join: '" + bn.name + "' reads two gradients");
    seen[b] = 1;
    bwd.push_back(b);
    xs.push_back(xin);
    xbar.push_back(bn.outputs[0]);
  }
  if (!g.isRequired(xbar.back()))
    return fail("not a join: gradient chain of the turn's output " +
                std::to_string(j) + " does not end in a required output");
  std::reverse(bwd.begin(), bwd.end());
  std::reverse(xs.begin(), xs.end());
  std::reverse(xbar.begin(), xbar.end());
  v.backward[j] = bwd;
  v.xbar[j] = xbar;
  return true;
}

/// Branch j's forward chain x_0 -> ... -> x_l (F_i is the node producing
/// x_{i+1}), which must end at an input of the turn.
bool JoinRecognizer::walkForward(int j, std::vector<TensorId> &xs) {
  const int len = static_cast<int>(xs.size());
  if (!g.isInput(xs[0]))
    return fail("not a join: branch " + std::to_string(j) +
                " does not start at a graph input");
  xs.push_back(kNone);
  for (int i = 0; i < len; ++i) {
    NodeId f = kNone;
    for (NodeId c : g.consumers(xs[i]))
      if (g.isForward(c))
        f = f == kNone ? c : NodeId(-2);
    if (f < 0)
      return fail("not a join: '" + g.tensor(xs[i]).name +
                  "' does not feed exactly one forward node");
    const Node &fn = g.node(f);
    if (seen[f] || fn.inputs.size() != 1 || fn.outputs.size() != 1)
      return fail("not a join: '" + fn.name +
                  "' is not a single-input, single-output forward step");
    if (!fn.recomputable)
      return fail("join: forward node '" + fn.name + "' may not be recomputed");
    if (i + 1 < len && fn.outputs[0] != xs[i + 1])
      return fail("not a join: '" + fn.name +
                  "' does not produce the value its backward step reads");
    seen[f] = 1;
    v.forward[j].push_back(f);
    xs[i + 1] = fn.outputs[0];
  }
  const Node &tn = turnNode();
  auto it = std::find(tn.inputs.begin(), tn.inputs.end(), xs[len]);
  if (it == tn.inputs.end() || turnInUsed[it - tn.inputs.begin()])
    return fail("not a join: branch " + std::to_string(j) +
                " does not end at the turn");
  turnInUsed[it - tn.inputs.begin()] = 1;
  v.x[j] = xs;
  return true;
}

/// Empty branches take the remaining turn inputs (graph inputs).
bool JoinRecognizer::placeEmptyBranches() {
  const Node &tn = turnNode();
  size_t next = 0;
  for (int j : emptyBranches) {
    while (next < tn.inputs.size() && turnInUsed[next])
      ++next;
    if (next == tn.inputs.size() || !g.isInput(tn.inputs[next]))
      return fail("not a join: the turn reads a value outside the branches");
    turnInUsed[next] = 1;
    v.x[j] = {tn.inputs[next]};
  }
  return true;
}

bool JoinRecognizer::coversGraph() {
  for (NodeId n = 0; n < g.numNodes(); ++n)
    if (!seen[n])
      return fail("not a join: node '" + g.node(n).name +
                  "' is not part of a branch");
  if (g.requiredOutputs().size() != static_cast<size_t>(k))
    return fail("not a join: required outputs other than the x̄_0");
  return true;
}

/// The spec's branches: sizes, times and workspaces of the recognised nodes.
void JoinRecognizer::measureBranches() {
  for (int j = 0; j < k; ++j) {
    JoinBranch b;
    b.x0 = g.tensor(v.x[j][0]).bytes;
    b.xbar0 = g.tensor(v.xbar[j][0]).bytes;
    for (size_t i = 0; i < v.forward[j].size(); ++i) {
      const Node &f = g.node(v.forward[j][i]);
      const Node &bn = g.node(v.backward[j][i]);
      b.stages.push_back({f.time, bn.time, g.tensor(v.x[j][i + 1]).bytes,
                          g.tensor(v.xbar[j][i + 1]).bytes, f.workspace,
                          bn.workspace});
    }
    v.spec.branches.push_back(b);
  }
}

} // namespace

std::optional<JoinView> recognizeJoin(const TrainingGraph &g,
                                      std::string *why) {
  JoinRecognizer recognizer(g);
  std::optional<JoinView> view = recognizer.run();
  if (!view && why)
    *why = recognizer.reason();
  return view;
}

int joinMinimumSlots(const std::vector<int> &lengths) {
  const int k = static_cast<int>(lengths.size());
  int nz = 0;
  bool one = false;
  for (int l : lengths) {
    nz += l != 0;
    one |= l == 1;
  }
  if (nz == 0)
    return k;
  return one ? k + nz : k + nz + 1;
}

int64_t joinMinimumBytesUnit(const std::vector<int> &lengths) {
  const int64_t k = static_cast<int64_t>(lengths.size());
  int64_t nz = 0, two = 0, one = 0;
  for (int l : lengths) {
    nz += l != 0;
    two = std::max<int64_t>(two, l >= 2 ? 2 : 0);
    one = std::max<int64_t>(one, l == 1 ? 1 : 0);
  }
  if (nz == 0)
    return 2 * k;
  return 2 * k + std::max({nz, two, one});
}

} // namespace remat
