"""The greedy baseline (patience_gym.agents.policies.base.GreedyPolicy): blind to hidden cards; it keeps track
of the moves played (its shadow replays them), and says so when it cannot."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.agents.policies.base import GreedyPolicy
from patience_gym.determinize import consistent_deck, unseen_positions
from patience_gym.env import PatienceEnv
from patience_gym.games import VARIANTS
from patience_gym.native import reference
from patience_gym.testing import action_id

Trace = list[tuple[bytes, int, bool]]


def _turns_a_card_up(core: PatienceEnv) -> bool:
    """Some legal move of the position would turn up a card the player has not seen."""
    game = reference(core.game)
    unseen = len(game.unseen_positions())
    for a in np.flatnonzero(core.action_masks()).tolist():
        trial = game.clone()
        trial.apply(a)
        if len(trial.unseen_positions()) < unseen:
            return True
    return False


def _greedy_trace(env: gym.Env[Any, Any], deck: list[str], seed: int, steps: int = 250) -> Trace:
    """Greedy's game on ``deck``: the observation, its choice, and whether a move would have
    turned a card up, at each decision with a choice."""
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    greedy = GreedyPolicy()
    obs, info = env.reset(options={"deck": deck})
    greedy.reset(seed)
    trace: Trace = []
    for _ in range(steps):
        if not info["action_mask"].any():
            break
        a = greedy(core, obs)
        if info["action_mask"].sum() > 1:
            trace.append((obs.tobytes(), a, _turns_a_card_up(core)))
        obs, _, term, trunc, info = env.step(a)
        if term or trunc:
            break
    return trace


def _same_choices_until_told_apart(env: gym.Env[Any, Any], seed: int) -> int:
    """Greedy on deal ``seed`` and on a twin with the cards unseen at the start dealt again: the
    same choices until an observation tells the deals apart. Returns how many of those decisions
    had a move that would turn a card up (where a look at that card could sway the choice)."""
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    env.reset(seed=seed)
    real = core.game.deck()
    if core.variant.env_name == "Nestor-v0":  # its deal moves cards: compare with the deal as laid out
        real = consistent_deck(env, np.random.default_rng(seed))
    twins = (consistent_deck(env, np.random.default_rng(seed + 1000 * k)) for k in range(1, 50))
    twin = next(t for t in twins if t != real)
    revealing = 0
    a_trace, b_trace = (_greedy_trace(env, deck, seed) for deck in (real, twin))
    for (obs_a, a, reveals), (obs_b, b, _) in zip(a_trace, b_trace, strict=False):
        if obs_a != obs_b:
            break  # a hidden card has turned up: the player may now tell the deals apart
        assert a == b, f"{core.variant.env_name} seed {seed}: greedy's choice differs with nothing seen"
        revealing += reveals
    return revealing


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.env_name)
def test_greedy_never_reads_a_hidden_card(variant: Any) -> None:
    """Two deals that differ only in the cards unseen at the start: greedy makes the same choices
    until an observation tells them apart, the decisions where a move would turn a card up
    included."""
    env = gym.make(variant.env_id)
    env.reset(seed=0)
    if not unseen_positions(env):
        pytest.skip(f"{variant.env_name} deals every card face up: nothing is hidden")
    revealing = sum(_same_choices_until_told_apart(env, seed) for seed in range(20))
    if variant.env_name == "Nestor-v0":  # its reserve turns up only when no pair is left
        assert revealing == 0
        pytest.skip("Nestor: no move turns a reserve card up while there is a choice")
    assert revealing >= 3, "too few decisions where a move would turn a card up: the test proves little"


@pytest.mark.parametrize("seed", [66, 752])
def test_greedy_does_not_read_the_card_a_move_deals(seed: int) -> None:
    """St. Louis deals the next card of the pack into a packet that a foundation move empties; on
    these deals greedy scoring the real position after the move (as it did before the shadow)
    takes another move on the real deal than on its twin, swayed by the card the move would deal.
    The cause is pinned by the features: at the first decision of deal 752 the blind ranking (QH)
    is not the one the real card gives (QD)."""
    env = gym.make("patience_gym/StLouis-v0")
    assert _same_choices_until_told_apart(env, seed) >= 1


def test_greedy_learns_moves_it_is_told_of_and_refuses_a_position_it_cannot_place() -> None:
    env = gym.make("patience_gym/Klondike-v0")
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    greedy = GreedyPolicy()
    obs, info = env.reset(seed=3)
    greedy.reset(3)
    other = int(np.flatnonzero(info["action_mask"])[-1])
    greedy.follow(core, other)  # a move another policy chose
    obs, *_ = env.step(other)
    a = greedy(core, obs)
    obs, *_ = env.step(a)
    greedy(core, obs)  # its own move is learnt from the position it led to
    assert greedy.history == [other, a]
    env.reset(seed=4)  # a new deal without greedy.reset: it cannot place the position
    with pytest.raises(RuntimeError, match=r"call reset\(seed\) with each new deal"):
        greedy(core, obs)


@pytest.mark.parametrize("engine", ["python", "native"])
def test_greedy_leaves_the_stock_once_its_passes_repeat(engine: str) -> None:
    """Without a pass limit the stock's positions come round again after the second pass; the
    cycle guard must see that and take another move, not turn the stock to the step limit (as it
    did while the position key counted the passes: from move 41 of this deal to move 500)."""
    env = gym.make("patience_gym/Klondike-v0", engine=engine, draw=3, passes=None, partial_moves=True)
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    obs, _ = env.reset(seed=0)
    turn = action_id(core.game, "stock -> talon")
    greedy = GreedyPolicy()
    greedy.reset(0)
    run = longest = 0
    for _ in range(300):
        action = greedy(core, obs)
        run = run + 1 if action == turn else 0
        longest = max(longest, run)
        obs, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break
    # A cycle of the 24-card stock, three at a time: 8 turns and a new pass; two cycles are new.
    assert 0 < longest <= 2 * 9, f"greedy turned the stock {longest} times in a row"
