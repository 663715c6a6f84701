//===- Pipelines.h - remat pass pipelines -----------------------*- C++ -*-===//
#ifndef REMAT_PIPELINES_PIPELINES_H
#define REMAT_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

#include <string>

namespace remat {

/// The settings of `remat-opt --remat-budget=...`, shared with the pass
/// options of the pipeline so hand-written pipelines see the same knobs.
struct RematPipelineSettings {
  std::string budget;   ///< "2GiB", "512MB", "60%", ...
  std::string strategy = "auto";
  std::string reportFile;
  std::string costTable;
  int slots = 500;
};

/// Adds the default tensor-level rematerialization pipeline to `pm`. Fails
/// with a diagnostic on `loc`-less errors (bad budget syntax...).
mlir::LogicalResult
buildDefaultRematPipeline(mlir::OpPassManager &pm,
                          const RematPipelineSettings &settings,
                          std::string &error);

} // namespace remat

#endif // REMAT_PIPELINES_PIPELINES_H
