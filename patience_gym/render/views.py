"""One table view per game: where each place lies, as the book's tableau illustrations set it out.

Each function reads only what the game's ``render()`` shows: face-down cards become backs
(:data:`~patience_gym.render.view.BACK`), packs and stocks a back with their count; no hidden
card's identity ever reaches a view. Places carry the names the action tables use (``pile 3``,
``help 0``, ``packet c``, ``row R2``), so a move read in words can be found on the picture.

Every place is present in every position (empty ones drawn as outlines) and has a fixed room
for its fan, so a game's picture keeps one size for the whole episode, as a video needs.
:data:`VIEWS` maps each :class:`~patience_gym.core.game.Game` subclass to its function; a
registry-driven test checks that every registered variant has one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from patience_gym.core.cards import NAME, SUITS
from patience_gym.core.game import Game
from patience_gym.games.anna import N_REDEALS as ANNA_REDEALS
from patience_gym.games.anna import Anna
from patience_gym.games.babette import EMPTY as BABETTE_EMPTY
from patience_gym.games.babette import N_COLS as BABETTE_COLS
from patience_gym.games.babette import N_REDEALS as BABETTE_REDEALS
from patience_gym.games.babette import Babette
from patience_gym.games.congress import Congress
from patience_gym.games.klondike import Klondike
from patience_gym.games.light_and_shade import LightAndShade
from patience_gym.games.louis import CADOGAN_DEAL, LETTERS, Louis
from patience_gym.games.nestor import Nestor
from patience_gym.games.the_kings import N_LINES as KINGS_LINES
from patience_gym.games.the_kings import TheKings
from patience_gym.render.view import BACK, CARD_W, CELL_W, STEP_DOWN, Caption, Place, TableView, cards

G = TypeVar("G", bound=Game[Any])
ViewFn = Callable[[Any], TableView]

#: The view function of each game class.
VIEWS: dict[type[Game[Any]], ViewFn] = {}


def view_of(game_class: type[G]) -> Callable[[Callable[[G], TableView]], Callable[[G], TableView]]:
    def register(fn: Callable[[G], TableView]) -> Callable[[G], TableView]:
        VIEWS[game_class] = fn
        return fn

    return register


def table_view(game: Game[Any]) -> TableView:
    """The view of ``game``'s current position (a native game is drawn from its Python twin)."""
    from patience_gym.native import reference

    game = reference(game)
    try:
        fn = VIEWS[type(game)]
    except KeyError:
        raise NotImplementedError(
            f"no table view for {type(game).__name__}: add one to patience_gym/render/views.py"
        ) from None
    return fn(game)


# ---- small shared pieces ---------------------------------------------------------------------


def pack_place(label: str, size: int, x: float, y: float, hint: str = "") -> Place:
    """A face-down pack or stock: one back with its count, an outline once it is out."""
    return Place(label, (BACK,) if size else (), x, y, count=size, hint=hint)


def talon_place(talon: list[int], x: float, y: float, fan: str = "right") -> Place:
    """A talon: its top three cards fanned (as ``render()`` lists them), its size written on it.

    The cards below the top were seen when turned, so showing three hides nothing new."""
    top = tuple(NAME[c] for c in talon[-3:])
    return Place("talon", top, x, y, fan="right" if fan == "right" else "down", length=1.8, count=len(talon))


def foundation_tops(g: Game[Any], from_counts: Callable[[], Sequence[int | None]]) -> list[int | None]:
    """The top card of each foundation (``None`` while empty), in the game's foundation order.

    Games on the core's shared foundations keep ``foundations`` as piles of cards; the others
    keep counts, which ``from_counts`` turns into top cards (called only for them).
    """
    piles = getattr(g, "foundations", None)
    if isinstance(piles, list) and piles and all(isinstance(p, list) for p in piles):
        return [p[-1] if p else None for p in piles]
    return list(from_counts())


def foundation_row(
    tops: Sequence[int | None], x: float, y: float, label: str, hints: list[str]
) -> list[Place]:
    """Foundations side by side, squared up (only the top card shows); the first one labelled."""
    return [
        Place(label if k == 0 else "", (NAME[c],) if c is not None else (), x + k, y, hint=hints[k])
        for k, c in enumerate(tops)
    ]


# ---- the games, in the rule book's order -------------------------------------------------------


@view_of(Klondike)
def klondike_view(g: Klondike) -> TableView:
    stock = pack_place("stock", len(g.stock), 0, 0)
    if g.known_stock:  # squared up face up: the next card to turn shows (the text lists them all)
        stock = Place("stock", cards(g.stock), 0, 0, count=len(g.stock))
    places = [stock, talon_place(g.talon, 1, 0)]
    tops = [pile[-1] if pile else None for pile in g.foundations]  # C D H S
    places += foundation_row(tops, 3, 0, "foundations", list(SUITS))
    places += [
        Place(f"pile {i}", cards(pile, g.down[i]), i, 1, fan="down", length=6.4, hint="K")
        for i, pile in enumerate(g.piles)
    ]
    passes = "unlimited" if g.passes is None else f"{g.passes_used}/{g.passes}"
    known = ("stock known",) if g.known_stock else ()
    counters = (
        f"draw {g.draw}",
        f"pass {passes}",
        f"on foundations: {g.foundation_cards}/{g.win_cards}",
        *known,
    )
    return TableView("Klondike", tuple(places), counters)


@view_of(Nestor)
def nestor_view(g: Nestor) -> TableView:
    places = [Place(f"column {i}", cards(col), i, 0, fan="down", length=2.8) for i, col in enumerate(g.cols)]
    places += [
        Place(f"reserve {k}", () if c is None else ((NAME[c] if k < g.turned else BACK),), 2 + k, 2.4)
        for k, c in enumerate(g.reserve)
    ]
    counters = (
        f"reserve {'open' if g.open_reserve else 'strict'}",
        f"paired: {g.foundation_cards}/{g.win_cards}",
    )
    return TableView("Nestor", tuple(places), counters)


@view_of(Babette)
def babette_view(g: Babette) -> TableView:
    tops = [pile[-1] if pile else None for pile in g.foundations]  # up C D H S, then down C D H S
    places = [pack_place("pack", len(g.pack), 0, 0)]
    places += foundation_row(tops[:4], 1, 0, "up foundations", list(SUITS))
    places += foundation_row(tops[4:], 5, 0, "down foundations", list(SUITS))
    # The garden grid: column c fanned down, one entry per row dealt, None where the place is
    # empty (played, or not reached by a short row), so row r lies at the same height in every
    # column and a released card shows more of itself than a covered one.
    places += [
        Place(
            f"col {c}",
            tuple(None if row[c] == BABETTE_EMPTY else NAME[row[c]] for row in g.grid),
            1 + c,
            1,
            fan="down",
            length=5.4,  # 13 rows at full step: no squeezing, so the row captions stay true
        )
        for c in range(BABETTE_COLS)
    ]
    captions = tuple(Caption(f"row {r}", 0, 1, dy=r * STEP_DOWN + 6) for r in range(len(g.grid)))
    counters = (
        f"re-deals left: {BABETTE_REDEALS - g.redeals}",
        f"rows dealt: {len(g.grid)}",
        f"on foundations: {g.foundation_cards}/{g.win_cards}",
    )
    return TableView("Babette", tuple(places), counters, captions)


@view_of(Louis)
def louis_view(g: Louis) -> TableView:
    tops = [pile[-1] if pile else None for pile in g.foundations]  # ace piles C D H S, then king piles
    places = foundation_row(tops[:4], 0, 0, "ace foundations", ["A"] * 4)
    places += foundation_row(tops[4:], 4, 0, "king foundations", ["K"] * 4)
    if not g.dick:
        places.append(Place("turned card", (NAME[g.turned],) if g.turned >= 0 else (), 9, 0))
    places.append(pack_place("pack", len(g.pack), 11, 0))
    places += [
        Place(f"packet {LETTERS[p]}", cards(pile), p, 1, fan="down", length=5.0)
        for p, pile in enumerate(g.packets)
    ]
    phase = ("Cadogan deal", "Dick's first circle", "deal complete")[g.phase]
    counters = [phase]
    if g.phase == CADOGAN_DEAL:
        counters.append(f"circle {g.circle + 1 if g.circle >= 0 else 1}, next position {LETTERS[g.pos]}")
        blocked = [LETTERS[p] for p, pile in enumerate(g.packets) if pile and g.tops()[p] < 0]
        if blocked:
            counters.append("blocked: " + " ".join(blocked))
    counters += [f"re-deals left: {g.redeals_left}", f"on foundations: {g.foundation_cards}/{g.win_cards}"]
    title = "St. Louis (Dick)" if g.dick else 'The "Louis" Patience (Cadogan)'
    return TableView(title, tuple(places), tuple(counters))


@view_of(Anna)
def anna_view(g: Anna) -> TableView:
    tops = [pile[-1] if pile else None for pile in g.foundations]  # two per suit: C C D D H H S S
    places = foundation_row(tops, 0, 0, "foundations", ["J"] * 8)
    places += [pack_place("pack", len(g.pack), 8.5, 0), talon_place(g.talon, 8.5, 1, fan="down")]
    places += [Place(f"help {i}", cards(h), i, 1, fan="down", length=4.2) for i, h in enumerate(g.helps)]
    counters = [
        f"re-deals left: {ANNA_REDEALS - g.redeals}",
        f"on foundations: {g.foundation_cards}/{g.win_cards}",
    ]
    if g.refill_from_pack:
        counters.append("refill from the pack")
    return TableView("Anna", tuple(places), tuple(counters))


@view_of(LightAndShade)
def light_and_shade_view(g: LightAndShade) -> TableView:
    tops = [pile[-1] for pile in g.foundations]  # never empty: the aces are set out before the deal
    places = foundation_row(tops, 0, 0, "foundations", ["A"] * 8)
    places += [
        Place(f"auxiliary {i}", cards(pile), i, 1, fan="down", length=3.2) for i, pile in enumerate(g.aux)
    ]
    places += [Place(f"rival {r}", cards([c] if c >= 0 else []), r, 3.7) for r, c in enumerate(g.rivals)]
    places += [pack_place("pack", len(g.pack), 5, 1), talon_place(g.talon, 6, 1)]
    counters = [f"on foundations: {g.foundation_cards}/{g.win_cards}"]
    if not g.talon_to_aux:
        counters.append("talon to Rivals only")
    if g.redeals_allowed:
        counters.append(f"re-deals left: {g.redeals_left} (not the book's rule)")
    return TableView("Light and Shade", tuple(places), tuple(counters))


@view_of(Congress)
def congress_view(g: Congress) -> TableView:
    places = foundation_row(foundation_tops(g, list), 0, 0, "foundations", ["A"] * 8)
    places.append(pack_place("pack", len(g.pack), 8.5, 0))
    places += [
        # help places 4-7 open only when the pack is out (rule book: up to eight helps then)
        Place(
            f"help {h}", cards(pile), h, 1, fan="down", length=2.8, hint="closed" if h >= 4 and g.pack else ""
        )
        for h, pile in enumerate(g.helps)
    ]
    places += [
        Place(f"river {c}", cards(col), c, 3.3, fan="down", length=5.0) for c, col in enumerate(g.rivers)
    ]
    counters = (f"rows dealt: {g.rows}", f"on foundations: {g.foundation_cards}/{g.win_cards}")
    return TableView("The Congress", tuple(places), counters)


@view_of(TheKings)
def the_kings_view(g: TheKings) -> TableView:
    # Four lines: the left rows run leftward from the foundations, the right rows rightward;
    # each row is listed from its inner end, so its outermost (available) card is drawn last.
    row_len = 7.0  # card widths: 15 cards at full step, longer rows squeeze
    inner = row_len * CARD_W / CELL_W  # the cells a left row takes
    places: list[Place] = []
    for line in range(KINGS_LINES):
        left, right = g.rows[line], g.rows[KINGS_LINES + line]
        places.append(Place(f"row L{line}", cards(left), 0, line, fan="left", length=row_len, hint="lane"))
        tops = [g.foundations[2 * line + k][-1] for k in range(2)]
        places += foundation_row(tops, inner + 0.3, line, "foundations" if line == 0 else "", ["A", "A"])
        places.append(
            Place(f"row R{line}", cards(right), inner + 2.6, line, fan="right", length=row_len, hint="lane")
        )
    counters = (
        f"sequences {'monotone' if g.monotone else 'either way'}",
        f"on foundations: {g.foundation_cards}/{g.win_cards}",
    )
    return TableView("The Kings", tuple(places), counters)
