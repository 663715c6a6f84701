//===- CheckpointScans.h - Binomial checkpointing of scan loops -*- C++ -*-===//
#ifndef REMAT_TRANSFORMS_CHECKPOINTSCANS_H
#define REMAT_TRANSFORMS_CHECKPOINTSCANS_H

#include "remat/Analysis/ScanLoops.h"

namespace remat {

/// Rewrites `scan` to keep `slots` (1 <= slots <= T) checkpoints of its
/// carries instead of its stacks (see CheckpointScans.cpp); the forward and
/// backward loops are replaced.
void checkpointScan(const ScanPair &scan, int64_t slots);

} // namespace remat

#endif // REMAT_TRANSFORMS_CHECKPOINTSCANS_H
