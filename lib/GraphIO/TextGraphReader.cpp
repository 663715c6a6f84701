//===- TextGraphReader.cpp - The lower-set paper's text format ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The format written by scripts/dump.py of github.com/pfnet-research/recompute
// (Kusumoto et al. 2019) from a Chainer graph:
//   N M                      variables, function blocks
//   id bytes name            N lines; name is '_', a parameter path or an
//                            input index
//   then M blocks: forward|backward / "k p" / k lines "id type" / p lines
//   "id" / function type / one line of JSON details.
// Forward blocks list their input and output variables (input type '_').
// Backward blocks list, as inputs, "v gradient" (the gradient of variable v),
// "v input" or "v output" (forward variable v, kept for the backward), and as
// outputs the variables v whose gradients they produce.
//
// Mapping to a TrainingGraph (docs/graph-format.md):
//  - variable v is tensor "v<v>"; one without a forward producer is a graph
//    input (data, label, parameter);
//  - forward block j is node "f<j>", backward block j is node "b<j>";
//  - times follow the paper's code: 10 for types starting with "Conv", else 1,
//    for backward blocks too (their times never change the overhead);
//  - the gradient of v is tensor "g<v>". When several backward blocks produce
//    it (v has several consumers), they produce "g<v>.1", "g<v>.2", ... and
//    zero-time backward nodes "acc<v>.<i>" add them up in file order, as
//    Chainer accumulates gradients; a gradient read but never produced (the
//    loss's seed) is a graph input;
//  - required outputs: produced gradients that no backward block reads
//    (gradients of the data, labels and parameters).
// Blank lines are skipped (the dump writes one for an empty id list).
//
//===----------------------------------------------------------------------===//

#include "remat/GraphIO/GraphFile.h"

#include "Errors.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

namespace remat {

namespace {

struct Line {
  int number = 0;
  llvm::StringRef text;
};

/// Hands out the non-blank lines of the file with their 1-based numbers.
class LineReader {
public:
  explicit LineReader(llvm::StringRef text) {
    int n = 0;
    while (!text.empty()) {
      auto [line, rest] = text.split('\n');
      ++n;
      llvm::StringRef t = line.trim();
      if (!t.empty())
        lines_.push_back(Line{n, t});
      text = rest;
    }
  }
  llvm::Expected<Line> next(const llvm::Twine &what) {
    if (pos_ >= lines_.size())
      return fail("unexpected end of file while reading " + what);
    return lines_[pos_++];
  }

private:
  std::vector<Line> lines_;
  size_t pos_ = 0;
};

llvm::Error lineError(const Line &l, const llvm::Twine &msg) {
  return fail("line " + llvm::Twine(l.number) + ": " + msg);
}

/// Splits a line into whitespace-separated fields.
llvm::SmallVector<llvm::StringRef, 4> fields(llvm::StringRef s) {
  llvm::SmallVector<llvm::StringRef, 4> out;
  llvm::SplitString(s, out, " \t\r");
  return out;
}

llvm::Expected<int64_t> integer(const Line &l, llvm::StringRef field,
                                const llvm::Twine &what) {
  int64_t v;
  if (field.getAsInteger(10, v) || v < 0)
    return lineError(l, "expected " + what + " (a non-negative integer), "
                        "found '" + field + "'");
  return v;
}

enum class Use { Gradient, Input, Output };

struct Block {
  bool forward = true;
  int line = 0;
  std::vector<std::pair<int, Use>> inputs; ///< Variable and role.
  std::vector<int> outputs;
  std::string type;
};

double paperTime(llvm::StringRef type) {
  return type.starts_with("Conv") ? 10 : 1;
}

/// Reads the file's text into variable sizes and blocks, in the file's
/// order, with an error naming the line for anything unexpected.
class TextGraphParser {
public:
  explicit TextGraphParser(llvm::StringRef text) : in(text) {}

  llvm::Error parse() {
    if (llvm::Error e = readHeader())
      return e;
    if (llvm::Error e = readVariables())
      return e;
    for (int64_t j = 0; j < numBlocks; ++j)
      if (llvm::Error e = readBlock(j))
        return e;
    if (auto extra = in.next("nothing"))
      return lineError(*extra, "unexpected text after the last function");
    else
      llvm::consumeError(extra.takeError());
    return llvm::Error::success();
  }

  int64_t N = 0; ///< Variables.
  int64_t numBlocks = 0;
  std::vector<int64_t> bytes; ///< Per variable.
  std::vector<Block> blocks;

private:
  llvm::Error readHeader() {
    auto header = in.next("the header line 'N M'");
    if (!header)
      return header.takeError();
    auto hf = fields(header->text);
    if (hf.size() != 2)
      return lineError(*header, "expected 'N M' (numbers of variables and of "
                                "functions), found '" + header->text + "'");
    auto numVars = integer(*header, hf[0], "the number of variables N");
    if (!numVars)
      return numVars.takeError();
    auto blocksInFile = integer(*header, hf[1], "the number of functions M");
    if (!blocksInFile)
      return blocksInFile.takeError();
    N = *numVars;
    numBlocks = *blocksInFile;
    if (N > 10'000'000 || numBlocks > 10'000'000)
      return lineError(*header, "graph too large");
    bytes.assign(N, -1);
    return llvm::Error::success();
  }

  llvm::Error readVariables() {
    for (int64_t i = 0; i < N; ++i) {
      auto l = in.next("variable line " + llvm::Twine(i + 1) + " of " +
                       llvm::Twine(N) + " ('id bytes name')");
      if (!l)
        return l.takeError();
      auto f = fields(l->text);
      if (f.size() < 2)
        return lineError(*l, "expected 'id bytes name', found '" + l->text +
                                 "'");
      auto id = integer(*l, f[0], "a variable id");
      if (!id)
        return id.takeError();
      if (*id >= N)
        return lineError(*l, "variable id " + llvm::Twine(*id) +
                                 " is out of range (N = " + llvm::Twine(N) +
                                 ")");
      if (bytes[*id] >= 0)
        return lineError(*l,
                         "variable " + llvm::Twine(*id) + " is listed twice");
      auto b = integer(*l, f[1], "a size in bytes");
      if (!b)
        return b.takeError();
      bytes[*id] = *b;
    }
    return llvm::Error::success();
  }

  llvm::Expected<int> varId(const Line &l, llvm::StringRef field) {
    auto v = integer(l, field, "a variable id");
    if (!v)
      return v.takeError();
    if (*v >= N)
      return lineError(l, "variable id " + llvm::Twine(*v) +
                              " is out of range (N = " + llvm::Twine(N) + ")");
    return static_cast<int>(*v);
  }

  /// forward|backward, 'k p', k inputs, p outputs, type, JSON details.
  llvm::Error readBlock(int64_t j) {
    std::string where = "function " + std::to_string(j + 1) + " of " +
                        std::to_string(numBlocks);
    Block blk;
    auto dir = in.next("the direction of " + where);
    if (!dir)
      return dir.takeError();
    if (dir->text != "forward" && dir->text != "backward")
      return lineError(*dir, "expected 'forward' or 'backward' to start " +
                                 where + ", found '" + dir->text + "'");
    blk.forward = dir->text == "forward";
    blk.line = dir->number;
    auto kp = in.next("the 'k p' line of " + where);
    if (!kp)
      return kp.takeError();
    auto kpf = fields(kp->text);
    if (kpf.size() != 2)
      return lineError(*kp, "expected 'k p' (numbers of inputs and outputs), "
                            "found '" + kp->text + "'");
    auto k = integer(*kp, kpf[0], "the number of inputs k");
    if (!k)
      return k.takeError();
    auto p = integer(*kp, kpf[1], "the number of outputs p");
    if (!p)
      return p.takeError();
    if (llvm::Error e = readBlockInputs(blk, *k, where))
      return e;
    if (llvm::Error e = readBlockOutputs(blk, *p, where))
      return e;
    auto type = in.next("the function type of " + where);
    if (!type)
      return type.takeError();
    if (fields(type->text).size() != 1)
      return lineError(*type, "expected a function type such as 'ReLU', "
                              "found '" + type->text + "'");
    blk.type = type->text.str();
    auto details = in.next("the JSON details line of " + where);
    if (!details)
      return details.takeError();
    if (!details->text.starts_with("{"))
      return lineError(*details, "expected the JSON details line of " + where +
                                     " (starting with '{'), found '" +
                                     details->text + "'");
    blocks.push_back(std::move(blk));
    return llvm::Error::success();
  }

  llvm::Error readBlockInputs(Block &blk, int64_t k, const std::string &where) {
    for (int64_t i = 0; i < k; ++i) {
      auto l = in.next("input " + llvm::Twine(i + 1) + " of " + where);
      if (!l)
        return l.takeError();
      auto f = fields(l->text);
      if (f.size() != 2)
        return lineError(*l, "expected 'id type', found '" + l->text + "'");
      auto v = varId(*l, f[0]);
      if (!v)
        return v.takeError();
      Use use = Use::Input;
      if (!blk.forward) {
        if (f[1] == "gradient")
          use = Use::Gradient;
        else if (f[1] == "output")
          use = Use::Output;
        else if (f[1] != "input")
          return lineError(*l, "expected the input type 'gradient', 'input' "
                               "or 'output' in a backward function, found '" +
                                   f[1] + "'");
      }
      blk.inputs.emplace_back(*v, use);
    }
    return llvm::Error::success();
  }

  llvm::Error readBlockOutputs(Block &blk, int64_t p, const std::string &where) {
    for (int64_t i = 0; i < p; ++i) {
      auto l = in.next("output " + llvm::Twine(i + 1) + " of " + where);
      if (!l)
        return l.takeError();
      auto f = fields(l->text);
      if (f.size() != 1)
        return lineError(*l, "expected an output variable id, found '" +
                                 l->text + "'");
      auto v = varId(*l, f[0]);
      if (!v)
        return v.takeError();
      blk.outputs.push_back(*v);
    }
    return llvm::Error::success();
  }

  LineReader in;
};

/// Turns the parsed blocks into the TrainingGraph (the mapping in the file
/// comment).
class TextGraphBuilder {
public:
  TextGraphBuilder(const TextGraphParser &p)
      : N(p.N), bytes(p.bytes), blocks(p.blocks) {}

  llvm::Expected<GraphFile> build() {
    if (llvm::Error e = findProducers())
      return std::move(e);
    file.format = "text";
    file.units.memory = "B";
    file.units.time = "unit";
    addInputs();
    addNodes();
    accumulateGradients();
    connectInputs();
    for (int v = 0; v < N; ++v)
      if (!gradProducers[v].empty() && !gradRead[v])
        g.markRequired(grad[v]);
    if (auto problem = g.verify())
      return fail("invalid graph: " + *problem);
    return std::move(file);
  }

private:
  static std::string vname(int v) { return "v" + std::to_string(v); }
  static std::string gname(int v) { return "g" + std::to_string(v); }

  /// Who produces each variable and each gradient.
  llvm::Error findProducers() {
    producer.assign(N, -1);
    gradProducers.assign(N, {});
    gradRead.assign(N, 0);
    for (size_t j = 0; j < blocks.size(); ++j) {
      const Block &b = blocks[j];
      for (int v : b.outputs) {
        if (!b.forward) {
          gradProducers[v].push_back(static_cast<int>(j));
          continue;
        }
        if (producer[v] >= 0)
          return fail("line " + llvm::Twine(b.line) + ": variable " +
                      llvm::Twine(v) + " is already produced by the forward "
                      "function at line " +
                      llvm::Twine(blocks[producer[v]].line));
        producer[v] = static_cast<int>(j);
      }
      for (auto [v, use] : b.inputs)
        if (use == Use::Gradient)
          gradRead[v] = 1;
    }
    return llvm::Error::success();
  }

  void addInputs() {
    var.assign(N, kNone);
    grad.assign(N, kNone);
    for (int v = 0; v < N; ++v)
      if (producer[v] < 0)
        var[v] = g.addInput(vname(v), bytes[v]);
    for (int v = 0; v < N; ++v)
      if (gradRead[v] && gradProducers[v].empty())
        grad[v] = g.addInput(gname(v), bytes[v]); // The loss's seed gradient.
  }

  /// Nodes first, inputs afterwards: blocks need not be in topological order.
  void addNodes() {
    nodeOf.assign(blocks.size(), kNone);
    contributions.assign(N, {});
    int fwdCount = 0, bwdCount = 0;
    for (size_t j = 0; j < blocks.size(); ++j) {
      const Block &b = blocks[j];
      std::vector<int64_t> outBytes;
      for (int v : b.outputs)
        outBytes.push_back(bytes[v]);
      std::string name = b.forward ? "f" + std::to_string(fwdCount++)
                                   : "b" + std::to_string(bwdCount++);
      NodeId n = g.addNode(name, b.forward ? NodeKind::Forward
                                           : NodeKind::Backward,
                           paperTime(b.type), {}, outBytes);
      g.node(n).type = b.type;
      nodeOf[j] = n;
      for (size_t k = 0; k < b.outputs.size(); ++k)
        nameOutput(b, b.outputs[k], g.node(n).outputs[k]);
    }
  }

  void nameOutput(const Block &b, int v, TensorId t) {
    if (b.forward) {
      var[v] = t;
      g.tensor(t).name = vname(v);
      return;
    }
    contributions[v].push_back(t);
    bool single = gradProducers[v].size() == 1;
    g.tensor(t).name =
        single ? gname(v)
               : gname(v) + "." + std::to_string(contributions[v].size());
    if (single)
      grad[v] = t;
  }

  /// Sums multiple contributions pairwise, in file order.
  void accumulateGradients() {
    for (int v = 0; v < N; ++v) {
      const std::vector<TensorId> &parts = contributions[v];
      if (parts.size() < 2)
        continue;
      TensorId sum = parts[0];
      for (size_t i = 1; i < parts.size(); ++i) {
        NodeId acc = g.addNode("acc" + std::to_string(v) + "." +
                                   std::to_string(i + 1),
                               NodeKind::Backward, 0, {sum, parts[i]},
                               {bytes[v]});
        g.node(acc).type = "GradientAccumulation";
        sum = g.node(acc).outputs[0];
        g.tensor(sum).name = i + 1 == parts.size()
                                 ? gname(v)
                                 : gname(v) + ".sum" + std::to_string(i + 1);
      }
      grad[v] = sum;
    }
  }

  void connectInputs() {
    for (size_t j = 0; j < blocks.size(); ++j)
      for (auto [v, use] : blocks[j].inputs)
        g.node(nodeOf[j]).inputs.push_back(use == Use::Gradient ? grad[v]
                                                                : var[v]);
  }

  const int64_t N;
  const std::vector<int64_t> &bytes;
  const std::vector<Block> &blocks;
  GraphFile file;
  TrainingGraph &g = file.graph;
  std::vector<int> producer;
  std::vector<std::vector<int>> gradProducers;
  std::vector<char> gradRead;
  std::vector<TensorId> var, grad;
  std::vector<NodeId> nodeOf;
  std::vector<std::vector<TensorId>> contributions;
};

} // namespace

llvm::Expected<GraphFile> parseTextGraph(llvm::StringRef text) {
  TextGraphParser parser(text);
  if (llvm::Error e = parser.parse())
    return std::move(e);
  return TextGraphBuilder(parser).build();
}

} // namespace remat
