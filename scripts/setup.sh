#!/usr/bin/env bash
# Create .venv (if missing) and install patience-gym with the given extras.
# torch is pinned and installed first: an unpinned torch (or one pulled in by stable-baselines3)
# would download a multi-GB CUDA build; 2.13.0 is the small CPU build.
# Usage: scripts/setup.sh [extras]   e.g. scripts/setup.sh train,test
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
# pip builds the native engine (src/native/, C++17) with CMake: a C++ compiler must be present
# (pip fetches CMake itself when it is missing).
if ! command -v "${CXX:-c++}" >/dev/null 2>&1 && ! command -v g++ >/dev/null 2>&1 && ! command -v clang++ >/dev/null 2>&1; then
  echo "setup.sh: no C++ compiler found; the native engine needs one (C++17)." >&2
  echo "  Debian/Ubuntu: sudo apt-get install g++ cmake    Fedora: sudo dnf install gcc-c++ cmake" >&2
  echo "  macOS: xcode-select --install" >&2
  exit 1
fi
PY="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
if [[ "$extras" == *train* || "$extras" == *recipes* ]]; then  # both need torch
  .venv/bin/python -m pip install -q "torch==2.13.0"
fi
if [ -n "$extras" ]; then
  .venv/bin/python -m pip install -q -e ".[$extras]"
else
  .venv/bin/python -m pip install -q -e .
fi
