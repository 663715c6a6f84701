# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""python3 -m remat_import_torch: `check ...` runs check.py (end-to-end
against PyTorch), anything else cli.py (the importer)."""
import sys
import warnings

if len(sys.argv) > 1 and sys.argv[1] == "check":
    warnings.filterwarnings("ignore")
    from .check import main
    sys.exit(main(sys.argv[2:]))

from .cli import main

sys.exit(main())
