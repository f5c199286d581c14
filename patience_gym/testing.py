"""Checks shared by every variant's tests (pgx's ``api_test`` idea), usable by downstream code.

:func:`check_rollout` plays random legal moves and asserts, at every step, the contract every
variant owes: cards conserved, the fast mask equal to the rule-by-rule one, every masked-in action
accepted and changing the state, every masked-out one refused with the state untouched, the mask
never empty while the game is live, and the observation inside ``[0, 1]``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from patience_gym.core.cards import card_name, ordered_pack, parse_card
from patience_gym.core.game import Game, IllegalMove, check_conserved


def legal_moves_text(game: Game[Any]) -> list[str]:
    return [game.describe(a) for a in game.legal_actions()]


def act(game: Game[Any], text: str) -> int:
    """Apply the legal move described as ``text`` (``describe()`` or the table text); return its id.

    Raises ``AssertionError`` listing the legal moves when no legal action matches, so a scripted
    test that goes wrong says what the position allowed instead.
    """
    found = [a for a in game.legal_actions() if text in (game.describe(a), game.moves[a].text)]
    if len(found) != 1:
        raise AssertionError(
            f"{text!r} matches {len(found)} legal moves; legal now: {legal_moves_text(game)}\n{game.render()}"
        )
    game.apply(found[0])
    return found[0]


def action_id(game: Game[Any], text: str) -> int:
    """The id whose table text is ``text`` (legal or not)."""
    ids = [a for a, m in enumerate(game.moves) if m.text == text]
    if len(ids) != 1:
        raise AssertionError(f"{text!r} names {len(ids)} table entries")
    return ids[0]


def deck(text: str) -> list[str]:
    """Split a whitespace-separated card list, checking each card on the way."""
    cards = text.split()
    for c in cards:
        parse_card(c)
    return cards


def rest_of_pack(named: list[str], n_packs: int) -> list[str]:
    """The cards of ``n_packs`` packs that ``named`` leaves over, in the ordered pack's order.

    Scenario tests name the cards that matter and let this fill the rest of a valid pack; a card
    named more often than the packs hold raises ``AssertionError``.
    """
    left = Counter(card_name(c) for c in ordered_pack(n_packs))
    left.subtract(named)
    over = sorted(name for name, n in left.items() if n < 0)
    assert not over, f"named more often than {n_packs} pack(s) hold: {over}"
    rest = []
    for c in ordered_pack(n_packs):
        if left[card_name(c)] > 0:
            rest.append(card_name(c))
            left[card_name(c)] -= 1
    return rest


def check_position(game: Game[Any]) -> np.ndarray:
    """Assert the per-position contract; return the mask."""
    check_conserved(game)
    mask = game.legal_mask()
    assert mask.dtype == bool and mask.shape == (game.n_actions,)
    assert not (game.won and mask.any()), f"{game.name}: a won game still offers moves"
    slow = np.array([game.is_legal(a) for a in range(game.n_actions)], dtype=bool)
    if not np.array_equal(mask, slow):
        diff = [game.describe(int(a)) for a in np.flatnonzero(mask != slow)]
        raise AssertionError(f"{game.name}: fast mask and is_legal disagree on {diff}\n{game.render()}")
    key = game.state_key()
    for a in range(game.n_actions):
        if mask[a]:
            trial = game.clone()
            trial.apply(a)
            assert trial.state_key() != key, f"{game.describe(a)} did not change the state"
            assert game.state_key() == key, f"applying {game.describe(a)} to a clone changed the original"
        else:
            try:
                game.apply(a)
            except IllegalMove:
                pass
            else:
                raise AssertionError(f"{game.name}: masked-out action {a} ({game.describe(a)}) was accepted")
            assert game.state_key() == key, f"refused action {a} changed the state"
    obs = game.observation()
    assert obs.shape == (game.layout.size,) and obs.dtype == np.float32
    assert obs.min() >= 0.0 and obs.max() <= 1.0, "observation outside [0, 1]"
    assert isinstance(game.render(), str)
    for a in range(game.n_actions):
        assert isinstance(game.describe(a), str)
    return mask


def check_rollout(game: Game[Any], rng: np.random.Generator, max_steps: int = 400) -> int:
    """Deal from ``rng`` and play random legal moves, checking every position. Returns steps."""
    game.new_game(rng)
    for step in range(max_steps):
        mask = check_position(game)
        if game.is_over(mask):
            return step
        game.apply(int(rng.choice(np.flatnonzero(mask))))
    return max_steps
