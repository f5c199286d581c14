#!/usr/bin/env bash
# Set up (torch pinned first, then the train, test, scale, plots and recipes extras) and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh train,test,scale,plots,recipes
.venv/bin/python -m pytest "$@"
