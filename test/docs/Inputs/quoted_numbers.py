#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Recomputes numbers docs/ quotes that cost a second or two each, with the
command the doc names (remat-opt --remat-budget=min, default options), and
checks each quote: the doc must contain the number as it prints it.

  quoted_numbers.py SRC_ROOT WORK_DIR [DOCS_ROOT]   (remat-opt on PATH)

(DOCS_ROOT: where docs/ is read, SRC_ROOT by default.)

Prints "ok: DOC: QUOTE" per claim, "STALE: ..." for a number the doc quotes
that the command no longer gives, and "quoted numbers: N of M ok"; exits 1
unless all are. A claim names the doc, the input (a shipped file or a
generator command), and the report fields whose values the doc quotes.
"""
import json
import os
import subprocess
import sys


def report_at_min(path):
    p = subprocess.run(["remat-opt", path, "--remat-budget=min", "--remat-report=-",
                        "-o", os.devnull], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("quoted_numbers: remat-opt %s failed:\n%s" % (path, p.stderr))
    return json.loads(p.stdout)["functions"][0]


def grouped(n):
    return "{:,}".format(n)


def main():
    src, work = sys.argv[1], sys.argv[2]
    docs_root = sys.argv[3] if len(sys.argv) > 3 else src
    os.makedirs(work, exist_ok=True)
    gen_pipeline = os.path.join(src, "test/Distributed/gen_pipeline.py")
    gen_nested = os.path.join(src, "test/Loops/gen_nested_scan.py")

    def generated(name, cmd):
        path = os.path.join(work, name)
        subprocess.run([sys.executable] + cmd + ["-o", path], check=True)
        return path

    # (doc, input, [(report field, how the doc prints it)])
    claims = [
        ("docs/benchmarks.md", os.path.join(src, "test/Loops/Inputs/rnn.mlir"),
         [("peak_before", str), ("peak_after", str)]),
        ("docs/benchmarks.md", os.path.join(src, "test/Loops/Inputs/rnn.unrolled.mlir"),
         [("peak_after", str)]),
        ("docs/benchmarks.md", os.path.join(src, "test/Corpus/Inputs/siamese.mlir"),
         [("peak_before", grouped)]),
        ("docs/loops.md", generated("nested.mlir", [gen_nested]),
         [("peak_before", grouped), ("peak_after", grouped)]),
        ("docs/loops.md", generated("nested.unrolled.mlir", [gen_nested, "--form", "unrolled"]),
         [("peak_after", grouped)]),
    ]
    for rows, layers in ((4, 2), (32, 4)):
        path = generated("pp_r%d_l%d.mlir" % (rows, layers),
                         [gen_pipeline, "--pipeline", "1f1b", "-P", "4", "-M", "8",
                          "--rows", str(rows), "--width", "16", "-L", str(layers)])
        claims.append(("docs/benchmarks.md", path,
                       [("peak_before", grouped), ("peak_after", grouped)]))
    total = ok = 0
    for doc, path, fields in claims:
        text = open(os.path.join(docs_root, doc)).read()
        f = report_at_min(path)
        for field, fmt in fields:
            total += 1
            quote = "%s B" % fmt(f[field])
            if quote in text:
                ok += 1
                print("ok: %s: %s (%s of %s)" % (doc, quote, field, os.path.basename(path)))
            else:
                print("STALE: %s does not quote %s, the %s of %s at min" % (
                    doc, quote, field, os.path.basename(path)))
    print("quoted numbers: %d of %d ok" % (ok, total))
    return 0 if ok == total else 1


if __name__ == "__main__":
    sys.exit(main())
