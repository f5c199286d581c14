"""Play one episode with any policy and write it as a self-contained HTML replay.

``patience-gym replay --env Klondike-v0 --policy greedy --seed 3 --out replay.html`` deals with
``reset(seed=3)`` (the same deal ``evaluate`` plays as episode 3 of seed 0), plays the policy to
the end or the registered step limit, and writes one page that steps through the game offline.
:func:`run` carries out the command; ``agents/cli.py`` declares its arguments.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.env import PatienceEnv
from patience_gym.games import get_variant
from patience_gym.render.html import ReplayStep, replay_html
from patience_gym.render.view import layout
from patience_gym.render.views import table_view

from ..registry import make_policy
from .evaluate import check_make_kwargs


@dataclass
class Replay:
    """A recorded episode: each position from the deal on, and how it ended."""

    env_id: str
    policy: str
    seed: int
    steps: list[ReplayStep] = field(default_factory=list)
    won: bool = False
    truncated: bool = False

    @property
    def moves(self) -> int:
        return len(self.steps) - 1

    @property
    def result(self) -> str:
        cards = self.steps[-1].foundation_cards
        if self.won:
            return f"won in {self.moves} moves"
        if self.truncated:
            return f"stopped at the step limit after {self.moves} moves, {cards} cards on the foundations"
        return f"lost after {self.moves} moves (no legal move left), {cards} cards on the foundations"

    def html(self) -> str:
        title = f"{self.env_id}: {self.policy}, seed {self.seed}"
        details = [
            f"deal: env.reset(seed={self.seed}); policy {self.policy}",
            "each step shows the table after the move named above it",
        ]
        return replay_html(title, self.steps, self.result, details)


def _step(core: PatienceEnv, index: int, move: str | None, reward: float) -> ReplayStep:
    frame = layout(table_view(core.game))
    return ReplayStep(index, frame, move, reward, core.game.foundation_cards)


def record(env: str, policy: str, seed: int = 0, env_kwargs: dict[str, Any] | None = None) -> Replay:
    """Play ``policy`` (``random``, ``greedy``, ``ppo:PATH``) on deal ``seed`` of ``env``."""
    variant = get_variant(env)
    check_make_kwargs(env_kwargs or {})
    gym_env = gym.make(variant.env_id, **(env_kwargs or {}))
    core: PatienceEnv = gym_env.unwrapped  # type: ignore[assignment]
    pol = make_policy(policy)
    obs, info = gym_env.reset(seed=seed)
    pol.reset(seed)
    rep = Replay(variant.env_id, policy, seed, [_step(core, 0, None, 0.0)])
    term = not info["action_mask"].any()
    trunc = False
    while not (term or trunc):
        action = pol(core, obs)
        move = core.describe_action(action)  # read before the move changes the position
        obs, reward, term, trunc, info = gym_env.step(action)
        rep.steps.append(_step(core, len(rep.steps), move, float(reward)))
    rep.won, rep.truncated = bool(info["won"]), bool(trunc and not term)
    gym_env.close()  # type: ignore[no-untyped-call, unused-ignore]
    return rep


def write_replay(
    out: str | Path, env: str, policy: str, seed: int = 0, env_kwargs: dict[str, Any] | None = None
) -> Replay:
    """Record an episode and write its page to ``out``; returns the recording."""
    rep = record(env, policy, seed, env_kwargs)
    Path(out).write_text(rep.html(), encoding="utf-8")
    return rep


def save_table_png(env: str, seed: int, path: str | Path) -> Path:
    """Write the table of deal ``seed`` of ``env`` as a PNG (``patience-gym show --image``)."""
    from PIL import Image

    gym_env = gym.make(get_variant(env).env_id, render_mode="rgb_array")
    gym_env.reset(seed=seed)
    frame: Any = gym_env.render()
    gym_env.close()  # type: ignore[no-untyped-call, unused-ignore]
    Image.fromarray(frame).save(path)  # type: ignore[arg-type, unused-ignore]
    return Path(path)


# ---- the ``patience-gym replay`` command -------------------------------------------------------


def check_output(path: str | Path, flag: str) -> None:
    """Refuse, before any work, a file that cannot be written: its folder is missing or read-only,
    or the path is a folder."""
    out = Path(path)
    folder = out.parent if str(out.parent) else Path(".")
    if out.is_dir():
        raise ValueError(f"{flag} {path}: is a folder; give a file name")
    if not folder.is_dir():
        raise ValueError(f"{flag} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"{flag} {path}: the folder {folder} cannot be written")


def run(args: argparse.Namespace) -> int:
    """``patience-gym replay``: ``args.env``, ``args.policy``, ``args.seed``, ``args.out``."""
    if args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")
    check_output(args.out, "--out")
    try:
        rep = write_replay(args.out, args.env, args.policy, args.seed)
    except OSError as exc:  # written at the end: a disk full, a folder removed meanwhile
        raise ValueError(f"--out {args.out}: {exc.strerror or exc}") from None
    print(f"{args.out}: {rep.env_id}, {rep.policy}, seed {rep.seed}: {rep.result}")
    return 0
