# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""op_times under Inductor: a pointwise op costs its ATen time less the
round trip of its result (a copy), at least FUSED_FLOOR of it; other ops
their ATen time.  The timer is replaced by one that returns a fixed time
per call kind, so the arithmetic is checked exactly."""
import torch
from torch.fx.experimental.proxy_tensor import make_fx

from remat_torch import op_times


def f(a, b):
    return torch.relu(a @ b) + 1.0


def main():
    gm = make_fx(f)(torch.zeros(8, 8), torch.zeros(8, 8))
    nodes = [n for n in gm.graph.nodes if n.op == "call_function"]
    by_name = {str(n.target).split(".")[1]: n for n in nodes}
    for round_trip, want in ((4.0, 6.0), (9.5, 1.0)):
        op_times._CACHE.clear()
        times = {}
        for n in nodes:
            # The op's own timing first (10 us), then its result's copy.
            calls = []
            op_times._time_cpu = lambda fn: calls.append(fn) or (10.0 if len(calls) == 1
                                                                 else round_trip)
            times[n] = op_times._time_op(n, fused=True)
        for name in ("relu", "add"):
            print("fused %s with a %.1f us round trip: %.1f us (want %.1f)"
                  % (name, round_trip, times[by_name[name]], want))
        print("mm fused: %.1f us (want 10.0)" % times[by_name["mm"]])
    calls = []
    print("relu unfused: %.1f us (want 10.0)" % op_times._time_op(by_name["relu"], fused=False))


if __name__ == "__main__":
    main()
