"""Learning curves: win rate and cards on the foundations against training steps, one PNG per variant.

Reads each run's ``evaluations.csv`` (written by ``patience-gym train``: one row per periodic
evaluation on the same validation deals, the first at step 0, the untrained network, each played
by its most likely moves), groups the runs by the variant their ``config.yaml`` names (several
training seeds of one variant share a picture; each curve names its network: ``flat`` reads the
observation, ``per-move`` scores each legal move from one-move features), and draws random's and
greedy's levels on the same validation deals as dashed lines. Those levels are measured once with
``patience-gym evaluate``'s machinery and kept in ``results/validation_levels.json``
(``--refresh-levels`` measures them again). Needs matplotlib (the ``plots`` extra).

Training validates by the most likely moves only, and the checkpoints between are not kept, so a
curve by drawn moves (how five of the table's rows play) cannot be redrawn. ``--measure-drawn``
measures the points by drawn moves that the kept files allow and writes them beside the curve, in
``evaluations_sampled.csv``: the untrained network (step 0, rebuilt from the run's config and
seed as training builds it; its argmax play is first checked against the run's own step-0 row),
and, for the run a shipped model came from, that final model. The picture marks them with crosses.

    python scripts/plot_curves.py                          # runs/ppo/*/ -> docs/images/curves/<variant>.png
    python scripts/plot_curves.py --runs runs/ppo/nestor runs/ppo/nestor_seed1 --out-dir /tmp/curves
    python scripts/plot_curves.py --runs results/runs/* --measure-drawn   # the docs' curves
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patience_gym.agents.training.callbacks import CSV_NAME, Evaluation, read_evaluations, write_evaluations
from patience_gym.agents.training.config import check_env_options

ROOT = Path(__file__).resolve().parent.parent
LEVELS = ROOT / "results" / "validation_levels.json"
BASELINES = ("random", "greedy")
#: A run's evaluations played by drawn moves (``ppo-sample``), beside its ``evaluations.csv``.
SAMPLED_CSV = "evaluations_sampled.csv"
#: The network of each ``policy`` key, as a curve's label names it.
NETWORKS = {"mlp": "flat", "move_policy": "per-move"}
#: How far a rebuilt untrained network's argmax play may lie from the run's own step-0 row (win
#: rate; mean cards): a deal or two may turn on a near-tie between two moves' logits.
REBUILT = (0.003, 0.05)


def run_config(run: Path) -> dict[str, Any]:
    import yaml

    path = run / "config.yaml"
    return (yaml.safe_load(path.read_text()) or {}) if path.is_file() else {}


def run_label(run: Path, cfg: dict[str, Any]) -> str:
    """A curve's name: its network, training seed and folder (``per-move, seed 1 (congress_move_seed1)``)."""
    policy = str(cfg.get("policy", "mlp"))
    return f"{NETWORKS.get(policy, policy)}, seed {cfg.get('seed', 0)} ({run.name})"


def shipped_card(run: Path, env: str) -> dict[str, Any] | None:
    """The card of the model the package ships for ``env`` where it came from this run (its
    ``run``, else the variant's own folder name), or None."""
    from patience_gym.agents.policies.ppo import shipped_models

    path = shipped_models() / f"{env}.json"
    if not path.is_file():
        return None
    card: dict[str, Any] = json.loads(path.read_text())
    stem = re.sub(r"(?<!^)(?=[A-Z])", "_", env.rsplit("-v", 1)[0]).lower()  # as results.py names it
    return card if card.get("run", stem) == run.name else None


def _evaluation(steps: int, play: Any) -> Evaluation:
    return Evaluation(
        steps=steps,
        win_rate=play.win_rate,
        mean_foundation_cards=float(play.foundation_cards.mean()),
        mean_reward=float(play.reward.mean()),
        mean_length=float(play.length.mean()),
    )


def measure_drawn(run: Path) -> list[Evaluation]:
    """The run's evaluations by drawn moves that the kept files allow (see the module's docstring),
    written to its ``evaluations_sampled.csv``; none where the rebuilt untrained network's argmax
    play is not the run's own step-0 row (the rules or the network changed since)."""
    import dataclasses
    import tempfile

    import torch
    from sb3_contrib import MaskablePPO

    from patience_gym.agents.policies.ppo import play_batched, shipped_models
    from patience_gym.agents.training.config import load_config
    from patience_gym.agents.training.sb3 import (
        _model,  # training's own construction: the run's step-0 network
    )

    torch.set_num_threads(1)
    cfg = load_config(str(run / "config.yaml"))
    seeds = range(cfg.eval_deal_seed, cfg.eval_deal_seed + cfg.eval_episodes)
    kw: dict[str, Any] = {"env_kwargs": cfg.env_kwargs, "reward": cfg.reward}
    with tempfile.TemporaryDirectory() as tmp:
        model, _ = _model(dataclasses.replace(cfg, resume=None, output_dir=tmp), Path(tmp))
        rebuilt = _evaluation(0, play_batched(model, cfg.env, seeds, **kw))
        own = read_evaluations(run / CSV_NAME)[0]
        print(f"plot_curves.py: {run.name}: untrained, argmax {rebuilt.line()} (the run's: {own.line()})")
        # the run's first row was played at step 0 (or, unbatched, after the first vector step)
        first = own.steps <= cfg.n_envs
        wins_off = abs(rebuilt.win_rate - own.win_rate) > REBUILT[0]
        cards_off = abs(rebuilt.mean_foundation_cards - own.mean_foundation_cards) > REBUILT[1]
        if not first or wins_off or cards_off:
            print(
                f"plot_curves.py: {run.name}: not the run's untrained network; nothing written",
                file=sys.stderr,
            )
            return []
        points = [_evaluation(0, play_batched(model, cfg.env, seeds, **kw, sample=True))]
    card = shipped_card(run, cfg.env)
    if card is not None:
        shipped = MaskablePPO.load(shipped_models() / f"{cfg.env}.zip", device="cpu")
        points.append(
            _evaluation(int(card["steps"]), play_batched(shipped, cfg.env, seeds, **kw, sample=True))
        )
    for ev in points:
        print(f"plot_curves.py: {run.name}: drawn moves, {ev.line()}")
    write_evaluations(run / SAMPLED_CSV, points)
    return points


def level_key(env: str, first: int, episodes: int) -> str:
    return f"{env} seeds {first}..{first + episodes - 1}"


def baseline_levels(
    env: str, first: int, episodes: int, *, refresh: bool, workers: int, path: Path | None = None
) -> dict[str, Any]:
    """Random's and greedy's win rate and cards on the validation deals, measured once and cached
    in ``path`` (default :data:`LEVELS`)."""
    from patience_gym.agents.evaluation.evaluate import evaluate

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


@dataclass(frozen=True)
class Curve:
    """One run's evaluations on the validation deals: by its most likely moves at every periodic
    evaluation, and by drawn moves where measured (``evaluations_sampled.csv``)."""

    argmax: list[Evaluation]
    drawn: list[Evaluation]


def draw(env: str, runs: dict[str, Curve], levels: dict[str, Any], out: Path, note: str) -> None:
    import matplotlib.pyplot as plt

    fig, (win, cards) = plt.subplots(1, 2, figsize=(10, 3.6))
    for name, curve in sorted(runs.items()):
        steps = [e.steps / 1e6 for e in curve.argmax]
        (line,) = win.plot(
            steps, [100 * e.win_rate for e in curve.argmax], label=name, linewidth=1.2, marker="."
        )
        cards.plot(
            steps, [e.mean_foundation_cards for e in curve.argmax], label=name, linewidth=1.2, marker="."
        )
        drawn = [e.steps / 1e6 for e in curve.drawn]
        style: dict[str, Any] = {
            "linestyle": "none",
            "marker": "x",
            "markersize": 8,
            "color": line.get_color(),
        }
        win.plot(drawn, [100 * e.win_rate for e in curve.drawn], **style)
        cards.plot(drawn, [e.mean_foundation_cards for e in curve.drawn], **style)
    if any(c.drawn for c in runs.values()):
        cards.plot([], [], linestyle="none", marker="x", color="black", label="drawn moves (x)")
    for spec, style_ in zip(BASELINES, ("tab:gray", "tab:red"), strict=True):
        if spec in levels:
            lv = levels[spec]
            win.axhline(100 * lv["win_rate"], color=style_, linestyle="--", label=spec)
            cards.axhline(lv["mean_foundation_cards"], color=style_, linestyle="--", label=spec)
    win.set_ylabel("win rate %")
    cards.set_ylabel("cards on the foundations")
    for ax in (win, cards):
        ax.set_xlabel("training steps (millions)")
        ax.grid(alpha=0.3)
    cards.legend(fontsize=7, loc="lower right")
    fig.suptitle(f"{env}: reward-only MaskablePPO, {note}", fontsize=9)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=80)
    plt.close(fig)


def row_play(env: str) -> str:
    """How the results table's row plays the model shipped for ``env``, as a picture's title says it."""
    from patience_gym.agents.policies.ppo import shipped_models

    path = shipped_models() / f"{env}.json"
    if not path.is_file():
        return "no model shipped"
    card = json.loads(path.read_text())
    network = NETWORKS.get(card.get("policy", "mlp"), card.get("policy"))
    moves = "drawn moves" if card.get("play") == "sample" else "most likely moves"
    return f"the table's row: {network}, {moves}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", nargs="*", help="run folders (default: every runs/ppo/*/ with evaluations.csv)")
    p.add_argument(
        "--out-dir", default=str(ROOT / "docs" / "images" / "curves"), help="one PNG per variant here"
    )
    p.add_argument("--refresh-levels", action="store_true", help="measure random and greedy again")
    p.add_argument("--levels", help="the levels' cache (default: results/validation_levels.json)")
    p.add_argument("--workers", type=int, default=2, help="processes for measuring the levels")
    p.add_argument(
        "--measure-drawn",
        action="store_true",
        help="first measure each run's points by drawn moves (untrained; the shipped final model)",
    )
    args = p.parse_args(argv)
    try:
        import matplotlib

        matplotlib.use("Agg")
    except ImportError:
        print("plot_curves.py: needs matplotlib: pip install -e '.[plots]'", file=sys.stderr)
        return 2
    runs = [Path(r) for r in args.runs] if args.runs else sorted((ROOT / "runs" / "ppo").glob("*"))
    groups: dict[tuple[str, int, int], dict[str, Curve]] = defaultdict(dict)
    for run in runs:
        evs = read_evaluations(run / CSV_NAME)
        cfg = run_config(run)
        if not evs or "env" not in cfg or check_env_options(cfg["env"], {}) != cfg.get("env_kwargs", {}):
            continue  # the registered rules only: levels are measured on the default options
        drawn = measure_drawn(run) if args.measure_drawn else read_evaluations(run / SAMPLED_CSV)
        key = (str(cfg["env"]), int(cfg["eval_deal_seed"]), int(cfg["eval_episodes"]))
        groups[key][run_label(run, cfg)] = Curve(evs, drawn)
    if not groups:
        print("plot_curves.py: no evaluations.csv (with config.yaml) in the runs given", file=sys.stderr)
        return 2
    for (env, first, episodes), curves in sorted(groups.items()):
        levels = baseline_levels(
            env, first, episodes, refresh=args.refresh_levels, workers=args.workers,
            path=Path(args.levels) if args.levels else None,
        )  # fmt: skip
        out = Path(args.out_dir) / f"{env.removesuffix('-v0')}.png"
        note = (
            f"validation deals {first:,}..{first + episodes - 1:,}, lines: most likely moves; {row_play(env)}"
        )
        draw(env, curves, levels, out, note)
        print(f"written {out} ({len(curves)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
