"""Draw the README's picture of every variant: ``docs/images/<EnvName>.png``.

Each picture is the table of deal ``SEED`` after ``MOVES`` moves of the greedy policy (a game
under way shows more than the deal), drawn by ``render_mode="rgb_array"`` and saved as a
palette PNG (a few dozen kB). Run it again after changing a view or the drawing:

    python scripts/pictures.py            # every variant
    python scripts/pictures.py Nestor-v0  # one
"""

from __future__ import annotations

import argparse
from pathlib import Path

import gymnasium as gym
import numpy as np
from PIL import Image

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.agents.registry import make_policy
from patience_gym.env import PatienceEnv
from patience_gym.games import VARIANTS, get_variant

SEED = 1
MOVES = 12
OUT = Path(__file__).resolve().parent.parent / "docs" / "images"


def draw(env_name: str, seed: int = SEED, moves: int = MOVES) -> Image.Image:
    """The table of deal ``seed`` after ``moves`` greedy moves (fewer if the game ends)."""
    env = gym.make(get_variant(env_name).env_id, render_mode="rgb_array")
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    policy = make_policy("greedy")
    obs, info = env.reset(seed=seed)
    policy.reset(seed)
    for _ in range(moves):
        if not info["action_mask"].any():
            break
        obs, _, term, trunc, info = env.step(policy(core, obs))
        if term or trunc:
            break
    frame = env.render()
    env.close()
    assert isinstance(frame, np.ndarray)
    return Image.fromarray(frame)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env", nargs="*", help="variant ids (default: every registered one)")
    names = parser.parse_args(argv).env or [v.env_name for v in VARIANTS]
    for name in names:  # an unknown id is refused before any picture is drawn
        try:
            get_variant(name)
        except ValueError as exc:
            parser.error(str(exc))
    OUT.mkdir(parents=True, exist_ok=True)
    for name in names:
        path = OUT / f"{get_variant(name).env_name}.png"
        # A palette of 128 colours keeps the felt, the cards and the anti-aliased edges.
        img = draw(name).quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        img.save(path, optimize=True)
        size = path.stat().st_size // 1024
        print(f"{path.relative_to(OUT.parent.parent)}  {img.width}x{img.height}  {size} kB")


if __name__ == "__main__":
    main()
