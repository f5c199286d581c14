"""Tools for tree search under hidden cards: deal the unseen cards again, play a deal from a copy.

A search that must not read the hidden cards (determinized planners, information-set MCTS; pgx
issue 1308 asks for the same) needs two things from an environment: a deal the player cannot tell
from the real one, drawn at random, and a copy of the current game on that deal that it may step
freely without touching the real env::

    import gymnasium as gym
    import patience_gym
    from patience_gym.search import redeal

    env = gym.make("patience_gym/Klondike-v0")
    obs, info = env.reset(seed=3)
    copy = redeal(env, seed=0)          # the unseen cards dealt again, the moves so far replayed
    assert (copy.action_masks() == info["action_mask"]).all()
    copy.step(int(copy.action_masks().nonzero()[0][0]))   # the real env is untouched

- :func:`unseen_positions`, :func:`unseen_cards`: the positions of the dealt pack whose card the
  player has never seen, and the cards that may lie there.
- :func:`sample_deck`: a deck (card strings) holding the real cards at every position the player
  has seen and the unseen cards dealt again among the unseen positions, uniformly at random (every
  assignment of the unseen cards to the unseen positions equally likely) from ``seed``.
- :func:`play_deal`: a fresh :class:`~patience_gym.env.PatienceEnv` of the same variant, options,
  engine, reward, illegal reward, mask type and render mode, dealt ``deck`` and brought to the
  current position by the moves played since the deal (:meth:`PatienceEnv.played`). A deck that
  contradicts what the player has seen is refused.
- :func:`redeal`: :func:`play_deal` of :func:`sample_deck`.

The copy is the bare environment: no step limit (the real env's ``TimeLimit`` counts the real
game's steps) and a generator of its own. Its observation, mask and info equal the real env's
until a card the player has not seen shows (``tests/env/test_search.py`` holds this for every
variant on both engines): whatever a search learns on copies, it could have guessed. The deck is
drawn from the cards the player knows are hidden (those not seen), never from where they really
lie, so the same ``seed`` at the same visible position draws the same deck whatever the real deal.
Nestor's deck is the deal as laid out (:mod:`patience_gym.determinize`), which deals the same
table: the real ``game.deck()`` is accepted by :func:`play_deal` too.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.error import ResetNeeded

from patience_gym.core.cards import card_name, parse_pack
from patience_gym.determinize import consistent_deck, disagreements, hidden_frame
from patience_gym.env import PatienceEnv

__all__ = ["play_deal", "redeal", "sample_deck", "unseen_cards", "unseen_positions"]


def _real(env: Any, what: str) -> PatienceEnv:
    """``env.unwrapped``, a reset :class:`PatienceEnv`; anything else raises in one line."""
    real = getattr(env, "unwrapped", None)
    if not isinstance(real, PatienceEnv):
        raise TypeError(
            f"{what}() takes one environment made by gym.make('patience_gym/<Name>-v0') (wrapped or "
            f"not), got {type(env).__name__}"
        )
    if not real._dealt:
        raise ResetNeeded(f"call reset() before {what}()")
    return real


def _generator(seed: Any, what: str) -> np.random.Generator:
    """``seed`` as a generator: a whole number >= 0, a ``numpy.random.Generator`` (drawn from, so
    successive calls differ) or ``None`` (fresh entropy)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0):
        return np.random.default_rng(seed)
    raise TypeError(
        f"{what}(seed=...) takes a whole number >= 0, a numpy.random.Generator or None, got {seed!r}"
    )


def unseen_positions(env: Any) -> list[int]:
    """The positions of the decks :func:`sample_deck` draws whose card the player has never seen
    (sorted): the positions of ``game.deck()``, except for Nestor, whose decks are the deal as laid
    out."""
    return hidden_frame(_real(env, "unseen_positions"))[1]


def unseen_cards(env: Any) -> list[str]:
    """The cards the player has never seen (sorted by card id; a two-pack game may list a card
    twice): what :func:`sample_deck` deals again among :func:`unseen_positions`."""
    deck, unseen = hidden_frame(_real(env, "unseen_cards"))
    return [card_name(deck[p]) for p in unseen]


def sample_deck(env: Any, seed: int | np.random.Generator | None = None) -> list[str]:
    """A deck (card strings, first dealt first) the player cannot tell from the real one so far:
    the real cards at the seen positions, the unseen cards dealt again uniformly at random among
    the unseen positions (module docstring). ``seed``: a whole number >= 0, a
    ``numpy.random.Generator`` or ``None``."""
    real = _real(env, "sample_deck")
    return consistent_deck(real, _generator(seed, "sample_deck"))


def play_deal(env: Any, deck: Any) -> PatienceEnv:
    """A copy of the current game played on ``deck``: a new bare :class:`PatienceEnv` dealt
    ``deck`` (card strings, as :func:`sample_deck` or ``game.deck()`` give them) and replayed to
    the current position. Stepping it never touches ``env``. A malformed deck, or one holding
    another card than the real one at a position the player has seen, raises ``ValueError``."""
    real = _real(env, "play_deal")
    names = [card_name(c) for c in parse_pack(deck, real.game.n_packs, real.variant.env_name)]
    if names != real.game.deck():
        wrong = disagreements(real, names)
        if wrong:
            p, card = wrong[0]
            raise ValueError(
                f"play_deal(deck=...) contradicts what the player has seen at {len(wrong)} position(s) "
                f"(first: position {p} holds {names[p]}, the real deal {card}); sample_deck(env) "
                "gives a deck that agrees"
            )
    copy = PatienceEnv(
        real.variant.env_name,
        render_mode=real.render_mode,
        reward=real.reward_mode,
        illegal_reward=real.illegal_reward,
        engine=real.engine,
        mask_dtype=real.mask_dtype,
        **real.game.options,
    )
    copy.reset(options={"deck": names})
    for a in real.played():
        copy.step(a)
    return copy


def redeal(env: Any, seed: int | np.random.Generator | None = None) -> PatienceEnv:
    """A copy of the current game with the unseen cards dealt again: :func:`play_deal` of
    :func:`sample_deck` (``seed`` as there). The real env is untouched."""
    real = _real(env, "redeal")
    return play_deal(real, consistent_deck(real, _generator(seed, "redeal")))
