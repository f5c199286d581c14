"""The tools for tree search (patience_gym.search): a copy of the current game on the unseen cards
dealt again agrees with the real game on everything the player sees, differs in what it does not
see, is drawn uniformly, and never touches the real env; bad input is refused in one line.

Every registered variant, on the Python engine and (where ported) the native one, is played at
random for a few moves before each check, so that some cards have been seen and some have not.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import ResetNeeded

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.determinize import agrees
from patience_gym.env import PatienceEnv
from patience_gym.games import VARIANTS
from patience_gym.native import native_available
from patience_gym.search import play_deal, redeal, sample_deck, unseen_cards, unseen_positions
from tests.helpers import PORTED, step_at_random

ENGINES = [
    *(pytest.param(v.env_name, "python", id=f"{v.env_name}-python") for v in VARIANTS),
    *(pytest.param(v.env_name, "native", id=f"{v.env_name}-native") for v in PORTED if native_available()),
]


def _played(env_id: str, engine: str, seed: int = 3, moves: int = 12) -> tuple[Any, np.ndarray]:
    """``env_id`` dealt by ``seed`` and played ``moves`` random legal moves (fewer if it ends); the
    env (gym.make's, wrapped) and its last observation."""
    env = gym.make(f"patience_gym/{env_id}", engine=engine)
    obs, info = env.reset(seed=seed)
    last = step_at_random(env, info, np.random.default_rng(seed), moves)
    return env, obs if last is None else last


def _snapshot(env: Any) -> tuple[Any, ...]:
    real: PatienceEnv = env.unwrapped
    return (
        real.state_key(),
        real.game.deck(),
        real.played(),
        env._elapsed_steps,
        real.np_random.bit_generator.state,
    )


@pytest.mark.parametrize(("env_id", "engine"), ENGINES)
def test_a_redealt_copy_shows_what_the_real_game_shows_and_never_touches_it(env_id: str, engine: str) -> None:
    env, obs = _played(env_id, engine)
    real: PatienceEnv = env.unwrapped
    before = _snapshot(env)
    copies = [redeal(env, seed=s) for s in range(4)]
    for copy in copies:
        assert copy is not real and copy.game is not real.game
        assert copy.engine == real.engine and copy.game.options == real.game.options
        assert np.array_equal(copy.game.observation(), obs)
        assert np.array_equal(copy.action_masks(), real.action_masks())
        assert copy.game.foundation_cards == real.game.foundation_cards
        assert copy.played() == real.played()
        assert agrees(real, copy.game.deck())
    if len(set(unseen_cards(env))) > 1:  # two different unseen cards to swap
        assert len({tuple(c.game.deck()) for c in copies}) > 1, "the unseen cards were not dealt again"
    for copy in copies:  # stepping a copy steps neither the real env nor another copy
        legal = np.flatnonzero(copy.action_masks())
        if len(legal):
            copy.step(int(legal[0]))
    assert _snapshot(env) == before
    assert np.array_equal(real.game.observation(), obs)


@pytest.mark.parametrize(("env_id", "engine"), ENGINES)
def test_the_same_seed_draws_the_same_deck_and_the_real_deck_plays_the_real_game(
    env_id: str, engine: str
) -> None:
    env, _ = _played(env_id, engine)
    assert sample_deck(env, 7) == sample_deck(env, 7)
    rng = np.random.default_rng(7)
    assert sample_deck(env, rng) != sample_deck(env, rng) or len(unseen_positions(env)) < 2
    same = play_deal(env, env.unwrapped.game.deck())  # Nestor's too, which redeals as laid out
    assert same.state_key() == env.unwrapped.state_key()


@pytest.mark.parametrize("env_id", [v.env_name for v in VARIANTS])
def test_every_unseen_place_gets_every_unseen_card_about_equally_often(env_id: str) -> None:
    """A uniform draw: over many decks each unseen position holds each hidden card (by value; two
    packs hold two of each) about as often as it should, within six standard deviations."""
    env, _ = _played(env_id, "python", moves=3)
    where = unseen_positions(env)
    if len(where) < 2:
        pytest.skip(f"{env_id}: fewer than two unseen cards after the deal")
    draws = 40 * len(where)
    rng = np.random.default_rng(0)
    hidden = Counter(unseen_cards(env))
    counts = Counter((p, deck[p]) for deck in (sample_deck(env, rng) for _ in range(draws)) for p in where)
    for p in where:
        for card, copies in hidden.items():
            expected = draws * copies / len(where)
            got = counts[(p, card)]
            assert got > 0, f"position {p} never got {card} in {draws} draws"
            assert abs(got - expected) <= 6 * expected**0.5, f"position {p}, {card}: {got} of ~{expected:.0f}"


def test_bad_input_is_refused_in_one_line_saying_what_is_allowed() -> None:
    env, _ = _played("Klondike-v0", "python")
    for seed in (-1, 1.5, True, "3"):
        with pytest.raises(TypeError, match=r"^redeal\(seed=\.\.\.\) takes a whole number >= 0, a numpy"):
            redeal(env, seed=seed)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must hold 52 cards, got 3"):
        play_deal(env, ["AS", "2S", "3S"])
    deck = env.unwrapped.game.deck()
    seen = next(p for p in range(52) if p not in unseen_positions(env))
    other = next(p for p in range(52) if deck[p] != deck[seen])
    deck[seen], deck[other] = deck[other], deck[seen]
    with pytest.raises(ValueError, match=r"^play_deal\(deck=\.\.\.\) contradicts what the player has seen"):
        play_deal(env, deck)
    vector = gym.make_vec("patience_gym/Klondike-v0", num_envs=2, vectorization_mode="sync")
    with pytest.raises(TypeError, match=r"takes one environment made by gym.make"):
        redeal(vector)
    with pytest.raises(ResetNeeded, match=r"call reset\(\) before sample_deck\(\)"):
        sample_deck(gym.make("patience_gym/Klondike-v0"))


@pytest.mark.parametrize("engine", ["python", *(["native"] if native_available() else [])])
def test_played_lists_the_moves_since_the_deal_and_leaves_illegal_ones_out(engine: str) -> None:
    env = PatienceEnv("Klondike-v0", engine=engine)
    with pytest.raises(ResetNeeded, match=r"call reset\(\) before played\(\)"):
        env.played()
    _, info = env.reset(seed=0)
    legal, illegal = np.flatnonzero(info["action_mask"]), np.flatnonzero(~env.action_masks())
    env.step(int(legal[0]))
    env.step(int(illegal[0]))
    assert env.played() == [int(legal[0])]
    env.reset(seed=1)
    assert env.played() == []
