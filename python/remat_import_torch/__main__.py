"""python3 -m remat_import_torch: see cli.py."""
import sys

from .cli import main

sys.exit(main())
