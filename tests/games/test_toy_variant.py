"""A game declared in this file, on core/ machinery alone, runs through the whole contract.

This is the example of docs/adding-a-game.md: "Pairs", a one-pack toy (not a patience of the rule
book), is declared here with its own :class:`~patience_gym.games.Variant` row and registered by
:func:`patience_gym.register`, the function the package's own variants are registered by. No
project file names it: the environment, the rules contract, Gymnasium's checker, determinism,
pickling, the text render and the evaluator all take it as they take the project's games. Greedy
needs the game's heuristic, found by module name in ``agents/policies/heuristics/``; the test
puts one there for the run (a real game adds the file).
"""

from __future__ import annotations

import pickle
import sys
import types
from collections.abc import Iterator
from enum import Enum
from itertools import combinations
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import patience_gym
from patience_gym.core.cards import N_KINDS, card_name
from patience_gym.core.game import Game, ObsLayout, Option
from patience_gym.core.moves import Move, MoveTable, assert_never, group
from patience_gym.core.places import CardPlaces
from patience_gym.core.vocabulary import EQUAL_RANK
from patience_gym.games import BY_NAME, Variant
from patience_gym.testing import check_rollout

# ---- the game: one module's worth -----------------------------------------------------------


class Kind(Enum):
    PAIR = "pair"


class Pairs(Game[Kind]):
    """Pairs: the pack dealt into ``piles`` piles, each top card face up; two tops of equal rank
    are paired off (and the cards under them turn up). Won when all 52 cards are paired.

    Action table: one id per two piles ``i < j``, "pile i + pile j". Observation: ``card_place``
    (each card one-hot: a pile's top, paired off, or face down), then ``face_down`` (piles,) / (52 / piles).
    """

    name = "Pairs"
    n_packs = 1
    win_cards = N_KINDS
    default_max_steps = 100  # at most 26 pairs
    OPTIONS: ClassVar[dict[str, Option[Any]]] = {
        "piles": Option(4, "how many piles the pack is dealt into", (4, 2)),
    }
    STATE = ("piles", "paired")

    def configure(self, *, piles: int) -> None:
        self.n_piles = piles
        self.table = MoveTable.build(
            group(Kind.PAIR, "pile {0} + pile {1}", combinations(range(piles), 2)),
        )
        self.moves = self.table.moves
        self.places = CardPlaces([f"pile {i} top" for i in range(piles)] + ["paired", "face down"], 1)
        self.layout = ObsLayout(
            [
                ("card_place", self.places.shape, self.places.doc()),
                ("face_down", (piles,), f"cards under each pile's top / {N_KINDS // piles}"),
            ]
        )

    def deal(self, pack: list[int]) -> None:
        # card k of the pack goes to pile k % piles: pile i is pack[i::piles], its last card on top
        self.piles: list[list[int]] = [pack[i :: self.n_piles] for i in range(self.n_piles)]
        self.paired: list[int] = []

    def is_legal(self, action: int) -> bool:
        move = self.moves[action]
        src, dst = self.piles[move.src], self.piles[move.dst]
        return bool(src) and bool(dst) and EQUAL_RANK.fits(src[-1], dst[-1])

    def _apply(self, move: Move[Kind]) -> None:
        match move.kind:
            case Kind.PAIR:
                self.paired += [self.piles[move.src].pop(), self.piles[move.dst].pop()]
            case _:
                assert_never(move.kind)

    @property
    def foundation_cards(self) -> int:
        return len(self.paired)

    def observe(self, out: np.ndarray) -> None:
        places, where = self.places, []
        for i, pile in enumerate(self.piles):
            where += places.index(i, pile[-1:])
            where += places.index(self.n_piles + 1, pile[:-1])
        where += places.index(self.n_piles, self.paired)
        places.write(out, self.layout.offset("card_place"), where)
        face_down = self.layout.slice("face_down")
        out[face_down] = [max(len(p) - 1, 0) / (N_KINDS // self.n_piles) for p in self.piles]

    def render(self) -> str:
        rows = [
            f"pile {i}: " + " ".join(["##"] * (len(p) - 1) + [card_name(c) for c in p[-1:]])
            for i, p in enumerate(self.piles)
        ]
        return "\n".join([*rows, f"paired: {len(self.paired)}"])

    def cards_in_play(self) -> list[int]:
        return [c for p in self.piles for c in p] + self.paired

    def unseen_positions(self) -> list[int]:
        """The face-down cards: row ``r`` of pile ``i`` is the pack's card ``r * piles + i``."""
        return [r * self.n_piles + i for i, p in enumerate(self.piles) for r in range(len(p) - 1)]

    def moving_card(self, move: Move[Kind]) -> int | None:
        src = self.piles[move.src]
        return src[-1] if src else None


def heuristic(game: Pairs) -> float:
    """Greedy's score of a position: the cards paired, then the piles kept even."""
    return len(game.paired) - 0.01 * max(map(len, game.piles))


# ---- its registry row, registered as the project's are --------------------------------------

VARIANT = Variant("Pairs-v0", Pairs, summary="Pairs, one pack, pair equal tops (a toy)")
TWO = Variant("PairsTwo-v0", Pairs, {"piles": 2}, summary="Pairs on two piles (a toy)")


@pytest.fixture(scope="module", autouse=True)
def registered() -> Iterator[None]:
    """The toy variants registered for this module's tests, and taken out again after them (the
    registry tests expect the project's own ids alone)."""
    for variant in (VARIANT, TWO):
        patience_gym.register(variant)
    yield
    for variant in (VARIANT, TWO):
        gym.registry.pop(variant.env_id, None)
        BY_NAME.pop(variant.env_name, None)


@pytest.fixture
def with_heuristic(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This file's ``heuristic`` as the module greedy looks up: ``agents/policies/heuristics/``
    holds one file per game module, named as it is."""
    from patience_gym.agents.policies import heuristics

    module = types.ModuleType(f"{heuristics.__name__}.{Pairs.__module__.rsplit('.', 1)[-1]}")
    module.heuristic = heuristic  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    heuristics.heuristic_for.cache_clear()
    yield
    heuristics.heuristic_for.cache_clear()


ENV_NAMES = pytest.mark.parametrize("env_name", [VARIANT.env_name, TWO.env_name])


# ---- the contract ---------------------------------------------------------------------------


@ENV_NAMES
def test_registered_with_its_step_limit_and_made_on_the_python_engine(env_name: str) -> None:
    env = gym.make(f"patience_gym/{env_name}")
    assert env.spec is not None and env.spec.max_episode_steps == Pairs.default_max_steps
    assert env.unwrapped.engine == "python", "no native port: the Python engine, without being asked"  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="no native engine"):
        gym.make(f"patience_gym/{env_name}", engine="native")


def test_the_default_engine_is_native_only_where_a_port_exists() -> None:
    from patience_gym.games import get_variant
    from patience_gym.native import engine_for, native_available

    assert engine_for(VARIANT) == "python" and engine_for(VARIANT, "native") == "native"
    assert engine_for(get_variant("Klondike-v0")) == ("native" if native_available() else "python")


def test_registering_again_changes_nothing_and_a_taken_name_is_refused() -> None:
    patience_gym.register(VARIANT)
    with pytest.raises(ValueError, match="already"):
        patience_gym.register(Variant("Pairs-v0", Pairs, {"piles": 2}))


@ENV_NAMES
@pytest.mark.parametrize("seed", range(5))
def test_random_rollouts_keep_the_rules_contract(env_name: str, seed: int) -> None:
    """Masks agree with is_legal for every action, masked-in moves apply and masked-out ones are
    refused, cards are conserved, the observation stays in [0, 1] (patience_gym.testing)."""
    check_rollout(BY_NAME[env_name].make_game(), np.random.default_rng(seed))


@ENV_NAMES
def test_gymnasium_check_env(env_name: str) -> None:
    check_env(gym.make(f"patience_gym/{env_name}").unwrapped, skip_render_check=True)


@ENV_NAMES
def test_observations_lie_in_the_box_and_masks_agree(env_name: str) -> None:
    env = gym.make(f"patience_gym/{env_name}")
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    while True:
        assert env.observation_space.contains(obs)
        mask = env.unwrapped.action_masks()  # type: ignore[attr-defined]
        game = env.unwrapped.game  # type: ignore[attr-defined]
        assert [bool(m) for m in mask] == [game.is_legal(a) for a in range(game.n_actions)]
        assert np.array_equal(mask, info["action_mask"].astype(bool))
        if not mask.any():
            break
        obs, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        if term or trunc:
            break


def _rollout(seed: int) -> list[tuple[bytes, float, bool, bool]]:
    env = gym.make("patience_gym/Pairs-v0")
    obs, info = env.reset(seed=seed)
    out, rng = [(obs.tobytes(), 0.0, False, False)], np.random.default_rng(seed)
    while info["action_mask"].any():
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        out.append((obs.tobytes(), float(r), term, trunc))
        if term or trunc:
            break
    return out


def test_determinism() -> None:
    assert _rollout(7) == _rollout(7)
    assert _rollout(7)[0] != _rollout(8)[0], "another seed deals another game"


def test_pickle_round_trip() -> None:
    env = gym.make("patience_gym/Pairs-v0")
    _, info = env.reset(seed=3)
    clone = pickle.loads(pickle.dumps(env))
    assert clone.unwrapped.game.state_key() == env.unwrapped.game.state_key()  # type: ignore[attr-defined]
    for a in np.flatnonzero(info["action_mask"])[:1]:
        assert np.array_equal(env.step(int(a))[0], clone.step(int(a))[0])


def test_render_ansi_and_describe() -> None:
    env = gym.make("patience_gym/Pairs-v0", render_mode="ansi")
    env.reset(seed=0)
    text: object = env.render()
    assert isinstance(text, str) and text.splitlines()[0].startswith("pile 0: ## ")
    assert env.unwrapped.describe_action(0).endswith("pile 0 + pile 1")  # type: ignore[attr-defined]


def test_unknown_option_values_are_refused_with_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match="choose one of 4, 2"):
        gym.make("patience_gym/Pairs-v0", piles=3)


def test_random_through_evaluate() -> None:
    from patience_gym.agents.evaluation.evaluate import evaluate

    result = evaluate("Pairs-v0", "random", episodes=20, seed=0)
    assert result.games == 20 and result.env == "Pairs-v0"
    assert evaluate("Pairs-v0", "random", episodes=20, seed=0).wins == result.wins


def test_greedy_through_evaluate_with_the_games_heuristic(with_heuristic: None) -> None:
    from patience_gym.agents.evaluation.evaluate import evaluate

    greedy = evaluate("Pairs-v0", "greedy", episodes=20, seed=0)
    random = evaluate("Pairs-v0", "random", episodes=20, seed=0)
    assert greedy.games == 20 and greedy.mean_foundation_cards >= random.mean_foundation_cards
