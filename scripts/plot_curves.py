"""Learning curves: win rate and cards on the foundations against training steps, one PNG per variant.

Reads each run's ``evaluations.csv`` (written by ``patience-gym train``: one row per periodic
evaluation on the same validation deals, the first at step 0, the untrained network), groups the
runs by the variant their ``config.yaml`` names (several training seeds of one variant share a
picture), and draws random's and greedy's levels on the same validation deals as dashed lines.
Those levels are measured once with ``patience-gym evaluate``'s machinery and kept in
``results/validation_levels.json`` (``--refresh-levels`` measures them again). Needs matplotlib
(the ``plots`` extra).

    python scripts/plot_curves.py                          # runs/ppo/*/ -> docs/images/curves/<variant>.png
    python scripts/plot_curves.py --runs runs/ppo/nestor runs/ppo/nestor_seed1 --out-dir /tmp/curves
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from agents.training.callbacks import Evaluation, read_evaluations
from agents.training.config import check_env_options

ROOT = Path(__file__).resolve().parent.parent
LEVELS = ROOT / "results" / "validation_levels.json"
BASELINES = ("random", "greedy")


def run_config(run: Path) -> dict[str, Any]:
    import yaml

    path = run / "config.yaml"
    return (yaml.safe_load(path.read_text()) or {}) if path.is_file() else {}


def level_key(env: str, first: int, episodes: int) -> str:
    return f"{env} seeds {first}..{first + episodes - 1}"


def baseline_levels(
    env: str, first: int, episodes: int, *, refresh: bool, workers: int, path: Path | None = None
) -> dict[str, Any]:
    """Random's and greedy's win rate and cards on the validation deals, measured once and cached
    in ``path`` (default :data:`LEVELS`)."""
    from agents.evaluation.evaluate import evaluate

    path = path or LEVELS
    cache = json.loads(path.read_text()) if path.is_file() else {}
    key = level_key(env, first, episodes)
    if refresh or key not in cache:
        cache[key] = {}
        for spec in BASELINES:
            print(f"plot_curves.py: measuring {spec} on {key}", file=sys.stderr)
            r = evaluate(env, spec, episodes=episodes, seed=first, workers=workers)
            cache[key][spec] = {
                "win_rate": r.wins / r.games,
                "mean_foundation_cards": r.mean_foundation_cards,
            }
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(cache, indent=2, sort_keys=True) + "\n")
    levels: dict[str, Any] = cache[key]
    return levels


def draw(env: str, runs: dict[str, list[Evaluation]], levels: dict[str, Any], out: Path, note: str) -> None:
    import matplotlib.pyplot as plt

    fig, (win, cards) = plt.subplots(1, 2, figsize=(10, 3.4))
    for name, evs in sorted(runs.items()):
        steps = [e.steps / 1e6 for e in evs]
        win.plot(steps, [100 * e.win_rate for e in evs], label=name, linewidth=1.2, marker=".")
        cards.plot(steps, [e.mean_foundation_cards for e in evs], label=name, linewidth=1.2, marker=".")
    for spec, style in zip(BASELINES, ("tab:gray", "tab:red"), strict=True):
        if spec in levels:
            lv = levels[spec]
            win.axhline(100 * lv["win_rate"], color=style, linestyle="--", label=spec)
            cards.axhline(lv["mean_foundation_cards"], color=style, linestyle="--", label=spec)
    win.set_ylabel("win rate %")
    cards.set_ylabel("cards on the foundations")
    for ax in (win, cards):
        ax.set_xlabel("training steps (millions)")
        ax.grid(alpha=0.3)
    cards.legend(fontsize=7, loc="lower right")
    fig.suptitle(f"{env}: reward-only MaskablePPO, {note}", fontsize=10)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=80)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", nargs="*", help="run folders (default: every runs/ppo/*/ with evaluations.csv)")
    p.add_argument(
        "--out-dir", default=str(ROOT / "docs" / "images" / "curves"), help="one PNG per variant here"
    )
    p.add_argument("--refresh-levels", action="store_true", help="measure random and greedy again")
    p.add_argument("--levels", help="the levels' cache (default: results/validation_levels.json)")
    p.add_argument("--workers", type=int, default=2, help="processes for measuring the levels")
    args = p.parse_args(argv)
    try:
        import matplotlib

        matplotlib.use("Agg")
    except ImportError:
        print("plot_curves.py: needs matplotlib: pip install -e '.[plots]'", file=sys.stderr)
        return 2
    runs = [Path(r) for r in args.runs] if args.runs else sorted((ROOT / "runs" / "ppo").glob("*"))
    groups: dict[tuple[str, int, int], dict[str, list[Evaluation]]] = defaultdict(dict)
    for run in runs:
        evs = read_evaluations(run / "evaluations.csv")
        cfg = run_config(run)
        if not evs or "env" not in cfg or check_env_options(cfg["env"], {}) != cfg.get("env_kwargs", {}):
            continue  # the registered rules only: levels are measured on the default options
        key = (str(cfg["env"]), int(cfg["eval_deal_seed"]), int(cfg["eval_episodes"]))
        groups[key][f"seed {cfg.get('seed', 0)} ({run.name})"] = evs
    if not groups:
        print("plot_curves.py: no evaluations.csv (with config.yaml) in the runs given", file=sys.stderr)
        return 2
    for (env, first, episodes), curves in sorted(groups.items()):
        levels = baseline_levels(
            env, first, episodes, refresh=args.refresh_levels, workers=args.workers,
            path=Path(args.levels) if args.levels else None,
        )  # fmt: skip
        out = Path(args.out_dir) / f"{env.removesuffix('-v0')}.png"
        draw(env, curves, levels, out, f"validation deals {first:,}..{first + episodes - 1:,}")
        print(f"written {out} ({len(curves)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
