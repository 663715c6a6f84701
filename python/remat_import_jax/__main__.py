# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""python3 -m remat_import_jax: `check ...` runs check.py (end to end
against JAX), anything else cli.py (the importer)."""
import sys

if len(sys.argv) > 1 and sys.argv[1] == "check":
    from .check import main
    sys.exit(main(sys.argv[2:]))

from .cli import main

sys.exit(main())
