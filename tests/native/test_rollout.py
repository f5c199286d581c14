"""The native rollouts' base policy (src/native/rollout.hpp), played step by step in Python on the
native game: each step the legal action to a position not met before in the rollout, the most
foundation cards won, then the highest move priority, then the lowest id. Pins the choice rule of
the native code, which hashes the positions only in the order of preference."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.determinize import consistent_deck
from patience_gym.native import native_available
from patience_gym.solver import _replayed, rollout_values

pytestmark = pytest.mark.skipif(not native_available(), reason="the rollouts run in the native engine")


def _python_rollout(game: Any, max_steps: int) -> int:
    """The base policy of rollout.hpp on ``game`` (changed), its foundation cards at the end."""
    met = {game.canonical_hash()}
    for _ in range(max_steps):
        if game.won:
            break
        best: tuple[int, int] | None = None
        chosen, chosen_hash = -1, 0
        for a in np.flatnonzero(game.mask()):
            child = game.clone()
            child.apply(int(a))
            h = child.canonical_hash()
            if h in met:
                continue
            score = (child.foundation_cards - game.foundation_cards, game.move_priority(int(a)))
            if best is None or score > best:  # ties: the lowest id, met first
                best, chosen, chosen_hash = score, int(a), h
        if chosen < 0:
            break
        met.add(chosen_hash)
        game.apply(chosen)
    return int(game.foundation_cards)


@pytest.mark.parametrize(
    ("name", "seed"), [("Congress-v0", 3), ("Babette-v0", 5), ("Klondike-v0", 2), ("LightAndShade-v0", 0)]
)
def test_the_native_rollouts_play_the_base_policy(name: str, seed: int) -> None:
    env = gym.make(f"patience_gym/{name}")
    env.reset(seed=seed)
    core: Any = env.unwrapped
    deck, options = consistent_deck(core, np.random.default_rng(seed)), core.game.options
    start = _replayed(core.variant, options, deck, [])
    moves = [int(a) for a in np.flatnonzero(start.mask())]
    assert len(moves) > 1
    native = rollout_values(core.variant, options, deck, [], moves, 300)
    expected = []
    for a in moves:
        game = start.clone()
        game.apply(a)
        expected.append(_python_rollout(game, 299))
    assert native == expected
