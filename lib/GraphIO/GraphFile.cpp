//===- GraphFile.cpp - Format detection and file loading ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "remat/GraphIO/GraphFile.h"

#include "Errors.h"

#include "llvm/Support/MemoryBuffer.h"

namespace remat {

llvm::Expected<GraphFile> parseGraph(llvm::StringRef text) {
  llvm::StringRef body = text.ltrim();
  if (body.empty())
    return fail("the file is empty");
  if (body.front() == '{' || body.front() == '[')
    return parseJSONGraph(text);
  return parseTextGraph(text);
}

llvm::Expected<GraphFile> loadGraphFile(llvm::StringRef path) {
  auto buf = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
  std::string name = path == "-" ? "<stdin>" : path.str();
  if (!buf)
    return fail(name + ": " + buf.getError().message());
  auto file = parseGraph((*buf)->getBuffer());
  if (!file)
    return fail(name + ": " + llvm::toString(file.takeError()));
  return file;
}

} // namespace remat
