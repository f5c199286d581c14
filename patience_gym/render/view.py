"""A game-neutral picture of the table: what a player sees, and where it lies.

A :class:`TableView` is computed from a game by the per-game functions in
:mod:`patience_gym.render.views`; :func:`layout` turns it into a :class:`Frame` of pixel-placed
cards, empty places and texts. The Pillow picture (:mod:`patience_gym.render.picture`) and the
HTML replay (:mod:`patience_gym.render.html`) both draw a ``Frame``, so the two always agree.

Nothing here imports Pillow or gymnasium, and nothing hidden ever enters a view: a face-down card
is :data:`BACK`, never its identity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from patience_gym.core.cards import NAME

#: A face-down card: its back is drawn, its identity never enters the view.
BACK = "##"

#: How a place's cards are spread: ``down`` (a column, first card on top), ``right`` and ``left``
#: (a row running that way from its first card), ``none`` (squared up: only the top card shows).
Fan = Literal["down", "right", "left", "none"]

# Pixel geometry, shared by the picture and the HTML replay.
CARD_W, CARD_H = 56, 78
CELL_W = CARD_W + 12  # one grid column
LABEL_H = 16  # the band above a row of places that holds their labels
CELL_H = CARD_H + LABEL_H + 10  # one grid row
MARGIN = 12
TITLE_H = 44  # two lines: the title, then the counters
# Fan steps: a face-up card shows its corner index (rank over suit); a back needs only a sliver.
STEP_DOWN, STEP_DOWN_BACK = 28, 9
STEP_SIDE, STEP_SIDE_BACK = 24, 8
MIN_STEP = 6


@dataclass(frozen=True)
class Place:
    """One place on the table, named as the action table names it.

    ``cards`` run from the bottom (first laid) to the top: ``"7H"`` face up, :data:`BACK` face
    down, ``None`` a vacancy kept open inside a fan (Babette's garden). ``x`` and ``y`` are grid
    cells (columns of :data:`CELL_W`, rows of :data:`CELL_H` pixels); ``length`` is the room the
    fan may take along its direction, in card lengths (it squeezes to fit, so a picture's size
    never depends on the position). ``count`` is written on the place (a pack's or talon's size);
    ``hint`` is written faintly in it while it is empty (``"K"``: only a king may fill it).
    """

    label: str
    cards: tuple[str | None, ...]
    x: float
    y: float
    fan: Fan = "none"
    length: float = 1.0
    count: int | None = None
    hint: str = ""


@dataclass(frozen=True)
class Caption:
    """A text on the table that names no single place: ``row 3`` beside a grid's rows.

    ``x`` and ``y`` are grid cells as for a place; ``dy`` moves it down by pixels (to the n-th
    card of a fan: ``n * STEP_DOWN``)."""

    text: str
    x: float
    y: float
    dy: int = 0


@dataclass(frozen=True)
class TableView:
    """The whole table: a title, counters such as ``"re-deals left: 2"``, the places, and
    captions."""

    title: str
    places: tuple[Place, ...]
    counters: tuple[str, ...] = ()
    captions: tuple[Caption, ...] = ()


def card_code(c: int | None, face_up: bool = True) -> str | None:
    """A card id as a view entry: its name face up, :data:`BACK` face down, ``None`` for no card."""
    if c is None or c < 0:
        return None
    return NAME[c] if face_up else BACK


def cards(ids: Sequence[int], face_down: int = 0) -> tuple[str | None, ...]:
    """A pile's view entries: its first ``face_down`` cards as backs, the rest by name."""
    return tuple(BACK if k < face_down else NAME[c] for k, c in enumerate(ids))


# --------------------------------------------------------------------------------------------
# Layout: a view in pixels
# --------------------------------------------------------------------------------------------


@dataclass
class Frame:
    """A view placed in pixels: what the picture and the HTML replay draw, in drawing order.

    ``cards``: ``(x, y, code)`` top-left corners, bottom card first; ``slots``: empty places as
    ``(x, y, hint)``; ``texts``: ``(x, y, text, style)`` with style ``title``, ``counter``,
    ``label`` or ``badge``, ``x`` the left edge, or the right edge when the style ends in ``:r``
    (right-aligned).
    """

    width: int
    height: int
    cards: list[tuple[int, int, str]] = field(default_factory=list)
    slots: list[tuple[int, int, str]] = field(default_factory=list)
    texts: list[tuple[int, int, str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        """Compact form for the HTML replay (lists, not objects: a step is a few kB)."""
        return {
            "w": self.width,
            "h": self.height,
            "c": [list(c) for c in self.cards],
            "s": [list(s) for s in self.slots],
            "t": [list(t) for t in self.texts],
        }


def _steps(entries: Sequence[str | None], side: bool, room: int) -> list[int]:
    """Offsets of each card from the fan's start: full steps for faces, slivers for backs,
    squeezed in proportion when the fan would overrun its room."""
    if side:
        full, back = STEP_SIDE, STEP_SIDE_BACK
        card = CARD_W
    else:
        full, back = STEP_DOWN, STEP_DOWN_BACK
        card = CARD_H
    gaps = [float(back if e == BACK else full) for e in entries[:-1]]
    need = sum(gaps)
    if need > room - card and need > 0:
        scale = max(room - card, MIN_STEP * len(gaps)) / need
        gaps = [g * scale for g in gaps]
    out: list[int] = []
    pos = 0.0
    for g in [0.0, *gaps]:
        pos += g
        out.append(round(pos))
    return out


def place_box(place: Place) -> tuple[int, int, int, int]:
    """The pixel box ``(left, top, right, bottom)`` a place's cards may occupy."""
    x0 = MARGIN + round(place.x * CELL_W)
    y0 = TITLE_H + MARGIN + LABEL_H + round(place.y * CELL_H)
    if place.fan == "down":
        return x0, y0, x0 + CARD_W, y0 + round(place.length * CARD_H)
    if place.fan in ("right", "left"):
        return x0, y0, x0 + round(place.length * CARD_W), y0 + CARD_H
    return x0, y0, x0 + CARD_W, y0 + CARD_H


def frame_size(view: TableView) -> tuple[int, int]:
    """Picture size for a view: its places' boxes plus margins, rounded up to a multiple of 16
    (video encoders want even sides, and macro blocks of 16 avoid a resize)."""
    right = max(place_box(p)[2] for p in view.places)
    bottom = max(place_box(p)[3] for p in view.places)
    w, h = right + MARGIN, bottom + MARGIN
    return -(-w // 16) * 16, -(-h // 16) * 16


def fan_positions(place: Place) -> list[tuple[int, int, str | None]]:
    """Top-left corner of each entry a place shows, bottom first (a squared-up pile shows its
    top card only)."""
    left, top, right, bottom = place_box(place)
    entries = place.cards
    if place.fan == "none":
        return [(left, top, entries[-1])] if entries else []
    side = place.fan != "down"
    offsets = _steps(entries, side, right - left if side else bottom - top)
    if place.fan == "down":
        return [(left, top + off, e) for e, off in zip(entries, offsets, strict=True)]
    if place.fan == "right":
        return [(left + off, top, e) for e, off in zip(entries, offsets, strict=True)]
    return [(right - CARD_W - off, top, e) for e, off in zip(entries, offsets, strict=True)]


def layout(view: TableView) -> Frame:
    """Place every card, empty place and text of ``view`` in pixels."""
    w, h = frame_size(view)
    frame = Frame(w, h)
    frame.texts.append((MARGIN, 8, view.title, "title"))
    if view.counters:
        frame.texts.append((MARGIN, 8 + 20, "   ".join(view.counters), "counter"))
    for place in view.places:
        left, top, right, _ = place_box(place)
        if place.label:
            if place.fan == "left":  # a row running left is labelled at its start, on the right
                frame.texts.append((right, top - LABEL_H, place.label, "label:r"))
            else:
                frame.texts.append((left, top - LABEL_H, place.label, "label"))
        # (x, y) of the top card, or of the empty place: where the count goes.
        x, y = (right - CARD_W if place.fan == "left" else left), top
        if all(e is None for e in place.cards):
            frame.slots.append((x, y, place.hint))
        else:
            for x, y, entry in fan_positions(place):
                if entry is not None:  # a vacancy leaves its room empty: the card above shows more
                    frame.cards.append((x, y, entry))
        if place.count is not None:
            frame.texts.append((x + CARD_W - 4, y + CARD_H - 18, str(place.count), "badge:r"))
    for cap in view.captions:
        x0 = MARGIN + round(cap.x * CELL_W)
        y0 = TITLE_H + MARGIN + LABEL_H + round(cap.y * CELL_H) + cap.dy
        frame.texts.append((x0, y0, cap.text, "label"))
    return frame
