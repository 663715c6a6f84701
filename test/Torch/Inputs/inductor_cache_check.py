# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The MLP through remat's backend with Inductor and its FX-graph cache on:
prints Inductor's cache counters (hits, misses, bypasses).  Run twice with
one TORCHINDUCTOR_CACHE_DIR, the second run's graphs come from the cache."""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import backend_models  # noqa: E402
import remat_torch  # noqa: E402
from backend_check import WithLoss, step  # noqa: E402

torch.manual_seed(0)
model, x = WithLoss(backend_models.MLP()), backend_models.MLP.example()
log = []
step(torch.compile(model, backend=remat_torch.backend("80%", log=log)), x)
c = torch._dynamo.utils.counters["inductor"]
print("fx graph cache: %d hits, %d misses, %d bypasses; %s" % (
    c["fxgraph_cache_hit"], c["fxgraph_cache_miss"], c["fxgraph_cache_bypass"],
    "planned" if log and "fallback" not in log[0] else "NOT PLANNED: %s" % log))
