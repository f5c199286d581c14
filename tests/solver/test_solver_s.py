"""Light and Shade's macro moves (src/native/light_and_shade.cpp, solver_moves): turning the pack
folded into the play that follows it. The won lines (flattened macro moves) replay through
gym.make to a win, with and without the re-deal option, and the macro moves change no verdict the
exact defaults (hooks off: every legal action alone, whole-state keys) reach."""

from __future__ import annotations

from typing import Any

import pytest

import patience_gym  # noqa: F401
from patience_gym.games import get_variant
from patience_gym.native import _module, native_available
from patience_gym.solver import solve_deal
from tests.helpers import plain_verdicts, replay_wins

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
