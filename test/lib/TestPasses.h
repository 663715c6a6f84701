//===- TestPasses.h - Test-only passes of remat-opt -------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef REMAT_TEST_TESTPASSES_H
#define REMAT_TEST_TESTPASSES_H

#include "mlir/Pass/Pass.h"

namespace remat {

#define GEN_PASS_DECL
#include "TestPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "TestPasses.h.inc"

} // namespace remat

#endif // REMAT_TEST_TESTPASSES_H
