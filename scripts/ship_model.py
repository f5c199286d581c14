"""Ship a trained reward-only PPO model with the package: ``agents/data/models/<Variant>-v0.zip``.

::

    python scripts/ship_model.py runs/ppo/nestor            # its final_model.zip
    python scripts/ship_model.py runs/ppo/nestor --model best_model.zip

The model is copied without what only training needs (the optimizer's moments, the last rollout's
observations), so a user loads a small file and plays it as ``ppo:<variant>``
(``patience-gym evaluate --env Nestor-v0 --policy ppo:nestor``). Beside it, ``<Variant>-v0.json``
records what the results table's row says of it: the config it was trained from, the learner,
steps, wall time, the training seed, the commit, and the run's last validation evaluation.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agents.common.data import checkout_commit
from agents.policies.ppo import LEARNER

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
            "deals": f"{cfg['eval_deal_seed']}..{cfg['eval_deal_seed'] + cfg['eval_episodes'] - 1}",
            "last": dict(zip(evals[0].split(","), evals[-1].split(","), strict=True)),
        },
        "torch": torch.__version__,
    }  # fmt: skip
    out.with_suffix(".json").write_text(json.dumps(card, indent=2) + "\n")
    return out, card


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="+", help="training folders (runs/ppo/<variant>)")
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
