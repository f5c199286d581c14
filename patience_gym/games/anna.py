"""Anna (Cadogan; docs/rules.md section 5). Two packs.

Rules in brief. The eight knaves are the foundations: whenever a knave turns up, in laying out the
helps or from the pack, it goes to the foundations at once. Each foundation builds down in suit,
J, T, 9, ..., 2, A and then K; queens never go to the foundations, so a full foundation holds 12
cards and the game is won with 96 cards on them. The helps are 8 packets laid out from the pack
(a knave among them goes to the foundations and the next card takes its place); only a help's
top card is available. Marriages on the helps are ascending in suit (a card goes on the top card
of its suit one rank lower), nothing is ever put on a queen, and help tops may be married onto
other helps. The player turns the pack one card at a time onto the talon; the talon's top card may
go to a foundation, be married onto a help, or fill an empty help. When the pack is exhausted the
talon may be turned over, without shuffling, to become the pack: twice.

Option ``refill`` says how an empty help is filled:

- ``"free"`` (default, Cadogan: "refilling the vacancies from the pack or talon"): by the
  talon's top card, when the player chooses; "from the pack" is turning the card and then
  placing it.
- ``"pack"`` (Dick's stricter rule, "fill vacancies always from the pack"): at once, with the
  next card of the pack, unseen, as an automatic step; a knave drawn so goes to the foundations
  and the next card fills the help. While the pack is out an empty help waits (the talon may not
  fill it), and a re-deal fills every waiting help at once from the new pack, help 0 first.

Action table (75 ids, fixed). The table puts the moves that change no count (turning a card,
re-dealing) before the help-to-help marriages, so the greedy policy's lowest-id tie-break turns
the pack rather than shuffling a card between two helps to and fro:

======= ===================================================================
id      move
======= ===================================================================
0       turn the next card of the pack onto the talon (a knave goes to the
        foundations instead)
1       re-deal: turn the talon over to make the pack
2       talon -> foundation
3-10    help i -> foundation
11-18   talon -> help j (a marriage, or filling an empty help)
19-74   help i -> help j (i != j, ordered i-major): a marriage
======= ===================================================================

Foundations are numbered 0-7, two per suit: 2s and 2s+1 for suit s (C D H S), the first knave of
a suit to turn up taking 2s. "-> foundation" goes to the first of its suit's two piles that the
card fits; when both fit they hold the same cards, so the choice makes no difference.

Observation segments (``layout.describe()``):

- ``card_place`` (52, 2, 12): for each card and each of its two copies, one-hot over: help 0-7,
  foundation, talon top, talon below the top (turned, so seen), the face-down pack. Copies are
  interchangeable and take the slots in the order helps (0 first, bottom card first),
  foundations, talon, pack; which cards are in the pack is only the complement of the rest,
  never their order.
- ``depth`` (52, 2): for a copy in a help, the cards lying on it / 12 (0: the available top).
- ``foundation`` (8,): cards on each foundation / 12.
- ``pack_size``, ``talon_size`` (1 each): cards / 104; ``redeals_left`` (1,): re-deals left / 2;
  ``refill_pack`` (1,): 1 under ``refill="pack"``.

Choices where docs/rules.md is silent or needs reading (documented, tested):

- **Under ``refill="free"`` vacancies are not refilled automatically.** The card the player
  turns from the pack lies on the talon, from where it may go into the vacancy at once, so
  "from the pack" is the turn followed by the fill, with no exception for the start. The player
  keeps the choice of which card fills a vacancy and when, which is also how PySolFC-style "fill
  from the waste" reads.
- Turning a knave from the pack is one action: the knave goes to the foundations and no further
  card is turned (docs/rules.md: "one card at a time").
- Help-to-help moves are single cards; a help's cards are always one suit in ascending sequence,
  so every help card is shown (a player can read the packet from its base and top).
- The re-deal is legal only when the pack is exhausted and the talon holds cards.
- The talon's order below its top is not observed, nor the pack's order after a re-deal.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from patience_gym.core.cards import N_KINDS, NAME, RANK, SUIT, SUITS, card
from patience_gym.core.game import Game, Move, ObsLayout, Option
from patience_gym.core.vocabulary import SAME_SUIT_UP, Build

N_HELPS = 8
N_FOUNDATIONS = 8
N_REDEALS = 2
N_CARDS = 2 * N_KINDS
KNAVE, QUEEN = 11, 12
#: Foundation sequence: J, T, ..., A, then K (wrap). A full foundation holds 12 cards.
FOUNDATION_RANKS = (11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 13)
FULL = len(FOUNDATION_RANKS)

_FOUNDATION_BUILD = Build("down", "same", wrap=True)
_F_FITS = _FOUNDATION_BUILD.table
_H_FITS = SAME_SUIT_UP.table
IS_QUEEN: tuple[bool, ...] = tuple(RANK[c] == QUEEN for c in range(N_KINDS))
IS_KNAVE: tuple[bool, ...] = tuple(RANK[c] == KNAVE for c in range(N_KINDS))
#: FOUNDATION_TOP[s][n]: the top card of a suit-s foundation holding n cards (-1 when none).
FOUNDATION_TOP: tuple[tuple[int, ...], ...] = tuple(
    tuple([-1] + [card(r, s) for r in FOUNDATION_RANKS]) for s in range(4)
)
#: FOUNDATION_NEED[s][n]: the card a suit-s foundation of n cards takes next (-1: none).
FOUNDATION_NEED: tuple[tuple[int, ...], ...] = tuple(
    tuple([-1] + [card(r, s) for r in FOUNDATION_RANKS[1:]] + [-1]) for s in range(4)
)

_TURN, _REDEAL, _TALON_F, _HELP_F0, _TALON_H0, _HELP_H0 = 0, 1, 2, 3, 11, 19
_PAIRS = tuple((i, j) for i in range(N_HELPS) for j in range(N_HELPS) if i != j)
_N_ACTIONS = _HELP_H0 + len(_PAIRS)

_PLACES = [f"help {i}" for i in range(N_HELPS)] + [
    "foundation",
    "talon top",
    "talon below the top (seen)",
    "pack (face down)",
]
_P_FOUND, _P_TTOP, _P_TALON, _P_PACK = 8, 9, 10, 11
_NP = len(_PLACES)
#: Where card c's first and second copy are marked "in the pack" in ``card_place``.
_PACK_COPY0 = np.arange(N_KINDS) * 2 * _NP + _P_PACK
_PACK_COPY1 = _PACK_COPY0 + _NP


def _table() -> tuple[Move, ...]:
    moves = [Move("turn", text="pack -> talon"), Move("redeal", text="re-deal: talon turned over -> pack")]
    moves.append(Move("talon_f", text="talon -> foundation"))
    moves += [Move("help_f", i, text=f"help {i} -> foundation") for i in range(N_HELPS)]
    moves += [Move("talon_h", dst=j, text=f"talon -> help {j}") for j in range(N_HELPS)]
    moves += [Move("help_h", i, j, text=f"help {i} -> help {j}") for i, j in _PAIRS]
    return tuple(moves)


def marries(base: int, c: int) -> bool:
    """May ``c`` be put on a help whose top card is ``base``? Ascending in suit, never on a queen."""
    return _H_FITS[base][c] and not IS_QUEEN[base]


class Anna(Game):
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
    MOVES = _table()

    def configure(self, *, refill: str) -> None:
        self.refill_from_pack = refill == "pack"
        self.moves = self.MOVES
        self.layout = ObsLayout(
            [
                ("card_place", (N_KINDS, 2, _NP), "one-hot per card copy: " + "; ".join(_PLACES)),
                ("depth", (N_KINDS, 2), "for a help copy: cards lying on it / 12 (0: available top)"),
                ("foundation", (N_FOUNDATIONS,), "cards on each foundation / 12 (2s, 2s+1: suit s)"),
                ("pack_size", (1,), "cards in the pack / 104"),
                ("talon_size", (1,), "cards in the talon / 104"),
                ("redeals_left", (1,), "re-deals still allowed / 2"),
                ("refill_pack", (1,), "1 when empty helps are refilled from the pack (refill='pack')"),
            ]
        )
        self._o_depth = self.layout.offset("depth")
        self._o_found = self.layout.offset("foundation")
        self._o_tail = self.layout.offset("pack_size")

    # ---- dealing ------------------------------------------------------------------------------

    def deal(self, pack: list[int]) -> None:
        self.pack = pack[::-1]  # pack[-1] is the next card turned
        self.talon: list[int] = []
        self.foundations = [0] * N_FOUNDATIONS
        self.redeals = 0
        self.helps: list[list[int]] = []
        while len(self.helps) < N_HELPS:  # a knave goes up and the next card takes its place
            c = self.pack.pop()
            if IS_KNAVE[c]:
                self._knave_up(c)
            else:
                self.helps.append([c])

    def _knave_up(self, c: int) -> None:
        """Automatic step: a knave that turns up starts the first empty foundation of its suit."""
        f = 2 * SUIT[c]
        self.foundations[f if self.foundations[f] == 0 else f + 1] = 1

    def _refill(self, j: int) -> None:
        """Automatic step under ``refill="pack"``: the pack's next card fills empty help ``j``; a
        knave drawn goes to the foundations and the next card is drawn. With the pack out the help
        waits."""
        while self.pack:
            c = self.pack.pop()
            if IS_KNAVE[c]:
                self._knave_up(c)
            else:
                self.helps[j].append(c)
                return

    def pack_order(self) -> list[int]:
        """The pack as a list, first card to be turned first."""
        return self.pack[::-1]

    # ---- the rules ----------------------------------------------------------------------------

    def foundation_for(self, c: int) -> int:
        """The foundation ``c`` would go to (the first of its suit it fits), or -1."""
        if IS_QUEEN[c]:
            return -1
        s = SUIT[c]
        tops = FOUNDATION_TOP[s]
        for f in (2 * s, 2 * s + 1):
            top = tops[self.foundations[f]]
            if top >= 0 and _F_FITS[top][c]:
                return f
        return -1

    def _to_help(self, c: int, j: int) -> bool:
        """May the talon's top card ``c`` go on help ``j``? A marriage, or filling an empty help;
        under ``refill="pack"`` an empty help takes only the pack's cards, so it waits."""
        help_ = self.helps[j]
        if not help_:
            return not self.refill_from_pack
        return marries(help_[-1], c)

    def is_legal(self, action: int) -> bool:
        move = self.moves[action]
        kind = move.kind
        if kind == "turn":
            return bool(self.pack)
        if kind == "redeal":
            return not self.pack and bool(self.talon) and self.redeals < N_REDEALS
        if kind == "talon_f":
            return bool(self.talon) and self.foundation_for(self.talon[-1]) >= 0
        if kind == "talon_h":
            return bool(self.talon) and self._to_help(self.talon[-1], move.dst)
        src = self.helps[move.src]
        if not src:
            return False
        if kind == "help_f":
            return self.foundation_for(src[-1]) >= 0
        dst = self.helps[move.dst]  # help -> help: a marriage only, never into an empty help
        return bool(dst) and marries(dst[-1], src[-1])

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(_N_ACTIONS, dtype=bool)
        found = self.foundations
        # The cards the foundations take next (at most 8); a queen is never among them.
        need = {FOUNDATION_NEED[f >> 1][found[f]] for f in range(N_FOUNDATIONS)}
        if self.pack:
            mask[_TURN] = True
        elif self.talon and self.redeals < N_REDEALS:
            mask[_REDEAL] = True
        tops = [h[-1] if h else -1 for h in self.helps]
        if self.talon:
            t = self.talon[-1]
            mask[_TALON_F] = t in need
            for j in range(N_HELPS):
                mask[_TALON_H0 + j] = self._to_help(t, j)
        a = _HELP_H0
        for i in range(N_HELPS):
            c = tops[i]
            if c < 0:
                a += N_HELPS - 1
                continue
            mask[_HELP_F0 + i] = c in need
            for j in range(N_HELPS):
                if j == i:
                    continue
                b = tops[j]
                mask[a] = b >= 0 and marries(b, c)
                a += 1
        return mask

    def _apply(self, move: Move) -> None:
        kind = move.kind
        if kind == "turn":
            c = self.pack.pop()
            if IS_KNAVE[c]:
                self._knave_up(c)
            else:
                self.talon.append(c)
        elif kind == "redeal":
            self.pack = self.talon[::-1]  # the talon turned over: its first card is turned first
            self.talon = []
            self.redeals += 1
            if self.refill_from_pack:  # the waiting helps, in order, from the new pack
                for j, help_ in enumerate(self.helps):
                    if not help_:
                        self._refill(j)
        elif kind == "talon_f":
            self.foundations[self.foundation_for(self.talon[-1])] += 1
            self.talon.pop()
        elif kind == "talon_h":
            self.helps[move.dst].append(self.talon.pop())
        else:  # help -> foundation or help -> help: the only moves that can empty a help
            help_ = self.helps[move.src]
            c = help_.pop()
            if kind == "help_f":
                self.foundations[self.foundation_for(c)] += 1
            else:
                self.helps[move.dst].append(c)
            if not help_ and self.refill_from_pack:
                self._refill(move.src)

    # ---- reading the state --------------------------------------------------------------------

    @property
    def foundation_cards(self) -> int:
        return sum(self.foundations)

    def _foundation_list(self) -> list[int]:
        return [card(FOUNDATION_RANKS[k], f >> 1) for f, n in enumerate(self.foundations) for k in range(n)]

    def cards_in_play(self) -> list[int]:
        return [c for h in self.helps for c in h] + self.pack + self.talon + self._foundation_list()

    def moving_card(self, move: Move) -> int | None:
        kind = move.kind
        if kind in ("talon_f", "talon_h"):
            return self.talon[-1] if self.talon else None
        if kind in ("help_f", "help_h"):
            help_ = self.helps[move.src]
            return help_[-1] if help_ else None
        return None

    def describe(self, action: int) -> str:
        move = self.moves[action]
        text = super().describe(action)
        if move.kind in ("talon_f", "help_f"):
            c = self.moving_card(move)
            f = -1 if c is None else self.foundation_for(c)
            if f >= 0:
                text += f" {f}"
        return text

    def observe(self, out: np.ndarray) -> None:
        seen = [0] * N_KINDS  # copies of each card given a slot so far
        hot: list[int] = []
        depth = self._o_depth
        for i, help_ in enumerate(self.helps):
            n = len(help_) - 1
            for k, c in enumerate(help_):
                slot = 2 * c + seen[c]
                seen[c] += 1
                hot.append(slot * _NP + i)
                out[depth + slot] = (n - k) / 12.0
        for c in self._foundation_list():
            hot.append((2 * c + seen[c]) * _NP + _P_FOUND)
            seen[c] += 1
        talon = self.talon
        if talon:
            last = len(talon) - 1
            for k, c in enumerate(talon):
                hot.append((2 * c + seen[c]) * _NP + (_P_TTOP if k == last else _P_TALON))
                seen[c] += 1
        out[hot] = 1.0
        # The rest is in the pack: the complement of the above, in no order.
        left = np.array(seen)
        out[_PACK_COPY0[left == 0]] = 1.0
        out[_PACK_COPY1[left <= 1]] = 1.0
        f = self._o_found
        for k, n in enumerate(self.foundations):
            out[f + k] = n / FULL
        o = self._o_tail
        out[o] = len(self.pack) / N_CARDS
        out[o + 1] = len(talon) / N_CARDS
        out[o + 2] = (N_REDEALS - self.redeals) / N_REDEALS
        out[o + 3] = 1.0 if self.refill_from_pack else 0.0

    def extra_info(self) -> dict[str, Any]:
        return {"redeals_left": N_REDEALS - self.redeals}

    def heuristic(self) -> float:
        """Non-knave foundation cards first, then cards held in the helps, then empty helps.

        Knaves are left out (they go up by themselves), so turning a card scores the same
        whatever it turns out to be: the lookahead learns nothing from the hidden pack. A
        marriage from the talon (+0.5) beats turning (0); filling an empty help from the talon
        (+0.5 - 0.3) too; emptying a help by a marriage scores +0.3; a marriage that only swaps
        two tops scores 0 and loses the tie to turning, which has the lower id.

        Under ``refill="pack"`` a help emptied is filled at once from the pack, and the clone the
        lookahead scores has drawn those cards: the score still cannot tell what they were. The
        refill adds one held card whatever it is (knaves drawn on the way are left out), and
        whether the help is filled at all is public: every knave not yet up is in the pack.
        """
        held = sum(len(h) for h in self.helps)
        empty = sum(1 for h in self.helps if not h)
        knaves = sum(1 for n in self.foundations if n)
        return 10.5 * (self.foundation_cards - knaves) + 0.5 * held + 0.3 * empty

    def render(self) -> str:
        def top(f: int) -> str:
            n = self.foundations[f]
            return NAME[FOUNDATION_TOP[f >> 1][n]] if n else "--" + SUITS[f >> 1]

        talon = " ".join(NAME[c] for c in self.talon[-3:]) if self.talon else "(empty)"
        refill = "  refill from the pack" if self.refill_from_pack else ""
        left = N_REDEALS - self.redeals
        lines = [
            f"Anna{refill}  re-deals left {left}  on foundations: {self.foundation_cards}",
            "foundations: " + " ".join(top(f) for f in range(N_FOUNDATIONS)),
            f"pack: {len(self.pack)} cards   talon ({len(self.talon)}): {talon}",
        ]
        for i, help_ in enumerate(self.helps):
            lines.append(f"help {i}: " + (" ".join(NAME[c] for c in help_) if help_ else "(empty)"))
        return "\n".join(lines)
