# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Analytic cost (FLOPs) of an ATen node, for ops emitted as remat.op.

Same unit as the project's analytic model of linalg ops (iterations times
body arithmetic: a multiply-add is 2), so remat.op nodes and linalg nodes
of one function are comparable.  A measured cost table (--profile)
overrides these numbers.
"""

import math


# Reductions and the ops made of them: every element of the input read and
# combined, while the output may be a value per row.  Priced by their
# output, a layer norm's statistics (var_mean) or a softmax's maximum
# (amax) cost 1/width of what they do, and a plan recomputes them as if
# free (GPT-2 under Inductor at torch.compile's peak: 13 var_means).  A
# scan (cumsum) writes an element per element read: its output prices it.
_READS_ITS_INPUT = (
    "aten.sum.", "aten.mean.", "aten._softmax", "aten._log_softmax", "aten.nll_loss",
    "aten.var_mean.", "aten.var.", "aten.std.", "aten.std_mean.", "aten.amax.", "aten.amin.",
    "aten.max.default", "aten.max.dim", "aten.min.default", "aten.min.dim", "aten.argmax.",
    "aten.argmin.", "aten.prod.", "aten.logsumexp.", "aten.linalg_vector_norm.",
    "aten.norm.", "aten.any.", "aten.all.")


def _shape(n):
    tm = n.meta.get("tensor_meta") if hasattr(n, "meta") else None
    if tm is not None and hasattr(tm, "shape"):
        return list(tm.shape)
    return None


def flops(node, out_specs):
    """Estimated FLOPs of one execution of `node`; out_specs: [(shape, elt)]."""
    name = str(node.target)
    out = sum(math.prod(s) for s, _ in out_specs) if out_specs else 0
    args = node.args
    try:
        if name.startswith("aten.convolution.") or name.startswith("aten.convolution_backward."):
            # a multiply-add per output pixel and weight of a filter; a
            # transposed convolution's per input pixel (its weight is
            # [C_in, C_out / groups, KH, KW])
            if name.startswith("aten.convolution_backward."):
                y = _shape(args[1] if args[7] else args[0])
                w = _shape(args[2])
                mask = args[10]
                passes = sum(1 for m in mask[:2] if m)
            else:
                y = _shape(args[0]) if args[6] else out_specs[0][0]
                w = _shape(args[1])
                passes = 1
            if y and w:
                per = 2.0 * math.prod(y) * math.prod(w[1:])
                return per * max(passes, 1) + (math.prod(y) if passes == 0 else 0)
        if name.startswith(("aten.mm.", "aten.addmm.", "aten.bmm.")):
            a = _shape(args[-2] if name.startswith("aten.addmm.") else args[0])
            if a:
                return 2.0 * out * a[-1]
        if name.startswith("aten.native_batch_norm_backward") or \
                name.startswith("aten.native_layer_norm_backward"):
            return 10.0 * math.prod(_shape(args[1]) or [out])
        if name.startswith(("aten.native_batch_norm.", "aten.native_layer_norm.")):
            return 6.0 * math.prod(_shape(args[0]) or [out])
        if name.startswith(_READS_ITS_INPUT):
            x = _shape(args[0])
            if x:
                return float(3 * math.prod(x))
        if "pool" in name:
            x = _shape(args[0])
            k = args[1] if len(args) > 1 and isinstance(args[1], (list, tuple)) else [1]
            kk = math.prod(k) if len(k) > 1 else (k[0] ** 2 if k else 1)
            return float(max(out, math.prod(x) if x else 0) * max(kk, 1))
    except (TypeError, IndexError, AttributeError):
        pass
    return float(max(out, 1))


# What a byte a kernel loads or stores costs, in FLOPs: a pointwise kernel
# does a FLOP or two per element and waits on memory (one CPU thread:
# 113 GFLOP/s in a 1024^3 matmul, 33 to 41 GB/s in a multiply of 1 to
# 64 MiB not in cache, 2026-12-01), so its FLOPs price it at a tenth or
# less of its time.  Rounded up: a kernel's loads are not all streams.
BYTE_FLOPS = 4.0


def roofline(flops, moved_bytes):
    """A kernel's time in FLOP units: its arithmetic or its memory traffic,
    whichever takes longer."""
    return max(float(flops), BYTE_FLOPS * moved_bytes)
