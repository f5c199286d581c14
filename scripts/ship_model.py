"""Ship a trained reward-only PPO model with the package: ``agents/data/models/<Variant>-v0.zip``.

::

    python scripts/ship_model.py runs/ppo/nestor            # its final_model.zip
    python scripts/ship_model.py runs/ppo/nestor --model best_model.zip
    python scripts/ship_model.py --choose-play Nestor-v0    # a shipped model's card only (below)

The model is copied without what only training needs (the optimizer's moments, the last rollout's
observations), so a user loads a small file and plays it as ``ppo:<variant>``
(``patience-gym evaluate --env Nestor-v0 --policy ppo:nestor``). Beside it, ``<Variant>-v0.json``
records what the results table's row says of it: the config it was trained from, the learner,
steps, wall time, the training seed, the commit, and the run's last validation evaluation.

The card also says how the table plays the model (``play``): its most likely move (``argmax``,
``ppo:<variant>``) or a move drawn from its distribution (``sample``, ``ppo-sample:<variant>``),
whichever wins more of the validation deals (ties: argmax); both figures are recorded. The choice
is made on the validation deals, never on the table's seeds 0-999. ``--choose-play`` makes it
again for models already shipped, rewriting only their cards.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from patience_gym.agents.common.data import checkout_commit
from patience_gym.agents.policies.ppo import LEARNER
from patience_gym.agents.training.config import deal_range, deal_span

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "agents" / "data" / "models"
#: What a model saves that only training reads (the last rollout's state and episode buffers).
TRAINING_ONLY = [
    "_last_obs",
    "_last_original_obs",
    "_last_episode_starts",
    "ep_info_buffer",
    "ep_success_buffer",
]


def ship(
    run: Path, model_name: str, commit: str | None = None, config: str | None = None
) -> tuple[Path, dict[str, Any]]:
    import torch
    import yaml
    from sb3_contrib import MaskablePPO

    cfg = yaml.safe_load((run / "config.yaml").read_text())
    info = json.loads((run / "train_info.json").read_text())
    model = MaskablePPO.load(run / model_name, device="cpu")
    optimizer = model.policy.optimizer
    model.policy.optimizer = type(optimizer)(model.policy.parameters(), **optimizer.defaults)  # no moments
    out = MODELS / f"{cfg['env']}.zip"  # the checkout's package data (the wheel carries it)
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(out, exclude=TRAINING_ONLY)
    evals = (run / "evaluations.csv").read_text().splitlines()
    card = {
        "env": cfg["env"],
        "config": config or f"configs/ppo/{run.name.split('_seed')[0].removesuffix('_move')}.yaml",
        "run": run.name,
        "learner": LEARNER,
        "policy": cfg.get("policy", "mlp"),
        "net_arch": (cfg.get("policy_kwargs") or {}).get("net_arch"),
        "model": model_name,
        "seed": cfg.get("seed", 0),
        "steps": int(model.num_timesteps),
        "train_seconds": info.get("total_seconds", info.get("seconds")),
        "commit": commit or info.get("commit") or checkout_commit(),
        "validation": {
            "deals": deal_span(cfg["eval_deal_seed"], cfg["eval_episodes"]),
            "last": dict(zip(evals[0].split(","), evals[-1].split(","), strict=True)),
        },
        "torch": torch.__version__,
    }  # fmt: skip
    card.update(choose_play(model, cfg["env"], card["validation"]["deals"]))
    out.with_suffix(".json").write_text(json.dumps(card, indent=2) + "\n")
    return out, card


def choose_play(model: Any, env: str, deals: str) -> dict[str, Any]:
    """``{"play": "argmax" | "sample", "validation_play": {...}}``: the model plays the validation
    deals (``"500000..500999"``) both ways, batched; the way that wins more is the table's."""
    from patience_gym.agents.policies.ppo import play_batched

    seeds = deal_range(deals)
    figures = {}
    for way in ("argmax", "sample"):
        play = play_batched(model, env, seeds, sample=way == "sample")
        figures[way] = {
            "wins": int(play.won.sum()),
            "mean_foundation_cards": round(float(play.foundation_cards.mean()), 3),
        }
    better = "sample" if figures["sample"]["wins"] > figures["argmax"]["wins"] else "argmax"
    return {"play": better, "validation_play": {"deals": deals, **figures}}


def rechoose(env: str) -> dict[str, Any]:
    """Make the choice of play again for the model shipped for ``env``; its card rewritten."""
    from sb3_contrib import MaskablePPO

    from patience_gym.agents.policies.ppo import shipped_model

    path = shipped_model(env)
    if path is None:
        raise SystemExit(f"ship_model.py: no model is shipped for {env!r}")
    card = json.loads(path.with_suffix(".json").read_text())
    card.update(choose_play(MaskablePPO.load(path, device="cpu"), card["env"], card["validation"]["deals"]))
    path.with_suffix(".json").write_text(json.dumps(card, indent=2) + "\n")
    return card


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="*", help="training folders (runs/ppo/<variant>)")
    p.add_argument(
        "--choose-play",
        nargs="+",
        metavar="VARIANT",
        help="instead of shipping: choose again how the table plays these shipped models (their cards only)",
    )
    p.add_argument("--model", default="final_model.zip", help="the file in the folder to ship")
    p.add_argument(
        "--config",
        help="the config that trains the run again (default: configs/ppo/<variant>.yaml)",
    )
    p.add_argument(
        "--commit",
        help="the commit whose code trained the run, for a run whose train_info.json does not record it "
        "(default: train_info.json's, else the checkout's HEAD now)",
    )
    args = p.parse_args(argv)
    if bool(args.runs) == bool(args.choose_play):
        p.error("give either training folders to ship or --choose-play VARIANT ...")
    for env in args.choose_play or []:
        card = rechoose(env)
        figures = card["validation_play"]
        print(
            f"{card['env']}: plays by {card['play']} (validation wins: argmax {figures['argmax']['wins']}, "
            f"sample {figures['sample']['wins']})"
        )
    for run in map(Path, args.runs):
        if not (run / args.model).is_file() or not (run / "config.yaml").is_file():
            print(f"ship_model.py: {run} holds no {args.model} with its config.yaml", file=sys.stderr)
            return 2
        out, card = ship(run, args.model, args.commit, args.config)
        size = out.stat().st_size / 1e6
        print(
            f"shipped {run / args.model} as {out.relative_to(ROOT)} ({size:.1f} MB, {card['steps']:,} steps)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
