# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Makes the plans a machine without remat-opt requested.

    python -m remat_torch.plan_cache DIR [--bin BUILD/bin]

Where REMAT_TORCH_PLAN_CACHE=DIR is set and remat-opt cannot be found (a
GPU machine that has PyTorch but not remat's build), the backend writes each
graph it could not plan as DIR/KEY.request.json (the imported MLIR, the
budget, remat-opt's flags) and that graph falls back to PyTorch's
partitioner.  This command, run where remat-opt is, plans every request
into DIR/KEY.json (a plan, or remat-opt's refusal of the budget) and
removes it; the same run repeated with DIR then uses remat's plans.
Exit status 1 when a request could not be read or planned (remat-opt
crashed): it is kept, and the others are still planned.
"""

import argparse
import json
import os
import sys

from .joint import Unplannable
from .planner import Refused, cache_key, find_remat_opt, keep_answer, run_remat_opt


def fill(directory, tool):
    """(planned, refused, failed) request counts; prints one line per
    request that failed."""
    planned = refused = failed = 0
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".request.json"):
            continue
        path = os.path.join(directory, name)
        try:
            with open(path) as f:
                req = json.load(f)
            text, budget, args = req["mlir"], req["budget"], list(req["args"])
        except (OSError, ValueError, KeyError, TypeError) as e:
            print("%s: not a plan request (%s)" % (path, e), file=sys.stderr)
            failed += 1
            continue
        key = cache_key(text, budget, args)
        cached = os.path.join(directory, key + ".json")
        if name != key + ".request.json":
            print("%s: its name is not the key of its contents" % path, file=sys.stderr)
            failed += 1
            continue
        try:
            keep_answer(cached, budget, run_remat_opt(tool, text, budget, args))
            planned += 1
        except Refused as e:
            keep_answer(cached, budget, e)
            refused += 1
        except Unplannable as e:
            print("%s: %s" % (path, e), file=sys.stderr)
            failed += 1
            continue
        os.remove(path)
    return planned, refused, failed


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m remat_torch.plan_cache",
        description="Plans the requests a run without remat-opt left in a plan cache "
                    "(REMAT_TORCH_PLAN_CACHE).")
    ap.add_argument("dir", help="the plan cache: REMAT_TORCH_PLAN_CACHE of the run")
    ap.add_argument("--bin", help="the folder of remat-opt (default: REMAT_BIN_DIR, PATH, "
                                  "the build tree)")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.dir):
        ap.error("%s is not a folder" % a.dir)
    if a.bin:
        os.environ["REMAT_BIN_DIR"] = a.bin
    tool = find_remat_opt()
    if tool is None:
        ap.error("remat-opt not found (--bin or REMAT_BIN_DIR)")
    planned, refused, failed = fill(a.dir, tool)
    print("%s: %d planned, %d refused by remat-opt, %d failed"
          % (a.dir, planned, refused, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
