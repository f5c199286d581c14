"""Winnable-only deals (``gym.make(id, deals="winnable")``, patience_gym.winnable): the shipped
lists are training seeds the solver won, a seed picks one deterministically, the deal is the
listed seed's, an agent can win it through the env, and every other request is refused in one line.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.games import VARIANTS, get_variant
from patience_gym.native import native_available
from patience_gym.solver import solve_deal
from patience_gym.winnable import DATA, labelled, winnable_seeds
from tests.helpers import ROOT, replay_wins

LABELLED = labelled()


def test_some_variants_are_labelled_and_the_rest_are_named_in_the_docs() -> None:
    assert LABELLED, "no winnable lists in patience_gym/data/winnable/"
    section = (ROOT / "docs" / "environments.md").read_text().split("## Winnable deals")[1].split("\n## ")[0]
    for v in VARIANTS:
        assert v.env_name in section, f"{v.env_name}: docs/environments.md says nothing of its list"
    for env_id in LABELLED:  # the table's figures are the files' (scripts/winnable.py table)
        data = json.loads(resources.files("patience_gym").joinpath(f"{DATA}/{env_id}.json").read_text())
        listed = data["won"] - data["won_over_step_limit"]
        assert (
            f"| {env_id} | {data['tried']:,} | {data['decided']:,} | {data['won']:,} | {listed:,} |"
            in section
        )


@pytest.mark.parametrize("env_id", LABELLED)
def test_a_list_is_training_seeds_the_solver_won_with_its_provenance(env_id: str) -> None:
    data = json.loads(resources.files("patience_gym").joinpath(f"{DATA}/{env_id}.json").read_text())
    seeds = winnable_seeds(get_variant(env_id), get_variant(env_id).make_game().options).seeds
    assert len(seeds) == data["won"] - data["won_over_step_limit"] > 0
    assert np.all(np.diff(seeds) > 0), "sorted, each once"
    assert seeds[0] >= 1_000_000, "training seeds only: 0-999 and 5000-5999 are held out"
    start, stop = data["seeds_tried"]
    assert start <= seeds[0] and seeds[-1] < stop and data["tried"] == stop - start
    assert data["won"] <= data["decided"] <= data["tried"]
    assert {"budget", "commit", "labelled_by", "options"} <= set(data)


@pytest.mark.parametrize("env_id", LABELLED)
def test_a_seed_picks_a_listed_deal_deterministically(env_id: str) -> None:
    env: Any = gym.make(f"patience_gym/{env_id}", deals="winnable")
    obs, _ = env.reset(seed=11)
    first = env.unwrapped.deal_seed
    again, _ = env.reset(seed=11)
    assert env.unwrapped.deal_seed == first and np.array_equal(obs, again)
    assert first in set(winnable_seeds(env.unwrapped.variant, env.unwrapped.game.options).seeds.tolist())
    plain, _ = gym.make(f"patience_gym/{env_id}").reset(seed=first)  # the listed seed's own deal
    assert np.array_equal(obs, plain)
    picked = set()
    for _ in range(20):  # later resets go on drawing from the env's generator
        env.reset()
        picked.add(env.unwrapped.deal_seed)
    assert len(picked) > 10
    other: Any = gym.make(f"patience_gym/{env_id}")
    other.reset(seed=3)
    deck = other.unwrapped.game.deck()
    env.reset(options={"deck": deck})  # a given pack is dealt as given
    assert env.unwrapped.deal_seed is None and env.unwrapped.game.deck() == deck


@pytest.mark.skipif(not native_available(), reason="the solver is the native engine's")
@pytest.mark.parametrize("env_id", LABELLED)
def test_an_agent_can_win_listed_deals_through_the_env(env_id: str) -> None:
    """The pack step replayed every line; here the solver finds a line again for a few listed
    seeds, and it wins through ``gym.make`` within the registered step limit."""
    variant = get_variant(env_id)
    for seed in winnable_seeds(variant, variant.make_game().options).seeds[:3].tolist():
        label = solve_deal(variant, seed=seed, max_nodes=1_000_000, probe_nodes=100_000)
        assert label.label == "won" and len(label.actions) <= variant.max_episode_steps
        assert replay_wins(env_id, seed, label.actions)


@pytest.mark.parametrize("env_id", LABELLED)
def test_check_env_passes_with_winnable_deals(env_id: str) -> None:
    check_env(gym.make(f"patience_gym/{env_id}", deals="winnable").unwrapped, skip_render_check=True)


def test_other_requests_are_refused_in_one_line_saying_what_is_allowed() -> None:
    env_id = LABELLED[0]
    with pytest.raises(
        ValueError, match=r"^deals='solvable' is not allowed; choose one of 'random', 'winnable'$"
    ):
        gym.make(f"patience_gym/{env_id}", deals="solvable")
    unlabelled = [v for v in VARIANTS if v.env_name not in LABELLED]
    for v in unlabelled:
        with pytest.raises(
            ValueError, match=rf"^deals='winnable': {v.env_name} has no labelled .*labelled: "
        ):
            gym.make(v.env_id, deals="winnable")
    rule = next(v for v in VARIANTS if v.env_name in LABELLED and v.game.OPTIONS and not v.options)
    name, option = next((n, o) for n, o in rule.game.OPTIONS.items() if not o.view_only and o.choices)
    other = next(c for c in option.choices or () if c != option.default)
    with pytest.raises(ValueError, match=rf"registered rules only, not {name}="):
        gym.make(rule.env_id, deals="winnable", **{name: other})
    if "Klondike-v0" in LABELLED:  # an option that changes only what is shown keeps the list
        gym.make("patience_gym/Klondike-v0", deals="winnable", stock="known").reset(seed=0)
    if native_available():
        with pytest.raises(ValueError, match=r"batched environment deals random packs only"):
            gym.make_vec(
                f"patience_gym/{env_id}",
                num_envs=2,
                vectorization_mode="vector_entry_point",
                deals="winnable",
            )
    sync = gym.make_vec(f"patience_gym/{env_id}", num_envs=2, vectorization_mode="sync", deals="winnable")
    sync.reset(seed=0)
