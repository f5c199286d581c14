"""Anna (Cadogan; docs/rules.md section 5). Two packs.

Rules in brief (in full: docs/rules.md section 5). Every knave goes to the foundations as soon as
it turns up; each foundation builds down in suit J, T, ..., A, K, and queens never go up, so 96
cards win. Eight helps are laid out (a knave's place taken by the next card); their top cards are
available, and cards are married onto them ascending in suit, never onto a queen. The pack is
turned one card at a time onto the talon, whose top may go to a foundation or a help. Two re-deals.

Option ``refill``: ``"free"`` (default, Cadogan) fills an empty help with the talon's top card when
the player chooses; ``"pack"`` (Dick) fills it at once with the pack's next card, unseen (a knave
drawn goes up and the next card is drawn), leaves it waiting while the pack is out, and fills the
waiting helps at a re-deal, help 0 first.

Action table (75 ids, fixed). Turning and re-dealing come before the help-to-help marriages, so
a lowest-id tie-break turns the pack rather than moving a card between two helps to and fro:

======= ===================================================================
id      move
======= ===================================================================
0       pack -> talon: turn the next card (a knave goes to the foundations)
1       re-deal: turn the talon over to make the pack
2       talon -> foundation
3-10    help i -> foundation
11-18   talon -> help j (a marriage, or filling an empty help)
19-74   help i -> help j (i != j, ordered i-major): a marriage
======= ===================================================================

Foundations 2s and 2s+1 are suit s's (C D H S), the first knave up taking 2s. A card goes to the
first of its suit's two that it fits; when both fit they hold the same cards: no real choice.

Observation (``layout.describe()`` lists the segments): ``card_place`` gives each of a card's two
copies a one-hot place (help 0-7, foundation, talon top, second and third from the top, talon
below those three, the face-down pack), the copies taking the slots in the order helps (help 0
first, bottom card first), foundations, talon (bottom first), pack; ``depth`` the cards lying on a
help copy; then the foundations' sizes, the pack and talon sizes, re-deals left and the ``refill``
option. The talon's top three cards each have a place, as the render shows them in order; the
talon below them is one place (seen when turned, its order is not observed); the pack's cards are
only the complement of the rest, never their order.

Choices where docs/rules.md is silent or needs reading (documented, tested):

- **Under ``refill="free"`` vacancies are not refilled automatically.** "From the pack" is the
  turn followed by the fill from the talon, with no exception for the start: the player keeps
  the choice of which card fills a vacancy and when (as PySolFC-style "fill from the waste").
- Turning a knave from the pack is one action: the knave goes to the foundations and no further
  card is turned (docs/rules.md: "one card at a time").
- Help-to-help moves are single cards; a help's cards are always one suit in ascending sequence,
  so every help card is shown (a player can read the packet from its base and top).
- The re-deal is legal only when the pack is exhausted and the talon holds cards.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, ClassVar

import numpy as np

from patience_gym.core.cards import N_KINDS, NAME, RANK, SUIT, SUITS, card
from patience_gym.core.foundations import FoundationRow, Pile, count_cards
from patience_gym.core.game import Game, ObsLayout, Option
from patience_gym.core.moves import Move, MoveTable, assert_never, group
from patience_gym.core.places import FAN, TALON_PLACES
from patience_gym.core.vocabulary import SAME_SUIT_UP, Build

N_HELPS, N_FOUNDATIONS, N_REDEALS, N_CARDS = 8, 8, 2, 2 * N_KINDS
KNAVE, QUEEN = 11, 12
FULL = 12  # a full foundation: J down to A, then K (the queen never goes up)
IS_QUEEN: tuple[bool, ...] = tuple(RANK[c] == QUEEN for c in range(N_KINDS))
IS_KNAVE: tuple[bool, ...] = tuple(RANK[c] == KNAVE for c in range(N_KINDS))

# ---- the foundations ----------------------------------------------------------------------------


def _not_a_queen(c: int) -> bool:
    return not IS_QUEEN[c]


#: Piles 2s and 2s+1 for suit s: started by its knaves, down in suit, K after A; never a queen.
_PILE = Build("down", "same", wrap=True)
FOUNDATIONS = FoundationRow(
    tuple(Pile(_PILE, frozenset({card(KNAVE, s)}), _not_a_queen) for s in range(len(SUITS)) for _ in (0, 1))
)
#: SUIT_PILES[c]: the two foundations of c's suit, the first started first.
SUIT_PILES = tuple((2 * SUIT[c], 2 * SUIT[c] + 1) for c in range(N_KINDS))
#: The marriage rule, as a table: ``MARRY[top][c]`` when ``c`` may go on a help whose top card is
#: ``top``: ascending in suit, never on a queen.
MARRY: tuple[tuple[bool, ...], ...] = tuple(
    tuple(SAME_SUIT_UP.fits(top, c) and not IS_QUEEN[top] for c in range(N_KINDS)) for top in range(N_KINDS)
)
_NOTHING, _ANYTHING = (False,) * N_KINDS, (True,) * N_KINDS

# ---- the action table ---------------------------------------------------------------------------


class Kind(Enum):
    TURN = "turn"
    REDEAL = "redeal"
    TALON_TO_FOUNDATION = "talon -> foundation"
    HELP_TO_FOUNDATION = "help -> foundation"
    TALON_TO_HELP = "talon -> help"
    HELP_TO_HELP = "help -> help"


HELPS = range(N_HELPS)
TABLE = MoveTable.build(
    group(Kind.TURN, "pack -> talon"),
    group(Kind.REDEAL, "re-deal: talon turned over -> pack"),
    group(Kind.TALON_TO_FOUNDATION, "talon -> foundation"),
    group(Kind.HELP_TO_FOUNDATION, "help {0} -> foundation", [(i, -1) for i in HELPS]),
    group(Kind.TALON_TO_HELP, "talon -> help {1}", [(-1, j) for j in HELPS]),
    group(Kind.HELP_TO_HELP, "help {0} -> help {1}", [(i, j) for i in HELPS for j in HELPS if i != j]),
)
_TURN, _REDEAL, _TALON_F, _HELP_F0, _TALON_H0 = (TABLE.first[k] for k in Kind if k is not Kind.HELP_TO_HELP)
#: _MARRIAGES_FROM[i]: (help j, action id) of each help -> help move from help i, read off the table.
_MARRIAGES_FROM = TABLE.by_source(Kind.HELP_TO_HELP, HELPS)

# ---- the observation ----------------------------------------------------------------------------

#: The places of ``card_place``, one-hot per card copy (copies kept apart: each has its ``depth``).
#: The render shows the talon's top three cards in order, so each has a place of its own; the
#: cards below them were seen when turned, their order is not observed.
PLACES: tuple[str, ...] = (*(f"help {i}" for i in HELPS), "foundation", *TALON_PLACES, "pack (face down)")
_P_FOUND, _P_TTOP, _P_TALON, _P_PACK = 8, 9, 12, 13
_NP = len(PLACES)
#: Where card c's first and second copy are marked "in the pack", within ``card_place``.
_PACK_COPY0 = np.arange(N_KINDS) * 2 * _NP + _P_PACK
_PACK_COPY1 = _PACK_COPY0 + _NP


class Anna(Game[Kind]):
    """Anna on the rules of docs/rules.md section 5 (see the module docstring for the table)."""

    name = "Anna"
    n_packs = 2
    win_cards = 96
    # Three passes of at most 96 turns, 88 foundation moves and the marriages between: a sensible
    # game stays well under this; it stops endless help-to-help back-and-forth.
    default_max_steps = 1000
    OPTIONS: ClassVar[dict[str, Option[Any]]] = {
        "refill": Option(
            "free",
            "how an empty help is filled: 'free', by the talon's top card when the player chooses "
            "(Cadogan); 'pack', at once by the pack's next card, unseen, waiting while the pack is "
            "out (Dick's stricter rule)",
            ("free", "pack"),
        ),
    }
    STATE = ("helps", "pack", "talon", "foundations", "redeals")
    moves = TABLE.moves
    layout = ObsLayout(
        [
            ("card_place", (N_KINDS, 2, _NP), "one-hot per card copy: " + "; ".join(PLACES)),
            ("depth", (N_KINDS, 2), "for a help copy: cards lying on it / 12 (0: available top)"),
            ("foundation", (N_FOUNDATIONS,), "cards on each foundation / 12 (2s, 2s+1: suit s)"),
            ("pack_size", (1,), "cards in the pack / 104"),
            ("talon_size", (1,), "cards in the talon / 104"),
            ("redeals_left", (1,), "re-deals still allowed / 2"),
            ("refill_pack", (1,), "1 when empty helps are refilled from the pack (refill='pack')"),
        ]
    )

    def configure(self, *, refill: str) -> None:
        self.refill_from_pack = refill == "pack"
        # card_place and depth are set with one indexed write each (see observe).
        self._o_place = self.layout.offset("card_place")
        self._o_depth = self.layout.offset("depth")
        seg = self.layout.slice
        self._s_found, self._s_pack, self._s_talon = seg("foundation"), seg("pack_size"), seg("talon_size")
        self._s_redeals, self._s_refill = seg("redeals_left"), seg("refill_pack")

    # ---- dealing ------------------------------------------------------------------------------

    def deal(self, pack: list[int]) -> None:
        self.pack = pack[::-1]  # pack[-1] is the next card turned
        self.talon: list[int] = []
        self.foundations: list[list[int]] = [[] for _ in FOUNDATIONS.piles]  # cards bottom first
        self.redeals = 0
        self.helps: list[list[int]] = []
        while len(self.helps) < N_HELPS:  # a knave goes up and the next card takes its place
            c = self._draw()
            if c is not None:
                self.helps.append([c])

    def _draw(self) -> int | None:
        """The pack's next card, turned up; a knave goes to the foundations at once (an automatic
        step: it starts the first empty pile of its suit) and ``None`` is returned."""
        c = self.pack.pop()
        if IS_KNAVE[c]:
            self._to_foundation(c)
            return None
        return c

    def _refill(self, j: int) -> None:
        """Automatic step under ``refill="pack"``: the pack's next card fills empty help ``j``; a
        knave drawn goes to the foundations and the next card is drawn. With the pack out the help
        waits."""
        while self.pack:
            c = self._draw()
            if c is not None:
                self.helps[j].append(c)
                return

    def pack_order(self) -> list[int]:
        """The pack as a list, first card to be turned first."""
        return self.pack[::-1]

    # ---- the rules ----------------------------------------------------------------------------
    # Named predicates: is_legal asks them per action, legal_mask per available card.

    def foundation_for(self, c: int) -> int:
        """The foundation ``c`` goes to (the first of its suit's two that takes it), or -1."""
        return FOUNDATIONS.first_accepting(self.foundations, c, SUIT_PILES[c])

    def _talon_onto(self, j: int) -> tuple[bool, ...]:
        """Which talon cards help ``j`` takes now (by card id): married onto its top, or any card
        filling it when empty; under ``refill="pack"`` an empty help takes only the pack's cards,
        so it waits."""
        help_ = self.helps[j]
        if help_:
            return MARRY[help_[-1]]
        return _NOTHING if self.refill_from_pack else _ANYTHING

    def _help_onto(self, j: int) -> tuple[bool, ...]:
        """Which help top cards help ``j`` takes now: a marriage only, never into an empty help."""
        help_ = self.helps[j]
        return MARRY[help_[-1]] if help_ else _NOTHING

    def _may_turn(self) -> bool:
        return bool(self.pack)

    def _may_redeal(self) -> bool:
        """The pack is exhausted, the talon holds cards, and a re-deal is left."""
        return not self.pack and bool(self.talon) and self.redeals < N_REDEALS

    def is_legal(self, action: int) -> bool:
        move = TABLE[action]
        match move.kind:  # the most frequent moves first: each case reads an enum member
            case Kind.TURN:
                return self._may_turn()
            case Kind.HELP_TO_HELP:
                src = self.helps[move.src]
                return bool(src) and self._help_onto(move.dst)[src[-1]]
            case Kind.TALON_TO_HELP:
                return bool(self.talon) and self._talon_onto(move.dst)[self.talon[-1]]
            case Kind.HELP_TO_FOUNDATION:
                src = self.helps[move.src]
                return bool(src) and self.foundation_for(src[-1]) >= 0
            case Kind.TALON_TO_FOUNDATION:
                return bool(self.talon) and self.foundation_for(self.talon[-1]) >= 0
            case Kind.REDEAL:
                return self._may_redeal()
            case _:
                assert_never(move.kind)

    def mark_legal(self, mask: np.ndarray) -> None:
        mask[_TURN] = self._may_turn()
        mask[_REDEAL] = self._may_redeal()
        if self.talon:
            t = self.talon[-1]
            mask[_TALON_F] = self.foundation_for(t) >= 0
            for j in range(N_HELPS):
                mask[_TALON_H0 + j] = self._talon_onto(j)[t]
        onto = [self._help_onto(j) for j in range(N_HELPS)]
        for i, help_ in enumerate(self.helps):
            if help_:
                c = help_[-1]
                mask[_HELP_F0 + i] = self.foundation_for(c) >= 0
                for j, a in _MARRIAGES_FROM[i]:
                    if onto[j][c]:
                        mask[a] = True

    def _apply(self, move: Move[Kind]) -> None:
        match move.kind:  # in is_legal's order
            case Kind.TURN:
                c = self._draw()
                if c is not None:
                    self.talon.append(c)
            case Kind.HELP_TO_HELP:
                self.helps[move.dst].append(self.helps[move.src].pop())
                self._vacated(move.src)
            case Kind.TALON_TO_HELP:
                self.helps[move.dst].append(self.talon.pop())
            case Kind.HELP_TO_FOUNDATION:
                self._to_foundation(self.helps[move.src].pop())
                self._vacated(move.src)
            case Kind.TALON_TO_FOUNDATION:
                self._to_foundation(self.talon.pop())
            case Kind.REDEAL:
                self.pack = self.talon[::-1]  # the talon turned over: its first card is turned first
                self.talon = []
                self.redeals += 1
                if self.refill_from_pack:  # the waiting helps, in order, from the new pack
                    for j, help_ in enumerate(self.helps):
                        if not help_:
                            self._refill(j)
            case _:
                assert_never(move.kind)

    def _to_foundation(self, c: int) -> None:
        self.foundations[self.foundation_for(c)].append(c)

    def _vacated(self, i: int) -> None:
        """After a card left help ``i`` (the only moves that can empty a help): under
        ``refill="pack"`` an emptied help is refilled at once."""
        if not self.helps[i] and self.refill_from_pack:
            self._refill(i)

    # ---- reading the state --------------------------------------------------------------------

    @property
    def foundation_cards(self) -> int:
        return count_cards(self.foundations)

    def unseen_positions(self) -> list[int]:
        """The pack's cards not turned yet, until a re-deal turns the (seen) talon over."""
        return self.undealt_positions(len(self.pack) * (self.redeals == 0))

    def cards_in_play(self) -> list[int]:
        found = [c for pile in self.foundations for c in pile]
        return [c for h in self.helps for c in h] + self.pack + self.talon + found

    def moving_card(self, move: Move[Kind]) -> int | None:
        match move.kind:
            case Kind.TALON_TO_FOUNDATION | Kind.TALON_TO_HELP:
                pile = self.talon
            case Kind.HELP_TO_FOUNDATION | Kind.HELP_TO_HELP:
                pile = self.helps[move.src]
            case Kind.TURN | Kind.REDEAL:
                return None  # the pack's next card is face down
            case _:
                assert_never(move.kind)
        return pile[-1] if pile else None

    def describe(self, action: int) -> str:
        """The move in words; a foundation move also names the foundation the card would go to."""
        move, text = TABLE[action], super().describe(action)
        c = self.moving_card(move)
        if move.kind in (Kind.TALON_TO_FOUNDATION, Kind.HELP_TO_FOUNDATION) and c is not None:
            f = self.foundation_for(c)
            return f"{text} {f}" if f >= 0 else text
        return text

    def observe(self, out: np.ndarray) -> None:
        seen = [0] * N_KINDS  # copies of each card given a slot so far
        hot: list[int] = []  # card_place entries (flat, within the segment)
        at: list[int] = []  # depth entries, with their values in depths
        depths: list[float] = []
        for i, help_ in enumerate(self.helps):
            n = len(help_) - 1
            for k, c in enumerate(help_):
                slot = 2 * c + seen[c]
                seen[c] += 1
                hot.append(slot * _NP + i)
                at.append(slot)
                depths.append((n - k) / 12.0)
        for pile in self.foundations:
            for c in pile:
                hot.append((2 * c + seen[c]) * _NP + _P_FOUND)
                seen[c] += 1
        talon = self.talon
        top = len(talon) - 1
        for k, c in enumerate(talon):
            # the top three each have a place (talon[-1] at "talon top"); the cards below share one
            above = top - k
            hot.append((2 * c + seen[c]) * _NP + (_P_TTOP + above if above < FAN else _P_TALON))
            seen[c] += 1
        # The rest is in the pack: the complement of the above, in no order.
        left = np.array(seen)
        o = self._o_place
        out[np.asarray(hot, dtype=np.intp) + o] = 1.0
        out[_PACK_COPY0[left == 0] + o] = 1.0
        out[_PACK_COPY1[left <= 1] + o] = 1.0
        out[np.asarray(at, dtype=np.intp) + self._o_depth] = depths
        out[self._s_found] = [len(pile) / FULL for pile in self.foundations]
        out[self._s_pack] = len(self.pack) / N_CARDS
        out[self._s_talon] = len(talon) / N_CARDS
        out[self._s_redeals] = (N_REDEALS - self.redeals) / N_REDEALS
        out[self._s_refill] = 1.0 if self.refill_from_pack else 0.0

    def extra_info(self) -> dict[str, Any]:
        return {"redeals_left": N_REDEALS - self.redeals}

    def render(self) -> str:
        tops = [NAME[p[-1]] if p else "--" + SUITS[f >> 1] for f, p in enumerate(self.foundations)]
        talon = " ".join(NAME[c] for c in self.talon[-3:]) if self.talon else "(empty)"
        refill = "  refill from the pack" if self.refill_from_pack else ""
        left = N_REDEALS - self.redeals
        lines = [
            f"Anna{refill}  re-deals left {left}  on foundations: {self.foundation_cards}",
            "foundations: " + " ".join(tops),
            f"pack: {len(self.pack)} cards   talon ({len(self.talon)}): {talon}",
        ]
        for i, help_ in enumerate(self.helps):
            lines.append(f"help {i}: " + (" ".join(NAME[c] for c in help_) if help_ else "(empty)"))
        return "\n".join(lines)
