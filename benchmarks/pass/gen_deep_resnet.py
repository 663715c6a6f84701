#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Emits a deep ResNet-like training step (linalg on tensors) with about
--ops top-level ops, for timing -remat-rematerialize on large functions.

Reuses the test corpus generator (test/Corpus/gen_corpus.py): the same layer
emitters, forward and backward, only with more residual blocks.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "test", "Corpus"))
import gen_corpus as gc  # noqa: E402


def deep_resnet(blocks):
    def model(m):
        x = m.input("x", [1, 4, 8, 8])
        t = m.onehot("t", [1, 10])
        a = gc.conv_relu(m, "0", x, 4, 8)
        for i in range(1, blocks + 1):
            r = gc.conv_relu(m, "%da" % i, a, 8, 8)
            w = m.param("w%db" % i, [8, 8, 3, 3], fan_in=72, gain=0.5)
            b = m.param("b%db" % i, [8])
            h = m.conv("h%db" % i, r, w, b, 1)
            a = m.relu("a%d" % i, m.add("s%d" % i, a, h))
        g = m.gap("g", a)
        w = m.param("wfc", [8, 10], fan_in=8, gain=1.0)
        b = m.param("bfc", [10])
        return m.xent("loss", m.dense("z", g, w, b), t)
    return model


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--ops", type=int, default=10000,
                   help="approximate number of top-level ops")
    args = p.parse_args()
    # Measure ops per block on a small instance, then scale.
    def ops_of(blocks):
        m = gc.MlirOps("deep_resnet")
        m.finish(deep_resnet(blocks)(m))
        return gc.stats(m)["ops"], m
    small, _ = ops_of(2)
    large, _ = ops_of(4)
    per_block = (large - small) / 2.0
    blocks = max(1, int(round((args.ops - (small - 2 * per_block)) / per_block)))
    n, m = ops_of(blocks)
    sys.stdout.write(m.f.text("// deep ResNet-like step: %d blocks, %d ops" % (blocks, n)))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
