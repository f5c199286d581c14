"""The rules-core contract every variant implements, and the machinery they share.

Nothing here imports gymnasium: a :class:`Game` is a plain Python object that deals a pack,
answers which actions are legal, applies one, and describes itself in text and in a flat
observation vector. :mod:`patience_gym.env` adapts any game to the Gymnasium API.

One place per decision: a variant writes :meth:`Game.is_legal` (the rule, read straight from
docs/rules.md) and :meth:`Game._apply` (what the move does). :meth:`Game.legal_mask` defaults to asking
``is_legal`` of every action; variants may override it with a faster enumeration, and the test
suite checks at every step of random games that the two agree exactly.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, NamedTuple, TypeVar

import numpy as np

from patience_gym.core.cards import N_KINDS, card_name, ordered_pack, parse_pack
from patience_gym.core.moves import K, Move

__all__ = ["Game", "IllegalMove", "Move", "ObsLayout", "Option", "Outcome", "Segment", "check_conserved"]

T = TypeVar("T")
G = TypeVar("G", bound="Game[Any]")


class IllegalMove(ValueError):
    """Raised by :meth:`Game.apply` for an action the rules do not allow now."""


class Outcome(NamedTuple):
    """What one applied move changed: cards newly on the foundations, and whether it won.
    (A named tuple: it is made on every step, and costs a third of a frozen dataclass.)"""

    gained: int
    won: bool


# --------------------------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Option(Generic[T]):
    """One keyword argument of a variant (docs/rules.md: "every option is a keyword argument of the
    environment").

    ``choices`` lists the allowed values; ``check`` is used instead for open ranges, returning an
    error text (or ``None`` when the value is fine) and ``allowed`` describes it for messages.
    ``house_rules`` lists the values that are **not the book's rule** (offered for experiments);
    whatever shows results run with one of them labels it so (:func:`house_rules`).
    ``view_only`` marks an option that changes only what the player is shown (the observation,
    the render), never which moves are legal or what they do: the solver sees every card anyway,
    so a deal is won or lost alike under each of its values, and label files ignore it
    (:func:`rules_only`).
    """

    default: T
    doc: str
    choices: tuple[T, ...] | None = None
    check: Callable[[Any], str | None] | None = None
    allowed: str = ""
    house_rules: tuple[T, ...] = ()
    view_only: bool = False

    def validate(self, game: str, name: str, value: Any) -> T:
        if isinstance(value, np.generic):  # draw=np.int64(3) means draw=3 (and is stored as 3)
            value = value.item()
        if self.choices is not None:
            # bool is an int subclass: compare on type too so that draw=True is refused. The type
            # is checked first, so an array is never compared (its == is elementwise).
            if not any(type(value) is type(c) and value == c for c in self.choices):
                allowed = ", ".join(repr(c) for c in self.choices)
                kinds = " or ".join(dict.fromkeys(type(c).__name__ for c in self.choices))
                right_type = type(value) in map(type, self.choices)
                wrong = "" if right_type else f" (a {type(value).__name__}, not {kinds})"
                raise ValueError(f"{game}: {name}={value!r}{wrong} is not allowed; choose one of {allowed}")
        elif self.check is not None:
            problem = self.check(value)
            if problem:
                raise ValueError(f"{game}: {name}={value!r} is not allowed: {problem} ({self.allowed})")
        checked: T = value
        return checked


def positive_int_or_none(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return "must be a whole number >= 1 or None"
    return None


def house_rules(declared: Mapping[str, Option[Any]], options: Mapping[str, Any]) -> list[str]:
    """The options in ``options`` whose values are not the book's rule, as ``name=value`` texts."""
    return [
        f"{name}={value!r}"
        for name, value in options.items()
        if name in declared and any(type(value) is type(h) and value == h for h in declared[name].house_rules)
    ]


def rules_only(declared: Mapping[str, Option[Any]], options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` less the ones that change only what the player is shown (``Option.view_only``):
    the options that decide which deals can be won."""
    shown = {name for name, opt in declared.items() if opt.view_only}
    return {name: value for name, value in options.items() if name not in shown}


def resolve_options(
    game: str, declared: Mapping[str, Option[Any]], given: Mapping[str, Any]
) -> dict[str, Any]:
    """Defaults overlaid with ``given``; an unknown name or a bad value raises with what is allowed."""
    unknown = sorted(set(given) - set(declared))
    if unknown:
        allowed = ", ".join(sorted(declared)) or "none"
        names = ", ".join(map(repr, unknown))
        # Python's own wording for a keyword a function does not take, which libraries that try an
        # extra keyword and drop it on this TypeError look for (TorchRL's GymEnv passes frameskip).
        python = (
            f"unexpected keyword arguments {names}"
            if unknown[1:]
            else f"an unexpected keyword argument {names}"
        )
        raise TypeError(f"{game} has no option {names} (got {python}); its options are: {allowed}")
    return {name: opt.validate(game, name, given.get(name, opt.default)) for name, opt in declared.items()}


# --------------------------------------------------------------------------------------------
# Observation layout
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Segment:
    name: str
    shape: tuple[int, ...]
    doc: str
    start: int = 0

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def stop(self) -> int:
        return self.start + self.size


@dataclass(frozen=True)
class ObsLayout:
    """Named, documented slices of a flat ``float32`` observation vector in ``[0, 1]``."""

    segments: tuple[Segment, ...]
    size: int = field(init=False)

    def __init__(self, parts: Sequence[tuple[str, tuple[int, ...], str]]) -> None:
        segs: list[Segment] = []
        start = 0
        for name, shape, doc in parts:
            seg = Segment(name, shape, doc, start)
            segs.append(seg)
            start = seg.stop
        object.__setattr__(self, "segments", tuple(segs))
        object.__setattr__(self, "size", start)

    def __getitem__(self, name: str) -> Segment:
        for seg in self.segments:
            if seg.name == name:
                return seg
        raise KeyError(f"no observation segment {name!r}; segments: {[s.name for s in self.segments]}")

    def offset(self, name: str) -> int:
        return self[name].start

    def slice(self, name: str) -> slice:
        """Where segment ``name`` lies in the flat vector (look it up once, write through it)."""
        seg = self[name]
        return slice(seg.start, seg.stop)

    def view(self, obs: np.ndarray, name: str) -> np.ndarray:
        """The segment ``name`` of ``obs`` in its documented shape (a view, not a copy)."""
        seg = self[name]
        return obs[seg.start : seg.stop].reshape(seg.shape)

    def describe(self) -> str:
        return "\n".join(f"[{s.start}:{s.stop}] {s.name} {s.shape}: {s.doc}" for s in self.segments)


# --------------------------------------------------------------------------------------------
# The game
# --------------------------------------------------------------------------------------------


class Game(ABC, Generic[K]):
    """A patience in progress. Subclasses are the variants; see ``games/`` for the declarations.

    Class attributes a variant sets:

    - ``name``: the variant's display name; ``n_packs``: 1 or 2.
    - ``OPTIONS``: the keyword arguments of docs/rules.md with their defaults and allowed values.
    - ``win_cards``: how many cards must reach the foundations to win.
    - ``default_max_steps``: the step limit registered with the environment.
    - ``STATE``: the names of the attributes that make up a position (copied by :meth:`clone`,
      compared by :meth:`state_key`); everything else is configuration, shared between clones.
    - ``moves``, the fixed action table (a :class:`~patience_gym.core.moves.MoveTable`'s moves),
      and ``layout``, the observation layout: class attributes where they are the same for every
      option set, else set per instance by ``configure`` (Klondike's ``stock="known"`` appends a
      segment to its layout; ``scripts/gen_native.py`` allows only such appended segments).
    """

    # Every variant sets these at the head of its class, one line each, then declares its table
    # and layout as rows of data: a scan for repeated code pairs those heads (Anna, Klondike,
    # Light and Shade; Louis and The Kings) and layouts with the offsets read off them (Anna and
    # Nestor, The Congress and Light and Shade) by shape.
    # They are the declarations of different games, the values all differ: the repetition stays.
    name: ClassVar[str]
    n_packs: ClassVar[int] = 1
    OPTIONS: ClassVar[dict[str, Option[Any]]] = {}
    win_cards: ClassVar[int] = 52
    default_max_steps: ClassVar[int] = 1000
    STATE: ClassVar[tuple[str, ...]] = ()

    moves: tuple[Move[K], ...]
    layout: ObsLayout

    def __init__(self, **options: Any) -> None:
        self.options: dict[str, Any] = resolve_options(self.name, self.OPTIONS, options)
        self.configure(**self.options)
        self.n_actions = len(self.moves)

    # ---- declared by each variant ------------------------------------------------------------

    #: ``configure(**options)``: store the resolved options (and build ``self.moves`` and
    #: ``self.layout`` where they depend on them). Each variant declares it with its own
    #: keyword-only parameters.
    configure: Callable[..., None]

    @abstractmethod
    def deal(self, pack: list[int]) -> None:
        """Start a new game from ``pack`` (card ids, first element dealt first)."""

    @abstractmethod
    def is_legal(self, action: int) -> bool:
        """The rule: may ``action`` be taken now? Never raises for an id in range."""

    @abstractmethod
    def _apply(self, move: Move[K]) -> None:
        """Carry out a legal move, then every automatic step that follows it."""

    @property
    @abstractmethod
    def foundation_cards(self) -> int:
        """Cards on the foundations (for Nestor: cards paired off)."""

    @abstractmethod
    def observe(self, out: np.ndarray) -> None:
        """Write the observation into the zeroed vector ``out`` (``layout.size`` floats)."""

    @abstractmethod
    def render(self) -> str:
        """The table as text."""

    @abstractmethod
    def cards_in_play(self) -> list[int]:
        """Every card the game holds, wherever it is (for the conservation invariant)."""

    def extra_info(self) -> dict[str, Any]:
        """Variant-specific entries for the environment's ``info`` dict."""
        return {}

    def unseen_positions(self) -> list[int]:
        """The indices of ``initial_pack`` whose card the player has never seen in this game (face
        down or still in the pack since the deal); a card seen once stays seen. The planner's
        hidden cards: :mod:`patience_gym.determinize` deals them again at random."""
        raise NotImplementedError(
            f"{type(self).__name__} does not say which cards are unseen (unseen_positions)"
        )

    def unshown_positions(self) -> list[int]:
        """The indices of ``initial_pack`` whose card has never been shown on the table: the unseen
        ones, and besides those the player knows without their having been turned up (Klondike's
        stock with ``stock="known"``). A search that plans as if they were still to come (a turn
        that shows one is where information arrives) reads these."""
        return self.unseen_positions()

    def undealt_positions(self, left: int, taken: Sequence[int] = ()) -> list[int]:
        """Positions in ``initial_pack`` of its last ``left`` cards once the first copy of each card
        in ``taken`` is taken out for the foundations: the cards still to come of a pack dealt from
        its front (for :meth:`unseen_positions`)."""
        if not left:
            return []
        order = list(range(len(self.initial_pack)))
        for c in taken:
            order.remove(next(i for i in order if self.initial_pack[i] == c))
        return order[-left:]

    def state_key(self) -> Hashable:
        """A hashable snapshot of the whole state (greedy's cycle guard, determinism tests)."""
        return tuple(_freeze(getattr(self, name)) for name in self.STATE)

    # ---- shared machinery ----------------------------------------------------------------------

    def new_game(self, rng: np.random.Generator | None = None, deck: object = None) -> None:
        """Shuffle a fresh pack with ``rng``, or deal the user's ``deck`` after validating it."""
        if deck is not None:
            pack = parse_pack(deck, self.n_packs, self.name)
        else:
            pack = ordered_pack(self.n_packs)
            if rng is None:
                rng = np.random.default_rng()
            order = rng.permutation(len(pack))
            pack = [pack[i] for i in order]
        self.initial_pack: tuple[int, ...] = tuple(pack)
        self.deal(pack)

    def deck(self) -> list[str]:
        """The pack this game was dealt from, as card strings: ``reset(options={"deck": ...})``
        with it deals the same game again."""
        return [card_name(c) for c in self.initial_pack]

    def legal_mask(self) -> np.ndarray:
        """Boolean mask over the action table: exactly the actions :meth:`apply` accepts."""
        mask = np.zeros(self.n_actions, dtype=bool)
        self.mark_legal(mask)
        return mask

    def mark_legal(self, mask: np.ndarray) -> None:
        """Set ``mask[a]`` for each legal action ``a`` of the all-False ``mask``.

        By default :meth:`is_legal` is asked id by id; a variant computes the same place by place
        where that is faster, calling the same named rules (``patience_gym.testing.check_position``
        holds the two equal at every position of the contract's rollouts).
        """
        mask[:] = np.fromiter((self.is_legal(a) for a in range(self.n_actions)), bool, self.n_actions)

    def legal_actions(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.legal_mask())]

    def apply(self, action: int) -> Outcome:
        """Apply ``action`` and say what it changed; raise :class:`IllegalMove` (state untouched)
        when it is not legal."""
        if not 0 <= action < self.n_actions:
            raise IllegalMove(f"{self.name}: action {action} is outside 0..{self.n_actions - 1}")
        if not self.is_legal(action):
            raise IllegalMove(f"{self.name}: {self.describe(action)} is not legal now")
        before = self.foundation_cards
        self._apply(self.moves[action])
        after = self.foundation_cards
        return Outcome(after - before, after == self.win_cards)

    def is_over(self, mask: np.ndarray | None = None) -> bool:
        """The game has ended: won, or no legal move is left (lost). Decided here only; pass the
        current ``legal_mask()`` when it is at hand."""
        if mask is not None:
            return not mask.any()  # a won game has no legal move left (the validator checks it)
        return self.won or not self.legal_mask().any()

    @property
    def won(self) -> bool:
        return self.foundation_cards == self.win_cards

    def describe(self, action: int) -> str:
        """The readable move behind an action id, e.g. ``"7H pile 3 -> foundation"``.

        Naming the card needs the current position; where no single card is meant (or the pile
        is empty) the table's text alone is returned.
        """
        move = self.moves[action]
        c = self.moving_card(move)
        return f"{card_name(c)} {move.text}" if c is not None else move.text

    def moving_card(self, move: Move[K]) -> int | None:
        """The card a move would carry now, for :meth:`describe`; ``None`` when there is none."""
        return None

    def observation(self) -> np.ndarray:
        out = np.zeros(self.layout.size, dtype=np.float32)
        self.observe(out)
        return out

    def clone(self: G) -> G:
        """A copy whose moves do not touch this game. ``STATE`` names what must be copied:
        lists (of ints, or of lists of ints) are copied two levels deep; the rest is shared."""
        new = copy.copy(self)
        for name in self.STATE:
            value = getattr(self, name)
            if isinstance(value, list):
                setattr(new, name, [x[:] if isinstance(x, list) else x for x in value])
        return new


def _freeze(value: Any) -> Hashable:
    if isinstance(value, list):
        return tuple(_freeze(x) for x in value)
    frozen: Hashable = value
    return frozen


def check_conserved(game: Game[Any]) -> None:
    """Raise ``AssertionError`` unless the game holds each card exactly ``n_packs`` times."""
    counts = np.bincount(np.asarray(game.cards_in_play(), dtype=np.int64), minlength=N_KINDS)
    if not (counts == game.n_packs).all():
        bad = {card_name(c): int(n) for c, n in enumerate(counts) if n != game.n_packs}
        raise AssertionError(f"{game.name}: cards not conserved: {bad}")
