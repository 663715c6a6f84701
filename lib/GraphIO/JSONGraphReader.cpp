//===- JSONGraphReader.cpp - The project's JSON graph format --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// {"kind":"graph"} lists tensors (name, size), nodes (name, kind, time,
// workspace, inputs/outputs by tensor name, recomputable, type) and required
// tensors; {"kind":"chain"} lists rotor-style stages. Every error names the
// field at fault with a JSON path such as nodes[3].inputs[1].
//
//===----------------------------------------------------------------------===//

#include "remat/GraphIO/GraphFile.h"

#include "Errors.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <initializer_list>

namespace remat {

namespace {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

std::string at(const std::string &path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

// Paths of top-level fields are just the key; "" is the top level.
std::string field(const std::string &path, llvm::StringRef key) {
  return path.empty() ? key.str() : path + "." + key.str();
}

std::string missing(const std::string &path, llvm::StringRef key) {
  return (path.empty() ? "" : path + ": ") + "missing field '" + key.str() +
         "'";
}

/// Rejects keys outside `allowed`: a typo ("workpace") must not be ignored.
llvm::Error checkKeys(const Object &o, const std::string &path,
                      std::initializer_list<llvm::StringRef> allowed) {
  for (const auto &kv : o) {
    llvm::StringRef key = kv.first;
    bool ok = false;
    for (llvm::StringRef a : allowed)
      ok = ok || key == a;
    if (!ok) {
      std::string list;
      for (llvm::StringRef a : allowed)
        list += (list.empty() ? "" : ", ") + a.str();
      return fail((path.empty() ? std::string("top level") : path) +
                  ": unknown field '" + key + "' (expected: " + list + ")");
    }
  }
  return llvm::Error::success();
}

const Object *asObject(const Value &v) { return v.getAsObject(); }

/// A number field; `fallback` when absent (nullopt: the field is required).
llvm::Expected<double> number(const Object &o, const std::string &path,
                              llvm::StringRef key,
                              std::optional<double> fallback) {
  const Value *v = o.get(key);
  if (!v) {
    if (fallback)
      return *fallback;
    return fail(missing(path, key));
  }
  std::optional<double> d = v->getAsNumber();
  if (!d)
    return fail(field(path, key) + ": expected a number");
  if (*d < 0)
    return fail(field(path, key) + ": must not be negative");
  return *d;
}

llvm::Expected<int64_t> size(const Object &o, const std::string &path,
                             llvm::StringRef key, std::optional<double> fallback,
                             const Units &units) {
  auto d = number(o, path, key, fallback);
  if (!d)
    return d.takeError();
  return toBytes(*d, units.bytesPerUnit, field(path, key));
}

llvm::Expected<std::string> string(const Object &o, const std::string &path,
                                   llvm::StringRef key,
                                   std::optional<std::string> fallback) {
  const Value *v = o.get(key);
  if (!v) {
    if (fallback)
      return *fallback;
    return fail(missing(path, key));
  }
  std::optional<llvm::StringRef> s = v->getAsString();
  if (!s)
    return fail(field(path, key) + ": expected a string");
  return s->str();
}

/// A required array field.
llvm::Expected<const Array *> array(const Object &o, llvm::StringRef key) {
  const Value *v = o.get(key);
  if (!v)
    return fail("missing array '" + key + "'");
  if (const Array *a = v->getAsArray())
    return a;
  return fail(key + ": expected an array");
}

llvm::Expected<Units> readUnits(const Object &root) {
  Units u;
  const Value *v = root.get("units");
  if (!v)
    return u;
  const Object *o = v->getAsObject();
  if (!o)
    return fail("units: expected an object like {\"time\":\"ms\",\"memory\":"
                "\"MB\"}");
  if (auto e = checkKeys(*o, "units", {"time", "memory"}))
    return std::move(e);
  auto time = string(*o, "units", "time", u.time);
  if (!time)
    return time.takeError();
  auto mem = string(*o, "units", "memory", u.memory);
  if (!mem)
    return mem.takeError();
  std::optional<double> perUnit = memoryUnitBytes(*mem);
  if (!perUnit)
    return fail("units.memory: unknown unit '" + *mem +
                "' (use B, KB, KiB, MB, MiB, GB or GiB)");
  u.time = *time;
  u.memory = *mem;
  u.bytesPerUnit = *perUnit;
  return u;
}

/// One stage; for the optional loss stage every field defaults to 0.
llvm::Expected<ChainStage> readStage(const Value &v, const std::string &path,
                                     const Units &units, bool isLoss) {
  const Object *s = asObject(v);
  if (!s)
    return fail(path + ": expected an object");
  if (auto e = checkKeys(*s, path,
                         {"uf", "ub", "a", "abar", "delta", "of", "ob"}))
    return std::move(e);
  std::optional<double> zero;
  if (isLoss)
    zero = 0.0;
  ChainStage st;
  auto uf = number(*s, path, "uf", zero);
  if (!uf)
    return uf.takeError();
  st.uf = *uf;
  auto ub = number(*s, path, "ub", zero);
  if (!ub)
    return ub.takeError();
  st.ub = *ub;
  auto a = number(*s, path, "a", zero);
  if (!a)
    return a.takeError();
  auto aBytes = size(*s, path, "a", zero, units);
  if (!aBytes)
    return aBytes.takeError();
  st.a = *aBytes;
  // abar and delta default to a (the chain's usual case).
  auto abar = size(*s, path, "abar", *a, units);
  if (!abar)
    return abar.takeError();
  st.abar = *abar;
  auto delta = size(*s, path, "delta", *a, units);
  if (!delta)
    return delta.takeError();
  st.delta = *delta;
  auto of = size(*s, path, "of", 0.0, units);
  if (!of)
    return of.takeError();
  st.of = *of;
  auto ob = size(*s, path, "ob", 0.0, units);
  if (!ob)
    return ob.takeError();
  st.ob = *ob;
  return st;
}

llvm::Expected<GraphFile> readChain(const Object &root, Units units) {
  if (auto e = checkKeys(root, "",
                         {"kind", "units", "a0", "delta0", "stages", "loss"}))
    return std::move(e);
  ChainSpec chain;
  auto a0 = size(root, "", "a0", std::nullopt, units);
  if (!a0)
    return a0.takeError();
  chain.a0 = *a0;
  // delta0 (the input gradient) defaults to the size of a0.
  chain.delta0 = chain.a0;
  if (root.get("delta0")) {
    auto d0 = size(root, "", "delta0", std::nullopt, units);
    if (!d0)
      return d0.takeError();
    chain.delta0 = *d0;
  }
  auto stagesOr = array(root, "stages");
  if (!stagesOr)
    return stagesOr.takeError();
  const Array *stages = *stagesOr;
  for (size_t i = 0; i < stages->size(); ++i) {
    auto st = readStage((*stages)[i], at("stages", i), units, false);
    if (!st)
      return st.takeError();
    chain.stages.push_back(*st);
  }
  if (const Value *loss = root.get("loss")) {
    auto st = readStage(*loss, "loss", units, true);
    if (!st)
      return st.takeError();
    chain.loss = *st;
  }
  GraphFile f;
  f.units = units;
  f.format = "json-chain";
  f.graph = buildChainGraph(chain).graph;
  f.chain = std::move(chain);
  return f;
}

/// Reads a list of tensor names at `path`, resolving each through `ids`.
llvm::Expected<std::vector<int>>
nameList(const Object &o, const std::string &path, llvm::StringRef key,
         const llvm::StringMap<int> &ids) {
  std::vector<int> out;
  const Value *v = o.get(key);
  if (!v)
    return out;
  const Array *arr = v->getAsArray();
  if (!arr)
    return fail(field(path, key) + ": expected an array of tensor names");
  for (size_t i = 0; i < arr->size(); ++i) {
    std::string p = at(field(path, key), i);
    std::optional<llvm::StringRef> name = (*arr)[i].getAsString();
    if (!name)
      return fail(p + ": expected a tensor name");
    auto it = ids.find(*name);
    if (it == ids.end())
      return fail(p + ": unknown tensor '" + *name + "'");
    out.push_back(it->second);
  }
  return out;
}

/// The "tensors" array: names (unique) and sizes, in file order.
struct TensorList {
  std::vector<std::string> names;
  std::vector<int64_t> bytes;
  llvm::StringMap<int> ids; ///< Name -> file index.
};

llvm::Error readTensors(const Array &tensors, Units units, TensorList &out) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    std::string path = at("tensors", i);
    const Object *t = asObject(tensors[i]);
    if (!t)
      return fail(path + ": expected an object");
    if (auto e = checkKeys(*t, path, {"name", "size"}))
      return e;
    auto name = string(*t, path, "name", std::nullopt);
    if (!name)
      return name.takeError();
    auto bytes = size(*t, path, "size", std::nullopt, units);
    if (!bytes)
      return bytes.takeError();
    if (!out.ids.try_emplace(*name, static_cast<int>(i)).second)
      return fail(path + ": duplicate tensor name '" + *name + "'");
    out.names.push_back(*name);
    out.bytes.push_back(*bytes);
  }
  return llvm::Error::success();
}

/// One entry of "nodes", with inputs and outputs as file tensor indices;
/// `seen`: the names of the nodes before it.
llvm::Expected<Node> readNode(const Object &n, const std::string &path,
                              Units units, const TensorList &tensors,
                              const llvm::StringMap<int> &seen) {
  if (auto e = checkKeys(n, path,
                         {"name", "kind", "time", "workspace", "inputs",
                          "outputs", "recomputable", "type", "overwrites"}))
    return std::move(e);
  Node node;
  auto name = string(n, path, "name", std::nullopt);
  if (!name)
    return name.takeError();
  node.name = *name;
  if (seen.count(node.name))
    return fail(path + ": duplicate node name '" + node.name + "'");
  auto kind = string(n, path, "kind", std::nullopt);
  if (!kind)
    return kind.takeError();
  if (*kind == "forward")
    node.kind = NodeKind::Forward;
  else if (*kind == "backward")
    node.kind = NodeKind::Backward;
  else
    return fail(path + ".kind: expected \"forward\" or \"backward\", got \"" +
                *kind + "\"");
  auto time = number(n, path, "time", 0.0);
  if (!time)
    return time.takeError();
  node.time = *time;
  auto ws = size(n, path, "workspace", 0.0, units);
  if (!ws)
    return ws.takeError();
  node.workspace = *ws;
  auto type = string(n, path, "type", std::string());
  if (!type)
    return type.takeError();
  node.type = *type;
  if (const Value *rc = n.get("recomputable")) {
    std::optional<bool> b = rc->getAsBoolean();
    if (!b)
      return fail(path + ".recomputable: expected true or false");
    node.recomputable = *b;
  }
  auto ins = nameList(n, path, "inputs", tensors.ids);
  if (!ins)
    return ins.takeError();
  auto outs = nameList(n, path, "outputs", tensors.ids);
  if (!outs)
    return outs.takeError();
  node.inputs = *ins;
  node.outputs = *outs;
  if (const Value *ow = n.get("overwrites")) {
    std::optional<llvm::StringRef> over = ow->getAsString();
    auto it = over ? tensors.ids.find(*over) : tensors.ids.end();
    if (it == tensors.ids.end() ||
        std::find(node.inputs.begin(), node.inputs.end(), it->second) ==
            node.inputs.end())
      return fail(path + ".overwrites: expected the name of one of the "
                         "node's inputs");
    node.overwrites = it->second; // A file index until buildGeneral.
  }
  return node;
}

/// Inputs first, then nodes (outputs created by addNode and renamed), then
/// the input lists, which may name later nodes' outputs.
void buildGeneral(const TensorList &tensors, const std::vector<Node> &specs,
                  const std::vector<int> &producer, TrainingGraph &g,
                  std::vector<TensorId> &id) {
  id.assign(tensors.names.size(), kNone);
  for (size_t t = 0; t < tensors.names.size(); ++t)
    if (producer[t] < 0)
      id[t] = g.addInput(tensors.names[t], tensors.bytes[t]);
  for (const Node &spec : specs) {
    std::vector<int64_t> outBytes;
    for (int t : spec.outputs)
      outBytes.push_back(tensors.bytes[t]);
    NodeId n = g.addNode(spec.name, spec.kind, spec.time, {}, outBytes,
                         spec.workspace);
    g.node(n).recomputable = spec.recomputable;
    g.node(n).type = spec.type;
    for (size_t k = 0; k < spec.outputs.size(); ++k) {
      id[spec.outputs[k]] = g.node(n).outputs[k];
      g.tensor(g.node(n).outputs[k]).name = tensors.names[spec.outputs[k]];
    }
  }
  for (size_t n = 0; n < specs.size(); ++n) {
    for (int t : specs[n].inputs)
      g.node(static_cast<NodeId>(n)).inputs.push_back(id[t]);
    if (specs[n].overwrites != kNone)
      g.node(static_cast<NodeId>(n)).overwrites = id[specs[n].overwrites];
  }
}

llvm::Expected<GraphFile> readGeneral(const Object &root, Units units) {
  if (auto e = checkKeys(root, "",
                         {"kind", "units", "tensors", "nodes", "required"}))
    return std::move(e);
  auto tensorsOr = array(root, "tensors");
  if (!tensorsOr)
    return tensorsOr.takeError();
  auto nodesOr = array(root, "nodes");
  if (!nodesOr)
    return nodesOr.takeError();
  TensorList tensors;
  if (llvm::Error e = readTensors(**tensorsOr, units, tensors))
    return std::move(e);

  std::vector<Node> specs;
  std::vector<int> producer(tensors.names.size(), -1);
  llvm::StringMap<int> nodeIds;
  const Array &nodes = **nodesOr;
  for (size_t i = 0; i < nodes.size(); ++i) {
    std::string path = at("nodes", i);
    const Object *n = asObject(nodes[i]);
    if (!n)
      return fail(path + ": expected an object");
    auto node = readNode(*n, path, units, tensors, nodeIds);
    if (!node)
      return node.takeError();
    nodeIds.try_emplace(node->name, static_cast<int>(i));
    for (int t : node->outputs) {
      if (producer[t] >= 0)
        return fail(path + ".outputs: tensor '" + tensors.names[t] +
                    "' is already produced by node '" +
                    specs[producer[t]].name + "'");
      producer[t] = static_cast<int>(i);
    }
    specs.push_back(std::move(*node));
  }

  GraphFile f;
  f.units = units;
  f.format = "json-graph";
  std::vector<TensorId> id;
  buildGeneral(tensors, specs, producer, f.graph, id);
  auto req = nameList(root, "", "required", tensors.ids);
  if (!req)
    return req.takeError();
  for (int t : *req)
    f.graph.markRequired(id[t]);
  if (auto problem = f.graph.verify())
    return fail("invalid graph: " + *problem);
  return f;
}

/// Graph files nest a few levels; llvm::json parses (and destroys) values
/// recursively, so a file nested 100,000 deep would exhaust the stack.
constexpr int kMaxJSONDepth = 64;

/// The deepest nesting of arrays and objects in `text` (brackets inside
/// strings do not count).
int jsonNestingDepth(llvm::StringRef text) {
  int depth = 0, deepest = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '[' || c == '{')
      deepest = std::max(deepest, ++depth);
    else if (c == ']' || c == '}')
      --depth;
  }
  return deepest;
}

} // namespace

llvm::Expected<GraphFile> parseJSONGraph(llvm::StringRef text) {
  if (jsonNestingDepth(text) > kMaxJSONDepth)
    return fail("invalid JSON: nested more than " +
                llvm::Twine(kMaxJSONDepth) +
                " levels deep (a graph file needs 4)");
  llvm::Expected<Value> parsed = llvm::json::parse(text);
  if (!parsed)
    return fail("invalid JSON " + llvm::toString(parsed.takeError()));
  const Object *root = parsed->getAsObject();
  if (!root)
    return fail("expected a JSON object at the top level");
  auto units = readUnits(*root);
  if (!units)
    return units.takeError();
  std::optional<llvm::StringRef> kind = root->getString("kind");
  if (!kind)
    return fail("missing field 'kind' (\"graph\" or \"chain\")");
  if (*kind == "chain")
    return readChain(*root, *units);
  if (*kind == "graph")
    return readGeneral(*root, *units);
  return fail("kind: expected \"graph\" or \"chain\", got \"" + *kind + "\"");
}

} // namespace remat
