#!/usr/bin/env bash
# Set up, then evaluate the random and greedy baselines on 200 fixed Klondike deals.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
.venv/bin/patience-gym evaluate configs/eval/quickstart.yaml
