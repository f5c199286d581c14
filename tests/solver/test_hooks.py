"""The solver's hooks for every game (src/native/<game>.cpp): won lines replay through gym.make,
hand-checkable deals get the right verdict, canonical keys collapse only what the rules cannot tell
apart, safe moves are the documented ones, and the hooks change no verdict the exact defaults reach.
Klondike's and Light and Shade's macro moves have files of their own."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

import patience_gym  # noqa: F401
from patience_gym.games import get_variant
from patience_gym.native import NativeGame, _module, make_game, native_available
from patience_gym.solver import solve_deal
from patience_gym.testing import deck as deck_of
from tests.helpers import canonical_key, native_game, plain_verdicts, replay_wins, state_key

pytestmark = pytest.mark.skipif(
    not native_available() or not hasattr(_module(), "solver_hooks"),
    reason="the solver and its hooks (_native.solver_hooks, Game.canonical_key) run on the native engine",
)

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
    game = native_game(env_id, {}, seed=11 if env_id == "TheKings-v0" else 4)
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
    assert bytes(native_game(env_id, {}, seed=12)._c.canonical_key()) != bytes(game._c.canonical_key())
    moved = game._c.clone()
    moved.apply(game.legal_actions()[0])
    assert bytes(moved.canonical_key()) != bytes(game._c.canonical_key())


@pytest.mark.parametrize(
    ("env_id", "options"), [("Anna-v0", {}), ("Anna-v0", {"refill": "pack"}), ("Congress-v0", {})]
)
def test_helps_are_interchangeable(env_id: str, options: dict[str, Any]) -> None:
    # The first two helps dealt, traded (Anna deals its helps first; The Congress its four helps
    # first, then the rivers), give the same key; a help traded with a river card or with the
    # pack's next card does not.
    for seed in range(40):
        base = native_game(env_id, options, seed=seed)
        deck = base.deck()
        first = [k for k, c in enumerate(deck) if c[0] not in "JA"][:14]  # no knave (Anna), no ace (Congress)
        if env_id == "Anna-v0" and any(c[0] == "J" for c in deck[:10]):
            continue  # keep the deal's shape simple: no knave among the first cards
        a, b = first[0], first[1]
        if deck[a] == deck[b]:
            continue
        traded = list(deck)
        traded[a], traded[b] = deck[b], deck[a]
        other = native_game(env_id, options, deck=traded)
        assert state_key(other) != state_key(base) and canonical_key(other) == canonical_key(base)
        far = first[-1]  # a river card (The Congress) or the pack (Anna)
        if deck[far][0] == deck[a][0] and deck[far][1] == deck[a][1]:
            continue
        moved = list(deck)
        moved[a], moved[far] = deck[far], deck[a]
        assert canonical_key(native_game(env_id, options, deck=moved)) != canonical_key(base)
        return
    pytest.fail("no suitable deal among seeds 0-39")


def test_anna_queens_are_one_card() -> None:
    base = native_game("Anna-v0", {}, seed=5)
    deck = base.deck()
    swapped = [c[0] + ({"C": "H", "H": "C"}.get(c[1], c[1]) if c[0] == "Q" else c[1]) for c in deck]
    other = native_game("Anna-v0", {}, deck=swapped)
    assert state_key(other) != state_key(base) and canonical_key(other) == canonical_key(base)


def test_congress_rivers_are_ordered_while_the_pack_lasts() -> None:
    base = native_game("Congress-v0", {}, seed=2)
    deck = base.deck()
    rivers = [k for k, c in enumerate(deck) if c[0] != "A"][4:12]
    a, b = next((x, y) for x in rivers for y in rivers if deck[x] != deck[y])
    traded = list(deck)
    traded[a], traded[b] = deck[b], deck[a]
    assert canonical_key(native_game("Congress-v0", {}, deck=traded)) != canonical_key(base)


@pytest.mark.parametrize("env_id", ["Louis-v0", "StLouis-v0"])
def test_louis_packets_keep_their_places_while_a_re_deal_is_left(env_id: str) -> None:
    # Two deals that differ by two cards' places: the gathering order of a re-deal tells them
    # apart, so the keys differ (the packets are sorted only after the last re-deal).
    base = native_game(env_id, {}, seed=1)
    deck = base.deck()
    a, b = next((x, x + 1) for x in range(20, 90) if deck[x] != deck[x + 1] and deck[x][0] not in "AK")
    traded = list(deck)
    traded[a], traded[b] = deck[b], deck[a]
    assert canonical_key(native_game(env_id, {}, deck=traded)) != canonical_key(base)


def _deck_with_first(env_id: str, n: int, avoid: str) -> list[str]:
    """A shuffled deck whose first n cards contain no rank ``avoid`` (dealt straight to the layout)."""
    import numpy as np

    for seed in range(500):
        game = get_variant(env_id).make_game()
        game.new_game(np.random.default_rng(seed))
        deck = game.deck()
        if not any(c[0] == avoid for c in deck[:n]) and len({c for c in deck[:n]}) == n:
            return deck
    raise AssertionError("no such deck")


@pytest.mark.parametrize(("env_id", "n", "avoid"), [("Anna-v0", 8, "J"), ("LightAndShade-v0", 4, "A")])
def test_canonical_keys_ignore_the_order_of_interchangeable_piles(env_id, n, avoid):
    # Anna's first 8 cards become the helps, Light and Shade's first 4 non-aces the Auxiliaries:
    # reversing them permutes those piles and nothing else.
    deck = _deck_with_first(env_id, n, avoid)
    if env_id == "LightAndShade-v0":
        assert not any(c[0] == "A" for c in deck[:n])  # the aces are taken out wherever they lie
    permuted = deck[:n][::-1] + deck[n:]
    a, b = native_game(env_id, deck=deck), native_game(env_id, deck=permuted)
    assert a._c.state_key() != b._c.state_key()
    assert a._c.canonical_key() == b._c.canonical_key()
    # A card of the layout swapped with one of the pack is another position.
    other = [deck[n], *deck[1:n], deck[0], *deck[n + 1 :]]
    if other[0][0] != avoid and other[0] != deck[0]:
        assert native_game(env_id, deck=other)._c.canonical_key() != a._c.canonical_key()


# ---- safe moves --------------------------------------------------------------------------------


def test_congress_plays_nothing_from_the_rivers_while_the_pack_lasts() -> None:
    # A river card leaves a gap the next refill fills: never automatic while the pack lasts.
    for seed in range(30):
        game = native_game("Congress-v0", {}, seed=seed)
        assert game._c.safe_move() < 0 or 8 <= game._c.safe_move() < 16


# ---- the hooks change no verdict -----------------------------------------------------------------


def _verdicts(env_id: str, options: dict[str, Any], seeds: Sequence[int], budget: int, factor: int):
    """(seed, the exact defaults' verdict within ``budget``, the hooks' verdict within ``factor``
    times it) for every seed of ``seeds`` the exact defaults decide."""
    variant = get_variant(env_id)
    plain = plain_verdicts(variant, options, seeds, budget)
    return [
        (seed, verdict, solve_deal(variant, options, seed=seed, max_nodes=factor * budget).label)
        for seed, verdict in plain.items()
        if verdict != "unknown"
    ]


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
    compared = _verdicts(env_id, options, seeds, budget, factor=20)
    for seed, verdict, hooked in compared:
        assert hooked == verdict, f"seed {seed}: defaults say {verdict}, hooks say {hooked}"
    assert compared, "the defaults decided none of the sample"


# The two-pack games: within ten times the budget the hooks may leave a deal the exact defaults
# decide unknown, but never give it the other verdict.
AGREE_OR_UNKNOWN: list[tuple[str, dict[str, Any], Sequence[int], int]] = [
    ("Louis-v0", {}, range(0, 10), 300_000),
    ("Anna-v0", {}, range(0, 10), 300_000),
    ("Anna-v0", {"refill": "pack"}, range(0, 10), 300_000),
    ("Congress-v0", {}, range(0, 10), 300_000),
    ("LightAndShade-v0", {"redeals": 0}, range(0, 10), 300_000),
]


@pytest.mark.parametrize(("env_id", "options", "seeds", "budget"), AGREE_OR_UNKNOWN)
def test_hooks_never_contradict_the_exact_defaults(
    env_id: str, options: dict[str, Any], seeds: Sequence[int], budget: int
) -> None:
    compared = _verdicts(env_id, options, seeds, budget, factor=10)
    for seed, verdict, hooked in compared:
        assert hooked in (verdict, "unknown"), f"seed {seed}: defaults say {verdict}, hooks say {hooked}"
    if not any(hooked == verdict for _, verdict, hooked in compared):
        pytest.skip(f"{env_id}: the defaults decided none of the sample within {budget} nodes")


@pytest.mark.parametrize(("env_id", "seeds"), [("Congress-v0", range(0, 8)), ("Louis-v0", (0, 2, 3, 10))])
def test_these_hooks_change_no_verdict(env_id, seeds):
    variant = get_variant(env_id)
    plain = plain_verdicts(variant, {}, seeds, 200_000)
    decided = {s: v for s, v in plain.items() if v != "unknown"}
    assert decided, "the exact defaults decided none of the sample"
    for s, verdict in decided.items():
        assert solve_deal(variant, seed=s, max_nodes=2_000_000).label == verdict, f"seed {s}"
