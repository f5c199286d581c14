"""The planner's rollouts (src/native/rollout.hpp, patience_gym.solver.rollout_values): the base
policy the C++ plays is exactly the documented rule, replayed here in Python move by move."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from patience_gym.games import VARIANTS, Variant
from patience_gym.native import NativeGame, make_game, native_available
from patience_gym.solver import ordering_pick, rollout_values
from tests.helpers import PORTED

pytestmark = pytest.mark.skipif(not native_available(), reason="rollouts run on the native engine")


def _dealt(variant: Variant, seed: int) -> tuple[NativeGame, list[str]]:
    game = make_game(variant, "native")
    assert isinstance(game, NativeGame)
    game.new_game(np.random.default_rng(seed), None)
    return game, game.deck()


def _key(g: Any, a: int) -> tuple[int, int, int]:
    """The base policy's preference for legal move ``a`` of native game ``g`` (larger first)."""
    child = g.clone()
    child.apply(a)
    return (child.foundation_cards - g.foundation_cards, g.move_priority(a), -a)


def _base_rollout(g: Any, max_steps: int) -> int:
    """rollout.hpp's base policy, written again from its comment: never back to a position met in
    this rollout, then most foundation cards won, then the highest move priority, then the lowest
    id; stop when won, when no move leads anywhere new, or after max_steps actions."""
    met = {g.canonical_hash()}
    for _ in range(max_steps):
        if g.won:
            break
        best: tuple[tuple[int, int, int], int, int] | None = None
        for a in np.flatnonzero(g.mask()).tolist():
            child = g.clone()
            child.apply(a)
            h = child.canonical_hash()
            if h in met:
                continue
            key = _key(g, a)
            if best is None or key > best[0]:
                best = (key, a, h)
        if best is None:
            break
        met.add(best[2])
        g.apply(best[1])
    return int(g.foundation_cards)


@pytest.mark.parametrize("variant", PORTED, ids=lambda v: v.env_name)
def test_rollouts_play_the_documented_base_policy(variant: Variant) -> None:
    for seed in range(2):
        game, deck = _dealt(variant, seed)
        moves = np.flatnonzero(game._c.mask()).tolist()
        for steps in (1, 40, variant.max_episode_steps):
            values = rollout_values(variant, game.options, deck, [], moves, steps)
            expected = []
            for a in moves:
                g = game._c.clone()
                g.apply(a)
                expected.append(_base_rollout(g, steps - 1))
            assert values == expected, f"{variant.env_name} seed {seed}, {steps} steps"


def test_rollouts_start_after_the_actions_played() -> None:
    variant = VARIANTS[0]
    game, deck = _dealt(variant, 3)
    first = int(np.flatnonzero(game._c.mask())[0])
    game._c.apply(first)
    moves = np.flatnonzero(game._c.mask()).tolist()
    after = rollout_values(variant, game.options, deck, [first], moves, 300)
    expected = []
    for a in moves:
        g = game._c.clone()
        g.apply(a)
        expected.append(_base_rollout(g, 299))
    assert after == expected


def test_bad_rollout_requests_are_refused() -> None:
    variant = VARIANTS[0]
    game, deck = _dealt(variant, 0)
    legal = int(np.flatnonzero(game._c.mask())[0])
    illegal = int(np.flatnonzero(~game._c.mask().astype(bool))[0])
    with pytest.raises(ValueError, match="max_steps must be a whole number >= 1, got 0"):
        rollout_values(variant, None, deck, [], [legal], 0)
    with pytest.raises(ValueError, match="is not legal now"):
        rollout_values(variant, None, deck, [], [illegal], 10)
    with pytest.raises(IndexError, match="outside"):
        rollout_values(variant, None, deck, [], [10_000], 10)


@pytest.mark.parametrize("variant", PORTED, ids=lambda v: v.env_name)
def test_the_ordering_pick_is_the_base_policys_first_choice(variant: Variant) -> None:
    """ordering_pick (the planner's ``order=1``) takes the move the base policy would: the most
    foundation cards won, then the highest move priority, then the lowest id."""
    for seed in range(3):
        game, deck = _dealt(variant, seed)
        moves = np.flatnonzero(game._c.mask()).tolist()
        assert ordering_pick(variant, None, deck, [], moves) == max(moves, key=lambda a: _key(game._c, a))
        assert ordering_pick(variant, None, deck, [], moves[-1:]) == moves[-1]
    with pytest.raises(ValueError, match="at least one move"):
        ordering_pick(variant, None, deck, [], [])
