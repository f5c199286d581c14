"""Label training seeds with the solver and pack the won ones for ``gym.make(id, deals="winnable")``.

The env deals only seeds listed in ``patience_gym/data/winnable/<EnvName>.json`` (the package data
:mod:`patience_gym.winnable` reads; the env never imports ``agents/``). This script makes those
lists in three steps, each with the project's own solver machinery:

::

    python scripts/winnable.py measure --seeds 1000000:1000050        # decide time per variant
    nice -n 19 python scripts/winnable.py label --out /work/data/winnable/labels
    python scripts/winnable.py pack --out /work/data/winnable/labels  # into patience_gym/data/

- ``measure``: solves a sample of seeds per variant in this process and prints the CPU seconds a
  deal takes (mean, median, 90th percentile) and its verdicts: what picks :data:`BUDGETS`.
- ``label``: ``patience-gym solve`` on each variant of :data:`BUDGETS` in turn, in this one
  process (:func:`patience_gym.agents.solving.solve.label_seeds`), writing label files in ``--out`` (outside
  the checkout) as chunks of deals finish, with a progress line; the same command resumes where it
  stopped.
- ``pack``: reads each label file, replays every won line through ``gym.make`` (the registered
  step limit, the native engine) and writes the seeds whose line wins, as ranges, with the
  labelling's provenance: seeds tried, decided, won, left out, the budget, the commit.
- ``table``: prints the table of docs/environments.md from the packed lists.

Seeds come from the training range (``patience_gym.agents.training.config``: training deals from 1,000,000 up;
0-999 are the evaluation deals and 500,000 up the periodic validation's), never 0-999 nor the
5,000-5,999 that check shipped models.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

import patience_gym
import patience_gym.winnable
from patience_gym.agents.solving.chunks import SolveConfig, parse_seeds
from patience_gym.agents.solving.labels import label_path, read_labels
from patience_gym.agents.solving.solve import label_seeds
from patience_gym.games import get_variant
from patience_gym.solver import solve_deal
from patience_gym.winnable import DATA, ranges

ROOT = Path(__file__).resolve().parents[1]
#: The training seeds labelled (patience_gym.agents.training.config: training deals from 1,000,000 up).
SEEDS = "1000000:1010000"
#: Node budget per deal of each variant labelled, cheapest first (``measure``: a deal is decided in
#: well under a second at this budget). The probe is the solver's default, a tenth of it.
BUDGETS: dict[str, int] = {
    "Nestor-v0": 1_000_000,
    "Babette-v0": 1_000_000,
    "Louis-v0": 1_000_000,
    "Anna-v0": 1_000_000,
    "TheKings-v0": 1_000_000,
    "Congress-v0": 1_000_000,
    "Klondike-v0": 1_000_000,
}


def measure(seeds: str, envs: list[str], budget: int) -> None:
    """CPU seconds and verdicts of solving ``seeds`` of each variant (the default rules)."""
    for env in envs:
        variant, times, verdicts = get_variant(env), [], []
        for s in parse_seeds(seeds):
            start = time.process_time()
            verdicts.append(solve_deal(variant, seed=s, max_nodes=budget, probe_nodes=budget // 10).label)
            times.append(time.process_time() - start)
        t = np.sort(times)
        counts = ", ".join(f"{v} {verdicts.count(v)}" for v in ("won", "lost", "unknown"))
        print(
            f"{env}: {len(t)} deals at {budget:,} nodes: CPU s a deal mean {t.mean():.3f}, median "
            f"{t[len(t) // 2]:.3f}, p90 {t[int(0.9 * len(t))]:.3f}, max {t[-1]:.2f}; {counts}",
            flush=True,
        )


def label(out: Path, envs: list[str]) -> None:
    """Label :data:`SEEDS` of each of ``envs`` into ``out`` (resumes what is there)."""
    for env in envs:
        cfg = SolveConfig(env=env, seeds=SEEDS, budget=BUDGETS[env], labels=str(out))
        path, labels = label_seeds(cfg)
        won = sum(lb.label == "won" for lb in labels.values())
        print(f"{env}: {len(labels)} seeds labelled, {won} won ({path})", flush=True)


def wins(env: str, seed: int, line: tuple[int, ...]) -> bool:
    """``line`` wins the deal of ``seed`` through ``gym.make`` within the registered step limit."""
    e = gym.make(f"patience_gym/{env}", engine="native")
    e.reset(seed=seed)
    for a in line:
        _, _, terminated, truncated, info = e.step(a)
        if terminated or truncated:
            return bool(info["won"])
    return False


def commit() -> str:
    return subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


def dump(data: dict[str, object]) -> str:
    """``data`` as JSON: a field a line, the ranges ten a line (compact, and diffs stay readable)."""
    runs = data.pop("won_ranges")
    assert isinstance(runs, list)
    head = json.dumps(data, indent=1, separators=(",", ": "))[:-2]
    rows = [json.dumps(runs[i : i + 10], separators=(",", ":"))[1:-1] for i in range(0, len(runs), 10)]
    return head + ',\n "won_ranges": [\n  ' + ",\n  ".join(rows) + "\n ]\n}\n"


def pack(out: Path, envs: list[str]) -> None:
    """Write each variant's won seeds whose line wins through ``gym.make`` into the package."""
    folder = ROOT / "patience_gym" / DATA
    folder.mkdir(parents=True, exist_ok=True)
    for env in envs:
        variant = get_variant(env)
        path = label_path(variant, {}, out)
        labels = read_labels(path)
        if not labels:
            print(f"{env}: no labels in {path}; skipped")
            continue
        won = sorted(s for s, lb in labels.items() if lb.label == "won")
        fits = [s for s in won if wins(env, s, labels[s].actions)]
        tried = sorted(labels)
        data = {
            "env": env,
            "options": variant.make_game().options,
            "seeds_tried": [tried[0], tried[-1] + 1] if len(tried) == tried[-1] - tried[0] + 1 else tried,
            "tried": len(tried),
            "decided": sum(lb.label != "unknown" for lb in labels.values()),
            "won": len(won),
            "won_over_step_limit": len(won) - len(fits),
            "budget": f"{BUDGETS[env]} nodes per deal, the first {BUDGETS[env] // 10} in a probe",
            "labelled_by": "scripts/winnable.py label (patience-gym solve), then pack",
            "commit": commit(),  # the checkout's when packed (the labelling ran on the same solver)
            "won_ranges": ranges(fits),
        }
        (folder / f"{env}.json").write_text(dump(data))
        print(f"{env}: {len(tried)} tried, {data['decided']} decided, {len(fits)} won and replayed")


def table() -> str:
    """The docs' table (docs/environments.md, Winnable deals) from the package's lists."""
    rows = [
        "| id | training seeds tried | decided | won | listed (line within the step limit) | budget |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for env in patience_gym.winnable.labelled():
        data = json.loads((ROOT / "patience_gym" / DATA / f"{env}.json").read_text())
        listed = data["won"] - data["won_over_step_limit"]
        budget = int(data["budget"].split(" nodes")[0])
        counts = " | ".join(f"{n:,}" for n in (data["tried"], data["decided"], data["won"], listed))
        rows.append(f"| {env} | {counts} | {budget:,} nodes |")
    return "\n".join(rows)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("mode", choices=("measure", "label", "pack", "table"))
    p.add_argument("--out", type=Path, default=Path("/work/data/winnable/labels"), help="label files")
    p.add_argument("--envs", default=",".join(BUDGETS), help="comma-separated ids (default: all labelled)")
    p.add_argument("--seeds", default="1000000:1000050", help="measure: the sample of seeds")
    p.add_argument("--budget", type=int, default=1_000_000, help="measure: nodes per deal")
    args = p.parse_args()
    envs = args.envs.split(",")
    unknown = [e for e in envs if e not in BUDGETS and args.mode != "measure"]
    if unknown:
        p.error(f"{', '.join(unknown)} not labelled here; choose from {', '.join(BUDGETS)}")
    if args.mode == "measure":
        measure(args.seeds, envs, args.budget)
    elif args.mode == "label":
        label(args.out, envs)
    elif args.mode == "pack":
        pack(args.out, envs)
    else:
        print(table())


assert patience_gym  # registers the ids gym.make plays

if __name__ == "__main__":
    main()
