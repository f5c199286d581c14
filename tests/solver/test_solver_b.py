"""The solver's hooks for Louis / St. Louis, Anna, Light and Shade and The Congress
(src/native/<game>.cpp): won lines replay through gym.make, canonical keys collapse only what the
rules cannot tell apart, safe moves are the documented ones, and the hooks change no verdict the
exact defaults reach."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import patience_gym  # noqa: F401
from patience_gym.games import get_variant
from patience_gym.native import NativeGame, _module, make_game, native_available
from patience_gym.solver import solve_deal
from tests.helpers import plain_verdicts, replay_wins

pytestmark = pytest.mark.skipif(not native_available(), reason="the solver runs on the native engine")

# canonical_key / safe_move / solver_hooks are bound for tests by the solver core's commit.
needs_bindings = pytest.mark.skipif(
    not native_available() or not hasattr(_module(), "solver_hooks"),
    reason="needs _native.solver_hooks and Game.canonical_key (solver core)",
)

# (env id, options, seeds, node budget): each option set labelled, a few quick deals.
CASES: list[tuple[str, dict[str, Any], Sequence[int], int]] = [
    ("Louis-v0", {}, range(0, 12), 300_000),
    ("Anna-v0", {}, range(0, 6), 300_000),
    ("Anna-v0", {"refill": "pack"}, range(0, 6), 300_000),
    ("Congress-v0", {}, range(0, 6), 300_000),
]


@pytest.mark.parametrize(("env_id", "options", "seeds", "budget"), CASES)
def test_won_lines_replay_through_gym_make(
    env_id: str, options: dict[str, Any], seeds: Sequence[int], budget: int
) -> None:
    won = 0
    for seed in seeds:
        label = solve_deal(get_variant(env_id), options, seed=seed, max_nodes=budget)
        if label.label == "won":
            won += 1
            assert replay_wins(env_id, seed, label.actions, **options), f"seed {seed}: the line does not win"
    assert won, f"{env_id} {options}: no deal of {seeds} won, nothing replayed"


def game_of(
    env_id: str, options: dict[str, Any], *, seed: int | None = None, deck: list[str] | None = None
) -> NativeGame:
    game = make_game(get_variant(env_id), "native", **options)
    assert isinstance(game, NativeGame)
    game.new_game(np.random.default_rng(seed) if seed is not None else None, deck)
    return game


def key(game: NativeGame) -> bytes:
    return bytes(game._c.canonical_key())


def state(game: NativeGame) -> bytes:
    return bytes(game._c.state_key())


# ---- canonical keys --------------------------------------------------------------------------


@needs_bindings
def test_light_and_shade_key_ignores_suits_and_the_order_of_a_row() -> None:
    base = game_of("LightAndShade-v0", {}, seed=3)
    deck = base.deck()
    # Clubs and spades traded everywhere (no rule reads a suit, only the colour).
    swapped = [c[0] + {"C": "S", "S": "C"}.get(c[1], c[1]) for c in deck]
    other = game_of("LightAndShade-v0", {}, deck=swapped)
    assert state(other) != state(base) and key(other) == key(base)
    # A red card traded for a black one of the same rank: another game.
    i = next(k for k, c in enumerate(deck) if c[1] == "H" and c[0] != "A")
    recoloured = list(deck)
    recoloured[i] = deck[i][0] + "C" if deck[i][1] != "C" else deck[i][0] + "H"
    j = next(k for k, c in enumerate(deck) if k != i and c == recoloured[i])
    recoloured[j] = deck[i]
    if (i < 16) != (j < 16):  # one of them dealt to the rows, the other in the pack
        assert key(game_of("LightAndShade-v0", {}, deck=recoloured)) != key(base)


@needs_bindings
@pytest.mark.parametrize(
    ("env_id", "options"), [("Anna-v0", {}), ("Anna-v0", {"refill": "pack"}), ("Congress-v0", {})]
)
def test_helps_are_interchangeable(env_id: str, options: dict[str, Any]) -> None:
    # The first two helps dealt, traded (Anna deals its helps first; The Congress its four helps
    # first, then the rivers), give the same key; a help traded with a river card or with the
    # pack's next card does not.
    for seed in range(40):
        base = game_of(env_id, options, seed=seed)
        deck = base.deck()
        first = [k for k, c in enumerate(deck) if c[0] not in "JA"][:14]  # no knave (Anna), no ace (Congress)
        if env_id == "Anna-v0" and any(c[0] == "J" for c in deck[:10]):
            continue  # keep the deal's shape simple: no knave among the first cards
        a, b = first[0], first[1]
        if deck[a] == deck[b]:
            continue
        traded = list(deck)
        traded[a], traded[b] = deck[b], deck[a]
        other = game_of(env_id, options, deck=traded)
        assert state(other) != state(base) and key(other) == key(base)
        far = first[-1]  # a river card (The Congress) or the pack (Anna)
        if deck[far][0] == deck[a][0] and deck[far][1] == deck[a][1]:
            continue
        moved = list(deck)
        moved[a], moved[far] = deck[far], deck[a]
        assert key(game_of(env_id, options, deck=moved)) != key(base)
        return
    pytest.fail("no suitable deal among seeds 0-39")


@needs_bindings
def test_anna_queens_are_one_card() -> None:
    base = game_of("Anna-v0", {}, seed=5)
    deck = base.deck()
    swapped = [c[0] + ({"C": "H", "H": "C"}.get(c[1], c[1]) if c[0] == "Q" else c[1]) for c in deck]
    other = game_of("Anna-v0", {}, deck=swapped)
    assert state(other) != state(base) and key(other) == key(base)


@needs_bindings
def test_congress_rivers_are_ordered_while_the_pack_lasts() -> None:
    base = game_of("Congress-v0", {}, seed=2)
    deck = base.deck()
    rivers = [k for k, c in enumerate(deck) if c[0] != "A"][4:12]
    a, b = next((x, y) for x in rivers for y in rivers if deck[x] != deck[y])
    traded = list(deck)
    traded[a], traded[b] = deck[b], deck[a]
    assert key(game_of("Congress-v0", {}, deck=traded)) != key(base)


@needs_bindings
@pytest.mark.parametrize("env_id", ["Louis-v0", "StLouis-v0"])
def test_louis_packets_keep_their_places_while_a_re_deal_is_left(env_id: str) -> None:
    # Two deals that differ by two cards' places: the gathering order of a re-deal tells them
    # apart, so the keys differ (the packets are sorted only after the last re-deal).
    base = game_of(env_id, {}, seed=1)
    deck = base.deck()
    a, b = next((x, x + 1) for x in range(20, 90) if deck[x] != deck[x + 1] and deck[x][0] not in "AK")
    traded = list(deck)
    traded[a], traded[b] = deck[b], deck[a]
    assert key(game_of(env_id, {}, deck=traded)) != key(base)


# ---- safe moves --------------------------------------------------------------------------------


@needs_bindings
def test_light_and_shade_plays_a_two_at_once() -> None:
    # Every ace is up from the start, so a 2 on an Auxiliary top takes nothing (no ace is ever
    # off the foundations) and each colour's four aces leave room for the four 2s of the other.
    for seed in range(60):
        game = game_of("LightAndShade-v0", {}, seed=seed)
        tops = [line.split()[-1] for line in game.render().splitlines() if line.startswith("auxiliary")]
        twos = [i for i, t in enumerate(tops) if t[0] == "2"]
        if twos:
            assert game._c.safe_move() == twos[0]  # "auxiliary i -> foundation" is id i
            return
    pytest.fail("no deal of seeds 0-59 shows a 2 on an Auxiliary")


@needs_bindings
def test_congress_plays_nothing_from_the_rivers_while_the_pack_lasts() -> None:
    # A river card leaves a gap the next refill fills: never automatic while the pack lasts.
    for seed in range(30):
        game = game_of("Congress-v0", {}, seed=seed)
        assert game._c.safe_move() < 0 or 8 <= game._c.safe_move() < 16


# ---- the hooks change no verdict -----------------------------------------------------------------

AGREE: list[tuple[str, dict[str, Any], Sequence[int], int]] = [
    ("Louis-v0", {}, range(0, 10), 300_000),
    ("Anna-v0", {}, range(0, 10), 300_000),
    ("Anna-v0", {"refill": "pack"}, range(0, 10), 300_000),
    ("Congress-v0", {}, range(0, 10), 300_000),
    ("LightAndShade-v0", {"redeals": 0}, range(0, 10), 300_000),
]


@needs_bindings
@pytest.mark.parametrize(("env_id", "options", "seeds", "budget"), AGREE)
def test_hooks_agree_with_the_exact_defaults(
    env_id: str, options: dict[str, Any], seeds: Sequence[int], budget: int
) -> None:
    variant = get_variant(env_id)
    plain = plain_verdicts(variant, options, seeds, budget)
    compared = 0
    for seed, verdict in plain.items():
        if verdict == "unknown":
            continue
        hooked = solve_deal(variant, options, seed=seed, max_nodes=10 * budget).label
        assert hooked in (verdict, "unknown"), f"seed {seed}: defaults say {verdict}, hooks say {hooked}"
        compared += hooked == verdict
    if not compared:
        pytest.skip(f"{env_id}: the defaults decided none of the sample within {budget} nodes")
