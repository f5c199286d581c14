"""The solver's hooks for Klondike, Nestor, Babette and The Kings (src/native/<game>.cpp):
won lines replay through gym.make, hand-checkable deals get the right verdict, canonical keys
collapse only interchangeable piles, and the hooks change no verdict the exact defaults reach."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import patience_gym  # noqa: F401
from patience_gym.games import get_variant
from patience_gym.native import NativeGame, make_game, native_available
from patience_gym.solver import solve_deal
from patience_gym.testing import deck as deck_of
from tests.helpers import plain_verdicts, replay_wins

pytestmark = pytest.mark.skipif(not native_available(), reason="the solver runs on the native engine")

SUITS = "CDHS"
RANKS = "A23456789TJQK"

# (env id, options, seeds, node budget): each option set the solver labels, a few quick deals.
CASES: list[tuple[str, dict[str, Any], Sequence[int], int]] = [
    ("Klondike-v0", {}, range(6, 8), 200_000),
    ("Klondike-v0", {"draw": 3, "passes": None, "partial_moves": True}, range(0, 6), 1_000_000),
    ("Klondike-v0", {"draw": 1, "passes": None, "partial_moves": True}, range(0, 6), 1_000_000),
    ("Nestor-v0", {}, range(0, 10), 200_000),
    ("Nestor-v0", {"reserve": "open"}, range(0, 10), 200_000),
    ("Babette-v0", {}, range(0, 6), 300_000),
    ("TheKings-v0", {}, range(0, 6), 200_000),
    ("TheKings-v0", {"sequences": "either"}, range(0, 6), 200_000),
]


@pytest.mark.parametrize(("env_id", "options", "seeds", "budget"), CASES)
def test_won_lines_replay_through_gym_make(env_id, options, seeds, budget):
    won = 0
    for seed in seeds:
        label = solve_deal(get_variant(env_id), options, seed=seed, max_nodes=budget)
        if label.label == "won":
            won += 1
            assert replay_wins(env_id, seed, label.actions, **options), f"seed {seed}: the line does not win"
    assert won, f"{env_id} {options}: no deal of {seeds} won, nothing replayed"


def game_of(env_id: str, options: dict[str, Any], seed: int) -> NativeGame:
    game = make_game(get_variant(env_id), "native", **options)
    assert isinstance(game, NativeGame)
    game.new_game(np.random.default_rng(seed))
    return game


# ---- verdicts checked by hand -------------------------------------------------------------------


def nestor_deck(rows: list[list[str]], reserve: list[str]) -> list[str]:
    return [c for row in rows for c in row] + reserve


def test_nestor_deal_paired_row_by_row_is_won():
    # Row k holds four cards of rank 2k+1 and four of rank 2k+2 (no column repeats a rank, so the
    # deal keeps this order): the last row pairs off, uncovering the next, and so on; then the
    # reserve (four kings) turns up two by two.
    rows = [[r + s for r in (RANKS[2 * k], RANKS[2 * k + 1]) for s in SUITS] for k in range(6)]
    deck = nestor_deck(rows, [f"K{s}" for s in SUITS])
    label = solve_deal(get_variant("Nestor-v0"), {}, deck=deck, max_nodes=10_000)
    assert label.label == "won" and label.length == 26 + 4


def test_nestor_deal_without_a_pair_is_lost():
    # The last row shows A-8 (one card of each rank), the reserve holds 9 T J Q: no two cards
    # ever available at once share a rank, so only the four turns are ever legal.
    deck = deck_of(
        "JS 2S KD 5H QD 6C KH AS 7C 2H TD 2C 6S 8D 9S TS 8H 8C 5S 6H AH 7S QS 5D 4D 9H 9D AD 7D 3C JH "
        "JD TH KS 3S 4C QH 4H KC 3D AC 2D 3H 4S 5C 6D 7H 8S 9C TC JC QC"
    )
    label = solve_deal(get_variant("Nestor-v0"), {}, deck=deck, max_nodes=10_000)
    assert label.label == "lost" and label.nodes == 4
    game = make_game(get_variant("Nestor-v0"), "native")
    game.new_game(None, deck)
    for _ in range(4):
        assert game.legal_actions() == [66]  # only "turn up reserve"
        game.apply(66)
    assert game.legal_actions() == []


# ---- canonical keys --------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", ["Nestor-v0", "TheKings-v0"])
def test_canonical_key_collapses_only_what_the_rules_cannot_tell_apart(env_id):
    # Nestor: the same deal with columns 0 and 1 traded (their cards swapped in every row).
    # The Kings: the same deal with clubs and diamonds traded (no rule looks at a suit).
    game = game_of(env_id, {}, 11 if env_id == "TheKings-v0" else 4)
    deck = game.deck()
    if env_id == "Nestor-v0":
        # The dealt columns (the deal rectifies the pack), laid out as a pack that deals them
        # as they are, with columns 0 and 1 traded; then the reserve.
        names = [RANKS[c % 13] + SUITS[c // 13] for c in game._c.cards_in_play()]
        cols = [names[6 * i : 6 * i + 6] for i in range(8)]
        cols[0], cols[1] = cols[1], cols[0]
        deck = [cols[i][k] for k in range(6) for i in range(8)] + names[48:]
    else:
        deck = [c[0] + {"C": "D", "D": "C"}.get(c[1], c[1]) for c in deck]
    other = make_game(get_variant(env_id), "native")
    assert isinstance(other, NativeGame)
    other.new_game(None, deck)
    assert bytes(other._c.state_key()) != bytes(game._c.state_key())
    assert bytes(other._c.canonical_key()) == bytes(game._c.canonical_key())
    # Another deal, or the same one a move later: another key.
    assert bytes(game_of(env_id, {}, 12)._c.canonical_key()) != bytes(game._c.canonical_key())
    moved = game._c.clone()
    moved.apply(game.legal_actions()[0])
    assert bytes(moved.canonical_key()) != bytes(game._c.canonical_key())


def test_klondike_canonical_key_drops_the_pass_count_only_when_passes_are_unlimited():
    for passes, same in ((None, True), (3, False)):
        game = game_of("Klondike-v0", {"passes": passes}, 5)
        c = game._c.clone()
        for _ in range(24):  # through the stock once ...
            c.apply(15)
        before = bytes(c.canonical_key())
        c.apply(15)  # ... turn the talon over (a new pass) and through it again
        for _ in range(24):
            c.apply(15)
        assert (bytes(c.canonical_key()) == before) is same


def test_klondike_safe_move_plays_an_exposed_ace():
    # Some seed shows an ace at a pile's end: the safe move is that pile -> foundation.
    for seed in range(50):
        game = game_of("Klondike-v0", {}, seed)
        text = game.render().splitlines()
        aces = [i for i in range(7) if text[2 + i].split()[-1][0] == "A"]
        if aces:
            assert game._c.safe_move() == 1 + aces[0]
            return
    pytest.fail("no deal of seeds 0-49 shows an ace")


# ---- the hooks change no verdict -----------------------------------------------------------------

# Deals the exact defaults decide within the budget (small/easy ones): the hooks must agree.
AGREE: list[tuple[str, dict[str, Any], Sequence[int], int]] = [
    ("Klondike-v0", {}, (12, 13, 20, 22, 6, 7), 300_000),
    ("Nestor-v0", {}, range(0, 12), 300_000),
    ("Nestor-v0", {"reserve": "open"}, range(0, 8), 300_000),
    ("Babette-v0", {}, range(0, 8), 300_000),
    ("TheKings-v0", {}, range(0, 8), 300_000),
    ("TheKings-v0", {"sequences": "either"}, range(0, 8), 300_000),
]


@pytest.mark.parametrize(("env_id", "options", "seeds", "budget"), AGREE)
def test_hooks_agree_with_the_exact_defaults(env_id, options, seeds, budget):
    variant = get_variant(env_id)
    plain = plain_verdicts(variant, options, seeds, budget)
    compared = 0
    for seed, verdict in plain.items():
        if verdict == "unknown":
            continue
        hooked = solve_deal(variant, options, seed=seed, max_nodes=20 * budget).label
        assert hooked == verdict, f"seed {seed}: defaults say {verdict}, hooks say {hooked}"
        compared += 1
    assert compared, "the defaults decided none of the sample"
