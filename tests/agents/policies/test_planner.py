"""The determinized planner (patience_gym.agents.policies.planner): blind to hidden cards, legal,
configurable, and better than greedy where hindsight helps."""

from __future__ import annotations

import pickle
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.agents.policies.base import GreedyPolicy, Policy
from patience_gym.agents.policies.planner import PlannerPolicy, make_planner, parse_planner_spec
from patience_gym.agents.registry import make_policy
from patience_gym.determinize import unseen_positions
from patience_gym.env import PatienceEnv
from patience_gym.native import native_available
from tests.helpers import PORTED, check_blind_to_hidden_cards, choice_trace

pytestmark = pytest.mark.skipif(not native_available(), reason="the planner's solver needs the native engine")

SMALL = "samples=3,budget=2000,retry=4"  # cheap settings: the tests check behaviour, not strength


def _play(env: gym.Env[Any, Any], policy: Policy, seed: int, deck: list[str] | None = None) -> bool:
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    obs, info = env.reset(seed=seed, options={"deck": deck} if deck else None)
    policy.reset(seed)
    term = trunc = False
    while not (term or trunc) and info["action_mask"].any():
        obs, _, term, trunc, info = env.step(policy(core, obs))
    return bool(info["won"])


@pytest.mark.parametrize(
    ("env_name", "kwargs"),
    [
        ("Klondike-v0", {"passes": None}),
        ("Anna-v0", {}),
        ("Congress-v0", {}),
        ("Nestor-v0", {}),
        ("Klondike-v0", {"passes": None, "_planner": SMALL + ",probe=2000"}),  # the probe: as blind
        ("Anna-v0", {"refill": "pack", "_planner": SMALL + ",progress=1"}),  # progress moves: as blind
        ("Klondike-v0", {"_planner": SMALL + ",rollouts=4"}),  # rollout moves: as blind
        ("LightAndShade-v0", {"_planner": SMALL + ",rollouts=2"}),
        ("Babette-v0", {"_planner": SMALL + ",order=1"}),  # the ordering's fallback: as blind
    ],
)
def test_choices_do_not_depend_on_hidden_cards(env_name: str, kwargs: dict[str, Any]) -> None:
    """Two deals that differ only in cards unseen at the start (the later half of them dealt again
    at random): the same seed gives the same choices until an observation tells the deals apart."""
    kwargs = dict(kwargs)
    spec = kwargs.pop("_planner", SMALL)
    env = gym.make(f"patience_gym/{env_name}", **kwargs)
    check_blind_to_hidden_cards(env, lambda: make_planner(spec), 150)


@pytest.mark.parametrize("variant", PORTED, ids=lambda v: v.env_name)
def test_the_planner_takes_legal_actions_only(variant: Any) -> None:
    planner = make_planner(SMALL)
    trace = choice_trace(gym.make(variant.env_id), planner, 11, None, 80)
    assert trace and planner.actions == [a for _, a, _ in trace]
    assert sum(planner.stats.values()) == len(planner.actions)


def test_the_spec_parses_and_bad_settings_are_refused() -> None:
    p = make_policy("planner:samples=4, budget=5_000")
    assert isinstance(p, PlannerPolicy) and (p.samples, p.budget, p.retry) == (4, 5000, 8)
    default = make_policy("planner")
    assert isinstance(default, PlannerPolicy) and (default.samples, default.budget) == (8, 20_000)
    assert parse_planner_spec("") == {}
    for spec, message in [
        ("planner:samples=0", "samples=0 must be a whole number >= 1"),
        ("planner:budget=lots", "budget='lots' must be a whole number >= 1"),
        ("planner:depth=3", "'depth=3' not understood; use name=value with: samples"),
        ("planner:samples", "'samples' not understood"),
        ("planner:samples=2,samples=3", "samples is given twice"),
    ]:
        with pytest.raises(ValueError, match=message):
            make_policy(spec)
    spec_help = r"planner\[:samples=8,budget=20000,retry=8,probe=0,progress=0,known=0,rollouts=0,order=0\]"
    with pytest.raises(ValueError, match=spec_help):
        make_policy("planer")
    with pytest.raises(ValueError, match="budget must be a whole number >= 1"):
        PlannerPolicy(budget=0)
    probed = make_policy("planner:budget=5000,probe=5000")
    assert isinstance(probed, PlannerPolicy) and probed.probe == 5000 and "probe=5000" in probed.name
    assert make_planner("probe=0").probe == 0 and "probe" not in make_planner("").name
    with pytest.raises(ValueError, match="probe=-1 must be a whole number >= 0"):
        make_policy("planner:probe=-1")
    with pytest.raises(ValueError, match=r"probe must be a whole number from 0 to the budget \(5000\)"):
        make_policy("planner:budget=5000,probe=6000")
    with pytest.raises(ValueError, match="progress must be 0 or 1, got 2"):
        make_policy("planner:progress=2")
    assert make_planner("progress=0").progress == 0 and make_planner("progress=1").progress == 1
    assert make_planner("rollouts=16").rollouts == 16 and "rollouts=16" in make_planner("rollouts=16").name
    with pytest.raises(ValueError, match="rollouts=-2 must be a whole number >= 0"):
        make_policy("planner:rollouts=-2")
    with pytest.raises(ValueError, match="progress=1 and rollouts=N are two fallbacks; give one of them"):
        make_policy("planner:progress=1,rollouts=4")
    with pytest.raises(ValueError, match="order must be 0 or 1, got 2"):
        make_policy("planner:order=2")


def test_the_probe_setting_reaches_the_solver() -> None:
    # Louis: the depth-first search rarely wins a sampled deal within 3,000 nodes, the probe often
    # does, so with it the planner decides by solved deals where it otherwise falls back to greedy.
    env = gym.make("patience_gym/Louis-v0")
    by_plan = {}
    for spec in ("samples=2,budget=3000,retry=2", "samples=2,budget=3000,probe=3000,retry=2"):
        planner = make_planner(spec)
        _play(env, planner, 5)
        by_plan[spec] = planner.stats["solved"] + planner.stats["plan"]
    plain, probed = by_plan.values()
    assert probed > plain, by_plan


@pytest.mark.parametrize(
    ("env_id", "options", "seed", "plain_spec", "setting", "how"),
    [
        # progress=1: each move greedy's cycle guard allows is searched on the sampled deals
        ("Anna-v0", {"refill": "pack"}, 3, SMALL, "progress=1", "progress"),
        # rollouts=N: each allowed move rolled out on N sampled deals, the most cards up played
        ("Klondike-v0", {}, 31, SMALL, "rollouts=16", "rollout"),
        # order=1: the solver's move ordering's first move (the solver all but off: one node)
        ("Klondike-v0", {}, 64, "samples=1,budget=1,retry=4", "order=1", "order"),
    ],
)
def test_a_fallback_setting_replaces_greedy_and_wins_what_greedy_loses(
    env_id: str, options: dict[str, Any], seed: int, plain_spec: str, setting: str, how: str
) -> None:
    """Where no sampled deal is won, each setting decides the move greedy would have played. On
    each fixed deal here greedy and the plain planner lose, the planner with the setting wins, and
    it never falls back on greedy's move."""
    env = gym.make(f"patience_gym/{env_id}", **options)
    assert not _play(env, GreedyPolicy(), seed)
    plain = make_planner(plain_spec)
    assert not _play(env, plain, seed) and plain.stats["greedy"] > 0
    fallback = make_planner(f"{plain_spec},{setting}")
    assert _play(env, fallback, seed)
    assert fallback.stats[how] > 0 and fallback.stats["greedy"] == 0
    assert setting in fallback.name and setting.split("=")[0] not in plain.name


def test_with_nothing_unseen_the_real_deal_is_solved_once_with_known_nodes(monkeypatch) -> None:
    """St. Louis shows every card once its pack is dealt. From then on a fresh solve is one solve
    of the real deal with ``known`` nodes (the probe scaled alike), where decisions with cards
    still hidden solve ``samples`` deals with the budget. Seed 8 is lost with the budget alone and
    won with ``known=200000``; ``known=0`` keeps the budget."""
    import patience_gym.agents.policies.planner as planner_module

    env = gym.make("patience_gym/StLouis-v0")
    calls: list[tuple[int, bool, int, int]] = []  # decision, cards unseen, nodes, probe
    real_solve = planner_module.solve_line

    def counted(*args: Any, max_nodes: int, probe_nodes: int) -> Any:
        calls.append((len(planner.actions), bool(unseen_positions(env)), max_nodes, probe_nodes))
        return real_solve(*args, max_nodes=max_nodes, probe_nodes=probe_nodes)

    monkeypatch.setattr(planner_module, "solve_line", counted)
    spec = "samples=2,budget=2000,probe=1800"
    planner = make_planner(spec)
    assert not _play(env, planner, 8) and planner.known == 0
    assert {(hidden, n, p) for _, hidden, n, p in calls} == {(True, 2000, 1800), (False, 2000, 1800)}
    calls.clear()
    planner = make_planner(spec + ",known=200000")
    assert _play(env, planner, 8) and "known=200000" in planner.name
    per_decision = {(d, hidden): 0 for d, hidden, _, _ in calls}
    for d, hidden, n, p in calls:
        per_decision[d, hidden] += 1
        assert (n, p) == ((2000, 1800) if hidden else (200_000, 180_000))
    assert {(hidden, k) for (_, hidden), k in per_decision.items()} == {(True, 2), (False, 1)}
    with pytest.raises(ValueError, match="known=-1 must be a whole number >= 0"):
        make_policy("planner:known=-1")


def test_the_planner_pickles_and_plays_the_same_afterwards() -> None:
    env = gym.make("patience_gym/Nestor-v0")
    planner = make_planner(SMALL)
    copy = pickle.loads(pickle.dumps(planner))
    won = [_play(env, p, 3) for p in (planner, copy)]
    assert won[0] == won[1] and planner.actions == copy.actions


def test_the_planner_wins_a_deal_greedy_loses() -> None:
    env = gym.make("patience_gym/Nestor-v0")
    assert not _play(env, GreedyPolicy(), 3)
    planner = make_planner("samples=4,budget=2000")
    assert _play(env, planner, 3)
    assert planner.stats["solved"] > 0  # won by solving sampled deals, not by the greedy fallback


def test_a_plan_is_reused_while_it_still_wins() -> None:
    env = gym.make("patience_gym/Louis-v0")
    planner = make_planner("samples=4,budget=5000")
    _play(env, planner, 0)
    assert planner.stats["plan"] > planner.stats["solved"] > 0


def test_the_planner_advises_without_playing_and_follows_the_move_played():
    """DAgger asks the planner's advice and plays another policy's move: after ``commit`` the
    planner knows the move played (its history, its greedy fallback's), and plays on unharmed."""
    env = gym.make("patience_gym/Klondike-v0")
    planner = PlannerPolicy(samples=2, budget=2_000)
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=3)
    planner.reset(3)
    played: list[int] = []
    for _ in range(30):
        legal = np.flatnonzero(info["action_mask"])
        assert planner.advise(env.unwrapped, obs) in legal
        move = int(rng.choice(legal))
        planner.commit(env.unwrapped, move)
        played.append(move)
        obs, _, term, trunc, info = env.step(move)
        assert planner.actions == played
        if term or trunc:
            break
    for _ in range(20):  # on its own again: its greedy fallback was kept in step (it raises if not)
        if not info["action_mask"].any():
            break
        obs, _, term, trunc, info = env.step(planner(env.unwrapped, obs))
        if term or trunc:
            break
