#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Smallest budgets of nested-loop spellings against their unrolled twins.

For each spelling (gen_nested_scan.py's nest, gen_layered_scan.py's stacks
as other frontends write them: rows read straight or through the layer's
slice, the layer axis first or last) and layer count, writes the step and
its unrolled twin (gen_nested_scan.py --form unrolled: the same ops,
straight-line), asks remat-opt for each one's smallest budget (the refusal
of a 1 % budget names it) and prints one line per spelling: the two
budgets and whether the loop form's is within --within (a fraction) of
the twin's. Exits 1 when one is not.

Usage: check_twin_budgets.py TMPDIR [--steps T --batch B --width W]
                             [--layers 2,3] [--within 0.05]
"""

import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SPELLINGS = [
    ("nested", "gen_nested_scan.py", []),
    ("layered rows", "gen_layered_scan.py", ["--reads", "rows"]),
    ("layered layer", "gen_layered_scan.py", ["--reads", "layer"]),
    ("layered rows, layer axis last", "gen_layered_scan.py",
     ["--reads", "rows", "--layer-axis", "last"]),
    ("layered layer, layer axis last", "gen_layered_scan.py",
     ["--reads", "layer", "--layer-axis", "last"]),
]


def smallest(path):
    p = subprocess.run(["remat-opt", path, "--remat-budget=1%", "-o", os.devnull],
                       capture_output=True, text=True)
    m = re.search(r"smallest budget it can meet is (\d+) B", p.stderr)
    if not m:
        sys.exit("no smallest budget for %s:\n%s" % (path, p.stderr))
    return int(m.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--steps", type=int, default=16)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--width", type=int, default=32)
    ap.add_argument("--layers", default="2,3")
    ap.add_argument("--within", type=float, default=0.05)
    o = ap.parse_args()
    shape = ["--steps", str(o.steps), "--batch", str(o.batch), "--width", str(o.width)]
    ok = True
    for layers in map(int, o.layers.split(",")):
        twin = os.path.join(o.dir, "twin%d.mlir" % layers)
        subprocess.run([sys.executable, os.path.join(HERE, "gen_nested_scan.py"), *shape,
                        "--layers", str(layers), "--form", "unrolled", "-o", twin], check=True)
        u = smallest(twin)
        for k, (name, gen, args) in enumerate(SPELLINGS):
            path = os.path.join(o.dir, "spelling%d_%d.mlir" % (layers, k))
            subprocess.run([sys.executable, os.path.join(HERE, gen), *shape,
                            "--layers", str(layers), *args, "-o", path], check=True)
            n = smallest(path)
            within = n <= (1 + o.within) * u
            ok &= within
            print("%s, %d layers: %d B against the twin's %d B (%+.1f %%): %s"
                  % (name, layers, n, u, 100.0 * (n - u) / u,
                     "within" if within else "NOT within"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
