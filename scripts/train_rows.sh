#!/usr/bin/env bash
# Train the reward-only PPO rows (configs/ppo/<variant>.yaml), one run after another, each
# resumable: run the same command again after an interruption and every run continues from its
# newest checkpoint (resume: auto); finished runs are skipped. Logs: runs/ppo/logs/<run>.log.
#   bash scripts/train_rows.sh nestor babette            # seed 0 of each, into the config's output_dir
#   bash scripts/train_rows.sh nestor:1 nestor:2         # training seeds 1 and 2: <output_dir>_seed1, ...
#   bash scripts/train_rows.sh nestor+move               # the per-move scoring policy: runs/ppo/nestor_move
#   bash scripts/train_rows.sh nestor@100000000          # the same run extended to 100M steps
# Two queues at once use the 2 cores of this project's machine (each run is one process, one
# torch thread). Then: python scripts/ship_model.py and scripts/results.py (docs/training.md).
# A run kept in results/runs/<run>/ by scripts/keep_runs.sh (runs/ is not tracked) resumes from
# the checkpoint kept there when runs/ppo/<run> is missing (a new session's work tree).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p runs/ppo/logs
#: policy: move_policy, as configs/ppo/defaults.yaml's flat network otherwise
MOVE=(--set policy=move_policy --set 'policy_kwargs={net_arch: [64, 64], scorer_arch: [64]}')
for item in "$@"; do
  steps="${item#*@}"; [ "$steps" = "$item" ] && steps=""
  spec="${item%@*}"
  move=""; [ "${spec%+move}" != "$spec" ] && move="_move"
  spec="${spec%+move}"
  variant="${spec%%:*}"; seed="${spec#*:}"; [ "$seed" = "$spec" ] && seed=0
  out=$(sed -n 's/^output_dir: *//p' "configs/ppo/$variant.yaml")  # the config's own folder
  [ -n "$move" ] && out="runs/ppo/$variant$move"
  [ "$seed" != 0 ] && out="$out"_seed"$seed"
  args=(--set "seed=$seed" --set "output_dir=$out" --set progress_bar=false)
  [ -n "$move" ] && args+=("${MOVE[@]}")
  [ -n "$steps" ] && args+=(--set "total_timesteps=$steps")
  kept="results/runs/$(basename "$out")"  # a run kept by scripts/keep_runs.sh in an earlier session
  if [ ! -f "$out/config.yaml" ] && ls "$kept"/ppo_*_steps.zip >/dev/null 2>&1; then
    mkdir -p "$out/checkpoints"
    cp "$kept"/*.zip "$out/checkpoints/"
    for f in config.yaml train_info.json evaluations.csv; do [ -f "$kept/$f" ] && cp "$kept/$f" "$out/"; done
  fi
  log="runs/ppo/logs/$(basename "$out").log"
  echo "$(date -u +%FT%TZ) train $variant$move seed $seed ${steps:+to $steps steps }-> $out" | tee -a "$log"
  .venv/bin/patience-gym train "$variant" "${args[@]}" >>"$log" 2>&1 \
    || echo "$(date -u +%FT%TZ) $variant$move seed $seed stopped (status $?): the same command resumes it" | tee -a "$log"
done
