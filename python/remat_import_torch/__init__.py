# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""remat-import-torch: PyTorch training steps (AOTAutograd joint graphs) as
MLIR for the remat rematerialization pass.  See docs/importer.md."""
