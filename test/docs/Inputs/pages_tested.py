#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Every page (README.md, docs/*.md) with a command block that runs in
under a minute (run_doc_blocks.py's kind `fast`) is run by a lit test: a
RUN line of a TESTS_DIR/*.test that calls run_doc_blocks.py on it. One line
per page with such blocks, "ok: PAGE (N fast)" or "untested: PAGE"; the
exit status is non-zero when one is untested.

Usage: pages_tested.py SRC_ROOT TESTS_DIR"""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_doc_blocks  # noqa: E402

root, tests_dir = sys.argv[1:3]
runs = ""
for t in glob.glob(os.path.join(tests_dir, "*.test")):
    runs += "".join(l for l in open(t) if "RUN:" in l and "run_doc_blocks.py" in l)
pages = ["README.md"] + sorted(
    os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "*.md")))
untested = 0
for page in pages:
    blocks = run_doc_blocks.blocks_with_expectations(open(os.path.join(root, page)).read())
    fast = sum(1 for b in blocks if b[2] == "fast")
    if not fast:
        continue
    if ("%remat_src_root/" + page + " ") in runs:
        print("ok: %s (%d fast)" % (page, fast))
    else:
        print("untested: %s (%d fast blocks)" % (page, fast))
        untested += 1
sys.exit(1 if untested else 0)
