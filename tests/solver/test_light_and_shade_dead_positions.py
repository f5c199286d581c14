"""Light and Shade's dead positions (src/native/light_and_shade.cpp, LightAndShade::dead): without
a re-deal left, a *stuck set* of cards on the Auxiliaries, in the Rivals and in the talon that can
never move again means the position is lost. Pinned on a reference written from the definition
in docs/solver.md, on deals the search proved lost before (now in fewer positions), and against
every stored winning line of both label files, none of which may pass through a dead position."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from patience_gym.core.cards import RANK, RED
from patience_gym.games import get_variant
from patience_gym.native import NativeGame, native_available
from patience_gym.solver import _dealt, solve_deal
from tests.helpers import check_won_lines_avoid_dead_positions, dead_against_reference, plain_verdicts

pytestmark = pytest.mark.skipif(not native_available(), reason="the solver needs the native engine")

VARIANT = get_variant("LightAndShade-v0")
EMPTY = -1
Place = tuple[str, int, int]  # ("a", auxiliary, index), ("r", rival, 0) or ("t", 0, index)
Class = tuple[int, bool]  # rank, red


def cls(c: int) -> Class:
    return RANK[c], bool(RED[c])


def red_at(c: Class, k: int) -> bool:
    """The colour of rank k in the pattern of a card (colours alternate with rank)."""
    return c[1] == ((c[0] - k) % 2 == 0)


class StuckSet:
    """The largest set S of places (pack and foundations excluded) in which each card not covered
    (no card of S above it in its Auxiliary or the talon) can never move: an Auxiliary card's
    foundations of its pattern are none at rank - 1 and each lower one meets a held class first;
    a Rival card finds every Auxiliary anchored and none reaching rank + 1 of the other colour; a
    talon card finds every Rival in S and (talon_to_aux) no Auxiliary reaching it, an Auxiliary
    without S anchored at its bottom. Held: no copy in the pack, every copy in S or covered."""

    def __init__(self, game: NativeGame, talon_to_aux: bool) -> None:
        self.aux = [list(p) for p in game.aux]
        self.rivals, self.talon = list(game.rivals), list(game.talon)
        self.talon_to_aux = talon_to_aux
        self.tops = [cls(f[-1]) for f in game.foundations]
        self.in_pack = {cls(c) for c in game.pack}
        places: list[tuple[Place, int]] = [
            (("a", i, k), c) for i, p in enumerate(self.aux) for k, c in enumerate(p)
        ]
        places += [(("r", r, 0), c) for r, c in enumerate(self.rivals) if c != EMPTY]
        places += [(("t", 0, k), c) for k, c in enumerate(self.talon)]
        self.copies: dict[Class, list[Place]] = {}
        for place, c in places:
            self.copies.setdefault(cls(c), []).append(place)
        self.stuck = {place for place, _ in places}
        changed = True
        while changed:
            changed = False
            for place in sorted(self.stuck):
                if place in self.stuck and not self.covered(place) and not self.stays(place):
                    self.stuck.discard(place)
                    changed = True

    def covered(self, place: Place) -> bool:
        kind, i, k = place
        pile = self.aux[i] if kind == "a" else self.talon if kind == "t" else []
        return any((kind, i, j) in self.stuck for j in range(k + 1, len(pile)))

    def held(self, c: Class) -> bool:
        return c not in self.in_pack and all(
            p in self.stuck or self.covered(p) for p in self.copies.get(c, [])
        )

    def reaches(self, i: int, x: int, anchor_required: bool) -> bool:
        """May Auxiliary i's top ever be x's rank + 1 in the other colour?"""
        mine = [k for k in range(len(self.aux[i])) if ("a", i, k) in self.stuck]
        if not mine and (anchor_required or not self.aux[i]):
            return anchor_required
        z = cls(self.aux[i][max(mine) if mine else 0])
        q = RANK[x] + 1
        if q > z[0] or red_at(z, q) == bool(RED[x]):
            return False
        return not any(self.held((k, red_at(z, k))) for k in range(q, RANK[self.aux[i][-1]]))

    def goes_up(self, x: Class) -> bool:
        """May a foundation of x's pattern ever reach x's rank - 1?"""
        for top in self.tops:
            if red_at(top, x[0]) != x[1] or top[0] >= x[0]:
                continue
            if top[0] == x[0] - 1 or not any(self.held((j, red_at(top, j))) for j in range(top[0] + 1, x[0])):
                return True
        return False

    def stays(self, place: Place) -> bool:
        kind, i, k = place
        if kind == "a":
            return not self.goes_up(cls(self.aux[i][k]))
        if kind == "r":
            return not any(self.reaches(a, self.rivals[i], True) for a in range(4))
        if any(("r", r, 0) not in self.stuck for r in range(4)):
            return False
        return not self.talon_to_aux or not any(self.reaches(a, self.talon[k], False) for a in range(4))


def reference_dead(game: NativeGame, options: dict[str, Any]) -> bool:
    if game.redeals_left:
        return False  # a re-deal turns the talon into a new pack
    return bool(StuckSet(game, options.get("talon_to_auxiliaries", True)).stuck)


@pytest.mark.parametrize("options", [{}, {"talon_to_auxiliaries": False}, {"redeals": 1}])
def test_the_native_test_agrees_with_the_reference_along_random_games(options: dict[str, Any]) -> None:
    games = {seed: _dealt(VARIANT, options, seed, None) for seed in range(12)}
    seen = dead_against_reference(games, lambda g: reference_dead(g, options), 400, np.random.default_rng(3))
    assert seen[True] > 20 and seen[False] > 200  # both answers met, often


@pytest.mark.parametrize(("seed", "before"), [(593, 9_030), (604, 20_198), (419, 68_949)])
def test_lost_deals_stay_lost_in_fewer_positions(seed: int, before: int) -> None:
    # The label file's proofs of loss (nodes before the stuck sets in `before`): still lost,
    # and the stuck sets cut each proof to well under half.
    label = solve_deal(VARIANT, seed=seed, max_nodes=1_000_000)
    assert label.label == "lost" and label.nodes < before / 2


def test_the_dead_positions_change_no_verdict_of_the_exact_search() -> None:
    plain = plain_verdicts(VARIANT, {}, (593, 754), 300_000)  # hooks off: no dead positions
    assert plain == {593: "lost", 754: "lost"}
    for seed in plain:
        assert solve_deal(VARIANT, seed=seed, max_nodes=300_000).label == "lost"


@pytest.mark.parametrize(
    ("name", "options"), [("LightAndShade-v0.csv", {}), ("LightAndShade-v0__redeals=1.csv", {"redeals": 1})]
)
def test_no_stored_winning_line_passes_through_a_dead_position(name: str, options: dict[str, Any]) -> None:
    check_won_lines_avoid_dead_positions(VARIANT.env_name, options, name, 500)
