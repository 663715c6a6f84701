# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The wheel's `remat-opt` command: the remat-opt it carries, run as is
(its libraries are found through its RPATH; scripts/build-wheel.py)."""

import os
import sys

from .planner import BUNDLED


def main():
    if not os.access(BUNDLED, os.X_OK):
        sys.exit("remat-opt: this remat_torch has no remat-opt of its own (%s): install the "
                 "wheel (make wheel), or put a build's bin directory on PATH" % BUNDLED)
    os.execv(BUNDLED, [BUNDLED] + sys.argv[1:])
