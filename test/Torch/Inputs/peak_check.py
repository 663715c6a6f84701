# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""remat_torch.peak on the CPU: peaks known by reasoning, eager and Inductor.

Every tensor is 256x256 float32, N = 262144 bytes; prints each measured
peak in units of N with what it should be.
"""
import sys

import torch

from remat_torch.peak import measure, peak_bytes

N = 256 * 256 * 4
# Scaled so that b * b + b stays small (b ~ 0.04): sin of a large float32 argument
# depends on how each sin kernel reduces it, and eager's and Inductor's
# (vectorised for the CPU at hand) need not agree there.
torch.manual_seed(0)
x = torch.randn(256, 256) / 16
w = torch.randn(256, 256) / 16


def chain(x, w):
    a = x @ w
    b = a.relu() @ a
    return (b * b + b).sin().sum()


def check(name, got, want):
    print(f"{name}: {got / N:g} N (want {want:g} N)")
    return got == want * N


ok = True
# Two products live at once; x and w, made before, are the baseline.
ok &= check("eager two products", peak_bytes(lambda: (x @ w) @ w), 2)
# Eager (no Python scalars, which would add 0-d tensors): a, b, b * b and
# b * b + b live at once, 4 N (relu(a) is freed once b is made).
ok &= check("eager chain", peak_bytes(chain, x, w), 4)
# Inductor: mm into a buffer, relu into a second (a is read again), mm into
# a third; the pointwise chain and the sum fuse into one kernel with no
# buffer. 3 N: every byte is Inductor's generated code's.
if hasattr(torch, "compile"):
    compiled = torch.compile(chain)
    compiled(x, w)  # compile outside the measurement
    result, inductor = measure(compiled, x, w)
    ok &= check("inductor chain", inductor, 3)
    # Against float64, to a tolerance on the sum of the terms' sizes (the
    # sum itself may be near 0).
    a64 = x.double() @ w.double()
    b64 = a64.relu() @ a64
    terms = (b64 * b64 + b64).sin()
    error = abs(result.item() - terms.sum().item())
    tolerance = 1e-5 * terms.abs().sum().item()
    print(f"inductor result: off by {error:.1e} (tolerance {tolerance:.1e})")
    ok &= error <= tolerance
else:
    print(f"inductor chain: skipped (PyTorch {torch.__version__} has no torch.compile)")
# Memory freed by the step but allocated before it is not subtracted.
y = torch.randn(256, 256)


def drop():
    global y
    y = None
    return x + x


ok &= check("free of the baseline", peak_bytes(drop), 1)
try:
    peak_bytes(lambda: x, device="xla")
except ValueError as e:
    print(e)
print("ok" if ok else "FAILED")
sys.exit(0 if ok else 1)
