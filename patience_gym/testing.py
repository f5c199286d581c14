"""Checks shared by every variant's tests (pgx's ``api_test`` idea), usable by downstream code.

:func:`check_rollout` plays random legal moves and asserts, at every step, the contract every
variant owes: cards conserved, the fast mask equal to the rule-by-rule one, every masked-in action
accepted and changing the state, every masked-out one refused with the state untouched, the mask
never empty while the game is live, and the observation inside ``[0, 1]``.

:func:`scenario_game` builds the games of the rule scenarios. Under :func:`scenario_engine`
``"native"`` it returns a :class:`Lockstep` game: still the Python game (the scenarios read its
piles and talon), with a native twin dealt from the same pack and moved by every ``apply``, and
after the deal and each move the two must agree on everything the contract shows: mask,
observation, foundation cards, won and over, text, info and the description of every action. A
move one engine refuses the other must refuse with the same message.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar, NoReturn, TypeVar, cast

import numpy as np

from patience_gym.core.cards import card_name, ordered_pack, parse_card
from patience_gym.core.game import Game, IllegalMove, Outcome, check_conserved

G = TypeVar("G", bound=Game[Any])


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


# ---- rule scenarios on both engines ------------------------------------------------------------

#: The engines a rule scenario can be built on.
SCENARIO_ENGINES = ("python", "native")


@dataclass
class ScenarioRun:
    """The engine :func:`scenario_game` builds on now, and how many native twins it has dealt (a
    scenario that dealt none has checked nothing on the native engine)."""

    engine: str = "python"
    native_deals: int = 0


_run = ScenarioRun()


@contextmanager
def scenario_engine(engine: str) -> Iterator[ScenarioRun]:
    """Build the scenario games of the ``with`` block on ``engine`` ("python" or "native")."""
    global _run
    if engine not in SCENARIO_ENGINES:
        raise ValueError(f"engine={engine!r}: choose one of {SCENARIO_ENGINES}")
    outer, _run = _run, ScenarioRun(engine)
    try:
        yield _run
    finally:
        _run = outer


def scenario_game(cls: type[G], **options: Any) -> G:
    """``cls(**options)``; under ``scenario_engine("native")`` a :class:`Lockstep` one."""
    if _run.engine == "python":
        return cls(**options)
    return cast(G, lockstep_class(cls)(**options))


class Lockstep(Game[Any]):
    """Mixed in before a variant's Python class (:func:`lockstep_class`): the game is the Python
    one, and ``deal``, ``apply`` and ``clone`` carry a native twin along, checked at every step.

    Python's own methods are called through ``PYTHON`` (not ``super()``) so the mixin stays typed.
    """

    PYTHON: ClassVar[type[Game[Any]]]
    twin: Game[Any] | None = None  # the native game, from the first deal on
    played: tuple[str, ...] = ()  # the moves since the deal, for the report of a disagreement

    def deal(self, pack: list[int]) -> None:
        from patience_gym.native import native_class  # not at import: testing needs no extension

        self.PYTHON.deal(self, pack)
        twin = native_class(self.PYTHON)(**self.options)
        twin.initial_pack = tuple(pack)
        twin.deal(list(pack))
        self.twin, self.played = twin, ()
        _run.native_deals += 1
        self.check_twin("the deal")

    def apply(self, action: int) -> Outcome:
        twin = self.twin
        if twin is None:
            return self.PYTHON.apply(self, action)
        move = f"{self.describe(action)!r} (id {action})" if 0 <= action < self.n_actions else f"id {action}"
        try:
            outcome = self.PYTHON.apply(self, action)
        except IllegalMove as refused:
            try:
                twin.apply(action)
            except IllegalMove as also:
                if str(also) != str(refused):
                    self.disagree(f"{move} refused as {str(also)!r} (native), {str(refused)!r} (Python)")
                raise
            self.disagree(f"the native engine accepts {move}, which Python refuses")
        try:
            native = twin.apply(action)
        except IllegalMove as refused:
            self.disagree(f"the native engine refuses {move}: {refused}")
        if native != outcome:
            self.disagree(f"{move} gives {native} (native), {outcome} (Python)")
        self.played += (move,)
        self.check_twin(f"after {move}")
        return outcome

    def clone(self: G) -> G:
        assert isinstance(self, Lockstep)
        new = self.PYTHON.clone(self)
        assert isinstance(new, Lockstep)
        if self.twin is not None:
            new.twin = self.twin.clone()
        return cast(G, new)

    def check_twin(self, where: str) -> None:
        """Both engines show the same position (everything but Python's own attributes)."""
        twin = self.twin
        assert twin is not None
        mask, native_mask = self.legal_mask(), twin.legal_mask()
        if not np.array_equal(mask, native_mask):
            self.disagree(f"{where}: masks differ on {self._names(np.flatnonzero(mask != native_mask))}")
        by_rule = np.array([twin.is_legal(a) for a in range(self.n_actions)], dtype=bool)
        if not np.array_equal(by_rule, native_mask):
            wrong = self._names(np.flatnonzero(by_rule != native_mask))
            self.disagree(f"{where}: the native is_legal and mask differ on {wrong}")
        obs, native_obs = self.observation(), twin.observation()
        if not np.array_equal(obs, native_obs):
            seen = {
                s.name
                for s in self.layout.segments
                for i in np.flatnonzero(obs != native_obs)
                if s.start <= i < s.stop
            }
            self.disagree(f"{where}: observations differ in {sorted(seen)}")
        self._same(where, "foundation cards", self.foundation_cards, twin.foundation_cards)
        self._same(where, "won", self.won, twin.won)
        self._same(where, "over", self.is_over(), twin.is_over())
        self._same(where, "info", self.extra_info(), twin.extra_info())
        self._same(where, "cards", Counter(self.cards_in_play()), Counter(twin.cards_in_play()))
        self._same(where, "render", self.render(), twin.render())
        for a in range(self.n_actions):
            self._same(where, f"describe({a})", self.describe(a), twin.describe(a))

    def _names(self, actions: Any) -> list[str]:
        return [f"{self.moves[int(a)].text} (id {int(a)})" for a in actions]

    def _same(self, where: str, what: str, python: object, native: object) -> None:
        if python != native:
            self.disagree(f"{where}: {what} differ\nPython:\n{python}\nnative:\n{native}")

    def disagree(self, what: str) -> NoReturn:
        """Fail naming the deck and the moves that reach the disagreement (to replay it)."""
        raise AssertionError(
            f"{self.name} {self.options}: the engines disagree: {what}\n"
            f"deck: {' '.join(self.deck())}\nmoves: {list(self.played)}"
        )


_LOCKSTEP: dict[type[Game[Any]], type[Lockstep]] = {}


def lockstep_class(cls: type[Game[Any]]) -> type[Lockstep]:
    """``cls`` with :class:`Lockstep` mixed in (made once per class)."""
    if cls not in _LOCKSTEP:
        _LOCKSTEP[cls] = type(f"Lockstep{cls.__name__}", (Lockstep, cls), {"PYTHON": cls})
    return _LOCKSTEP[cls]
