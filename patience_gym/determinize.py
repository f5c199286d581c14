"""Determinization: deals a player cannot tell from the real one, for planning under hidden cards.

A player sees some of the pack's cards (dealt face up, turned, shown once) and never sees the
others (face down, still in the pack). :func:`unseen_positions` names the positions of the dealt
pack (``game.initial_pack``, ``game.deck()``) whose card the player has never seen; each variant
answers it with :meth:`~patience_gym.core.game.Game.unseen_positions`. A card seen once stays seen
(a Klondike stock turned over for a new pass is known, in order). Two-pack games hold two copies of
each card: everything here works with positions, never with card values.

:func:`consistent_deck` deals the hidden cards again at random: the real deck with the cards at
unseen positions permuted among those positions. Played with the same actions, it gives exactly
the observations the real game gave so far (``tests/games/test_determinize.py`` proves it for every
variant), so a planner may search it freely: whatever it learns, it could have guessed. The cards
are sorted before the shuffle, so the result depends on *which* cards are hidden (the complement
of those seen, which the player knows) and on the generator, never on where the hidden cards lie.

Nestor's deal moves a card that would repeat a rank in a column to the bottom of the pack, so a
hidden reserve card may have been looked at (and passed over) while the columns were dealt: a
permutation of the real deck could deal other columns. Its consistent deck is therefore the deal
as laid out (the columns row by row, then the reserve), which deals the same table again, with
the unseen reserve cards permuted.

Nothing here imports gymnasium: an environment is accepted through its ``unwrapped.game``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from patience_gym.core.cards import card_name, parse_pack
from patience_gym.core.game import Game

__all__ = [
    "agrees",
    "consistent_deck",
    "disagreements",
    "hidden_frame",
    "known_unshown_positions",
    "repaired_deck",
    "unseen_positions",
]


def _game(env_or_game: Any) -> Game[Any]:
    """The Python rules core of an environment or a game (the twin of a native game)."""
    from patience_gym.native import reference  # here: native imports the games, which import us

    game = env_or_game if isinstance(env_or_game, Game) else env_or_game.unwrapped.game
    return reference(game)


def unseen_positions(env_or_game: Any) -> list[int]:
    """The indices of the dealt pack (``game.initial_pack``) whose card the player has never seen."""
    return sorted(_game(env_or_game).unseen_positions())


def _frame(game: Game[Any]) -> tuple[list[int], list[int]]:
    """The deck to permute (card ids) and the positions in it of the unseen cards."""
    pack, unseen = list(game.initial_pack), sorted(game.unseen_positions())
    from patience_gym.games.nestor import Nestor

    if isinstance(game, Nestor):  # the deal as laid out (module docstring)
        laid, where = _laid_out(tuple(pack))
        return list(laid), sorted(where[pack[p]] for p in unseen)
    return pack, unseen


@lru_cache(maxsize=16)
def _laid_out(pack: tuple[int, ...]) -> tuple[tuple[int, ...], dict[int, int]]:
    """Nestor's deal laid out (the columns row by row, then the reserve) and each card's place in
    it; kept for the last few packs, as a planner asks at every decision of a game. The dict is
    shared: read it, never change it."""
    from patience_gym.games.nestor import rectified_deal

    cols, reserve = rectified_deal(list(pack))
    laid = tuple(col[r] for r in range(len(cols[0])) for col in cols) + tuple(reserve)
    return laid, {c: i for i, c in enumerate(laid)}  # one pack: each card once


def hidden_frame(env_or_game: Any) -> tuple[list[int], list[int]]:
    """What a search may know of the deal: a deck of card ids that deals the current game with the
    hidden cards *sorted* into the positions the player has not seen, and those positions.

    Any permutation of the hidden cards among those positions is a consistent deal
    (:func:`consistent_deck` draws one). The frame depends on which cards are hidden, never on
    where they lie, so code that reads only the frame (the macro planner's native search) is
    blind to the hidden cards by construction."""
    deck, unseen = _frame(_game(env_or_game))
    hidden = sorted(deck[p] for p in unseen)
    for p, card in zip(unseen, hidden, strict=True):
        deck[p] = card
    return deck, unseen


def known_unshown_positions(env_or_game: Any) -> list[int]:
    """The positions of :func:`hidden_frame`'s deck whose card the player knows without its having
    been shown on the table (Klondike's stock with ``stock="known"`` until a new pass); empty
    where every card known has been shown. A search may keep these cards in its sampled deals and
    still treat the turn that shows one as the arrival of information."""
    game = _game(env_or_game)
    known = set(game.unshown_positions()) - set(game.unseen_positions())
    return sorted(known)  # no variant with such cards remaps its positions (Nestor's are all shown)


def consistent_deck(env_or_game: Any, rng: np.random.Generator) -> list[str]:
    """A deck (card strings) dealing a game the player cannot tell from the real one so far: the
    real deck with its unseen cards dealt again at random among their positions."""
    deck, unseen = _frame(_game(env_or_game))
    hidden = sorted(deck[p] for p in unseen)  # sorted: where they really lie must not matter
    for p, k in zip(unseen, rng.permutation(len(hidden)).tolist(), strict=True):
        deck[p] = hidden[k]
    return [card_name(c) for c in deck]


def agrees(env_or_game: Any, deck: Sequence[str]) -> bool:
    """``deck`` (as :func:`consistent_deck` returns them) holds the real cards at every position
    the player has seen by now: it is still a deal the player cannot tell from the real one."""
    return not disagreements(env_or_game, deck)


def disagreements(env_or_game: Any, deck: Sequence[str]) -> list[tuple[int, str]]:
    """The positions the player has seen where ``deck`` (as :func:`consistent_deck` returns them)
    holds another card than the real deal, each with the real card there."""
    real, unseen = _frame(_game(env_or_game))
    hidden = set(unseen)
    cards = parse_pack(deck, len(real) // 52, "deck")
    return [(p, card_name(real[p])) for p in range(len(real)) if p not in hidden and cards[p] != real[p]]


def repaired_deck(env_or_game: Any, deck: Sequence[str], rng: np.random.Generator) -> list[str]:
    """``deck`` made consistent with what the player has seen by now, changed as little as it
    can be: the seen positions get their real cards; an unseen position keeps its card while that
    card is still hidden, and the hidden cards left over fill the other unseen positions at random.
    (A plan made on ``deck`` has the best chance of still working on the result.)"""
    real, unseen = _frame(_game(env_or_game))
    cards = parse_pack(deck, len(real) // 52, "deck")
    left = Counter(real[p] for p in unseen)  # the hidden cards, wherever they really are
    out = list(real)
    empty: list[int] = []
    for p in unseen:
        if left[cards[p]]:
            out[p] = cards[p]
            left[cards[p]] -= 1
        else:
            empty.append(p)
    spare = sorted(left.elements())
    for p, k in zip(empty, rng.permutation(len(spare)).tolist(), strict=True):
        out[p] = spare[k]
    return [card_name(c) for c in out]
