"""The "Louis" Patience (Cadogan) and St. Louis (Dick); docs/rules.md section 4. Two packs.

One ace and one king of each suit (their first copies in the pack) are taken out as the eight
foundations: the aces build up in suit to the king, the kings down in suit to the ace. The other
96 cards are dealt in **circles** of twelve onto the **alphabet**, packets ``a b c d e f g h i k l
m`` (no ``j``), always in that order.

``deal="cadogan"`` (Louis-v0): cards are turned from the pack one at a time. The turned card goes
to a foundation it fits, or onto the next position of the circle; when it is played the next card
goes to that same position. Between cards, the cards placed in the circle now being dealt may go
to the foundations; a card of an earlier circle is blocked until the whole pack is dealt, even
when uncovered.

``deal="dick"`` (StLouis-v0): the first circle of twelve is dealt; its cards are all available
for the foundations and each gap is refilled from the pack at once. When the player goes on, the
rest of the pack is dealt in circles on top, with no play until it is all down.

After the deal the top card of every packet is available: to a foundation, or married onto the
top card of another packet (same suit, one rank higher or lower). Empty packets stay empty. A card
that fits both foundations of its suit goes to the one the player names. Two re-deals, at any time
after the deal is complete: the packets are gathered g h i k l m a b c d e f, each on top of the
last, and turned over, so the new pack starts with packet g's bottom card; then the deal is done
again exactly as at first. Won when all 104 cards are on the foundations.

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

Observation (2,598 floats), segments in this order:

- ``packet_top`` (12, 52): one-hot of each packet's top card.
- ``packet_cards`` (12, 52): copies of each card in each packet / 2 (the top included).
- ``packet_depth`` (12, 52): for a card in a packet, the number ``d`` of cards lying on its
  uppermost copy, as ``d / (d + 8)`` (0 for the top card and for cards not in the packet; 0.5
  eight cards down; every depth reads differently, however tall the packet).
- ``packet_depth_lower`` (12, 52): for a card with both copies in the packet, the cards lying on
  the lower copy, the same way (0 otherwise). With the two depths every dealt card is in its place:
  the packet's order can be read back in full, as the render shows it.
- ``available`` (12,): 1 when the packet's top card may move now.
- ``blocked`` (12,): 1 when the packet has a top card that may not move now (a card of an earlier
  circle during the Cadogan deal).
- ``turned`` (52,): one-hot of the turned card (Cadogan deal).
- ``next_position`` (12,): one-hot of the position the turned card would go to (Cadogan deal).
- ``foundation`` (8,): cards on the ace foundations C D H S, then the king foundations C D H S, / 13.
- ``pack_size`` (1,): cards left face down in the pack / 96.
- ``phase`` (3,): one-hot: Cadogan deal in progress; Dick's first circle; deal complete.
- ``circle`` (1,): the circle now being dealt (or the last one dealt), counted from 1, / 8.
- ``redeals_left`` (1,): re-deals still allowed / 2.

Choices where the texts are silent (documented here and tested):

- **Turning is automatic.** During the Cadogan deal the next card of the pack is always face up
  (an automatic step): the player's choices are where it goes, and which cards of the current
  circle to play first. Its identity is visible; the rest of the pack is not.
- **When a circle blocks the last.** The cards of a circle stay available until the first card of
  the next circle is placed at ``a`` (the seed: "examine the alphabet, and play from it any
  suitable cards" once a circle is dealt); a card turned after ``m`` and played straight to a
  foundation does not start the next circle.
- **Dealt cards are visible.** Every card was face up when dealt, so the cards under the tops are
  in the observation (a player remembers them, and re-deal order depends on them).
- **Dick's first circle allows foundation moves only**, as the seed says; marriages begin when the
  deal is complete. If the pack runs out while refilling, the deal is complete.
- **Going on is the player's choice** in the Dick deal (action 26), even while first-circle cards
  could still be played.
- **Score.** ``foundation_cards`` counts the cards *played* to the foundations; the eight aces and
  kings taken out before the deal are not counted, so a win is 96 (all 104 cards on the
  foundations) and the rewards of an episode sum to ``foundation_cards / 96``.
- **A re-deal needs a card on the table** (it is otherwise won already) and is the last id, so the
  greedy policy prefers any move that scores as well.
- **Step limit 1000.** A card can be married to and fro between two packets for ever (every such
  move changes the state); a sensible game takes ~96 foundation moves, at most 96 placements per
  deal and some dozens of marriages, so the limit only ever cuts such loops.

Heuristic (greedy baseline): 10 per card played to the foundations, minus 0.25 per card lying on
each card the foundations want next (4 for a wanted card not dealt yet: it is somewhere in the
face-down pack, whose order is never read), plus 3 per re-deal kept.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from patience_gym.core.cards import ACE, KING, NAME, RANK, SUIT, card, card_name, take_out
from patience_gym.core.game import Game, Move, ObsLayout, Option
from patience_gym.core.vocabulary import SAME_SUIT_EITHER

LETTERS = "abcdefghiklm"
N_PACKETS = 12
TURNED = N_PACKETS  # the source index of the turned card
N_SOURCES = N_PACKETS + 1
N_REDEALS = 2
N_DEALT = 96  # two packs less the eight foundation cards
#: The first copies of these are taken out before the deal (docs/rules.md, "Pack order").
FOUNDATION_BASES = tuple(card(ACE, s) for s in range(4)) + tuple(card(KING, s) for s in range(4))
#: Gathering order for a re-deal: g h i k l m a b c d e f (packet g is dealt first).
GATHER = (6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5)

_UP0, _DOWN0, _DEAL, _MARRY0, _REDEAL = 0, 13, 26, 27, 159
_N_ACTIONS = 160
_MARRY = tuple((p, q) for p in range(N_PACKETS) for q in range(N_PACKETS) if p != q)
_MARRY_ID = {pq: _MARRY0 + k for k, pq in enumerate(_MARRY)}
_FITS = SAME_SUIT_EITHER.table
#: The cards each card may be married onto (same suit, one rank up or down).
_PARTNERS = tuple(tuple(b for b in range(52) if _FITS[b][a]) for a in range(52))

# phases
CADOGAN_DEAL, DICK_FIRST, PLAY = 0, 1, 2
# heuristic weights (see Louis.heuristic)
HIDDEN_DEPTH, BURIED_W, REDEAL_W = 4, 0.25, 3.0
_PHASE_NAMES = ("Cadogan deal", "Dick's first circle", "deal complete")

_SOURCE_NAMES = [f"packet {x}" for x in LETTERS] + ["turned card"]


def _table() -> tuple[Move, ...]:
    moves = [Move("up", s, text=f"{_SOURCE_NAMES[s]} -> ace foundation") for s in range(N_SOURCES)]
    moves += [Move("down", s, text=f"{_SOURCE_NAMES[s]} -> king foundation") for s in range(N_SOURCES)]
    moves.append(Move("deal", text="deal"))
    moves += [Move("marry", p, q, text=f"packet {LETTERS[p]} -> packet {LETTERS[q]}") for p, q in _MARRY]
    moves.append(Move("redeal", text="re-deal"))
    assert len(moves) == _N_ACTIONS
    return tuple(moves)


def gather(packets: list[list[int]]) -> list[int]:
    """The new pack of a re-deal, first card dealt first: packet g bottom to top, h, ... m, a ... f."""
    return [c for p in GATHER for c in packets[p]]


_EMPTY_ROW = np.zeros(52, dtype=np.float32)
# A depth d (cards lying on a card) reads d / (d + 8): fine steps near the top, where play is,
# yet never capped, so two packets that differ however deep down never look the same.
_DEPTH = tuple(np.float32(d / (d + 8)) for d in range(2 * 52))
# Observation rows of a packet (copies / 2, depth of the uppermost copy, depth of the lower
# copy), keyed by its cards.
# A move changes one or two packets, so most rows of a step come from here; that keeps the
# observation at a handful of numpy calls instead of a Python loop over every dealt card.
# Content-keyed, so sharing it between games is safe; cleared when it grows large.
_ROWS: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
_ROWS_MAX = 20000


def _packet_rows(pile: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    key = tuple(pile)
    rows = _ROWS.get(key)
    if rows is None:
        held = np.zeros(52, dtype=np.float32)
        depth = np.zeros(52, dtype=np.float32)
        lower = np.zeros(52, dtype=np.float32)
        n = len(pile)
        for k, c in enumerate(pile):  # bottom to top: the uppermost copy's depth is written last
            if held[c]:  # the second copy: the first one's depth is the lower copy's
                lower[c] = depth[c]
            held[c] += 0.5
            depth[c] = _DEPTH[n - 1 - k]
        if len(_ROWS) >= _ROWS_MAX:
            _ROWS.clear()
        rows = _ROWS[key] = (held, depth, lower)
    return rows


class Louis(Game):
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
    }
    STATE = ("packets", "stock", "turned", "found", "phase", "circle", "pos", "fresh", "redeals_left")
    MOVES = _table()

    def configure(self, *, deal: str) -> None:
        self.dick = deal == "dick"
        self.moves = self.MOVES
        self.layout = ObsLayout(
            [
                ("packet_top", (N_PACKETS, 52), "one-hot of each packet's top card (packets a..m, no j)"),
                ("packet_cards", (N_PACKETS, 52), "copies of each card in each packet / 2"),
                ("packet_depth", (N_PACKETS, 52), "cards lying on the card's uppermost copy, d / (d + 8)"),
                (
                    "packet_depth_lower",
                    (N_PACKETS, 52),
                    "both copies in the packet: cards lying on the lower copy, d / (d + 8); else 0",
                ),
                ("available", (N_PACKETS,), "1: the packet's top card may move now"),
                ("blocked", (N_PACKETS,), "1: the packet has a top card that may not move now"),
                ("turned", (52,), "one-hot of the turned card (Cadogan deal)"),
                ("next_position", (N_PACKETS,), "one-hot of where the turned card would be placed"),
                ("foundation", (8,), "cards on the ace foundations C D H S, then king foundations, / 13"),
                ("pack_size", (1,), "cards face down in the pack / 96"),
                ("phase", (3,), "one-hot: " + "; ".join(_PHASE_NAMES)),
                ("circle", (1,), "circle now being dealt (or last dealt), from 1, / 8"),
                ("redeals_left", (1,), "re-deals still allowed / 2"),
            ]
        )
        lay = self.layout
        self._o_cards = lay.offset("packet_cards")
        self._o_depth = lay.offset("packet_depth")
        self._o_lower = lay.offset("packet_depth_lower")
        self._o_avail = lay.offset("available")
        self._o_blocked = lay.offset("blocked")
        self._o_turned = lay.offset("turned")
        self._o_pos = lay.offset("next_position")
        self._o_found = lay.offset("foundation")
        self._o_pack = lay.offset("pack_size")
        self._o_phase = lay.offset("phase")
        self._o_circle = lay.offset("circle")
        self._o_redeals = lay.offset("redeals_left")

    # ---- dealing ------------------------------------------------------------------------------

    def deal(self, pack: list[int]) -> None:
        pack = list(pack)
        take_out(pack, FOUNDATION_BASES)
        # found[s]: cards on suit s's ace foundation; found[4 + s]: on its king foundation.
        self.found = [1] * 8
        self.redeals_left = N_REDEALS
        self._start_deal(pack)

    def _start_deal(self, order: list[int]) -> None:
        """Deal ``order`` (first card first) onto the empty alphabet, as the option says."""
        self.packets: list[list[int]] = [[] for _ in range(N_PACKETS)]
        self.stock: list[int] = order[::-1]  # the face-down pack; stock[-1] is the next card turned
        self.fresh = [0] * N_PACKETS  # 1: the packet's top was placed in the current circle
        self.pos = 0  # where the next placed card goes
        self.circle = -1  # index of the circle now being dealt; -1 before the first placement
        self.turned = -1
        if self.dick:
            self.circle = 0
            for p in range(N_PACKETS):
                if self.stock:
                    self.packets[p].append(self.stock.pop())
            self.phase = DICK_FIRST if self.stock else PLAY
        else:
            self.phase = CADOGAN_DEAL
            self._turn()

    def _turn(self) -> None:
        """Automatic step of the Cadogan deal: turn the next card, or end the deal."""
        if self.stock:
            self.turned = self.stock.pop()
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
        stock, packets = self.stock, self.packets
        i = 0
        while stock:
            packets[i % N_PACKETS].append(stock.pop())
            i += 1
        self.circle += (i + N_PACKETS - 1) // N_PACKETS
        self.phase = PLAY

    # ---- the rules ----------------------------------------------------------------------------

    def _top(self, s: int) -> int:
        """The card at source ``s`` if it is available now, else -1."""
        if s == TURNED:
            return self.turned
        pile = self.packets[s]
        if not pile:
            return -1
        if self.phase == CADOGAN_DEAL and not self.fresh[s]:
            return -1
        return pile[-1]

    def _fits_up(self, c: int) -> bool:
        return RANK[c] == self.found[SUIT[c]] + 1

    def _fits_down(self, c: int) -> bool:
        return RANK[c] == 13 - self.found[4 + SUIT[c]]

    def is_legal(self, action: int) -> bool:
        move = self.moves[action]
        kind = move.kind
        if kind == "up" or kind == "down":
            c = self._top(move.src)
            if c < 0:
                return False
            return self._fits_up(c) if kind == "up" else self._fits_down(c)
        if kind == "deal":
            return self.phase == DICK_FIRST or (self.phase == CADOGAN_DEAL and self.turned >= 0)
        if kind == "marry":
            if self.phase != PLAY:
                return False
            a, b = self._top(move.src), self._top(move.dst)
            return a >= 0 and b >= 0 and _FITS[b][a]
        if kind == "redeal":
            return self.phase == PLAY and self.redeals_left > 0 and any(self.packets)
        return False

    def legal_mask(self) -> np.ndarray:
        """The rules of :meth:`is_legal`, enumerated source by source."""
        mask = np.zeros(_N_ACTIONS, dtype=bool)
        found, phase = self.found, self.phase
        tops = [-1] * N_PACKETS
        cadogan = phase == CADOGAN_DEAL
        for p, pile in enumerate(self.packets):
            if pile and not (cadogan and not self.fresh[p]):
                tops[p] = pile[-1]
        ids: list[int] = []
        for s, c in enumerate([*tops, self.turned]):
            if c >= 0:
                suit, rank = SUIT[c], RANK[c]
                if rank == found[suit] + 1:
                    ids.append(_UP0 + s)
                if rank == 13 - found[4 + suit]:
                    ids.append(_DOWN0 + s)
        if phase == PLAY:
            where: dict[int, list[int]] = {}  # top card -> packets showing it
            for q, b in enumerate(tops):
                if b >= 0:
                    where.setdefault(b, []).append(q)
            for p, a in enumerate(tops):
                if a >= 0:
                    for b in _PARTNERS[a]:
                        for q in where.get(b, ()):
                            ids.append(_MARRY_ID[p, q])
            if self.redeals_left > 0 and any(self.packets):
                ids.append(_REDEAL)
            mask[ids] = True
        else:
            mask[ids] = True
            mask[_DEAL] = phase == DICK_FIRST or self.turned >= 0
        return mask

    def _apply(self, move: Move) -> None:
        kind = move.kind
        if kind == "up" or kind == "down":
            s = move.src
            if s == TURNED:
                c = self.turned
                self._turn()  # the next card goes to the same position
            else:
                c = self.packets[s].pop()
                self.fresh[s] = 0
                if self.phase == DICK_FIRST:  # the gap is refilled at once
                    if self.stock:
                        self.packets[s].append(self.stock.pop())
                    if not self.stock:
                        self.phase = PLAY
            self.found[SUIT[c] + (0 if kind == "up" else 4)] += 1
        elif kind == "deal":
            if self.phase == DICK_FIRST:
                self._deal_rest()
            else:
                self._place()
        elif kind == "marry":
            self.packets[move.dst].append(self.packets[move.src].pop())
        elif kind == "redeal":
            self.redeals_left -= 1
            self._start_deal(gather(self.packets))

    # ---- reading the state --------------------------------------------------------------------

    @property
    def foundation_cards(self) -> int:
        return sum(self.found) - 8

    def extra_info(self) -> dict[str, Any]:
        return {
            "cards_on_foundations": sum(self.found),
            "redeals_left": self.redeals_left,
            "phase": _PHASE_NAMES[self.phase],
        }

    def moving_card(self, move: Move) -> int | None:
        kind = move.kind
        if kind in ("up", "down", "marry"):
            if move.src == TURNED:
                return self.turned if self.turned >= 0 else None
            pile = self.packets[move.src]
            return pile[-1] if pile else None
        if kind == "deal" and self.phase == CADOGAN_DEAL and self.turned >= 0:
            return self.turned
        return None

    def describe(self, action: int) -> str:
        move = self.moves[action]
        if move.kind == "deal":
            if self.phase == CADOGAN_DEAL and self.turned >= 0:
                return f"{NAME[self.turned]} turned card -> packet {LETTERS[self.pos]}"
            if self.phase == DICK_FIRST:
                return "deal the rest of the pack"
            return "deal (the deal is complete)"
        if move.kind == "redeal":
            return f"re-deal ({self.redeals_left} left)"
        return super().describe(action)

    def observe(self, out: np.ndarray) -> None:
        cadogan = self.phase == CADOGAN_DEAL
        hot: list[int] = []
        held: list[np.ndarray] = []
        depth: list[np.ndarray] = []
        lower: list[np.ndarray] = []
        for p, pile in enumerate(self.packets):
            if not pile:
                held.append(_EMPTY_ROW)
                depth.append(_EMPTY_ROW)
                lower.append(_EMPTY_ROW)
                continue
            rows = _packet_rows(pile)
            held.append(rows[0])
            depth.append(rows[1])
            lower.append(rows[2])
            hot.append(p * 52 + pile[-1])
            hot.append((self._o_blocked if cadogan and not self.fresh[p] else self._o_avail) + p)
        if self.turned >= 0:
            hot.append(self._o_turned + self.turned)
        if cadogan:
            hot.append(self._o_pos + self.pos)
        hot.append(self._o_phase + self.phase)
        out[hot] = 1.0
        size = N_PACKETS * 52
        out[self._o_cards : self._o_cards + size] = np.concatenate(held)
        out[self._o_depth : self._o_depth + size] = np.concatenate(depth)
        out[self._o_lower : self._o_lower + size] = np.concatenate(lower)
        o = self._o_found
        out[o : o + 8] = self.found
        out[o : o + 8] /= 13.0
        out[self._o_pack] = len(self.stock) / N_DEALT
        out[self._o_circle] = min(max(self.circle, 0) + 1, 8) / 8.0
        out[self._o_redeals] = self.redeals_left / N_REDEALS

    def cards_in_play(self) -> list[int]:
        cards = [c for pile in self.packets for c in pile] + self.stock
        if self.turned >= 0:
            cards.append(self.turned)
        for s in range(4):
            cards.extend(card(r, s) for r in range(1, self.found[s] + 1))
            cards.extend(card(r, s) for r in range(13, 13 - self.found[4 + s], -1))
        return cards

    def heuristic(self) -> float:
        """Foundation progress first; then how deep the cards the foundations want next lie in
        the packets (only dealt, visible cards count), then re-deals kept in hand."""
        found = self.found
        wanted: dict[int, int] = {}
        for s in range(4):
            if found[s] < 13:
                wanted[card(found[s] + 1, s)] = 99
            if found[4 + s] < 13:
                wanted[card(13 - found[4 + s], s)] = 99
        for pile in self.packets:
            n = len(pile)
            for k, c in enumerate(pile):
                if c in wanted and n - 1 - k < wanted[c]:
                    wanted[c] = n - 1 - k
        if self.turned in wanted:
            wanted[self.turned] = 0
        # a wanted card not dealt yet lies somewhere in the face-down pack: count an average depth
        buried = sum(HIDDEN_DEPTH if d == 99 else d for d in wanted.values())
        return 10.0 * self.foundation_cards - BURIED_W * buried + REDEAL_W * self.redeals_left

    def render(self) -> str:
        ups = " ".join(card_name(card(n, s)) for s, n in enumerate(self.found[:4]))
        downs = " ".join(card_name(card(14 - n, s)) for s, n in enumerate(self.found[4:]))
        head = f"Louis ({'Dick' if self.dick else 'Cadogan'} deal)  {_PHASE_NAMES[self.phase]}"
        if self.phase == CADOGAN_DEAL:
            head += (
                f"  circle {self.circle + 1 if self.circle >= 0 else 1}  next position {LETTERS[self.pos]}"
            )
        lines = [
            head + f"  pack: {len(self.stock)}  re-deals left: {self.redeals_left}",
            f"ace foundations (up) {ups}   king foundations (down) {downs}",
        ]
        if self.turned >= 0:
            lines.append(f"turned: {NAME[self.turned]}")
        cadogan = self.phase == CADOGAN_DEAL
        for p, pile in enumerate(self.packets):
            mark = "  (top blocked)" if pile and cadogan and not self.fresh[p] else ""
            lines.append(f"{LETTERS[p]}: " + " ".join(NAME[c] for c in pile) + mark)
        return "\n".join(lines)
