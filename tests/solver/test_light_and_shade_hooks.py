"""Light and Shade's solver hooks (src/native/light_and_shade.cpp): a canonical key blind to suits
and to the order of a row, the safe move of a 2, and the macro moves (solver_moves): turning the
pack folded into the play that follows it. The won lines (flattened macro moves) replay through
gym.make to a win, with and without the re-deal option, and the macro moves change no verdict the
exact defaults (hooks off: every legal action alone, whole-state keys) reach."""

from __future__ import annotations

from typing import Any

import pytest

import patience_gym  # noqa: F401
from patience_gym.games import get_variant
from patience_gym.native import _module, native_available
from patience_gym.solver import solve_deal
from tests.helpers import canonical_key, native_game, plain_verdicts, replay_wins, state_key

pytestmark = pytest.mark.skipif(
    not native_available() or not hasattr(_module(), "solver_hooks"),
    reason="the solver and its hooks run on the native engine",
)

TURN, REDEAL = 32, 33  # light_and_shade.py's action table: "pack -> talon", the re-deal


@pytest.mark.parametrize(
    ("options", "seeds"),
    [
        ({}, (113, 467)),  # won in a few thousand positions with the macro moves
        ({"redeals": 1}, (2, 11)),  # won through the "turn the rest, then re-deal" macro
    ],
)
def test_won_lines_replay_through_gym_make(options: dict[str, Any], seeds: tuple[int, ...]) -> None:
    for seed in seeds:
        label = solve_deal(get_variant("LightAndShade-v0"), options, seed=seed, max_nodes=100_000)
        assert label.label == "won", f"seed {seed}: {label.label}"
        won = replay_wins("LightAndShade-v0", seed, label.actions, **options)
        assert won, f"seed {seed}: the line does not win"
        if options.get("redeals"):
            assert REDEAL in label.actions, f"seed {seed}: the won line never re-deals"
        # a turn is always part of a macro move that plays a card: no line ends on one
        assert label.actions[-1] != TURN


def test_the_macro_moves_change_no_verdict() -> None:
    # The exact defaults decide these deals within 300,000 positions: two lost, one won.
    variant = get_variant("LightAndShade-v0")
    plain = plain_verdicts(variant, {}, (593, 754, 113), 300_000)
    assert plain == {593: "lost", 754: "lost", 113: "won"}
    for seed, verdict in plain.items():
        label = solve_deal(variant, seed=seed, max_nodes=300_000)
        assert label.label == verdict, f"seed {seed}"


def test_the_macro_moves_change_no_verdict_with_a_redeal() -> None:
    variant = get_variant("LightAndShade-v0")
    plain = plain_verdicts(variant, {"redeals": 1}, (13, 20), 300_000)
    assert plain == {13: "won", 20: "won"}
    for seed in plain:
        label = solve_deal(variant, {"redeals": 1}, seed=seed, max_nodes=300_000)
        assert label.label == "won", f"seed {seed}"


def test_light_and_shade_key_ignores_suits_and_the_order_of_a_row() -> None:
    base = native_game("LightAndShade-v0", {}, seed=3)
    deck = base.deck()
    # Clubs and spades traded everywhere (no rule reads a suit, only the colour).
    swapped = [c[0] + {"C": "S", "S": "C"}.get(c[1], c[1]) for c in deck]
    other = native_game("LightAndShade-v0", {}, deck=swapped)
    assert state_key(other) != state_key(base) and canonical_key(other) == canonical_key(base)
    # A red card traded for a black one of the same rank: another game.
    i = next(k for k, c in enumerate(deck) if c[1] == "H" and c[0] != "A")
    recoloured = list(deck)
    recoloured[i] = deck[i][0] + "C" if deck[i][1] != "C" else deck[i][0] + "H"
    j = next(k for k, c in enumerate(deck) if k != i and c == recoloured[i])
    recoloured[j] = deck[i]
    if (i < 16) != (j < 16):  # one of them dealt to the rows, the other in the pack
        assert canonical_key(native_game("LightAndShade-v0", {}, deck=recoloured)) != canonical_key(base)


def test_light_and_shade_plays_a_two_at_once() -> None:
    # Every ace is up from the start, so a 2 on an Auxiliary top takes nothing (no ace is ever
    # off the foundations) and each colour's four aces leave room for the four 2s of the other.
    for seed in range(60):
        game = native_game("LightAndShade-v0", {}, seed=seed)
        tops = [line.split()[-1] for line in game.render().splitlines() if line.startswith("auxiliary")]
        twos = [i for i, t in enumerate(tops) if t[0] == "2"]
        if twos:
            assert game._c.safe_move() == twos[0]  # "auxiliary i -> foundation" is id i
            return
    pytest.fail("no deal of seeds 0-59 shows a 2 on an Auxiliary")
