"""Klondike's solver hooks (src/native/klondike.cpp): the pass count in the canonical key, the safe
move of an exposed ace, stock macro moves ("turn k times, then play the talon's top card"), the
cycle-collapsing canonical key and its direct hash, and the safe talon move of draw 1. Won lines
replay through gym.make, a hand-built deal whose win needs the last card of the stock is won, and
the hooks change no verdict the plain search (hooks off) reaches."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import patience_gym  # noqa: F401
from patience_gym.games import get_variant
from patience_gym.native import native_available
from patience_gym.solver import solve_deal
from patience_gym.testing import deck as deck_of
from tests.helpers import native_game, plain_verdicts, replay_wins

pytestmark = pytest.mark.skipif(not native_available(), reason="the solver runs on the native engine")

KLONDIKE = get_variant("Klondike-v0")
DEFAULT: dict[str, Any] = {}
BLAKE_GENT: dict[str, Any] = {"draw": 3, "passes": None, "partial_moves": True}
OPTION_SETS = [
    pytest.param(DEFAULT, id="draw1-pass1"),
    pytest.param(BLAKE_GENT, id="draw3-unlimited-partial"),
]
TALON_F, STOCK = 0, 15  # action ids (klondike.py: _TALON_F, _STOCK)


def pack_from(piles: list[list[str]], stock_turned_first: list[str]) -> list[str]:
    """A pack dealing ``piles`` (each listed bottom to top; pile i holds i + 1 cards) and a stock
    that turns up its cards in the order given (the deal goes row by row: row r gives piles
    r..6 their card r)."""
    assert [len(p) for p in piles] == list(range(1, 8)) and len(stock_turned_first) == 24
    rows = [piles[i][r] for r in range(7) for i in range(r, 7)]
    return rows + stock_turned_first


# Ranks 1-6 in the stock, turned up from the sixes down (spades, hearts, diamonds, clubs within a
# rank), so the first ace, the ace of spades, is the 21st card turned; ranks 7-K in the tableau,
# each pile in one suit with its lowest card last (pile 6: the clubs, 7 on top; pile 5: the
# diamonds from 8, pile 0 the 7 of diamonds; and so on). No card can reach a foundation before an
# ace. Turning all 24 cards leaves the talon showing AC, AD, AH, AS, 2C, ... from the top: each is
# the next card its foundation wants, so the talon plays off, then each pile.
DEEP_STOCK = pack_from(
    [
        ["7D"],
        ["8H", "7H"],
        ["9S", "8S", "7S"],
        ["KS", "QS", "JS", "TS"],
        ["KH", "QH", "JH", "TH", "9H"],
        ["KD", "QD", "JD", "TD", "9D", "8D"],
        ["KC", "QC", "JC", "TC", "9C", "8C", "7C"],
    ],
    [r + s for r in "65432A" for s in "SHDC"],
)


@pytest.mark.parametrize("options", OPTION_SETS)
def test_a_win_that_needs_the_last_card_of_the_stock(options: dict[str, Any]) -> None:
    deck = deck_of(" ".join(DEEP_STOCK))
    label = solve_deal(KLONDIKE, options, deck=deck, max_nodes=200_000)
    assert label.label == "won"
    line = list(label.actions)
    first_up = line.index(TALON_F)
    # The ace of spades is the 21st card turned (7 turns of three with draw 3), and no card
    # reaches a foundation before an ace: the first talon -> foundation comes after 21 turns.
    assert line[:first_up].count(STOCK) == (21 if options.get("draw", 1) == 1 else 7)
    game = native_game("Klondike-v0", options, deck=deck)._c
    for a in line:
        assert game.is_legal(a)
        game.apply(a)
    assert game.won
    # The plain search (one action per move, whole-state keys) agrees.
    from patience_gym.native import _module

    _module().solver_hooks(False)
    try:
        plain = solve_deal(KLONDIKE, options, deck=deck, max_nodes=2_000_000)
    finally:
        _module().solver_hooks(True)
    assert plain.label == "won"


@pytest.mark.parametrize("options", OPTION_SETS)
def test_won_lines_replay_through_gym_make(options: dict[str, Any]) -> None:
    won = 0
    for seed in range(12):
        label = solve_deal(KLONDIKE, options, seed=seed, max_nodes=500_000)
        if label.label == "won":
            won += 1
            assert replay_wins("Klondike-v0", seed, label.actions, **options), f"seed {seed}"
    assert won >= 2, "too few wins to check"


# Seeds the plain search decides within its budget (both verdicts among them); draw 3 with two
# passes checks the pass counter's bound on the turns of one macro move.
AGREE = [
    pytest.param(DEFAULT, (6, 7, 12, 13, 20, 22), 300_000, id="draw1-pass1"),
    pytest.param({"draw": 3, "passes": 2}, (1, 3, 5, 7, 10, 12), 300_000, id="draw3-pass2"),
]


@pytest.mark.parametrize(("options", "seeds", "budget"), AGREE)
def test_macro_moves_agree_with_the_plain_search(
    options: dict[str, Any], seeds: tuple[int, ...], budget: int
) -> None:
    plain = plain_verdicts(KLONDIKE, options, seeds, budget)
    decided = {s: v for s, v in plain.items() if v != "unknown"}
    assert len(decided) >= 3, "the plain search decided too few of the sample"
    for seed, verdict in decided.items():
        assert solve_deal(KLONDIKE, options, seed=seed, max_nodes=5_000_000).label == verdict, f"seed {seed}"


def test_macro_moves_agree_with_the_plain_search_late_in_blake_and_gents_game() -> None:
    # With draw 3, unlimited passes and partial moves the plain search decides no whole deal
    # within 300,000 nodes; it does decide positions late in a game: the first 80% of a won
    # line, then a few random legal moves.
    from patience_gym.native import _module
    from patience_gym.solver import solve_line

    rng = np.random.default_rng(1)
    compared = 0
    for seed in range(6):
        deck = list(native_game("Klondike-v0", BLAKE_GENT, seed=seed).deck())
        won = solve_deal(KLONDIKE, BLAKE_GENT, seed=seed, max_nodes=300_000)
        if won.label != "won":
            continue
        line = list(won.actions[: int(0.8 * len(won.actions))])
        game = native_game("Klondike-v0", BLAKE_GENT, deck=deck)._c
        for a in line:
            game.apply(a)
        for _ in range(6):
            legal = [a for a in range(game.n_actions) if game.is_legal(a)]
            if not legal:
                break
            line.append(int(rng.choice(legal)))
            game.apply(line[-1])
        _module().solver_hooks(False)
        try:
            plain = solve_line(KLONDIKE, BLAKE_GENT, deck, line, max_nodes=300_000).label
        finally:
            _module().solver_hooks(True)
        if plain != "unknown":
            assert solve_line(KLONDIKE, BLAKE_GENT, deck, line, max_nodes=3_000_000).label == plain
            compared += 1
    assert compared >= 3


def test_canonical_key_collapses_talon_sizes_on_the_turning_cycle_only_with_unlimited_passes() -> None:
    for passes, same in ((None, True), (5, False)):
        game = native_game("Klondike-v0", {"draw": 3, "passes": passes}, seed=4)
        c = game._c.clone()
        c.apply(STOCK)  # 3 cards on the talon
        three = (bytes(c.canonical_key()), c.canonical_hash())
        c.apply(STOCK)  # 6: on the cycle too, reachable from 3 and back (with unlimited passes)
        six = (bytes(c.canonical_key()), c.canonical_hash())
        assert (three == six) is same
        assert (three[0] == six[0]) == (three[1] == six[1])  # the hash follows the key


@pytest.mark.parametrize("options", OPTION_SETS)
def test_canonical_hash_is_a_function_of_the_canonical_key(options: dict[str, Any]) -> None:
    # Along random games (the pass counter, the turning cycle and trades of piles all occur),
    # equal keys give equal hashes and different keys different ones.
    rng = np.random.default_rng(0)
    hash_of: dict[bytes, int] = {}
    for seed in range(20):
        game = native_game("Klondike-v0", options, seed=seed)._c
        for _ in range(300):
            hash_of.setdefault(bytes(game.canonical_key()), game.canonical_hash())
            assert hash_of[bytes(game.canonical_key())] == game.canonical_hash()
            legal = [a for a in range(game.n_actions) if game.is_legal(a)]
            if not legal:
                break
            game.apply(int(rng.choice(legal)))
    assert len(set(hash_of.values())) == len(hash_of) > 500


def test_draw_one_plays_a_safe_talon_card_at_once() -> None:
    # The stock turns the ace of clubs up first: with draw 1 it goes up alone (safe move);
    # with draw 3 no talon card is played automatically.
    stock = ["AC"] + [c for c in DEEP_STOCK[28:] if c != "AC"]
    deck = deck_of(" ".join(DEEP_STOCK[:28] + stock))
    one = native_game("Klondike-v0", DEFAULT, deck=deck)
    one._c.apply(STOCK)
    assert one._c.safe_move() == TALON_F
    three = native_game(
        "Klondike-v0", {"draw": 3}, deck=deck_of(" ".join(DEEP_STOCK[:28] + stock[1:3] + ["AC"] + stock[3:]))
    )
    three._c.apply(STOCK)
    assert three._c.safe_move() == -1


def test_klondike_canonical_key_drops_the_pass_count_only_when_passes_are_unlimited():
    for passes, same in ((None, True), (3, False)):
        game = native_game("Klondike-v0", {"passes": passes}, seed=5)
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
        game = native_game("Klondike-v0", {}, seed=seed)
        text = game.render().splitlines()
        aces = [i for i in range(7) if text[2 + i].split()[-1][0] == "A"]
        if aces:
            assert game._c.safe_move() == 1 + aces[0]
            return
    pytest.fail("no deal of seeds 0-49 shows an ace")
