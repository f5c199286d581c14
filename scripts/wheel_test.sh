#!/usr/bin/env bash
# The wheel as a user meets it: build it (pip wheel .), install it into a fresh virtual environment
# outside the checkout (torch pinned first, then the wheel with the train and recipes extras), and
# run the README's user commands from another folder, so that nothing of the checkout is on
# sys.path: list, show, evaluate with its winnable column (the labels shipped as package data),
# train of the tiny config by name (the configs shipped as package data), replay, solve's --labels
# rule, deals='winnable' (its lists shipped as package data), TorchRL's GymEnv over every
# registered id and the two training recipes of docs/recipes.md. The user's environment holds a
# foreign top-level `agents` package (as the OpenAI Agents SDK installs) and the user's folder its
# own agents/: the wheel's import name is patience_gym alone (its agents are patience_gym.agents),
# so neither shadows nor is overwritten.
# Each failure stops with one line naming what failed and exits 1. pip's cache is reused; the
# native engine compiles again in `pip wheel` (expected: a wheel is built from the sources).
# Usage: bash scripts/wheel_test.sh          (.ci/run calls it after the test suite)
#        PYTHON=python3.12 bash scripts/wheel_test.sh    (the interpreter to build and install with)
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$PWD
PY="${PYTHON:-python3}"
work=$(mktemp -d "${TMPDIR:-/tmp}/patience-gym-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$SECONDS

fail() {
  echo "wheel_test: FAILED: $*" >&2
  exit 1
}
step() { echo "wheel_test: [$((SECONDS - start)) s] $*"; }
# run NAME CMD...: run a user command from the user's folder, its output kept in NAME.out/.err.
run() {
  local name=$1 status=0
  shift
  (cd "$work/user" && "$@") >"$work/$name.out" 2>"$work/$name.err" || status=$?
  if [ "$status" != 0 ]; then
    tail -n 20 "$work/$name.err" >&2
    fail "'$*' exited with status $status (run from $work/user)"
  fi
}
# refused NAME WORD CMD...: a user mistake, answered with one line holding WORD and status 2.
refused() {
  local name=$1 word=$2 status=0
  shift 2
  (cd "$work/user" && "$@") >/dev/null 2>"$work/$name.err" || status=$?
  [ "$status" = 2 ] && [ "$(wc -l <"$work/$name.err")" = 1 ] && grep -qF -- "$word" "$work/$name.err" \
    || fail "'$*' gave status $status (2 wanted, one line naming '$word'): $(cat "$work/$name.err")"
}
expect() {  # expect NAME TEXT WHY: the output of command NAME holds TEXT
  grep -qF -- "$2" "$work/$1.out" || { cat "$work/$1.out" >&2; fail "$1: no '$2' in its output ($3)"; }
}

step "building the wheel from $checkout"
"$PY" -m pip wheel . --no-deps -q -w "$work/dist" >"$work/build.log" 2>&1 \
  || { tail -n 30 "$work/build.log" >&2; fail "pip wheel . did not build"; }
wheels=("$work"/dist/patience_gym-*.whl)
[ -f "${wheels[0]}" ] || fail "pip wheel . left no patience_gym-*.whl in $work/dist"
wheel=${wheels[0]}
step "built $(basename "$wheel")"

step "a fresh virtual environment in $work/venv: torch==2.13.0 first, then the wheel with [train]"
"$PY" -m venv "$work/venv"
bin="$work/venv/bin"
# torch pinned and first: an unpinned one (or one pulled in by stable-baselines3) is a CUDA build of GBs.
"$bin/python" -m pip install -q "torch==2.13.0" || fail "pip install torch==2.13.0"
"$bin/python" -m pip install -q "$wheel[train,recipes]" || fail "pip install $(basename "$wheel")[train,recipes]"
torch=$("$bin/python" -c "import torch; print(torch.__version__)")
[[ $torch == 2.13.0* ]] || fail "the wheel's dependencies replaced torch 2.13.0 with $torch"

step "a foreign top-level 'agents' package installed beside it, and a local agents/ in the user's folder"
top=$("$bin/python" -c "
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
print(sorted({n.split('/')[0] for n in names if '.dist-info/' not in n and '.data/' not in n}))" "$wheel")
[ "$top" = "['patience_gym']" ] || fail "the wheel installs top-level names $top, not patience_gym alone"
mkdir -p "$work/foreign/agents" "$work/user/agents"
echo "NAME = 'a foreign agents package'" >"$work/foreign/agents/__init__.py"
printf '[project]\nname = "foreign-agents"\nversion = "1.0"\n[tool.setuptools]\npackages = ["agents"]\n' \
  >"$work/foreign/pyproject.toml"
"$bin/python" -m pip install -q "$work/foreign" || fail "pip install of the stand-in agents package"
echo "raise ImportError('the user folder agents/ was imported')" >"$work/user/agents/__init__.py"
# from the user's folder a local agents/ comes first on sys.path, as Python has it: nothing of
# patience_gym may import a top-level agents (that folder's __init__ raises if imported)
run where "$bin/python" -c "
import sys, patience_gym, patience_gym.agents
print(patience_gym.agents.__file__); print(patience_gym.__file__)
assert 'agents' not in sys.modules
"
(cd "$work" && "$bin/python" -c "import agents; assert agents.NAME == 'a foreign agents package'") \
  || fail "the foreign agents package was overwritten or shadowed by the wheel"
if grep -qF "$checkout/" "$work/where.out"; then
  fail "the package was imported from the checkout ($(head -n 1 "$work/where.out")), not the wheel"
fi

step "patience-gym list"
run list "$bin/patience-gym" list
expect list Nestor-v0 "the registered ids"

step "patience-gym show Nestor-v0 --seed 3"
run show "$bin/patience-gym" show Nestor-v0 --seed 3
expect show "legal:" "the table and its legal moves"

step "patience-gym evaluate --env Nestor-v0 --policy random --policy greedy --episodes 50"
run evaluate "$bin/patience-gym" evaluate --env Nestor-v0 --policy random --policy greedy --episodes 50
expect evaluate "winnable won" "the winnable column, from the label files shipped in the package"
if grep -qF "no solver labels" "$work/evaluate.err"; then
  fail "evaluate found no shipped labels: $(cat "$work/evaluate.err")"
fi

step "patience-gym evaluate nestor (the shipped eval config, by name, with the shipped PPO model)"
run evaluate_named "$bin/patience-gym" evaluate nestor --set episodes=20
expect evaluate_named "winnable won" "configs/eval/nestor.yaml read from the package"
expect evaluate_named "ppo:nestor" "the reward-only model shipped in the package (patience_gym/agents/data/models/)"

step "patience-gym train tiny (the shipped config, by name)"
run train "$bin/patience-gym" train tiny --set output_dir=runs/ppo/tiny
[ -f "$work/user/runs/ppo/tiny/final_model.zip" ] || fail "train tiny wrote no runs/ppo/tiny/final_model.zip"

step "patience-gym train no_such_config: one line, status 2"
refused unknown nestor "$bin/patience-gym" train no_such_config

step "patience-gym replay --env Klondike-v0 --policy greedy --seed 3 --out replay.html"
run replay "$bin/patience-gym" replay --env Klondike-v0 --policy greedy --seed 3 --out replay.html
[ -s "$work/user/replay.html" ] || fail "replay wrote no replay.html"

step "patience-gym solve: no --labels in an installed package is one line and status 2; --labels DIR works"
refused solve_default --labels "$bin/patience-gym" solve --env Nestor-v0 --seeds 0:2
run solve "$bin/patience-gym" solve --env Nestor-v0 --seeds 0:2 --labels my_labels
[ -f "$work/user/my_labels/Nestor-v0.csv" ] || fail "solve --labels my_labels wrote no Nestor-v0.csv there"

step "deals='winnable' from the package's lists (patience_gym/data/winnable/)"
run winnable "$bin/python" -c "
import gymnasium as gym, patience_gym
env = gym.make('patience_gym/Nestor-v0', deals='winnable')
env.reset(seed=0)
print('winnable seed', env.unwrapped.deal_seed)
"
expect winnable "winnable seed 1" "a training seed from the shipped list"

step "TorchRL's GymEnv builds every registered id and reads its info (the recipes extra)"
run torchrl "$bin/python" -c "
import patience_gym, torch
from torchrl.envs import GymEnv, default_info_dict_reader
for variant in patience_gym.VARIANTS:
    env = GymEnv(variant.env_id, categorical_action_encoding=True, mask_dtype='bool')
    env.set_info_dict_reader(default_info_dict_reader(['won', 'foundation_cards', 'action_mask']))
    td = env.rand_step(env.reset())
    assert td['next', 'action_mask'].dtype == torch.bool, variant.env_id
    print(variant.env_id, int(td['next', 'foundation_cards']))
"
expect torchrl TheKings-v0 "GymEnv over the last id"

step "the README's Python example and evaluate from Python, with the foreign agents package installed"
sed -n '/^```python$/,/^```$/p' "$checkout/README.md" | sed '1d;$d' >"$work/readme_example.py"
[ -s "$work/readme_example.py" ] || fail "no Python example found in README.md"
run readme_example "$bin/python" "$work/readme_example.py"
run example "$bin/python" -c "
import gymnasium as gym, patience_gym
from patience_gym.agents.evaluation.evaluate import evaluate, format_table
import sys
results = [evaluate('Nestor-v0', spec, episodes=20) for spec in ('random', 'greedy')]
print(format_table(results))
assert 'agents' not in sys.modules
"
expect example greedy "the README's evaluate example"

step "the two recipes of docs/recipes.md (plain PyTorch and TorchRL masked PPO), from the user's folder"
"$bin/python" - "$checkout/docs/recipes.md" "$work" <<'PY' || fail "could not extract the recipes from docs/recipes.md"
import re, sys
from pathlib import Path
blocks = re.findall(r"```python\n(.*?)```", Path(sys.argv[1]).read_text(), re.S)
assert len(blocks) == 2, f"docs/recipes.md has {len(blocks)} Python blocks, 2 expected"
for i, code in enumerate(blocks):
    Path(sys.argv[2], f"recipe{i}.py").write_text(code)
PY
run recipe0 "$bin/python" "$work/recipe0.py"
run recipe1 "$bin/python" "$work/recipe1.py"

step "passed: the wheel installs and its user commands run outside the checkout ($((SECONDS - start)) s)"
