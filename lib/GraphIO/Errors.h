//===- Errors.h - Error helper of the graph readers (private) -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef REMAT_LIB_GRAPHIO_ERRORS_H
#define REMAT_LIB_GRAPHIO_ERRORS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

namespace remat {

/// An error with a plain message (no printf formatting: messages quote user
/// data, which may contain '%').
inline llvm::Error fail(const llvm::Twine &msg) {
  return llvm::make_error<llvm::StringError>(msg,
                                             llvm::inconvertibleErrorCode());
}

} // namespace remat

#endif // REMAT_LIB_GRAPHIO_ERRORS_H
