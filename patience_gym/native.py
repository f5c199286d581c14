"""The native (C++) engine behind the Python :class:`~patience_gym.core.game.Game` contract.

``gym.make(id, engine="native")`` plays the variant on the compiled rules of ``src/native/``
(module ``patience_gym._native``, built by ``pip install``) instead of the Python rules core. Both
engines deal the same game from the same seed (the shuffle stays here, in numpy), take the same
options with the same checks and messages, and give the same masks, observations, rewards and
info; ``tests/native/test_native_equivalence.py`` steps them in lockstep.

Python is the spec. A :class:`NativeGame` takes everything that is not the rules from the
variant's Python class: ``OPTIONS`` (validated once, here, by the Python class), the move table
(``moves``), the observation ``layout``, ``name``, ``n_packs``, ``win_cards`` and
``default_max_steps``. What C++ needs of these (action ids, observation offsets, option names) is
generated from the Python module into ``src/native/generated/`` (``scripts/gen_native.py``).
Options reach C++ by name (:func:`encode_options`): a bool as 0/1, ``None`` as -1, an int as
itself, a text as its index in the option's ``choices``.

Text is Python's alone: a native game's ``render()`` and ``describe(a)`` are those of its Python
twin (:meth:`NativeGame.reference`), never on the env's hot path (step, mask, observation). The
twin, and whatever reads a game's Python attributes (the greedy baseline's heuristics, the picture
views), is a Python game replayed from the pack and the actions applied since the deal, only when
asked and incrementally (:class:`Twin`); the batched engine's rows are followed alike
(:class:`RowTwins`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from patience_gym.core.game import Game, IllegalMove, Move, ObsLayout, Option, Outcome, resolve_options
from patience_gym.games import Variant
from patience_gym.games.louis import _PHASE_NAMES as _LOUIS_PHASES

__all__ = [
    "DEFAULT_ENGINE",
    "ENGINES",
    "NativeGame",
    "RowTwins",
    "Twin",
    "encode_options",
    "engine_for",
    "make_game",
    "native_available",
    "native_games",
    "reference",
]

#: The engines ``PatienceEnv(engine=...)`` accepts.
ENGINES = ("native", "python")
#: The engine used when none is named, for a variant whose game has a native port (engine_for):
#: the native one (a checkout whose extension could not be built falls back to the Python rules
#: core; see native_available). A variant without a port plays on the Python engine.
DEFAULT_ENGINE = "native"
#: What the native calls that apply a move (``play``, the stepper's ``step``) report as cards gained
#: for an illegal or out-of-range id (a legal move may gain -1: Klondike's ``worrying_back``);
#: ``src/native/core.hpp`` has the same number, and ``_native.ILLEGAL_GAIN`` must equal it.
ILLEGAL_GAIN = -1000

#: Info extras that are texts: C++ reports the index into this tuple (per Python class name).
EXTRA_TEXTS: dict[str, dict[str, tuple[str, ...]]] = {"Louis": {"phase": _LOUIS_PHASES}}

try:  # the compiled module is optional at import time: a clear error comes on first use
    from patience_gym import _native  # type: ignore[attr-defined]

    _IMPORT_ERROR: ImportError | None = None
except ImportError as exc:  # pragma: no cover - depends on the build
    _native = None
    _IMPORT_ERROR = exc
    DEFAULT_ENGINE = "python"


def native_available() -> bool:
    """True when the compiled engine ``patience_gym._native`` is importable."""
    return _native is not None


def _module() -> Any:
    if _native is None:
        raise ImportError(
            "the native engine (patience_gym._native) is not built: reinstall with a C++17 compiler and "
            "CMake present, e.g. `apt-get install g++ cmake` then `bash scripts/setup.sh` "
            f"(or pip install -e .), or use engine='python' ({_IMPORT_ERROR})"
        )
    return _native


def native_games() -> frozenset[str]:
    """The Python class names of the games this build plays natively (empty when not built)."""
    return frozenset(_native.games()) if _native is not None else frozenset()


def check_engine(engine: str, variant: Variant) -> None:
    """Refuse an unknown engine, or "native" for a variant without a native port."""
    if engine not in ENGINES:
        allowed = ", ".join(repr(e) for e in ENGINES)
        raise ValueError(f"engine={engine!r} is not allowed; choose one of {allowed}")
    if engine == "native":
        mod = _module()
        if variant.game.__name__ not in mod.games():
            ported = ", ".join(sorted(mod.games())) or "none"
            raise ValueError(
                f"{variant.env_name} has no native engine yet (native: {ported}): its environment plays "
                "with engine='python'; the solver, rollouts, the planner and the batched env need the port"
            )


def engine_for(variant: Variant, engine: str | None = None) -> str:
    """The engine a game of ``variant`` plays on: ``engine`` when named, else the default.

    The default is :data:`DEFAULT_ENGINE` where this build plays the variant's game natively, and
    the Python engine otherwise: a new game is one Python module and its registry row, its native
    port optional (naming ``engine="native"`` for it still raises, in :func:`check_engine`).
    """
    if engine is not None:
        return engine
    if DEFAULT_ENGINE == "native" and variant.game.__name__ in native_games():
        return "native"
    return "python"


def encode_options(declared: Mapping[str, Option[Any]], options: Mapping[str, Any]) -> dict[str, int]:
    """Resolved (validated) option values as C++ takes them: every name of ``declared``, an int each."""
    encoded: dict[str, int] = {}
    for name, opt in declared.items():
        value = options[name]
        if value is None:
            code = -1
        elif isinstance(value, bool):
            code = int(value)
        elif isinstance(value, str):
            assert opt.choices is not None, f"option {name} takes a text without choices"
            code = list(opt.choices).index(value)
        elif isinstance(value, int):
            if not 0 <= value < 2**31:
                raise ValueError(f"{name}={value!r} is too large for the native engine (at most {2**31 - 1})")
            code = value
        else:
            raise TypeError(f"option {name}={value!r}: the native engine takes bool, int, str or None")
        encoded[name] = code
    return encoded


class NativeGame(Game[Any]):
    """A game played by the native engine, with its Python class's table, layout and texts.

    Built by :func:`native_class` once per variant class (the class attributes are copied), then
    like any game: ``NativeKlondike(draw=3)``.
    """

    PYTHON: ClassVar[type[Game[Any]]]

    def __init__(self, **options: Any) -> None:
        # The Python game validates the options (same messages) and builds moves and layout.
        self._template = self.PYTHON(**options)
        self.options = self._template.options
        self.moves: tuple[Move[Any], ...] = tuple(self._template.moves)
        self.layout: ObsLayout = self._template.layout
        self.n_actions = len(self.moves)
        self._c = _module().Game.make(self.PYTHON.__name__, encode_options(self.OPTIONS, self.options))
        assert self._c.n_actions == self.n_actions and self._c.obs_size == self.layout.size, (
            f"{self.name}: the native engine's table or layout differs from the Python one"
        )
        self._texts = EXTRA_TEXTS.get(self.PYTHON.__name__, {})
        self._history: list[int] = []  # actions since the deal, for reference()
        self._twin: Twin | None = None  # made on the first reference() after a deal
        self._stepper: Any = None  # bind_buffers(): the env's mask and observation, written in place
        self._behind: tuple[int, Any] | None = None  # previous_hash(): (moves replayed, a native game)

    def configure(self, **options: Any) -> None:  # pragma: no cover - the template configures
        raise NotImplementedError

    # ---- the contract, answered by C++ ---------------------------------------------------------

    def deal(self, pack: list[int]) -> None:
        self._c.deal(pack)
        self._found = int(self._c.foundation_cards)  # kept here: the env reads it every step
        self._pack = list(pack)
        self._history = []
        self._twin = None
        self._behind = None

    def is_legal(self, action: int) -> bool:
        return bool(self._c.is_legal(action))

    def legal_mask(self) -> np.ndarray:
        mask: np.ndarray = self._c.mask()
        return mask

    def apply(self, action: int) -> Outcome:
        gained, won = self._c.play(action)  # one native call: legality, move, what it changed
        if gained == ILLEGAL_GAIN:
            if not 0 <= action < self.n_actions:
                raise IllegalMove(f"{self.name}: action {action} is outside 0..{self.n_actions - 1}")
            raise IllegalMove(f"{self.name}: {self.describe(action)} is not legal now")
        self._history.append(action)
        self._found += gained
        return Outcome(gained, won)

    # ---- the env's fast path: one native call per step ------------------------------------------

    def bind_buffers(self, mask: np.ndarray, obs: np.ndarray) -> None:
        """Bind the int8 ``mask`` (n_actions) and float32 ``obs`` (layout.size) that
        :meth:`refresh_into` and :meth:`step_into` rewrite in place (PatienceEnv owns them and
        hands out copies). Bound to this game only: a clone starts unbound."""
        self._stepper = _module().Stepper(self._c, mask, obs)

    def refresh_into(self) -> bool:
        """Write the mask (all zero once won) and the observation into the bound buffers; True
        while some move is legal."""
        return bool(self._stepper.refresh())

    def step_into(self, action: int) -> tuple[int, bool, bool]:
        """:meth:`apply` then :meth:`refresh_into` in one native call: (cards gained, won, live).
        An illegal or out-of-range id changes nothing and returns ``(ILLEGAL_GAIN, False, False)``
        (a legal move may gain -1: Klondike's ``worrying_back``)."""
        gained, won, live = self._stepper.step(action)
        if gained != ILLEGAL_GAIN:
            self._history.append(action)
            self._found += gained
        return gained, won, live

    def is_over(self, mask: np.ndarray | None = None) -> bool:
        return bool(self._c.is_over())  # one native call beats mask.any() on a numpy array

    @property
    def won(self) -> bool:
        return self._found == self.win_cards

    def _apply(self, move: Move[Any]) -> None:  # pragma: no cover - apply() goes to C++ directly
        raise NotImplementedError

    @property
    def foundation_cards(self) -> int:
        return self._found

    def observe(self, out: np.ndarray) -> None:
        self._c.observe(out)

    # ---- the move features (patience_gym.move_features) ----------------------------------------

    def previous_hash(self) -> int | None:
        """The canonical hash of the position before the last move; None right after the deal.

        Read from a second native game kept one move behind, brought up to date only when asked
        (one move each time when asked after every move): nothing on the env's hot path."""
        moves = len(self._history)
        if moves == 0:
            return None
        behind = self.__dict__.get("_behind")
        if behind is None or behind[0] > moves - 1:
            c = _module().Game.make(self.PYTHON.__name__, encode_options(self.OPTIONS, self.options))
            c.deal(self._pack)
            behind = (0, c)
        for a in self._history[behind[0] : moves - 1]:
            behind[1].apply(a)
        self._behind = (moves - 1, behind[1])
        return int(behind[1].canonical_hash())

    def move_features(self, fixed: np.ndarray, hidden: np.ndarray, out: np.ndarray) -> None:
        """The move features of this position into the float32 (n_actions, K) ``out``, from the
        variant's fixed columns and unseen-card entries (see patience_gym.move_features)."""
        previous = self.previous_hash()
        self._c.move_features(fixed, hidden, previous is not None, previous or 0, out)

    # ---- text: Python's, from the twin (C++ draws none) ----------------------------------------

    def render(self) -> str:
        if "_pack" not in self.__dict__:  # before the first deal, as the Python game answers
            return self._template.render()
        return self.reference().render()

    def describe(self, action: int) -> str:
        if "_pack" not in self.__dict__:
            return self._template.describe(action)
        return self.reference().describe(action)

    def cards_in_play(self) -> list[int]:
        return list(self._c.cards_in_play())

    def extra_info(self) -> dict[str, Any]:
        info: dict[str, Any] = self._c.extra_info()
        for name, texts in self._texts.items():
            info[name] = texts[info[name]]
        return info

    def state_key(self) -> Hashable:
        return bytes(self._c.state_key())

    def clone(self) -> NativeGame:
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._c = self._c.clone()
        new._history = self._history[:]
        new._twin = None  # a twin is never shared: the clone replays its own when asked
        new._stepper = None  # the buffers belong to this game's env
        new._behind = None
        return new

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as what rebuilds it: the class, the options, the pack and the moves since."""
        pack = getattr(self, "_pack", None)
        return (_rebuild, (self.PYTHON, dict(self.options), pack, list(self._history)))

    def __getattr__(self, name: str) -> Any:
        """Attributes of the Python rules core (``game.talon``, ``game.foundations`` ...) are read
        from the Python twin, so code written for either engine reads the same position. Called
        only for names the native game does not have itself: never on the hot path."""
        if name.startswith("_") or "_c" not in self.__dict__:
            raise AttributeError(name)
        # before the first deal only the configuration exists: the template holds it
        return getattr(self.reference() if "_pack" in self.__dict__ else self._template, name)

    # ---- the Python twin -------------------------------------------------------------------------

    def reference(self) -> Game[Any]:
        """The same position on the Python rules core (for heuristics and pictures).

        Replayed from the pack and the actions since the deal, incrementally: asking after every
        move costs one Python move each time. The returned game is owned by this one; clone it
        before changing it.
        """
        if self._twin is None:
            self._twin = Twin(self.PYTHON, self.options, self._pack)
        return self._twin.advance(self._history[self._twin.replayed :])


class Twin:
    """A Python game that follows a native one: dealt the same pack, then given the same actions,
    each replayed once (:meth:`advance` applies only what is new). A native game's text and Python
    attributes are read from it."""

    def __init__(self, py: type[Game[Any]], options: Mapping[str, Any], pack: Sequence[int]) -> None:
        self.game = py(**options)
        self.game.initial_pack = tuple(pack)
        self.game.deal(list(pack))
        self.replayed = 0  # actions applied since the deal

    def advance(self, actions: Sequence[int]) -> Game[Any]:
        """The game after the actions that follow those replayed so far."""
        for a in actions:
            self.game.apply(int(a))
        self.replayed += len(actions)
        return self.game


class RowTwins:
    """The Python twins of a batched engine's games, for their text (``patience_gym.vector``'s
    ``render``). Recording is switched on here (the batched env has it on already: its copies
    replay the same record), so make it before the first reset: the engine then keeps each row's
    actions since its deal and counts its deals, and a row's twin replays only what is new (a new
    one after each deal)."""

    def __init__(self, game: Game[Any], engine: Any) -> None:
        """``game``: one game of the batch's variant and options (its template); ``engine``: the
        batch (``_native.BatchedGames``)."""
        engine.record(True)
        self.py: type[Game[Any]] = game.PYTHON if isinstance(game, NativeGame) else type(game)
        self.options, self.engine = dict(game.options), engine
        self.twins: dict[int, tuple[int, Twin]] = {}  # row -> (its deal count, its twin)

    def game(self, i: int, pack: Sequence[int]) -> Game[Any]:
        """Row ``i``'s position on the Python rules core; ``pack``: the cards of its last deal."""
        deals, twin = self.twins.get(i, (0, None))
        now, new = self.engine.history(i, twin.replayed if twin is not None else 0)
        if now == 0:
            raise RuntimeError(f"row {i} has not been dealt: call reset() first")
        if twin is None or now != deals:
            twin = Twin(self.py, self.options, [int(c) for c in pack])
            now, new = self.engine.history(i, 0)
            self.twins[i] = (now, twin)
        return twin.advance(new)


def _rebuild(
    py: type[Game[Any]], options: dict[str, Any], pack: list[int] | None, history: list[int]
) -> NativeGame:
    """A native game from what :meth:`NativeGame.__reduce__` kept (pickle, deepcopy)."""
    game = native_class(py)(**options)
    if pack is not None:
        game.initial_pack = tuple(pack)
        game.deal(list(pack))
        for a in history:
            game.apply(a)
    return game


_CLASSES: dict[type[Game[Any]], type[NativeGame]] = {}


def native_class(py: type[Game[Any]]) -> type[NativeGame]:
    """The native twin of the Python game class ``py`` (made once, then cached)."""
    if py not in _CLASSES:
        attrs = {
            "PYTHON": py,
            "name": py.name,
            "n_packs": py.n_packs,
            "OPTIONS": py.OPTIONS,
            "win_cards": py.win_cards,
            "default_max_steps": py.default_max_steps,
            "__doc__": f"{py.__name__} on the native engine (see patience_gym.native).",
        }
        _CLASSES[py] = type(f"Native{py.__name__}", (NativeGame,), attrs)
    return _CLASSES[py]


def make_game(variant: Variant, engine: str | None = None, **options: Any) -> Game[Any]:
    """The variant's game on ``engine`` (default: :func:`engine_for`), with its fixed options."""
    engine = engine_for(variant, engine)
    check_engine(engine, variant)
    if engine == "python":
        return variant.make_game(**options)
    return native_class(variant.game)(**{**variant.options, **options})


def reference(game: Game[Any]) -> Game[Any]:
    """``game`` itself on the Python engine, its Python twin on the native one."""
    return game.reference() if isinstance(game, NativeGame) else game


def resolve(variant: Variant, options: Mapping[str, Any]) -> dict[str, Any]:
    """The variant's options resolved and validated as the Python class does it."""
    return resolve_options(variant.game.name, variant.game.OPTIONS, {**variant.options, **options})
