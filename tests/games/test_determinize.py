"""Determinization claims exactly the cards a player has never seen (patience_gym.determinize).

For every registered variant, with its default options and each other value of each option (as
tests/games/test_observation_visibility.py runs them; Klondike also with unlimited passes, so the stock is
turned over), random games are played and, at several steps:

- **(a) Nothing claimed unseen was seen.** A consistent deck replays the same actions with
  identical observations and legal moves at every step so far.
- **(b) Nothing seen is claimed unseen.** For a position claimed seen, the real deck with its card
  swapped with a card of another value at another position gives a different observation at some
  step so far (or refuses one of the actions): a player could tell them apart, so a planner that
  kept the position fixed read nothing it had not seen. The cards a deal takes out for the
  foundations before dealing are left out of (b): their values are known by the rules, but not
  which position held the first copy (two aces swapped deal the same game, an ace swapped with an
  unseen card may only change the cards still to come); the consistent decks of (a) leave them
  where they are. A swap no observation has shown so far must then never show, however the game
  goes on (:func:`_same_from_here`): the two deals are the same game.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.core.cards import card_name
from patience_gym.core.game import Game
from patience_gym.determinize import (
    agrees,
    consistent_deck,
    repaired_deck,
    unseen_positions,
)
from patience_gym.games import VARIANTS, Variant, get_variant
from patience_gym.games.klondike import Klondike
from patience_gym.games.light_and_shade import ACES
from patience_gym.games.louis import FOUNDATION_BASES
from patience_gym.native import native_available
from tests.helpers import option_sets, options_id, play_at_random


def _configs() -> list[Any]:
    """Every variant as registered, then with each other allowed value of each option."""
    out = []
    for v in VARIANTS:
        runs = option_sets(v)
        if v.game is Klondike:
            k_plus = {"draw": 3, "passes": None, "partial_moves": True}
            runs += [{"passes": None}, k_plus, {**k_plus, "stock": "known"}]
        for opts in runs:
            label = options_id(v, opts)
            out.append(pytest.param(v, opts, id=label))
    return out


CONFIGS = _configs()
#: The cards each variant takes out for the foundations before dealing (first copies).
TAKEN_OUT: dict[str, tuple[str, ...]] = {
    "Louis": tuple(card_name(c) for c in FOUNDATION_BASES),
    "LightAndShade": tuple(card_name(c) for c in ACES),
    "Congress": tuple(card_name(c) for c in ACES),
    "TheKings": tuple(card_name(c) for c in ACES),
}
STEPS = 200  # random moves per game; checks at a few steps on the way (CHECKS)
CHECKS = (0, 3, 15, 50, 120, 200)


def _random_game(variant: Variant, options: dict[str, Any], seed: int) -> tuple[Game[Any], list[int]]:
    """A game dealt by ``seed`` and played at random; the actions taken (the game is at the end)."""
    rng = np.random.default_rng(seed)
    game = variant.make_game(**options)
    game.new_game(rng)
    return game, play_at_random(game, rng, STEPS)


def _trace(variant: Variant, options: dict[str, Any], deck: list[str], actions: list[int]) -> list[bytes]:
    """Observations (with the legal mask) after the deal and after each action; stops at the
    first action the deal refuses (the player would have been told: the trace is shorter)."""
    game = variant.make_game(**options)
    game.new_game(deck=deck)
    out = [game.observation().tobytes() + game.legal_mask().tobytes()]
    for a in actions:
        if not game.is_legal(a):
            break
        game.apply(a)
        out.append(game.observation().tobytes() + game.legal_mask().tobytes())
    return out


def _same_from_here(
    variant: Variant,
    options: dict[str, Any],
    pack: list[str],
    other: list[str],
    actions: list[int],
    seed: int,
) -> None:
    """Two decks no observation has told apart so far are the same game from here on too: played on
    at random with the same moves, they never show a difference (the position was seen in the
    sense that matters: Anna's knave and the card that took its place, in either order; two cards
    of a rank played to The Kings' foundations during the deal)."""
    a, b = variant.make_game(**options), variant.make_game(**options)
    a.new_game(deck=pack)
    b.new_game(deck=other)
    for m in actions:
        a.apply(m)
        b.apply(m)
    rng = np.random.default_rng(seed)
    for _ in range(400):
        assert np.array_equal(a.observation(), b.observation()), "a swap of seen cards shows later"
        mask = a.legal_mask()
        assert np.array_equal(mask, b.legal_mask()), "a swap of seen cards changes the moves later"
        if a.won or not mask.any():
            break
        m = int(rng.choice(np.flatnonzero(mask)))
        a.apply(m)
        b.apply(m)


@pytest.mark.parametrize(("variant", "options"), CONFIGS)
def test_a_consistent_deck_replays_with_identical_observations(
    variant: Variant, options: dict[str, Any]
) -> None:
    for seed in range(3):
        game, taken = _random_game(variant, options, seed)
        real = _trace(variant, options, game.deck(), taken)
        rng = np.random.default_rng(1000 + seed)
        for t in CHECKS:
            if t > len(taken):
                break
            at = variant.make_game(**options)
            at.new_game(deck=game.deck())
            for a in taken[:t]:
                at.apply(a)
            hidden = unseen_positions(at)
            moved = False
            for _ in range(4):
                deck = consistent_deck(at, rng)
                assert agrees(at, deck)
                moved |= deck != game.deck()
                got = _trace(variant, options, deck, taken[:t])
                assert got == real[: t + 1], (
                    f"seed {seed}: a consistent deck shows otherwise after {len(got) - 1} moves"
                )
            if len({game.initial_pack[p] for p in hidden}) > 1:
                assert moved, f"seed {seed}, step {t}: {len(hidden)} unseen cards, never dealt again"


@pytest.mark.parametrize(("variant", "options"), CONFIGS)
def test_b_a_seen_card_swapped_changes_an_observation(variant: Variant, options: dict[str, Any]) -> None:
    for seed in range(2):
        game, taken = _random_game(variant, options, seed)
        pack = game.deck()
        real = _trace(variant, options, pack, taken)
        rng = np.random.default_rng(2000 + seed)
        for t in CHECKS:
            if t > len(taken):
                break
            at = variant.make_game(**options)
            at.new_game(deck=pack)
            for a in taken[:t]:
                at.apply(a)
            hidden = set(unseen_positions(at))
            seen = [p for p in range(len(pack)) if p not in hidden]
            out = TAKEN_OUT.get(variant.game.__name__, ())
            seen = [p for p in seen if pack[p] not in out]
            for p in rng.permutation(seen)[:10].tolist():
                others = [q for q in range(len(pack)) if pack[q] != pack[p] and pack[q] not in out]
                q = int(rng.choice(others))
                other = list(pack)
                other[p], other[q] = other[q], other[p]
                got = _trace(variant, options, other, taken[:t])
                if got == real[: t + 1]:
                    _same_from_here(variant, options, pack, other, taken[:t], seed)
                    continue
                assert got != real[: t + 1], (
                    f"seed {seed}, step {t}: position {p} ({pack[p]}) is claimed seen, yet swapping it "
                    f"with {q} ({pack[q]}) shows nothing"
                )


def test_seen_and_unseen_split_the_pack_as_the_rules_deal_it() -> None:
    # Klondike: 21 face-down pile cards and the 24-card stock are unseen at the deal; a turned
    # card (draw 1: the pack's 29th) is seen; a stock made from the talon for a new pass is known.
    game = Klondike(passes=None)
    game.new_game(np.random.default_rng(5))
    down = {0 + 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 14, 15, 16, 17, 19, 20, 21, 23, 24, 26}
    assert set(unseen_positions(game)) == down | set(range(28, 52))
    game.apply(15)  # stock -> talon
    assert set(unseen_positions(game)) == down | set(range(29, 52))
    while game.stock:
        game.apply(15)
    game.apply(15)  # the talon turned over: a second pass
    assert set(unseen_positions(game)) == down


def test_undealt_positions_skip_the_cards_taken_out() -> None:
    game = Klondike()
    game.initial_pack = tuple(range(52)) * 2  # two ordered packs: KS (id 51) first at position 51
    assert game.undealt_positions(3) == [101, 102, 103]
    assert game.undealt_positions(0, [51]) == []
    # the first KS taken out: of the 103 left, the last 53 are position 50 and then 52..103
    assert game.undealt_positions(53, [51]) == [50, *range(52, 104)]


def test_consistent_deck_depends_on_which_cards_are_hidden_not_where() -> None:
    variant = get_variant("Klondike-v0")
    game = variant.make_game()
    game.new_game(np.random.default_rng(3))
    pack = game.deck()
    hidden = unseen_positions(game)
    other = list(pack)
    other[hidden[0]], other[hidden[-1]] = other[hidden[-1]], other[hidden[0]]  # two hidden cards trade places
    twin = variant.make_game()
    twin.new_game(deck=other)
    for s in range(5):
        assert consistent_deck(game, np.random.default_rng(s)) == consistent_deck(
            twin, np.random.default_rng(s)
        )


def test_a_repaired_deck_agrees_and_keeps_the_cards_still_hidden() -> None:
    variant = get_variant("Babette-v0")
    game = variant.make_game()
    game.new_game(np.random.default_rng(4))
    sample = consistent_deck(game, np.random.default_rng(0))
    game.apply(208)  # deal a row: 8 more cards seen
    assert not agrees(game, sample) or sample[8:16] == game.deck()[8:16]
    fixed = repaired_deck(game, sample, np.random.default_rng(1))
    assert agrees(game, fixed)
    pack = game.deck()
    assert fixed[:16] == pack[:16]
    kept = sum(fixed[p] == sample[p] for p in unseen_positions(game))
    assert kept >= len(unseen_positions(game)) - 8  # at most the 8 cards that turned up moved


@pytest.mark.skipif(not native_available(), reason="the native engine is not built")
def test_an_environment_on_the_native_engine_is_read_through_its_python_twin() -> None:
    decks = []
    for engine in ("native", "python"):
        env = gym.make("patience_gym/Anna-v0", engine=engine)
        env.reset(seed=7)
        for _ in range(5):
            env.step(0)  # turn
        decks.append((unseen_positions(env), consistent_deck(env, np.random.default_rng(0))))
    assert decks[0] == decks[1]


def test_a_game_that_does_not_say_what_is_unseen_is_named() -> None:
    class Mute(Klondike):
        unseen_positions = Game.unseen_positions  # the contract's default

    game = Mute()
    game.new_game(np.random.default_rng(0))
    with pytest.raises(NotImplementedError, match="Mute"):
        consistent_deck(game, np.random.default_rng(0))
