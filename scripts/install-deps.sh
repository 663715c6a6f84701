#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Installs what remat needs from Debian 12 (bookworm) packages; does nothing
# when everything is present. Uses sudo when not run as root. PyTorch and
# the other Python packages come from PyPI into a virtual environment
# (scripts/python-env.sh; `make deps` runs both).
set -euo pipefail

packages=(
  cmake ninja-build g++ make python3
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libgtest-dev libbenchmark-dev coinor-libcbc-dev pkg-config
  python3-venv patchelf
  mpich libmpich-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
