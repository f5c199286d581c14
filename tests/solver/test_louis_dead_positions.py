"""St. Louis's and Louis's dead positions (src/native/louis.cpp, Louis::dead): after the last
re-deal, a *stuck set* of packet cards that can never move again means the position is lost.
Pinned on a reference written from the definition in docs/solver.md, on a deal it proves lost at
once, on the exact defaults (hooks off), and against every stored winning line of both label
files, none of which may pass through a dead position."""

from __future__ import annotations

import numpy as np
import pytest

from patience_gym.core.cards import RANK, SUIT, card
from patience_gym.games import get_variant
from patience_gym.native import NativeGame, _module, native_available
from patience_gym.solver import _dealt
from tests.helpers import check_won_lines_avoid_dead_positions, dead_against_reference

pytestmark = pytest.mark.skipif(not native_available(), reason="the solver needs the native engine")

DEAL, REDEAL = 26, 159  # louis.py's table: deal the next card / the rest of the pack; the re-deal
PLAY = 2  # louis.py's phase after the deal


def stuck_set(packets: list[list[int]], found: list[int]) -> set[tuple[int, int]]:
    """The largest set S of packet places (packet, index) in which each card not *covered* (no
    card of S above it in its packet) can never move: the ace foundation of its suit is already
    at its rank or above, or is below rank - 1 with some rank between *held*; the king foundation
    likewise downwards; and both marriage partners (rank - 1 and rank + 1, same suit) have every
    copy in the packets covered. Held: every copy in the packets is in S or covered. ``found``:
    the cards on each foundation (0-3 the ace ones C D H S, 4-7 the king ones, bases counted)."""
    up = [found[s] for s in range(4)]  # the ace foundation's top rank
    down = [14 - found[4 + s] for s in range(4)]  # the king foundation's top rank
    where: dict[int, list[tuple[int, int]]] = {}
    for i, p in enumerate(packets):
        for j, c in enumerate(p):
            where.setdefault(c, []).append((i, j))
    stuck = {(i, j) for i, p in enumerate(packets) for j in range(len(p))}

    def covered(i: int, j: int) -> bool:
        return any((i, k) in stuck for k in range(j + 1, len(packets[i])))

    def held(c: int, s_counts: bool) -> bool:
        return all(covered(i, j) or (s_counts and (i, j) in stuck) for i, j in where.get(c, []))

    def stays(x: int) -> bool:
        r, s = RANK[x], SUIT[x]
        if up[s] == r - 1 or down[s] == r + 1:
            return False
        if up[s] < r - 1 and not any(held(card(k, s), True) for k in range(up[s] + 1, r)):
            return False
        if down[s] > r + 1 and not any(held(card(k, s), True) for k in range(r + 1, down[s])):
            return False
        return all(held(card(k, s), False) for k in (r - 1, r + 1) if 1 <= k <= 13)

    changed = True
    while changed:
        changed = False
        for i, j in sorted(stuck):
            if (i, j) in stuck and not covered(i, j) and not stays(packets[i][j]):
                stuck.discard((i, j))
                changed = True
    return stuck


def reference_dead(game: NativeGame) -> bool:
    if game.phase != PLAY or game.redeals_left:
        return False
    found = [len(f) for f in game.foundations]
    return bool(stuck_set([list(p) for p in game.packets], found))


def last_deal(env: str, seed: int) -> NativeGame:
    """The deal of ``seed`` re-dealt twice at once: the last deal, complete (PLAY, none left)."""
    game = _dealt(get_variant(env), {}, seed, None)
    for a in (DEAL, REDEAL, DEAL, REDEAL, DEAL) if env == "StLouis-v0" else ():
        game.apply(a)
    if env == "Louis-v0":  # the Cadogan deal turns card by card: place every card, twice over
        for _ in range(3):
            while game.phase != PLAY:
                game.apply(DEAL)
            if game.redeals_left:
                game.apply(REDEAL)
    assert game.phase == PLAY and game.redeals_left == 0
    return game


def test_a_last_deal_with_a_stuck_set_is_lost_at_once() -> None:
    # St. Louis seed 18, re-dealt twice at once: a card lies on both copies of each card that
    # could take it or that it could be married onto.
    game = last_deal("StLouis-v0", 18)
    assert game._c.dead() and reference_dead(game)
    verdict, _, nodes, *_ = _module().solve(game._c, 1_000, 0.0, 0)
    assert (verdict, nodes) == ("lost", 0)
    _module().solver_hooks(False)  # the exact search (no dead positions) proves it lost too
    try:
        verdict, _, nodes, *_ = _module().solve(game._c, 1_000_000, 0.0, 0)
    finally:
        _module().solver_hooks(True)
    assert verdict == "lost" and nodes > 0


@pytest.mark.parametrize("seed", [4, 5, 11, 17])
def test_the_dead_positions_change_no_verdict_of_the_exact_search(seed: int) -> None:
    # The last deals of these seeds are lost; the exact defaults (hooks off) prove it by
    # exhausting them, and the search with the stuck sets proves it in fewer positions.
    game = last_deal("StLouis-v0", seed)
    _module().solver_hooks(False)
    try:
        plain = _module().solve(game._c, 3_000_000, 0.0, 0)
    finally:
        _module().solver_hooks(True)
    hooked = _module().solve(game._c, 3_000_000, 0.0, 0)
    assert plain[0] == hooked[0] == "lost"
    assert hooked[2] < plain[2]


def test_nothing_is_dead_before_the_last_deal_is_complete() -> None:
    game = _dealt(get_variant("StLouis-v0"), {}, 18, None)
    for a in (DEAL, REDEAL, DEAL, REDEAL):
        assert not game._c.dead()  # a re-deal (or the deal) is still to come
        game.apply(a)
    assert game.phase != PLAY and not game._c.dead()
    game.apply(DEAL)
    assert game._c.dead()


@pytest.mark.parametrize("env", ["StLouis-v0", "Louis-v0"])
def test_the_native_test_agrees_with_the_reference_along_random_games(env: str) -> None:
    games = {seed: last_deal(env, seed) for seed in range(12)}
    seen = dead_against_reference(games, reference_dead, 300, np.random.default_rng(2))
    assert seen[True] > 20 and seen[False] > 20  # both answers met, often


@pytest.mark.parametrize("env", ["Louis-v0", "StLouis-v0"])
def test_no_stored_winning_line_passes_through_a_dead_position(env: str) -> None:
    check_won_lines_avoid_dead_positions(env, {}, f"{env}.csv", 500)
