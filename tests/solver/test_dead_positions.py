"""The solver's dead positions (Game::dead, src/native/core.hpp; Klondike's stuck set,
src/native/klondike.cpp): a position where some pile card can never move again is lost. Pinned on
the deals it proves lost at the deal, on a reference written from its definition, and against
every stored winning line, none of which may pass through a dead position."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from patience_gym.core.cards import RANK, RED, SUIT, card
from patience_gym.games import get_variant
from patience_gym.native import native_available
from patience_gym.solver import _dealt, solve_deal
from tests.helpers import check_won_lines_avoid_dead_positions, dead_against_reference

pytestmark = pytest.mark.skipif(not native_available(), reason="the solver needs the native engine")

KLONDIKE = get_variant("Klondike-v0")
DRAW3 = {"draw": 3, "passes": None, "partial_moves": True}


def stuck_set(piles: list[list[int]], down: list[int], found: list[int]) -> set[int]:
    """The largest set S of pile cards (no ace, no king, none whose foundation holds the card
    below it) in which each card's foundation predecessor is in S or covered, both cards it could
    be built on are covered, and the card under it (if any) is face down, one it does not build
    on, or in S; covered: up already, or in a pile under a card of S."""
    where = {c: (i, j) for i, p in enumerate(piles) for j, c in enumerate(p)}
    stuck = {c for c in where if RANK[c] not in (1, 13) and found[SUIT[c]] < RANK[c] - 1}

    def covered(c: int) -> bool:
        if RANK[c] <= found[SUIT[c]]:
            return True
        if c not in where:
            return False
        i, j = where[c]
        return any(z in stuck for z in piles[i][j + 1 :])

    changed = True
    while changed:
        changed = False
        for x in sorted(stuck):
            below = card(RANK[x] - 1, SUIT[x])
            targets = [card(RANK[x] + 1, s) for s in range(4) if RED[card(1, s)] != RED[x]]
            i, j = where[x]
            under = piles[i][j - 1] if j else None
            carried = (
                under is not None
                and j - 1 >= down[i]
                and under not in stuck
                and RANK[under] == RANK[x] + 1
                and RED[under] != RED[x]
            )
            if carried or not ((below in stuck or covered(below)) and all(covered(y) for y in targets)):
                stuck.discard(x)
                changed = True
    return stuck


@pytest.mark.parametrize("seed", [504, 888])
def test_a_deal_with_a_card_stuck_on_its_own_targets_is_lost_at_once(seed: int) -> None:
    game = _dealt(KLONDIKE, DRAW3, seed, None)
    assert game._c.dead() and stuck_set(
        [list(p) for p in game.piles], list(game.down), [len(f) for f in game.foundations]
    )
    label = solve_deal(KLONDIKE, DRAW3, seed=seed, max_nodes=1_000)
    assert (label.label, label.nodes) == ("lost", 0)


@pytest.mark.parametrize("options", [{}, DRAW3])
def test_the_native_test_agrees_with_the_reference_along_random_games(options: dict[str, object]) -> None:
    seeds = [*range(40), 120, 149, 258, 504, 888]  # the last five meet dead positions
    games = {seed: _dealt(KLONDIKE, options, seed, None) for seed in seeds}

    def reference(game: Any) -> bool:
        return bool(
            stuck_set([list(p) for p in game.piles], list(game.down), [len(f) for f in game.foundations])
        )

    seen = dead_against_reference(games, reference, 120, np.random.default_rng(1))
    assert seen[True] and seen[False]  # both answers met


@pytest.mark.parametrize(
    "name", ["Klondike-v0.csv", "Klondike-v0__draw=3__partial_moves=True__passes=None.csv"]
)
def test_no_stored_winning_line_passes_through_a_dead_position(name: str) -> None:
    options = {} if name == "Klondike-v0.csv" else DRAW3
    check_won_lines_avoid_dead_positions(KLONDIKE.env_name, options, name, 200)
