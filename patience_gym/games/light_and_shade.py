"""Light and Shade (Cadogan; docs/rules.md section 6). Two packs.

Rules in brief (in full: docs/rules.md section 6). The eight aces are taken out before dealing
(the first copy of each ace, then the second: the foundations hold C D H S C D H S, left to
right); each foundation builds up to K in alternating colours, suit ignored. Four Auxiliaries
(upper row) and four Rivals (lower row) are dealt, one card each; the other 88 cards are the
pack, face down. Cards reach the foundations only from an Auxiliary's top. A Rival card goes on
an Auxiliary's top (one rank lower, the other colour) or into an empty Auxiliary; an empty Rival
is filled from the pack (its next card, straight in) or from the talon. The pack is turned one
card at a time onto the talon, whose top may go on an Auxiliary's top by the same rule or fill
an empty Rival, never to a foundation nor into an empty Auxiliary. No re-deal. Won when all 96
dealt cards are on the foundations.

Options:

- ``talon_to_auxiliaries=True`` (default). ``False`` is the strict reading of the first edition
  of this book: talon cards only fill empty Rivals.
- ``redeals=0`` (default), ``1`` or ``2``: **not the book's rule** (Cadogan: "there is no
  re-deal"; the option marks 1 and 2 as house rules). When the pack is exhausted the talon may be
  turned over, without shuffling, to make a new pack, that many times. It is for learning
  experiments (under the book's rule a blind player almost never wins), and results that use it
  must say so.

Action table (34 ids, fixed for every option):

======= ===================================================================
id      move
======= ===================================================================
0-3     auxiliary i -> foundation (its top card)
4-19    rival r -> auxiliary a (ordered r-major: id = 4 + 4r + a)
20-23   talon -> auxiliary a (not with ``talon_to_auxiliaries=False``)
24-27   talon -> rival r (r empty)
28-31   pack -> rival r (r empty): the pack's next card goes straight in
32      pack -> talon: turn the pack's next card onto the talon
33      re-deal: the talon turned over becomes the pack (only with ``redeals`` > 0)
======= ===================================================================

Observation (960 floats; ``layout.describe()`` lists the segments): ``card_place`` holds, per card,
the copies at each place / 2 (auxiliary 0-3, rival 0-3, talon top, second and third from the top
(the render shows them in order), the talon below those three (seen when turned), foundation, and
the pack: only which cards remain, never their order, also after a re-deal); ``aux_top`` one-hot
of each Auxiliary's top card; ``aux_size``; each foundation's top rank and the colour of its ace;
the pack and talon sizes; the ``talon_to_auxiliaries`` option; ``redeals_left`` (always 0 under
the book's rule).

Choices where docs/rules.md is silent (documented, tested):

- **What is automatic.** Nothing but the foundation chosen for a card: every refill is the
  player's choice. Vacancies are filled *from* the places the rules name, and each fill is a
  "may", so filling a vacancy, and when, is an action: an empty Auxiliary waits until the
  player puts a Rival into it (which Rival is a choice), and an empty Rival waits until the
  player fills it from the pack or from the talon (which source is a choice). Keeping a Rival
  empty is a real option: it is a way out for the talon's top card.
- **Which foundation.** A card goes to the leftmost foundation that accepts it. Foundations that
  accept the same card have tops of equal rank and colour, and foundation cards never move
  again, so they are interchangeable and a choice between them would change nothing.
- **Re-deal** (only with ``redeals`` > 0) is legal when the pack is exhausted and the talon holds
  cards; the first card turned in the last pass is turned first again.
- **Score and win count** leave out the eight aces set out before the deal: ``foundation_cards``
  counts cards played there (0 at the start), and 96 of them win.
- **Step limit 600.** No move undoes another within a pass (cards only ever move pack -> talon
  -> Rival -> Auxiliary -> foundation), so a pass costs at most 4 moves per dealt card and each
  re-deal at most 88 turns and itself: 4 x 96 + 2 x 89 = 562 moves with two re-deals.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, ClassVar

import numpy as np

from patience_gym.core.cards import ACE, N_KINDS, NAME, RANK, RED, card, card_name, take_out
from patience_gym.core.foundations import FoundationRow, Pile, count_cards
from patience_gym.core.game import Game, ObsLayout, Option
from patience_gym.core.moves import Move, MoveTable, assert_never, group
from patience_gym.core.places import TALON_PLACES, CardPlaces
from patience_gym.core.vocabulary import ALTERNATE_DOWN, ALTERNATE_UP

N_AUX, N_RIVALS, N_FOUND = 4, 4, 8
N_PACK = 104 - N_FOUND - N_AUX - N_RIVALS  # 88
MAX_AUX = 12  # a K down to a 2
MAX_REDEALS = 2  # the most the (non-book) ``redeals`` option allows
EMPTY = -1  # an empty Rival
ACES = tuple(card(ACE, s) for s in range(4)) * 2  # C D H S, then the second copies

#: The foundations: the eight aces set out before the deal (never empty), built up in
#: alternating colours, suit ignored.
FOUNDATIONS = FoundationRow(tuple(Pile(ALTERNATE_UP) for _ in ACES))
#: The Auxiliaries' build, as a table: ``ONTO_AUX[top][c]`` when c is one lower, other colour.
ONTO_AUX = ALTERNATE_DOWN.table
_NOTHING, _ANYTHING = (False,) * N_KINDS, (True,) * N_KINDS

# ---- the action table ---------------------------------------------------------------------------


class Kind(Enum):
    AUX_TO_FOUNDATION = "auxiliary -> foundation"
    RIVAL_TO_AUX = "rival -> auxiliary"
    TALON_TO_AUX = "talon -> auxiliary"
    TALON_TO_RIVAL = "talon -> rival"
    PACK_TO_RIVAL = "pack -> rival"
    TURN = "turn"
    REDEAL = "redeal"


AUX, RIVALS = range(N_AUX), range(N_RIVALS)
TABLE = MoveTable.build(
    group(Kind.AUX_TO_FOUNDATION, "auxiliary {0} -> foundation", [(i, -1) for i in AUX]),
    group(Kind.RIVAL_TO_AUX, "rival {0} -> auxiliary {1}", [(r, a) for r in RIVALS for a in AUX]),
    group(Kind.TALON_TO_AUX, "talon -> auxiliary {1}", [(-1, a) for a in AUX]),
    group(Kind.TALON_TO_RIVAL, "talon -> rival {1}", [(-1, r) for r in RIVALS]),
    group(Kind.PACK_TO_RIVAL, "pack -> rival {1}", [(-1, r) for r in RIVALS]),
    group(Kind.TURN, "pack -> talon"),
    group(Kind.REDEAL, "re-deal: talon turned over -> pack"),
)
_AUX_F0, _TALON_A0, _TALON_R0, _PACK_R0 = (
    TABLE.first[k]
    for k in (Kind.AUX_TO_FOUNDATION, Kind.TALON_TO_AUX, Kind.TALON_TO_RIVAL, Kind.PACK_TO_RIVAL)
)
_TURN, _REDEAL = TABLE.first[Kind.TURN], TABLE.first[Kind.REDEAL]
#: _RIVAL_TO_AUX[r]: (auxiliary a, action id) of each move from rival r, read off the table.
_RIVAL_TO_AUX = TABLE.by_source(Kind.RIVAL_TO_AUX, RIVALS)

# ---- the observation ----------------------------------------------------------------------------

#: Where the copies of each card are. The talon's top three cards are shown in order (see
#: render), so each has a place of its own; the cards below them were seen when turned.
PLACES = CardPlaces(
    [f"auxiliary {i}" for i in AUX]
    + [f"rival {r}" for r in RIVALS]
    + list(TALON_PLACES)
    + ["foundation", "pack (not visible)"],
    n_packs=2,
)
_RIVAL, _TALON_TOP, _FOUNDATION, _PACK = N_AUX, 8, 12, 13


class LightAndShade(Game[Kind]):
    """Light and Shade on the rules of docs/rules.md section 6 (see the module docstring)."""

    name = "LightAndShade"
    n_packs = 2
    win_cards = 96
    # No move undoes another within a pass; each re-deal adds at most 88 turns and itself.
    default_max_steps = 600
    OPTIONS: ClassVar[dict[str, Option[Any]]] = {
        "talon_to_auxiliaries": Option(
            True,
            "the talon's top card may go on an Auxiliary's top card (one lower, other colour) as well "
            "as into an empty Rival; False is the first edition's strict reading (empty Rivals only)",
            (True, False),
        ),
        "redeals": Option(
            0,
            "NOT THE BOOK'S RULE (Cadogan: 'there is no re-deal'), for learning experiments: how many "
            "times the talon may be turned over, without shuffling, to make a new pack; results that "
            "use it must say so",
            (0, 1, 2),
            house_rules=(1, 2),
        ),
    }
    STATE = ("aux", "rivals", "pack", "talon", "foundations", "redeals_left")
    moves = TABLE.moves
    layout = ObsLayout(
        [
            ("card_place", PLACES.shape, PLACES.doc()),
            ("aux_top", (N_AUX, N_KINDS), "one-hot of each Auxiliary's top card"),
            ("aux_size", (N_AUX,), "cards in each Auxiliary / 12"),
            ("foundation_rank", (N_FOUND,), "rank of each foundation's top card / 13"),
            ("foundation_red", (N_FOUND,), "1 when the foundation's ace is red (C D H S C D H S)"),
            ("pack_size", (1,), "cards in the pack / 88"),
            ("talon_size", (1,), "cards in the talon / 88"),
            ("talon_to_auxiliaries", (1,), "1 when the talon may go on the Auxiliaries"),
            ("redeals_left", (1,), "re-deals left / 2 (redeals option: not the book's rule)"),
        ]
    )

    def configure(self, *, talon_to_auxiliaries: bool, redeals: int) -> None:
        self.talon_to_aux = talon_to_auxiliaries
        self.redeals_allowed = redeals
        # Every segment but card_place is written with one indexed write (see observe).
        off = self.layout.offset
        self._o_place, self._o_top, self._o_size = off("card_place"), off("aux_top"), off("aux_size")
        self._o_rank, self._o_red = off("foundation_rank"), off("foundation_red")
        self._o_pack, self._o_talon = off("pack_size"), off("talon_size")
        self._o_option, self._o_redeals = off("talon_to_auxiliaries"), off("redeals_left")

    # ---- dealing ------------------------------------------------------------------------------

    def deal(self, pack: list[int]) -> None:
        rest = list(pack)
        aces = take_out(rest, ACES)
        self.foundations: list[list[int]] = [[a] for a in aces]  # cards bottom first
        self.aux: list[list[int]] = [[c] for c in rest[:N_AUX]]
        self.rivals: list[int] = rest[N_AUX : N_AUX + N_RIVALS]  # EMPTY: empty
        self.pack: list[int] = rest[N_AUX + N_RIVALS :][::-1]  # pack[-1] is the next card
        self.talon: list[int] = []
        self.redeals_left: int = self.redeals_allowed

    # ---- the rules ----------------------------------------------------------------------------
    # Named predicates: is_legal asks them per action, legal_mask per place.

    def _foundation_for(self, c: int) -> int:
        """The leftmost foundation that accepts ``c``, or -1."""
        return FOUNDATIONS.first_accepting(self.foundations, c)

    def _aux_takes_from_rivals(self, a: int) -> tuple[bool, ...]:
        """Which Rival cards Auxiliary ``a`` takes now (by card id): one lower than its top in the
        other colour, or any card into it when empty."""
        pile = self.aux[a]
        return ONTO_AUX[pile[-1]] if pile else _ANYTHING

    def _aux_takes_from_talon(self, a: int) -> tuple[bool, ...]:
        """Which talon cards Auxiliary ``a`` takes now: by the same rule, never into an empty one
        (its vacancies are filled from the Rivals), and only under ``talon_to_auxiliaries``."""
        pile = self.aux[a]
        return ONTO_AUX[pile[-1]] if pile and self.talon_to_aux else _NOTHING

    def _rival_open(self, r: int) -> bool:
        """Rival ``r`` is empty: the pack or the talon may fill it."""
        return self.rivals[r] == EMPTY

    def _may_turn(self) -> bool:
        return bool(self.pack)

    def _may_redeal(self) -> bool:
        """The talon turned over makes a new pack once the pack is out (``redeals`` option)."""
        return self.redeals_left > 0 and not self.pack and bool(self.talon)

    def is_legal(self, action: int) -> bool:
        move = TABLE[action]
        match move.kind:  # the turn first: most moves are turns, and each case reads an enum member
            case Kind.TURN:
                return self._may_turn()
            case Kind.AUX_TO_FOUNDATION:
                pile = self.aux[move.src]
                return bool(pile) and self._foundation_for(pile[-1]) >= 0
            case Kind.RIVAL_TO_AUX:
                c = self.rivals[move.src]
                return c != EMPTY and self._aux_takes_from_rivals(move.dst)[c]
            case Kind.TALON_TO_AUX:
                return bool(self.talon) and self._aux_takes_from_talon(move.dst)[self.talon[-1]]
            case Kind.TALON_TO_RIVAL:
                return bool(self.talon) and self._rival_open(move.dst)
            case Kind.PACK_TO_RIVAL:
                return self._may_turn() and self._rival_open(move.dst)
            case Kind.REDEAL:
                return self._may_redeal()
            case _:
                assert_never(move.kind)

    def mark_legal(self, mask: np.ndarray) -> None:
        """The rules of :meth:`is_legal`, computed place by place instead of id by id."""
        for i, pile in enumerate(self.aux):
            if pile:
                mask[_AUX_F0 + i] = self._foundation_for(pile[-1]) >= 0
        takes = [self._aux_takes_from_rivals(a) for a in AUX]
        for r, c in enumerate(self.rivals):
            if self._rival_open(r):
                mask[_TALON_R0 + r] = bool(self.talon)
                mask[_PACK_R0 + r] = self._may_turn()
                continue
            for a, x in _RIVAL_TO_AUX[r]:
                if takes[a][c]:
                    mask[x] = True
        if self.talon:
            tc = self.talon[-1]
            for a in AUX:
                mask[_TALON_A0 + a] = self._aux_takes_from_talon(a)[tc]
        mask[_TURN] = self._may_turn()
        mask[_REDEAL] = self._may_redeal()

    def _apply(self, move: Move[Kind]) -> None:
        match move.kind:  # the turn first, as in is_legal
            case Kind.TURN:
                self.talon.append(self.pack.pop())
            case Kind.AUX_TO_FOUNDATION:
                c = self.aux[move.src].pop()
                self.foundations[self._foundation_for(c)].append(c)
            case Kind.RIVAL_TO_AUX:
                self.aux[move.dst].append(self.rivals[move.src])
                self.rivals[move.src] = EMPTY
            case Kind.TALON_TO_AUX:
                self.aux[move.dst].append(self.talon.pop())
            case Kind.TALON_TO_RIVAL:
                self.rivals[move.dst] = self.talon.pop()
            case Kind.PACK_TO_RIVAL:
                self.rivals[move.dst] = self.pack.pop()
            case Kind.REDEAL:
                self.pack = self.talon[::-1]  # turned over: the first card turned is turned first again
                self.talon = []
                self.redeals_left -= 1
            case _:
                assert_never(move.kind)

    # ---- reading the state --------------------------------------------------------------------

    @property
    def foundation_cards(self) -> int:
        return count_cards(self.foundations) - N_FOUND

    def pack_order(self) -> list[int]:
        """The pack as a list, first card to be turned first."""
        return self.pack[::-1]

    def moving_card(self, move: Move[Kind]) -> int | None:
        match move.kind:
            case Kind.AUX_TO_FOUNDATION:
                pile = self.aux[move.src]
                return pile[-1] if pile else None
            case Kind.RIVAL_TO_AUX:
                c = self.rivals[move.src]
                return None if c == EMPTY else c
            case Kind.TALON_TO_AUX | Kind.TALON_TO_RIVAL:
                return self.talon[-1] if self.talon else None
            case Kind.PACK_TO_RIVAL | Kind.TURN | Kind.REDEAL:
                return None  # the pack's next card is face down
            case _:
                assert_never(move.kind)

    def extra_info(self) -> dict[str, Any]:
        return {"redeals_left": self.redeals_left}

    def observe(self, out: np.ndarray) -> None:
        where: list[int] = []  # card_place entries, one per copy
        idx: list[int] = []  # every other entry, with its value in val
        val: list[float] = []
        o_top, o_size = self._o_top, self._o_size
        for i, pile in enumerate(self.aux):
            if pile:
                where += PLACES.index(i, pile)
                idx.append(o_top + N_KINDS * i + pile[-1])
                val.append(1.0)
            idx.append(o_size + i)
            val.append(len(pile) / MAX_AUX)
        for r, c in enumerate(self.rivals):
            if c != EMPTY:
                where += PLACES.index(_RIVAL + r, (c,))
        where += PLACES.talon(_TALON_TOP, self.talon)
        o_rank, o_red = self._o_rank, self._o_red
        for f, pile in enumerate(self.foundations):
            idx.extend((o_rank + f, o_red + f))
            val.extend((RANK[pile[-1]] / 13.0, 1.0 if RED[pile[0]] else 0.0))
        where += PLACES.index(_FOUNDATION, [c for pile in self.foundations for c in pile])
        where += PLACES.index(_PACK, self.pack)
        PLACES.write(out, self._o_place, where)
        idx.extend((self._o_pack, self._o_talon, self._o_option, self._o_redeals))
        val.extend(
            (
                len(self.pack) / N_PACK,
                len(self.talon) / N_PACK,
                1.0 if self.talon_to_aux else 0.0,
                self.redeals_left / MAX_REDEALS,
            )
        )
        out[idx] = val

    def unseen_positions(self) -> list[int]:
        """The pack's cards not turned yet, until a re-deal turns the (seen) talon over."""
        return self.undealt_positions(len(self.pack) * (self.redeals_left == self.redeals_allowed), ACES)

    def cards_in_play(self) -> list[int]:
        rivals = [c for c in self.rivals if c != EMPTY]
        found = [c for p in self.foundations for c in p]
        return [c for p in self.aux for c in p] + rivals + self.pack + self.talon + found

    def render(self) -> str:
        found = " ".join(NAME[p[-1]] for p in self.foundations)
        opts = "" if self.talon_to_aux else "  talon to Rivals only"
        if self.redeals_allowed:
            opts += f"  re-deals left {self.redeals_left} (not the book's rule)"
        lines = [
            f"Light and Shade{opts}  on foundations: {self.foundation_cards}/96",
            f"foundations: {found}",
        ]
        for i, pile in enumerate(self.aux):
            lines.append(f"auxiliary {i}: " + (" ".join(NAME[c] for c in pile) if pile else "(empty)"))
        lines.append("rivals: " + " ".join(card_name(c) if c != EMPTY else "--" for c in self.rivals))
        talon = " ".join(NAME[c] for c in self.talon[-3:]) if self.talon else "(empty)"
        lines.append(f"pack: {len(self.pack)} cards   talon ({len(self.talon)}): {talon}")
        return "\n".join(lines)
