"""remat-import-torch: PyTorch training steps (AOTAutograd joint graphs) as
MLIR for the remat rematerialization pass.  See docs/importer.md."""
