"""``safe``: greedy's move unless the solver finds the deal lost after it (agents/policies/safe.py)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

from patience_gym.agents.policies.base import GreedyPolicy
from patience_gym.agents.policies.safe import SafePolicy, make_safe
from patience_gym.agents.registry import make_policy
from patience_gym.native import native_available
from patience_gym.solver import solve_line
from tests.helpers import check_blind_to_hidden_cards

pytestmark = pytest.mark.skipif(not native_available(), reason="the solver runs in the native engine")

KINGS_SEED = 5001  # greedy loses it; the solver wins it (The Kings, nothing hidden once dealt)


def _play(env: gym.Env[Any, Any], policy: Any, seed: int) -> tuple[list[int], list[str], bool]:
    obs, info = env.reset(seed=seed)
    policy.reset(seed)
    core = env.unwrapped
    actions, hows, done = [], [], not core.action_masks().any()  # type: ignore[attr-defined]
    while not done:
        a = policy(core, obs)
        actions.append(a)
        hows.append(getattr(policy, "how", ""))
        obs, _, term, trunc, info = env.step(a)
        done = term or trunc
    return actions, hows, bool(info.get("won"))


def test_it_wins_a_kings_deal_greedy_loses_and_every_move_keeps_it_won() -> None:
    env = gym.make("patience_gym/TheKings-v0")
    assert not _play(env, GreedyPolicy(), KINGS_SEED)[2]
    safe = SafePolicy(budget=200_000, probe=180_000)
    actions, hows, won = _play(env, safe, KINGS_SEED)
    assert won and "override" in hows and "lost" not in hows
    core = env.unwrapped
    env.reset(seed=KINGS_SEED)
    deck = list(core.game.deck())  # type: ignore[attr-defined]
    for t in range(0, len(actions), 10):  # the deal stays won along its line
        label = solve_line(
            core.variant, core.game.options, deck, actions[:t], max_nodes=200_000, probe_nodes=180_000
        )  # type: ignore[attr-defined]
        assert label.label == "won", t


def test_where_greedys_move_keeps_the_deal_won_it_is_played() -> None:
    """At every decision labelled ``greedy`` the move is greedy's own (greedy told of every move)."""
    env = gym.make("patience_gym/TheKings-v0")
    safe = SafePolicy()
    actions, hows, _ = _play(env, safe, KINGS_SEED)
    greedy = GreedyPolicy()
    obs, _ = env.reset(seed=KINGS_SEED)
    greedy.reset(KINGS_SEED)
    for a, how in zip(actions, hows, strict=True):
        pick = greedy(env.unwrapped, obs)  # type: ignore[arg-type]
        assert (pick == a) if how == "greedy" else (pick != a) if how == "override" else True
        obs, *_ = env.step(a)
    assert hows.count("greedy") > hows.count("override") > 0
    assert safe.vote_shares() == {actions[-1]: 1.0}


def test_its_choices_do_not_depend_on_hidden_cards() -> None:
    """Two Babette deals that differ only in cards unseen at the start: the same choices until an
    observation tells them apart (the solver sees consistent deals, never the real one)."""
    env = gym.make("patience_gym/Babette-v0")
    check_blind_to_hidden_cards(env, lambda: make_safe("budget=300,probe=0"), 60)


def test_settings_are_checked_and_named() -> None:
    assert make_policy("safe:budget=1000,probe=0,samples=2").name == "safe(budget=1000,probe=0,samples=2)"
    with pytest.raises(ValueError, match="probe must be"):
        make_safe("budget=1000,probe=2000")
    with pytest.raises(ValueError, match="samples must be"):
        make_safe("samples=0")
    with pytest.raises(ValueError, match="not understood"):
        make_safe("nodes=3")
