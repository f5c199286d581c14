"""Light and Shade (Cadogan; docs/rules.md section 6). Two packs.

The eight aces are taken out before dealing (the first copy of each ace, then the second, so the
foundations hold C D H S C D H S, left to right). Each foundation builds up to K in **alternating
colours**, suit ignored. Eight cards are dealt in two rows of four: the upper row are the four
**Auxiliaries**, the lower the four **Rivals**. The other 88 cards are the pack, face down.

- Cards reach the foundations only from the top of an Auxiliary pile.
- A Rival card may go on an Auxiliary's top card (one rank lower, other colour) or into an empty
  Auxiliary.
- An empty Rival is filled from the pack (its next card, turned straight into the Rival) or from
  the talon (its top card).
- The player turns the pack one card at a time onto the talon. The talon's top card (the card
  just turned, or one laid aside earlier and now uncovered) may go on an Auxiliary's top card by
  the same descending alternate-colour rule, or fill an empty Rival; never to a foundation, nor
  into an empty Auxiliary. Cadogan: cards that can be "played or placed" are, "the non-suitable
  cards forming a talon".
- No re-deal. Won when all 96 dealt cards are on the foundations.

Options:

- ``talon_to_auxiliaries=True`` (default). ``False`` is the strict reading of the first edition
  of this book: talon cards only fill empty Rivals.
- ``redeals=0`` (default), ``1`` or ``2``: **not the book's rule** (Cadogan: "there is no
  re-deal"). When the pack is exhausted the talon may be turned over, without shuffling, to make
  a new pack, that many times. It is for learning experiments (under the book's rule a blind
  player almost never wins), and results that use it must say so.

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

Observation (856 floats): ``card_place`` (52 x 12) holds, per card, the copies at each place / 2:
auxiliary 0-3, rival 0-3, talon top, talon below the top (seen when turned), foundation, and
the pack (not visible: only which cards remain, never their order, also after a re-deal);
``aux_top`` (4 x 52) one-hot of each Auxiliary's top card; ``aux_size`` (4) cards per Auxiliary
/ 12; ``foundation_rank`` (8) top rank / 13; ``foundation_red`` (8) 1 when the foundation's ace is
red; ``pack_size`` and ``talon_size`` / 88; ``talon_to_auxiliaries`` (1) the option;
``redeals_left`` (1) re-deals still allowed / 2 (always 0 under the book's rule).

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

from typing import Any, ClassVar

import numpy as np

from patience_gym.core.cards import ACE, NAME, RANK, RED, card, card_name, take_out
from patience_gym.core.game import Game, Move, ObsLayout, Option
from patience_gym.core.vocabulary import ALTERNATE_DOWN, ALTERNATE_UP

N_AUX, N_RIVALS, N_FOUND = 4, 4, 8
N_PACK = 104 - N_FOUND - N_AUX - N_RIVALS  # 88
MAX_AUX = 12  # a K down to a 2
MAX_REDEALS = 2  # the most the (non-book) ``redeals`` option allows
_AUX_F, _RIVAL_A0, _TALON_A0, _TALON_R0, _PACK_R0, _TURN, _REDEAL = 0, 4, 20, 24, 28, 32, 33
_N_ACTIONS = 34
_ONTO_AUX = ALTERNATE_DOWN.table  # [top][card]: card one lower, other colour
_ONTO_FOUND = ALTERNATE_UP.table  # [top][card]: card one higher, other colour
ACES = tuple(card(ACE, s) for s in range(4)) * 2  # C D H S, then the second copies

# Observation: where each card is (copies / 2 over these places).
_PLACES = (
    [f"auxiliary {i}" for i in range(N_AUX)]
    + [f"rival {r}" for r in range(N_RIVALS)]
    + [
        "talon top",
        "talon below top (seen)",
        "foundation",
        "pack (not visible)",
    ]
)
_RIVAL, _TALON_TOP, _TALON_BELOW, _FOUNDATION, _PACK = 4, 8, 9, 10, 11
_NP = len(_PLACES)


def _table() -> tuple[Move, ...]:
    moves = [Move("aux_f", i, text=f"auxiliary {i} -> foundation") for i in range(N_AUX)]
    moves += [
        Move("rival_a", r, a, text=f"rival {r} -> auxiliary {a}")
        for r in range(N_RIVALS)
        for a in range(N_AUX)
    ]
    moves += [Move("talon_a", dst=a, text=f"talon -> auxiliary {a}") for a in range(N_AUX)]
    moves += [Move("talon_r", dst=r, text=f"talon -> rival {r}") for r in range(N_RIVALS)]
    moves += [Move("pack_r", dst=r, text=f"pack -> rival {r}") for r in range(N_RIVALS)]
    moves.append(Move("turn", text="pack -> talon"))
    moves.append(Move("redeal", text="re-deal: talon turned over -> pack"))
    assert len(moves) == _N_ACTIONS
    return tuple(moves)


class LightAndShade(Game):
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
        ),
    }
    STATE = ("aux", "rivals", "pack", "talon", "foundations", "redeals_left")
    MOVES = _table()

    def configure(self, *, talon_to_auxiliaries: bool, redeals: int) -> None:
        self.talon_to_aux = talon_to_auxiliaries
        self.redeals = redeals
        self.moves = self.MOVES
        self.layout = ObsLayout(
            [
                ("card_place", (52, _NP), "copies of each card at: " + "; ".join(_PLACES) + " (/ 2)"),
                ("aux_top", (N_AUX, 52), "one-hot of each Auxiliary's top card"),
                ("aux_size", (N_AUX,), "cards in each Auxiliary / 12"),
                ("foundation_rank", (N_FOUND,), "rank of each foundation's top card / 13"),
                ("foundation_red", (N_FOUND,), "1 when the foundation's ace is red (C D H S C D H S)"),
                ("pack_size", (1,), "cards in the pack / 88"),
                ("talon_size", (1,), "cards in the talon / 88"),
                ("talon_to_auxiliaries", (1,), "1 when the talon may go on the Auxiliaries"),
                ("redeals_left", (1,), "re-deals left / 2 (redeals option: not the book's rule)"),
            ]
        )
        self._place_size = 52 * _NP
        self._o_top = self.layout.offset("aux_top")
        self._o_size = self.layout.offset("aux_size")
        self._o_found = self.layout.offset("foundation_rank")
        self._o_tail = self.layout.offset("pack_size")

    # ---- dealing ------------------------------------------------------------------------------

    def deal(self, pack: list[int]) -> None:
        rest = list(pack)
        aces = take_out(rest, ACES)
        self.foundations: list[list[int]] = [[a] for a in aces]
        self.aux: list[list[int]] = [[c] for c in rest[:N_AUX]]
        self.rivals: list[int] = rest[N_AUX : N_AUX + N_RIVALS]  # -1: empty
        self.pack: list[int] = rest[N_AUX + N_RIVALS :][::-1]  # pack[-1] is the next card
        self.talon: list[int] = []
        self.redeals_left: int = self.redeals

    # ---- the rules ----------------------------------------------------------------------------
    # Named predicates: is_legal asks them per action, legal_mask per place.

    def _foundation_for(self, c: int) -> int:
        """The leftmost foundation that accepts ``c``, or -1."""
        for f, pile in enumerate(self.foundations):
            if _ONTO_FOUND[pile[-1]][c]:
                return f
        return -1

    def _rival_fits_aux(self, c: int, a: int) -> bool:
        """A Rival card goes on an Auxiliary one lower in the other colour, or into an empty one."""
        pile = self.aux[a]
        return not pile or _ONTO_AUX[pile[-1]][c]

    def _talon_fits_aux(self, c: int, a: int) -> bool:
        """The talon's top goes on an Auxiliary by the same rule, never into an empty one (its
        vacancies are filled from the Rivals), and only under ``talon_to_auxiliaries``."""
        pile = self.aux[a]
        return self.talon_to_aux and bool(pile) and _ONTO_AUX[pile[-1]][c]

    def _may_redeal(self) -> bool:
        """The talon turned over makes a new pack once the pack is out (``redeals`` option)."""
        return self.redeals_left > 0 and not self.pack and bool(self.talon)

    def is_legal(self, action: int) -> bool:
        move = self.moves[action]
        kind = move.kind
        if kind == "aux_f":
            pile = self.aux[move.src]
            return bool(pile) and self._foundation_for(pile[-1]) >= 0
        if kind == "rival_a":
            c = self.rivals[move.src]
            return c >= 0 and self._rival_fits_aux(c, move.dst)
        if kind == "talon_a":
            return bool(self.talon) and self._talon_fits_aux(self.talon[-1], move.dst)
        if kind == "talon_r":
            return bool(self.talon) and self.rivals[move.dst] < 0
        if kind == "pack_r":
            return bool(self.pack) and self.rivals[move.dst] < 0
        if kind == "redeal":
            return self._may_redeal()
        return bool(self.pack)

    def legal_mask(self) -> np.ndarray:
        """The rules of :meth:`is_legal`, computed place by place instead of id by id."""
        mask = np.zeros(_N_ACTIONS, dtype=bool)
        for i, pile in enumerate(self.aux):
            if pile:
                mask[_AUX_F + i] = self._foundation_for(pile[-1]) >= 0
        for r, c in enumerate(self.rivals):
            if c < 0:
                mask[_TALON_R0 + r] = bool(self.talon)
                mask[_PACK_R0 + r] = bool(self.pack)
                continue
            base = _RIVAL_A0 + 4 * r
            for a in range(N_AUX):
                mask[base + a] = self._rival_fits_aux(c, a)
        if self.talon:
            tc = self.talon[-1]
            for a in range(N_AUX):
                mask[_TALON_A0 + a] = self._talon_fits_aux(tc, a)
        mask[_TURN] = bool(self.pack)
        mask[_REDEAL] = self._may_redeal()
        return mask

    def _apply(self, move: Move) -> None:
        kind = move.kind
        if kind == "aux_f":
            c = self.aux[move.src].pop()
            self.foundations[self._foundation_for(c)].append(c)
        elif kind == "rival_a":
            self.aux[move.dst].append(self.rivals[move.src])
            self.rivals[move.src] = -1
        elif kind == "talon_a":
            self.aux[move.dst].append(self.talon.pop())
        elif kind == "talon_r":
            self.rivals[move.dst] = self.talon.pop()
        elif kind == "pack_r":
            self.rivals[move.dst] = self.pack.pop()
        elif kind == "redeal":
            self.pack = self.talon[::-1]  # turned over: the first card turned is turned first again
            self.talon = []
            self.redeals_left -= 1
        else:
            self.talon.append(self.pack.pop())

    # ---- reading the state --------------------------------------------------------------------

    @property
    def foundation_cards(self) -> int:
        return sum(len(p) for p in self.foundations) - N_FOUND

    def pack_order(self) -> list[int]:
        """The pack as a list, first card to be turned first."""
        return self.pack[::-1]

    def moving_card(self, move: Move) -> int | None:
        kind = move.kind
        if kind == "aux_f":
            pile = self.aux[move.src]
            return pile[-1] if pile else None
        if kind == "rival_a":
            c = self.rivals[move.src]
            return c if c >= 0 else None
        if kind in ("talon_a", "talon_r"):
            return self.talon[-1] if self.talon else None
        return None  # the pack's next card is face down

    def extra_info(self) -> dict[str, Any]:
        return {"redeals_left": self.redeals_left}

    def observe(self, out: np.ndarray) -> None:
        hot: list[int] = []  # card_place entries, one per copy (summed below)
        idx: list[int] = []  # every other entry, with its value in val
        val: list[float] = []
        o_top, o_size = self._o_top, self._o_size
        for i, pile in enumerate(self.aux):
            if pile:
                hot.extend(c * _NP + i for c in pile)
                idx.append(o_top + 52 * i + pile[-1])
                val.append(1.0)
            idx.append(o_size + i)
            val.append(len(pile) / MAX_AUX)
        for r, c in enumerate(self.rivals):
            if c >= 0:
                hot.append(c * _NP + _RIVAL + r)
        if self.talon:
            hot.extend(c * _NP + _TALON_BELOW for c in self.talon[:-1])
            hot.append(self.talon[-1] * _NP + _TALON_TOP)
        o = self._o_found
        for f, pile in enumerate(self.foundations):
            hot.extend(c * _NP + _FOUNDATION for c in pile)
            idx.extend((o + f, o + N_FOUND + f))
            val.extend((RANK[pile[-1]] / 13.0, 1.0 if RED[pile[0]] else 0.0))
        hot.extend(c * _NP + _PACK for c in self.pack)
        n = self._place_size
        out[:n] = np.bincount(np.asarray(hot, dtype=np.intp), minlength=n) * 0.5
        o = self._o_tail
        idx.extend((o, o + 1, o + 2, o + 3))
        val.extend(
            (
                len(self.pack) / N_PACK,
                len(self.talon) / N_PACK,
                1.0 if self.talon_to_aux else 0.0,
                self.redeals_left / MAX_REDEALS,
            )
        )
        out[idx] = val

    def cards_in_play(self) -> list[int]:
        rivals = [c for c in self.rivals if c >= 0]
        found = [c for p in self.foundations for c in p]
        return [c for p in self.aux for c in p] + rivals + self.pack + self.talon + found

    def heuristic(self) -> float:
        """Foundation progress first, then cards built on the Auxiliaries, then emptying the
        talon before the pack, and a little for an empty Auxiliary (it takes any Rival).

        A re-deal (``redeals`` option) scores +0.5 a card: the talon's cards are worth more in a
        pack that will turn them again than buried under one another.

        With ``talon_to_auxiliaries=False`` the talon reaches the Auxiliaries only through a Rival,
        so a Rival is best kept empty as a way in for a talon card that fits (two moves, which a
        one-step lookahead sees only through the next two terms): an occupied Rival costs 2, and a
        Rival card that fits an Auxiliary earns 0.75 back. That term reads a card's identity, but
        only a talon card (seen before the move) can win by it: a pack card put straight into a
        Rival scores at most 0.5 - 2 + 0.75 = -0.75, below turning it onto the talon
        (0.5 - 1 = -0.5), which is legal whenever the pack has a card, so the lookahead never
        chooses by a card it has not seen. By default the talon builds on the Auxiliaries
        directly and full Rivals are worth more than empty ones: both terms are left out.
        """
        aux = self.aux
        score = (
            10.0 * self.foundation_cards
            + 1.0 * sum(len(p) for p in aux)
            + 0.5 * sum(1 for p in aux if not p)
            - 0.5 * len(self.pack)
            - 1.0 * len(self.talon)
        )
        if not self.talon_to_aux:
            tops = [p[-1] if p else -1 for p in aux]
            for c in self.rivals:
                if c >= 0:
                    score -= 2.0
                    if any(t < 0 or _ONTO_AUX[t][c] for t in tops):
                        score += 0.75
        return score

    def render(self) -> str:
        found = " ".join(NAME[p[-1]] for p in self.foundations)
        opts = "" if self.talon_to_aux else "  talon to Rivals only"
        if self.redeals:
            opts += f"  re-deals left {self.redeals_left} (not the book's rule)"
        lines = [
            f"Light and Shade{opts}  on foundations: {self.foundation_cards}/96",
            f"foundations: {found}",
        ]
        for i, pile in enumerate(self.aux):
            lines.append(f"auxiliary {i}: " + (" ".join(NAME[c] for c in pile) if pile else "(empty)"))
        lines.append("rivals: " + " ".join(card_name(c) if c >= 0 else "--" for c in self.rivals))
        talon = " ".join(NAME[c] for c in self.talon[-3:]) if self.talon else "(empty)"
        lines.append(f"pack: {len(self.pack)} cards   talon ({len(self.talon)}): {talon}")
        return "\n".join(lines)
