//===- GraphWriter.h - TrainingGraph to the JSON graph format ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Writes a TrainingGraph in the project's JSON graph format (docs/
// graph-format.md, "kind": "graph", sizes in bytes), the inverse of
// parseJSONGraph: remat-plan can read what `-remat-export-graph` writes.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_GRAPHIO_GRAPHWRITER_H
#define REMAT_GRAPHIO_GRAPHWRITER_H

#include "remat/Solver/Core/TrainingGraph.h"

#include "llvm/Support/raw_ostream.h"

namespace remat {

void writeGraphJSON(llvm::raw_ostream &os, const TrainingGraph &g,
                    llvm::StringRef timeUnit = "flop");

} // namespace remat

#endif // REMAT_GRAPHIO_GRAPHWRITER_H
