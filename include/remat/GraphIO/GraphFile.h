//===- GraphFile.h - Reading training graphs from files -------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Two input formats (docs/graph-format.md):
//  - the project's JSON format: {"kind":"graph",...} for any training graph,
//    {"kind":"chain",...} for a chain in the rotor paper's notation;
//  - the plain-text computational-graph format of the lower-set paper's code
//    (Kusumoto et al. 2019, github.com/pfnet-research/recompute).
// Readers never crash on bad input: they return an llvm::Error whose message
// names the line or the field at fault. Cyclic or otherwise malformed graphs
// are rejected with TrainingGraph::verify()'s explanation.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_GRAPHIO_GRAPHFILE_H
#define REMAT_GRAPHIO_GRAPHFILE_H

#include "remat/Support/Units.h"
#include "remat/Solver/Chain/Chain.h"
#include "remat/Solver/Core/TrainingGraph.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace remat {

struct GraphFile {
  TrainingGraph graph;
  /// Set for {"kind":"chain"} files: `graph` is buildChainGraph(*chain).
  std::optional<ChainSpec> chain;
  Units units;
  std::string format; ///< "json-graph", "json-chain" or "text".
};

/// The project's JSON format (either kind).
llvm::Expected<GraphFile> parseJSONGraph(llvm::StringRef text);

/// The lower-set paper's plain-text format. Memory unit: bytes; forward and
/// backward times: 10 for function types starting with "Conv", else 1.
llvm::Expected<GraphFile> parseTextGraph(llvm::StringRef text);

/// Picks the format from the first non-blank character ('{' or '[': JSON).
llvm::Expected<GraphFile> parseGraph(llvm::StringRef text);

/// Reads and parses a file; "-" reads standard input. Error messages start
/// with the file name.
llvm::Expected<GraphFile> loadGraphFile(llvm::StringRef path);

} // namespace remat

#endif // REMAT_GRAPHIO_GRAPHFILE_H
