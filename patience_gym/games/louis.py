"""The "Louis" Patience (Cadogan) and St. Louis (Dick); docs/rules.md section 4. Two packs.

Rules in brief. The first ace and king of each suit are set out as the eight foundations (aces
up in suit to the king, kings down to the ace); the other 96 cards are dealt in **circles** of
twelve onto the **alphabet**, packets ``a b c d e f g h i k l m`` (no ``j``). ``deal="cadogan"``
(Louis-v0): each card turned is played or placed on the next position; cards of earlier circles
are blocked until the deal is done. ``deal="dick"`` (StLouis-v0): the first circle is open, gaps
refilled at once; going on deals the rest with no play. Then every packet's top card may go to a
foundation or be married onto another packet's top (same suit, one rank up or down). Two re-deals
gather the packets g..m, a..f and deal again. Won when all 104 cards are on the foundations.

Action table (160 ids, the same for both deals). Sources 0-11 are the packets a..m, source 12 the
turned card (Cadogan deal only):

======= ==========================================================================
id      move
======= ==========================================================================
0-12    source s -> ace foundation (the ascending one of the card's suit)
13-25   source s -> king foundation (the descending one of the card's suit)
26      deal: Cadogan, the turned card -> the next position of the circle;
        Dick, the first circle done with, deal the rest of the pack
27-158  packet p -> packet q (marriage, p != q, ordered p-major)
159     re-deal
======= ==========================================================================

Observation segments (``layout.describe()``, 2,598 floats): per packet its top card (one-hot),
the copies of each card / 2, and the cards lying on each card's uppermost copy and on its lower
copy (the packet's order reads back in full; see :mod:`patience_gym.core.pile_rows`); which
packet tops are available or blocked; the turned card and the next position (Cadogan deal); the
foundations' sizes / 13 (ace piles C D H S, then king piles); pack size, phase, circle, re-deals.
With ``recall=True`` (2,754 floats) three segments follow: a re-dealt pack in the packets' form
(``pack_cards``, ``pack_depth``, ``pack_depth_lower``; a card's depth is the cards dealt before it),
which the player saw as the packets were gathered; all 0 before the first re-deal (its pack unseen).

Choices where docs/rules.md is silent (documented there, tested): turning is automatic; a circle
stays open until the next circle's first card is placed at ``a``; dealt cards are visible; Dick's
first circle allows foundation moves only, going on is the player's choice; a re-deal needs a card
on the table (it is the last id: greedy prefers any move scoring as well); the step limit (1000)
only cuts endless marriages. ``foundation_cards`` counts cards *played* to the foundations (not
the eight set out), so a win is 96 and an episode's rewards sum to ``foundation_cards / 96``.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, ClassVar

import numpy as np

from patience_gym.core.cards import ACE, KING, N_KINDS, NAME, SUIT, card, card_name, take_out
from patience_gym.core.foundations import FoundationRow, Pile, count_cards
from patience_gym.core.game import Game, ObsLayout, Option
from patience_gym.core.moves import Move, MoveTable, assert_never
from patience_gym.core.pile_rows import PACK_SEGMENTS, RECALL, packet_rows, pile_rows
from patience_gym.core.vocabulary import SAME_SUIT_DOWN, SAME_SUIT_EITHER, SAME_SUIT_UP

LETTERS = "abcdefghiklm"
N_PACKETS = 12
TURNED = N_PACKETS  # the source index of the turned card
N_REDEALS = 2
N_DEALT = 96  # two packs less the eight foundation cards
#: Gathering order for a re-deal: g h i k l m a b c d e f (packet g is dealt first).
GATHER = (6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5)
CADOGAN_DEAL, DICK_FIRST, PLAY = 0, 1, 2  # the phases
_PHASE_NAMES = ("Cadogan deal", "Dick's first circle", "deal complete")

# ---- the foundations ----------------------------------------------------------------------------

#: The ace piles 0-3 (C D H S), built up in suit, then the king piles 4-7, built down in suit;
#: all set out before the deal, so never empty. A card goes to pile ``row + SUIT[card]``.
UP_ROW, DOWN_ROW = 0, 4
FOUNDATIONS = FoundationRow((Pile(SAME_SUIT_UP),) * 4 + (Pile(SAME_SUIT_DOWN),) * 4)
_BUILD = FOUNDATIONS.fits  # _BUILD[f][top card][c]
#: The first copies of these are taken out before the deal to start the foundations, in order
#: (docs/rules.md, "Pack order").
FOUNDATION_BASES = tuple(card(ACE, s) for s in range(4)) + tuple(card(KING, s) for s in range(4))

# ---- marriages and the action table -------------------------------------------------------------

#: The marriage rule as a table: _MARRIES[b][a] when ``a`` may go on ``b`` (same suit, one rank
#: up or down); _PARTNERS[a] lists those ``b``, so the fast mask looks partners up by card.
_MARRIES = SAME_SUIT_EITHER.table
_PARTNERS = tuple(tuple(b for b in range(N_KINDS) if _MARRIES[b][a]) for a in range(N_KINDS))


class Kind(Enum):
    UP = "up"  # a source's card to the ace (ascending) foundation of its suit
    DOWN = "down"  # ... to the king (descending) foundation of its suit
    DEAL = "deal"  # Cadogan: place the turned card; Dick: deal the rest of the pack
    MARRY = "marry"  # a packet's top card onto another packet's top card
    REDEAL = "redeal"


_SOURCES = list(enumerate([f"packet {x}" for x in LETTERS] + ["turned card"]))
_MARRY = [(p, q) for p in range(N_PACKETS) for q in range(N_PACKETS) if p != q]

#: A foundation move's ``src`` is its source and ``dst`` the foundation row it goes to.
TABLE = MoveTable.build(
    (Kind.UP, [Move(Kind.UP, s, UP_ROW, f"{x} -> ace foundation") for s, x in _SOURCES]),
    (Kind.DOWN, [Move(Kind.DOWN, s, DOWN_ROW, f"{x} -> king foundation") for s, x in _SOURCES]),
    (Kind.DEAL, [Move(Kind.DEAL, text="deal")]),
    (Kind.MARRY, [Move(Kind.MARRY, p, q, f"packet {LETTERS[p]} -> packet {LETTERS[q]}") for p, q in _MARRY]),
    (Kind.REDEAL, [Move(Kind.REDEAL, text="re-deal")]),
)
_UP0, _DOWN0, _DEAL, _REDEAL = (TABLE.first[k] for k in (Kind.UP, Kind.DOWN, Kind.DEAL, Kind.REDEAL))
#: _MARRY_ID[p, q]: the action marrying packet p's top onto packet q's, read off the table.
_MARRY_ID = {(TABLE[a].src, TABLE[a].dst): a for a in TABLE.ids(Kind.MARRY)}


def _marriages(tops: list[int]) -> list[int]:
    """The marriage actions between packets showing ``tops`` (-1: none), looked up by partner."""
    where: dict[int, list[int]] = {}  # top card -> packets showing it
    for q, b in enumerate(tops):
        if b >= 0:
            where.setdefault(b, []).append(q)
    found = []
    for p, a in enumerate(tops):
        if a >= 0:
            for b in _PARTNERS[a]:
                for q in where.get(b, ()):
                    found.append(_MARRY_ID[p, q])
    return found


def gather(packets: list[list[int]]) -> list[int]:
    """The new pack of a re-deal, first card dealt first: packet g bottom to top, h, ... m, a ... f."""
    return [c for p in GATHER for c in packets[p]]


#: The observation (module docstring); with recall=True the re-dealt pack's segments follow (the
#: native engine's generated spec lets a layout grow only at its end).
_SEGMENTS: list[tuple[str, tuple[int, ...], str]] = [
    ("packet_top", (N_PACKETS, N_KINDS), "one-hot of each packet's top card (packets a..m, no j)"),
    ("packet_cards", (N_PACKETS, N_KINDS), "copies of each card in each packet / 2"),
    ("packet_depth", (N_PACKETS, N_KINDS), "cards lying on the card's uppermost copy, d / (d + 8)"),
    (
        "packet_depth_lower",
        (N_PACKETS, N_KINDS),
        "both copies in the packet: cards lying on the lower copy, d / (d + 8); else 0",
    ),
    ("available", (N_PACKETS,), "1: the packet's top card may move now"),
    ("blocked", (N_PACKETS,), "1: the packet has a top card that may not move now"),
    ("turned", (N_KINDS,), "one-hot of the turned card (Cadogan deal)"),
    ("next_position", (N_PACKETS,), "one-hot of where the turned card would be placed"),
    ("foundation", (8,), "cards on the ace foundations C D H S, then king foundations, / 13"),
    ("pack_size", (1,), "cards face down in the pack / 96"),
    ("phase", (3,), "one-hot: " + "; ".join(_PHASE_NAMES)),
    ("circle", (1,), "circle now being dealt (or last dealt), from 1, / 8"),
    ("redeals_left", (1,), "re-deals still allowed / 2"),
]
LAYOUT = ObsLayout(_SEGMENTS)
LAYOUT_RECALL = ObsLayout([*_SEGMENTS, *PACK_SEGMENTS])


class Louis(Game[Kind]):
    """The "Louis" Patience / St. Louis on docs/rules.md section 4 (see the module docstring)."""

    name = "Louis"
    n_packs = 2
    win_cards = N_DEALT
    # A won game is ~96 foundation moves, <= 3 x 96 placements and a few dozen marriages; the
    # limit stops endless back-and-forth marriages (a card can be married to and fro for ever).
    default_max_steps = 1000
    OPTIONS: ClassVar[dict[str, Option[Any]]] = {
        "deal": Option(
            "cadogan",
            "cadogan: turn cards one at a time, play or place each, earlier circles blocked; "
            "dick: the first circle is open with gaps refilled, the rest dealt with no play",
            ("cadogan", "dick"),
        ),
        "recall": RECALL,
    }
    STATE = ("packets", "pack", "turned", "foundations", "phase", "circle", "pos", "fresh", "redeals_left")
    moves = TABLE.moves
    layout = LAYOUT  # LAYOUT_RECALL with recall=True (configure)

    def configure(self, *, deal: str, recall: bool) -> None:
        self.dick = deal == "dick"
        self.recall = recall
        if recall:
            self.layout = LAYOUT_RECALL
            self._s_recall = tuple(self.layout.slice(name) for name, _, _ in PACK_SEGMENTS)
        off, part = self.layout.offset, self.layout.slice
        # The one-hot entries are set with one indexed write (see observe), from these offsets.
        self._o_top, self._o_avail, self._o_blocked = off("packet_top"), off("available"), off("blocked")
        self._o_turned, self._o_pos, self._o_phase = off("turned"), off("next_position"), off("phase")
        self._s_cards, self._s_depth = part("packet_cards"), part("packet_depth")
        self._s_lower, self._s_found = part("packet_depth_lower"), part("foundation")
        self._s_pack, self._s_circle = part("pack_size"), part("circle")
        self._s_redeals = part("redeals_left")

    # ---- dealing ------------------------------------------------------------------------------

    def deal(self, pack: list[int]) -> None:
        pack = list(pack)
        take_out(pack, FOUNDATION_BASES)
        self.foundations = [[c] for c in FOUNDATION_BASES]  # cards bottom first
        self.redeals_left = N_REDEALS
        self._start_deal(pack)

    def _start_deal(self, order: list[int]) -> None:
        """Deal ``order`` (first card first) onto the empty alphabet, as the option says."""
        self.packets: list[list[int]] = [[] for _ in range(N_PACKETS)]
        self.pack: list[int] = order[::-1]  # face down; pack[-1] is the next card turned
        self.fresh = [0] * N_PACKETS  # 1: the packet's top was placed in the current circle
        self.pos = 0  # where the next placed card goes
        self.circle = -1  # index of the circle now being dealt; -1 before the first placement
        self.turned = -1
        if self.dick:
            self.circle = 0
            for p in range(N_PACKETS):
                if self.pack:
                    self.packets[p].append(self.pack.pop())
            self.phase = DICK_FIRST if self.pack else PLAY
        else:
            self.phase = CADOGAN_DEAL
            self._turn()

    def _turn(self) -> None:
        """Automatic step of the Cadogan deal: turn the next card, or end the deal."""
        if self.pack:
            self.turned = self.pack.pop()
        else:
            self.turned = -1
            self.phase = PLAY
            self.fresh = [0] * N_PACKETS

    def _place(self) -> None:
        """Cadogan: the turned card onto the next position of the circle."""
        if self.pos == 0:  # the first card of a new circle blocks the one before
            self.circle += 1
            self.fresh = [0] * N_PACKETS
        self.packets[self.pos].append(self.turned)
        self.fresh[self.pos] = 1
        self.pos = (self.pos + 1) % N_PACKETS
        self._turn()

    def _deal_rest(self) -> None:
        """Dick: the rest of the pack in circles on top of the first, starting at ``a``."""
        pack, packets = self.pack, self.packets
        i = 0
        while pack:
            packets[i % N_PACKETS].append(pack.pop())
            i += 1
        self.circle += (i + N_PACKETS - 1) // N_PACKETS
        self.phase = PLAY

    # ---- the rules ----------------------------------------------------------------------------

    def tops(self) -> list[int]:
        """The card available now at each source (packets a..m, then the turned card), else -1: a
        packet's top card, unless (Cadogan deal) it was placed in an earlier circle: blocked."""
        if self.phase == CADOGAN_DEAL:
            tops = [p[-1] if p and fresh else -1 for p, fresh in zip(self.packets, self.fresh, strict=True)]
        else:
            tops = [pile[-1] if pile else -1 for pile in self.packets]
        tops.append(self.turned)
        return tops

    def takes(self) -> list[tuple[bool, ...]]:
        """``takes()[f][c]``: foundation ``f`` takes ``c`` now (:data:`FOUNDATIONS`; never empty)."""
        return [build[pile[-1]] for build, pile in zip(_BUILD, self.foundations, strict=True)]

    def _may_deal(self) -> bool:  # Dick: the first circle may be left; Cadogan: a card was turned
        return self.phase == DICK_FIRST or (self.phase == CADOGAN_DEAL and self.turned >= 0)

    def _may_marry(self) -> bool:
        return self.phase == PLAY  # marriages begin when the deal is complete

    def _may_redeal(self) -> bool:
        return self.phase == PLAY and self.redeals_left > 0 and any(self.packets)

    def is_legal(self, action: int) -> bool:
        move = TABLE[action]
        match move.kind:
            case Kind.UP | Kind.DOWN:
                c = self.tops()[move.src]
                return c >= 0 and self.takes()[move.dst + SUIT[c]][c]
            case Kind.DEAL:
                return self._may_deal()
            case Kind.MARRY:
                tops = self.tops()
                a, b = tops[move.src], tops[move.dst]
                return self._may_marry() and a >= 0 and b >= 0 and _MARRIES[b][a]
            case Kind.REDEAL:
                return self._may_redeal()
            case _:
                assert_never(move.kind)

    def mark_legal(self, mask: np.ndarray) -> None:
        """The rules of :meth:`is_legal`, enumerated source by source."""
        tops, takes = self.tops(), self.takes()
        ids: list[int] = []
        for s, c in enumerate(tops):
            if c >= 0:
                if takes[UP_ROW + SUIT[c]][c]:
                    ids.append(_UP0 + s)
                if takes[DOWN_ROW + SUIT[c]][c]:
                    ids.append(_DOWN0 + s)
        if self._may_marry():
            ids += _marriages(tops[:N_PACKETS])
        if self._may_deal():
            ids.append(_DEAL)
        if self._may_redeal():
            ids.append(_REDEAL)
        mask[ids] = True

    def _apply(self, move: Move[Kind]) -> None:
        match move.kind:
            case Kind.UP | Kind.DOWN:
                c = self._take(move.src)
                self.foundations[move.dst + SUIT[c]].append(c)
            case Kind.DEAL:
                if self.phase == DICK_FIRST:
                    self._deal_rest()
                else:
                    self._place()
            case Kind.MARRY:
                self.packets[move.dst].append(self.packets[move.src].pop())
            case Kind.REDEAL:
                self.redeals_left -= 1
                self._start_deal(gather(self.packets))
            case _:
                assert_never(move.kind)

    def _take(self, s: int) -> int:
        """Take the card at source ``s`` for a foundation, with the automatic steps that follow."""
        if s == TURNED:
            c = self.turned
            self._turn()  # the next card goes to the same position
            return c
        c = self.packets[s].pop()
        self.fresh[s] = 0
        if self.phase == DICK_FIRST:  # the gap is refilled at once
            if self.pack:
                self.packets[s].append(self.pack.pop())
            if not self.pack:
                self.phase = PLAY
        return c

    # ---- reading the state --------------------------------------------------------------------

    @property
    def foundation_cards(self) -> int:
        return count_cards(self.foundations) - len(FOUNDATION_BASES)

    def extra_info(self) -> dict[str, Any]:
        return {
            "cards_on_foundations": count_cards(self.foundations),
            "redeals_left": self.redeals_left,
            "phase": _PHASE_NAMES[self.phase],
        }

    def describe(self, action: int) -> str:
        move = TABLE[action]
        match move.kind:
            case Kind.UP | Kind.DOWN | Kind.MARRY:  # the card at the source, available or not
                pile = self.packets[move.src] if move.src != TURNED else [self.turned]
                return f"{NAME[pile[-1]]} {move.text}" if pile and pile[-1] >= 0 else move.text
            case Kind.DEAL if self.phase == CADOGAN_DEAL and self.turned >= 0:
                return f"{NAME[self.turned]} turned card -> packet {LETTERS[self.pos]}"
            case Kind.DEAL if self.phase == DICK_FIRST:
                return "deal the rest of the pack"
            case Kind.DEAL:
                return "deal (the deal is complete)"
            case Kind.REDEAL:
                return f"re-deal ({self.redeals_left} left)"
            case _:
                assert_never(move.kind)

    def observe(self, out: np.ndarray) -> None:
        hot: list[int] = []
        for p, (pile, top) in enumerate(zip(self.packets, self.tops(), strict=False)):
            if pile:  # a packet's top card is available, or blocked
                hot.append(self._o_top + p * N_KINDS + pile[-1])
                hot.append((self._o_avail if top >= 0 else self._o_blocked) + p)
        if self.turned >= 0:
            hot.append(self._o_turned + self.turned)
        if self.phase == CADOGAN_DEAL:
            hot.append(self._o_pos + self.pos)
        hot.append(self._o_phase + self.phase)
        out[hot] = 1.0
        out[self._s_cards], out[self._s_depth], out[self._s_lower] = packet_rows(self.packets)
        out[self._s_found] = [len(pile) for pile in self.foundations]
        out[self._s_found] /= 13.0
        out[self._s_pack] = len(self.pack) / N_DEALT
        out[self._s_circle] = min(max(self.circle, 0) + 1, 8) / 8.0
        out[self._s_redeals] = self.redeals_left / N_REDEALS
        if self.recall and self.redeals_left < N_REDEALS:  # the first deal's pack was never seen
            for part, row in zip(self._s_recall, pile_rows(self.pack), strict=True):
                out[part] = row

    def unseen_positions(self) -> list[int]:
        """The pack's cards not dealt yet, until a re-deal gathers the (seen) packets."""
        return self.undealt_positions(len(self.pack) * (self.redeals_left == N_REDEALS), FOUNDATION_BASES)

    def cards_in_play(self) -> list[int]:
        cards = [c for pile in self.packets for c in pile] + self.pack
        if self.turned >= 0:
            cards.append(self.turned)
        return cards + [c for pile in self.foundations for c in pile]

    def render(self) -> str:
        ups = " ".join(card_name(pile[-1]) for pile in self.foundations[UP_ROW:DOWN_ROW])
        downs = " ".join(card_name(pile[-1]) for pile in self.foundations[DOWN_ROW:])
        head = f"Louis ({'Dick' if self.dick else 'Cadogan'} deal)  {_PHASE_NAMES[self.phase]}"
        if self.phase == CADOGAN_DEAL:
            head += (
                f"  circle {self.circle + 1 if self.circle >= 0 else 1}  next position {LETTERS[self.pos]}"
            )
        lines = [
            head + f"  pack: {len(self.pack)}  re-deals left: {self.redeals_left}",
            f"ace foundations (up) {ups}   king foundations (down) {downs}",
        ]
        if self.turned >= 0:
            lines.append(f"turned: {NAME[self.turned]}")
        if self.recall and self.redeals_left < N_REDEALS and self.pack:  # seen as it was gathered
            lines.append("pack, next first: " + " ".join(NAME[c] for c in reversed(self.pack)))
        for p, (pile, top) in enumerate(zip(self.packets, self.tops(), strict=False)):
            mark = "  (top blocked)" if pile and top < 0 else ""
            lines.append(f"{LETTERS[p]}: " + " ".join(NAME[c] for c in pile) + mark)
        return "\n".join(lines)
