# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs every GoogleTest binary of build/unittests through lit.
import os

import lit.formats

config.name = "remat-unit"
config.suffixes = []
config.test_source_root = os.path.join(config.remat_obj_root, "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
