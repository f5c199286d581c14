"""Information-set UCT (patience_gym.agents.policies.uct, src/native/uct.hpp): blind to hidden cards, legal,
never back to a position met, configurable, and better than greedy where looking ahead helps."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.agents.policies.base import GreedyPolicy, Policy
from patience_gym.agents.policies.uct import UctPolicy, make_uct
from patience_gym.agents.registry import make_policy
from patience_gym.determinize import consistent_deck
from patience_gym.env import PatienceEnv
from patience_gym.native import NativeGame, make_game, native_available
from patience_gym.solver import seen_hash, uct_search
from tests.helpers import PORTED, check_blind_to_hidden_cards, choice_trace, greedy_start

pytestmark = pytest.mark.skipif(not native_available(), reason="the tree search runs in the native engine")

SMALL = "iterations=60,samples=4"  # cheap settings: the tests check behaviour, not strength
KLONDIKE3: dict[str, Any] = {"draw": 3, "passes": None, "partial_moves": True}


def _play(
    env: gym.Env[Any, Any], policy: Policy, seed: int, deck: list[str] | None = None
) -> tuple[bool, list[int]]:
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    obs, info = env.reset(seed=seed, options={"deck": deck} if deck else None)
    policy.reset(seed)
    played: list[int] = []
    term = trunc = False
    while not (term or trunc) and info["action_mask"].any():
        played.append(policy(core, obs))
        obs, _, term, trunc, info = env.step(played[-1])
    return bool(info["won"]), played


@pytest.mark.parametrize(
    ("env_name", "kwargs"), [("Klondike-v0", {"passes": None}), ("Anna-v0", {}), ("Congress-v0", {})]
)
def test_choices_do_not_depend_on_hidden_cards(env_name: str, kwargs: dict[str, Any]) -> None:
    """Two deals that differ only in cards unseen at the start (the later half of them dealt again
    at random): the same seed gives the same choices until an observation tells the deals apart."""
    env = gym.make(f"patience_gym/{env_name}", **kwargs)
    check_blind_to_hidden_cards(env, lambda: make_uct(SMALL), 120)


@pytest.mark.parametrize("variant", PORTED, ids=lambda v: v.env_name)
def test_uct_takes_legal_actions_only(variant: Any) -> None:
    policy = make_uct("iterations=30,samples=2")
    trace = choice_trace(gym.make(variant.env_id), policy, 11, None, 60)
    assert trace and policy.actions == [a for _, a, _ in trace]


def _position(seed: int, moves: int) -> tuple[gym.Env[Any, Any], np.ndarray, list[int]]:
    """Klondike draw 3 after greedy's first ``moves`` moves of deal ``seed``: the env, its
    observation and the moves."""
    env = gym.make("patience_gym/Klondike-v0", **KLONDIKE3)
    obs, played = greedy_start(env, seed, moves)
    return env, obs, played


def _native(env: gym.Env[Any, Any], deck: list[str], actions: list[int]) -> NativeGame:
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    game = make_game(core.variant, "native", **core.game.options)
    assert isinstance(game, NativeGame)
    game.new_game(None, deck)
    for a in actions:
        game.apply(a)
    return game


def _observation(game: NativeGame) -> np.ndarray:
    obs = np.zeros(game.layout.size, dtype=np.float32)
    game.observe(obs)
    return obs


def test_what_the_player_sees_hashes_alike_on_every_consistent_deal() -> None:
    env, obs, played = _position(2, 12)
    rng = np.random.default_rng(0)
    samples = [_native(env, consistent_deck(env, rng), played) for _ in range(5)]
    assert {seen_hash(_observation(g)) for g in samples} == {seen_hash(obs)}
    assert len({g.state_key() for g in samples}) > 1  # the deals do differ, where the player cannot see
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    legal = [int(a) for a in np.flatnonzero(core.action_masks())]
    after = [_native(env, consistent_deck(env, rng), [*played, a]) for a in legal]
    assert len({seen_hash(_observation(g)) for g in after}) == len(after)  # each move shows another position


def test_the_search_never_moves_back_to_a_position_met() -> None:
    """A move whose position (as the player sees it) is in ``visited`` is left out of the root,
    unless every move is; the rest are searched and visited."""
    env, _, played = _position(0, 8)
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    deck = consistent_deck(env, np.random.default_rng(1))
    legal = [int(a) for a in np.flatnonzero(core.action_masks())]
    assert len(legal) >= 2
    after = {a: seen_hash(_observation(_native(env, deck, [*played, a]))) for a in legal}

    def search(visited: list[int]) -> Any:
        return uct_search(
            core.variant,
            core.game.options,
            [deck],
            played,
            iterations=50,
            rollout_moves=20,
            max_depth=10,
            exploration=0.3,
            visited=visited,
        )

    found = search([])
    assert list(found.actions) == legal and sum(found.visits) == 50 and found.nodes > 1 and found.work > 0
    assert all(0.0 <= v <= 1.0 for v in found.values)
    banned = legal[0]
    found = search([after[banned]])
    assert list(found.actions) == legal[1:] and sum(found.visits) == 50
    found = search(list(after.values()))
    assert list(found.actions) == legal  # every move leads back: all of them are searched


def test_the_same_seed_plays_the_same_game() -> None:
    env = gym.make("patience_gym/Klondike-v0", **KLONDIKE3)
    runs = [_play(env, make_uct(SMALL), 5) for _ in range(2)]
    assert runs[0] == runs[1]


def test_uct_wins_a_deal_greedy_loses() -> None:
    env = gym.make("patience_gym/Klondike-v0", **KLONDIKE3)
    assert not _play(env, GreedyPolicy(), 6)[0]
    assert _play(env, make_uct("iterations=200,samples=16"), 6)[0]


def test_the_spec_parses_and_bad_settings_are_refused() -> None:
    policy = make_policy("uct:iterations=50,c=0.5,samples=3")
    assert isinstance(policy, UctPolicy)
    assert (policy.iterations, policy.c, policy.samples, policy.depth) == (50, 0.5, 3, 40)
    assert policy.name == "uct(iterations=50,samples=3,depth=40,moves=60,c=0.5)"
    assert make_policy("uct:gamma=0.99,solve=100").name.endswith(",c=0.3,gamma=0.99,solve=100)")
    assert isinstance(make_policy("uct"), UctPolicy)
    for bad, says in [
        ("uct:iterations=0", "iterations must be a whole number >= 1"),
        ("uct:samples=x", "samples='x' must be a whole number"),
        ("uct:c=-1", "c must be a number >= 0"),
        ("uct:gamma=0", "gamma must be a number above 0 and at most 1"),
        ("uct:solve=-5", "solve must be a whole number >= 0"),
        ("uct:budget=3", "not understood; use name=value with: iterations"),
        ("uct:depth=3,depth=4", "depth is given twice"),
        ("uct:moves", "not understood"),
    ]:
        with pytest.raises(ValueError, match=says):
            make_policy(bad)


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        ({"iterations": 0}, "iterations must be >= 1"),
        ({"rollout_moves": -1}, "rollout_moves must be >= 0"),
        ({"max_depth": 0}, "max_depth must be >= 1"),
        ({"exploration": -0.1}, "exploration must be >= 0"),
        ({"discount": 0.0}, r"discount must be in \(0, 1\]"),
        ({"leaf_nodes": -1}, "leaf_nodes must be >= 0"),
    ],
)
def test_the_search_refuses_bad_settings_with_what_is_allowed(bad: dict[str, Any], says: str) -> None:
    env, _, played = _position(1, 3)
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    settings: dict[str, Any] = {
        "iterations": 10,
        "rollout_moves": 5,
        "max_depth": 5,
        "exploration": 0.3,
        **bad,
    }
    with pytest.raises(ValueError, match=says):
        uct_search(core.variant, core.game.options, [core.game.deck()], played, **settings)
    with pytest.raises(ValueError, match="at least one deck"):
        uct_search(
            core.variant,
            core.game.options,
            [],
            played,
            iterations=10,
            rollout_moves=5,
            max_depth=5,
            exploration=0.3,
        )
