#!/usr/bin/env bash
# Set up (torch pinned first, then the train, test, plots and recipes extras) and run the whole
# test suite: the core on the newest gymnasium in the project's range (what a user's install gets),
# then Ray's tests in a venv of their own with RLlib's gymnasium pin (scripts/test_ray.sh; with
# pytest arguments, only the main run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh train,test,plots,recipes
if ! .venv/bin/python -c "import ray" 2>/dev/null; then
  # An older .venv may hold an older gymnasium; one with Ray in it keeps RLlib's pin.
  .venv/bin/python -m pip install -q --upgrade "gymnasium>=1.0,<2"
fi
.venv/bin/python -c "import gymnasium, torch; print(f'test.sh: gymnasium {gymnasium.__version__}, torch {torch.__version__}')"
.venv/bin/python -m pytest "$@"
if [ $# -eq 0 ]; then
  bash scripts/test_ray.sh
fi
