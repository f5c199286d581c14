#!/usr/bin/env bash
# Keep the training runs in the repository (runs/ is not tracked, and a new session's work tree
# starts without it): each run's config.yaml, train_info.json and evaluations.csv (the learning
# curve) go to results/runs/<run>/, and for a run not finished yet (no final_model.zip at its
# total_timesteps) its newest checkpoint too, so that scripts/train_rows.sh resumes it there.
#   bash scripts/keep_runs.sh                 # every runs/ppo/<run>/
#   bash scripts/keep_runs.sh louis nestor    # these
set -euo pipefail
cd "$(dirname "$0")/.."
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for d in runs/ppo/*/; do [ -f "$d/config.yaml" ] && names+=("$(basename "$d")"); done
fi
for name in "${names[@]}"; do
  src="runs/ppo/$name"; dst="results/runs/$name"
  [ -f "$src/config.yaml" ] || { echo "keep_runs.sh: $src holds no run" >&2; exit 2; }
  mkdir -p "$dst"
  rm -f "$dst"/*.zip
  for f in config.yaml train_info.json evaluations.csv; do [ -f "$src/$f" ] && cp "$src/$f" "$dst/"; done
  total=$(grep '^total_timesteps:' "$src/config.yaml" | awk '{print $2}')
  done_steps=$(grep -o '"num_timesteps": [0-9]*' "$src/train_info.json" 2>/dev/null | awk '{print $2}' || true)
  interrupted=$(grep -c '"interrupted": true' "$src/train_info.json" 2>/dev/null || true)
  if ls "$src"/checkpoints/ppo_*_steps.zip >/dev/null 2>&1 \
    && { [ ! -f "$src/final_model.zip" ] || [ "${interrupted:-0}" != 0 ] || [ "${done_steps:-0}" -lt "$total" ]; }; then
    # the newest by step count, without the last rollout's observations (agents/training/runs.py)
    kept=$(.venv/bin/python -c 'import sys; from pathlib import Path; from patience_gym.agents.training.runs import keep_newest_checkpoint as k; print(k(Path(sys.argv[1]), Path(sys.argv[2])).name)' "$src" "$dst")
    echo "kept $src (unfinished: $kept) in $dst"
  else
    echo "kept $src in $dst"
  fi
done
