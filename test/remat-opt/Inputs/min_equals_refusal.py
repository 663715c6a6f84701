#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""For each model: --remat-budget=min plans at the smallest budget the
strategy meets, and that is the budget a refused 1 % names; the report of
the min run records it ("budget_requested": "min") with its floor parts,
which add up to it.  Prints one line per model; exits non-zero on a
mismatch."""
import json
import re
import subprocess
import sys
import tempfile

SMALLEST = re.compile(r"the smallest budget it can meet is (\d+) B")

failed = False
for model in sys.argv[1:]:
    with tempfile.TemporaryDirectory() as tmp:
        refused = subprocess.run(
            ["remat-opt", model, "--remat-budget=1%", "-o", tmp + "/x.mlir"],
            capture_output=True, text=True)
        m = SMALLEST.search(refused.stderr)
        report = tmp + "/r.json"
        fitted = subprocess.run(
            ["remat-opt", model, "--remat-budget=min",
             "--remat-report=" + report, "-o", tmp + "/y.mlir"],
            capture_output=True, text=True)
        name = model.rsplit("/", 1)[-1]
        if refused.returncode == 0 or not m or fitted.returncode != 0:
            print("%s: FAIL (refusal: %s; min: %s)" % (
                name, refused.stderr.strip()[-300:], fitted.stderr[-300:]))
            failed = True
            continue
        f = json.load(open(report))["functions"][0]
        floor = sum(p["bytes"] for p in f.get("floor", []))
        ok = (f["budget"] == int(m.group(1)) and
              f.get("budget_requested") == "min" and
              f["peak_after"] <= f["budget"] and floor == f["budget"])
        failed |= not ok
        print("%s: refusal names %s B, min plans at %d B (peak %d B, floor "
              "parts %d B): %s" % (name, m.group(1), f["budget"],
                                   f["peak_after"], floor,
                                   "ok" if ok else "FAIL"))
sys.exit(1 if failed else 0)
