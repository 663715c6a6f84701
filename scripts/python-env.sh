#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Creates (or reuses) the Python virtual environment that remat-import-torch,
# the importer's tests and benchmarks/zoo run in, with the pinned packages of
# python/requirements.txt installed from PyPI.
#
#   scripts/python-env.sh           create it if needed; print its python
#   scripts/python-env.sh --path    print where its python is (creates nothing)
#
# Where: $REMAT_VENV when set, else
# ${XDG_CACHE_HOME:-$HOME/.cache}/remat/venv-<first 12 hex digits of the
# requirements file's sha256>. An environment is reused when its stamp file
# holds that hash; otherwise it is built anew (a half-built one included).
# $REMAT_VENV_PYTHON names the interpreter that creates it (default
# /usr/bin/python3 when present, else python3).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
req="$root/python/requirements.txt"
hash="$(sha256sum "$req" | cut -c1-12)"
venv="${REMAT_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/remat/venv-$hash}"
py="$venv/bin/python"

if [ "${1:-}" = "--path" ]; then
  echo "$py"
  exit 0
elif [ $# -gt 0 ]; then
  echo "python-env.sh: unknown argument '$1' (only --path is accepted)" >&2
  exit 2
fi

stamp="$venv/.remat-requirements"
if [ -x "$py" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$hash" ]; then
  echo "$py"
  exit 0
fi

base="${REMAT_VENV_PYTHON:-}"
if [ -z "$base" ]; then
  if [ -x /usr/bin/python3 ]; then base=/usr/bin/python3; else base=python3; fi
fi

echo "python-env: creating $venv (pinned packages from PyPI, several GB; the first time takes minutes)" >&2
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
# The stamp is written last: an interrupted install is redone next time.
"$base" -m venv "$venv"
"$py" -m pip install --quiet --disable-pip-version-check --upgrade pip >&2
"$py" -m pip install --disable-pip-version-check --progress-bar off -r "$req" >&2
"$py" -c "import torch, torchvision, transformers, timm, jax, iree.compiler" >&2
echo "$hash" > "$stamp"
echo "$py"
