//===- GPUTarget.cpp - Check the GPU target, dump its binaries ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `-remat-gpu-check-target`: a chip that LLVM's NVPTX back end or the CUDA
// toolkit cannot target is an error naming the option, before any lowering.
// `-remat-gpu-dump-binary`: the objects of gpu.binary ops to files (PTX for
// ptxas).
//
//===----------------------------------------------------------------------===//

#include "remat/GPU/Passes.h"

#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace remat {
#define GEN_PASS_DEF_GPUCHECKTARGETPASS
#define GEN_PASS_DEF_GPUDUMPBINARYPASS
#include "remat/GPU/Passes.h.inc"
} // namespace remat

extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTarget();
extern "C" void LLVMInitializeNVPTXTargetMC();

using namespace mlir;

std::string remat::findCudaToolkit(llvm::StringRef option) {
  if (!option.empty())
    return option.str();
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *dir = std::getenv(var); dir && *dir)
      return dir;
  return "/usr/local/cuda";
}

namespace {

/// Reads a whole file, or "".
std::string readFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().trim().str() : std::string();
}

/// Runs `ptxas args...`; returns its exit status and its output.
std::pair<int, std::string> runPtxas(llvm::StringRef ptxas,
                                     ArrayRef<llvm::StringRef> args) {
  llvm::SmallString<128> out;
  if (llvm::sys::fs::createTemporaryFile("remat-ptxas", "txt", out))
    return {-1, "cannot create a temporary file"};
  SmallVector<llvm::StringRef> argv{ptxas};
  argv.append(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, out.str(),
                                                out.str()};
  std::string error;
  int status = llvm::sys::ExecuteAndWait(ptxas, argv, std::nullopt, redirects,
                                         /*SecondsToWait=*/60,
                                         /*MemoryLimit=*/0, &error);
  std::string text = readFile(out);
  llvm::sys::fs::remove(out);
  return {status, error.empty() ? text : error};
}

struct GPUCheckTargetPass
    : public remat::impl::GPUCheckTargetPassBase<GPUCheckTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(check()))
      signalPassFailure();
  }

  LogicalResult check() {
    Location loc = getOperation().getLoc();
    if (format != "isa" && format != "bin" && format != "fatbin")
      return emitError(loc) << "remat-lower-to-gpu: format='" << format
                            << "' is not one of isa, bin, fatbin";
    if (!llvm::Regex("^sm_[0-9]+[af]?$").match(chip))
      return emitError(loc) << "remat-lower-to-gpu: chip='" << chip
                            << "' is not an NVIDIA GPU (expected sm_<N>, "
                               "e.g. chip=sm_90)";
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    llvm::Triple triple("nvptx64-nvidia-cuda");
    std::string error;
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target)
      return emitError(loc) << "remat-lower-to-gpu: LLVM has no NVPTX back "
                               "end: "
                            << error;
    std::unique_ptr<llvm::MCSubtargetInfo> info(
        target->createMCSubtargetInfo(triple, chip, ""));
    if (!info || !info->isCPUStringValid(chip))
      return emitError(loc) << "remat-lower-to-gpu: chip='" << chip
                            << "' is not a processor of LLVM "
                            << LLVM_VERSION_STRING << "'s NVPTX back end";
    if (format == "isa")
      return success(); // PTX needs no toolkit.

    std::string root = remat::findCudaToolkit(toolkit);
    llvm::SmallString<128> ptxas(root);
    llvm::sys::path::append(ptxas, "bin", "ptxas");
    if (!llvm::sys::fs::can_execute(ptxas))
      return emitError(loc) << "remat-lower-to-gpu: format=" << format
                            << " needs ptxas from a CUDA toolkit, and there "
                               "is none at '"
                            << ptxas
                            << "' (set toolkit=, $CUDA_HOME, or use "
                               "format=isa)";
    // Assemble an empty module for `chip` with the newest PTX ISA ptxas
    // knows: what fails is the chip.
    auto [listStatus, versions] = runPtxas(ptxas, {"--list-version"});
    llvm::StringRef newest =
        llvm::StringRef(versions).trim().rsplit('\n').second.trim();
    if (newest.empty())
      newest = llvm::StringRef(versions).trim();
    if (listStatus != 0 || newest.empty())
      return emitError(loc) << "remat-lower-to-gpu: '" << ptxas
                            << " --list-version' failed: " << versions;
    std::string ptx = (".version " + newest + "\n.target " + chip +
                       "\n.address_size 64\n")
                          .str();
    std::string arch = "-arch=" + chip;
    auto [status, log] =
        runPtxas(ptxas, {arch, "-ias", ptx, "-o", "/dev/null"});
    if (status != 0)
      return emitError(loc)
             << "remat-lower-to-gpu: chip='" << chip << "' cannot be "
             << "compiled to format=" << format << " by the CUDA toolkit at '"
             << root << "' (ptxas: " << llvm::StringRef(log).trim()
             << "); choose another chip or format=isa";
    return success();
  }
};

struct GPUDumpBinaryPass
    : public remat::impl::GPUDumpBinaryPassBase<GPUDumpBinaryPass> {
  using Base::Base;

  void runOnOperation() override {
    if (file.empty())
      return;
    auto binaries = llvm::to_vector(getOperation().getOps<gpu::BinaryOp>());
    for (gpu::BinaryOp binary : binaries) {
      std::string path = binaries.size() == 1
                             ? std::string(file)
                             : file + "." + binary.getName().str();
      auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
      llvm::Error e = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        os << object.getObject().getValue();
        return llvm::Error::success();
      });
      if (e) {
        binary.emitError() << "cannot write '" << path
                           << "': " << llvm::toString(std::move(e));
        return signalPassFailure();
      }
    }
  }
};

} // namespace
