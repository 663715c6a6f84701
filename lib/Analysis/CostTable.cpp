//===- CostTable.cpp - Measured per-op costs from JSON --------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Format (docs/cost-table.md):
//   {"units": {"time": "us", "memory": "B"},
//    "ops": {"conv1": {"time": 812.5, "bytes": 65536, "workspace": 0},
//            "linalg.matmul": {"time": 40.0}}}
// Keys are op location names (loc("conv1")), "file:line:col", or op names
// (a default for every op of that kind).
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/CostModel.h"
#include "remat/Support/Units.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;

namespace remat {

std::optional<CostTable> CostTable::parse(StringRef text, StringRef path,
                                          std::string &error) {
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json) {
    error = (path + ": invalid JSON: " + llvm::toString(json.takeError())).str();
    return std::nullopt;
  }
  const llvm::json::Object *root = json->getAsObject();
  if (!root) {
    error = (path + ": expected a JSON object").str();
    return std::nullopt;
  }
  double bytesPerUnit = 1;
  if (const llvm::json::Object *units = root->getObject("units"))
    if (std::optional<StringRef> mem = units->getString("memory")) {
      std::optional<double> b = memoryUnitBytes(*mem);
      if (!b) {
        error = (path + ": unknown memory unit '" + *mem + "'").str();
        return std::nullopt;
      }
      bytesPerUnit = *b;
    }
  const llvm::json::Object *ops = root->getObject("ops");
  if (!ops) {
    error = (path + ": missing the \"ops\" object").str();
    return std::nullopt;
  }
  CostTable table;
  for (const auto &[key, value] : *ops) {
    const llvm::json::Object *obj = value.getAsObject();
    std::optional<double> time = obj ? obj->getNumber("time") : std::nullopt;
    if (!time || *time < 0) {
      error = (path + ": entry '" + key.str() +
               "' needs a non-negative \"time\"")
                  .str();
      return std::nullopt;
    }
    CostTableEntry entry;
    entry.time = *time;
    if (std::optional<double> w = obj->getNumber("workspace")) {
      if (*w < 0) {
        error = (path + ": entry '" + key.str() + "': negative workspace")
                    .str();
        return std::nullopt;
      }
      entry.workspace = static_cast<int64_t>(*w * bytesPerUnit + 0.5);
    }
    if (std::optional<double> b = obj->getNumber("bytes")) {
      if (*b < 0) {
        error = (path + ": entry '" + key.str() + "': negative bytes").str();
        return std::nullopt;
      }
      entry.bytes = static_cast<int64_t>(*b * bytesPerUnit + 0.5);
    }
    table.entries[key.str()] = entry;
  }
  return table;
}

FailureOr<std::optional<CostTable>>
CostTable::loadOption(StringRef path, Operation *anchor) {
  if (path.empty())
    return std::optional<CostTable>();
  std::string error;
  std::optional<CostTable> table = load(path, error);
  if (!table)
    return anchor->emitError() << error;
  return table;
}

std::optional<CostTable> CostTable::load(StringRef path, std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path);
  if (!buffer) {
    error = ("cannot read cost table '" + path +
             "': " + buffer.getError().message())
                .str();
    return std::nullopt;
  }
  return parse((*buffer)->getBuffer(), path, error);
}

const CostTableEntry *CostTable::lookup(Operation *op) const {
  std::string key = costTableKey(op);
  if (!key.empty()) {
    auto it = entries.find(key);
    if (it != entries.end())
      return &it->second;
  }
  auto it = entries.find(op->getName().getStringRef());
  return it == entries.end() ? nullptr : &it->second;
}

} // namespace remat
