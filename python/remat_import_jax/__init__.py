# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""remat-import-jax: a JAX training step (jax.value_and_grad) as the MLIR
remat-opt reads."""
