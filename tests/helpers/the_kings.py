"""The Kings scenario packs and helpers, shared by tests/games/test_the_kings_deal.py and _play.py.

Rows are written from the inner end (next to the foundations) outward, so the last card named is
the outermost, available one. Foundations 2l and 2l+1 lie on line l; rows L<l> and R<l> too.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import gymnasium as gym

from patience_gym.core.cards import RANK, names, parse_card
from patience_gym.games.the_kings import ROW_NAMES, TheKings, kings_deal, line_foundation, play_outside_cards
from patience_gym.testing import legal_moves_text, rest_of_pack
from tests.helpers import scenario_deal

ACES = ["AC", "AD", "AH", "AS", "AC", "AD", "AH", "AS"]
ROW = {name: r for r, name in enumerate(ROW_NAMES)}
FULL = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"]


def ranks(suit: str) -> list[str]:
    return [r + suit for r in FULL]


def row_lengths(landed: int) -> dict[str, int]:
    """How many cards each row receives when ``landed`` cards stay in the rows."""
    full, rem = divmod(landed, 4)
    out = {}
    for name, r in ROW.items():
        side, line = divmod(r, 4)
        out[name] = sum(1 for k in range(full + 1) if k % 2 == side and (k < full or line < rem))
    return out


class DealInverter:
    """Builds the pack of :func:`kings_pack`, following the deal slot by slot with the game's own
    line rules and choosing each slot's card."""

    def __init__(self, outer: dict[str, str], before: dict[str, str], inner: dict[str, str]) -> None:
        self.want = {row: cards.split() for row, cards in outer.items()}
        self.first = {row: cards.split() for row, cards in inner.items()}
        self.plays = {row: [group.split() for group in cards.split("|")] for row, cards in before.items()}
        groups = [*self.want.values(), *self.first.values(), *(g for gs in self.plays.values() for g in gs)]
        self.pool = Counter(rest_of_pack([*ACES, *(c for g in groups for c in g)], 2))
        self.landed = 96 - sum(len(g) for gs in self.plays.values() for g in gs)
        self.length = row_lengths(self.landed)
        self.rows: list[list[int]] = [[] for _ in ROW]
        self.outside = [False] * 8
        self.found = [[parse_card(a)] for a in ACES]
        self.pack = list(ACES)
        self.placed = dict.fromkeys(ROW, 0)
        self.played: list[tuple[str, str]] = []  # (row, card): outside cards the deal played

    def build(self) -> list[str]:
        for k in range(self.landed):  # slot k of the deal: column k // 4, line k % 4
            column, line = divmod(k, 4)
            name = ROW_NAMES[4 * (column % 2) + line]
            self.play_before(name, line)
            c = self.slot_card(name, line)
            assert line_foundation(self.found, line, parse_card(c)) < 0, (
                f"{c} would be played, not land in {name}"
            )
            self.pack.append(c)
            self.rows[ROW[name]].append(parse_card(c))
            self.outside[ROW[name]] = True
            self.placed[name] += 1
        assert len(self.pack) == 104 and not +self.pool, "pack does not hold two packs"
        self.check()
        return self.pack

    def play_before(self, name: str, line: int) -> None:
        """Deal the cards named to be played before the row's next card, with what they set off."""
        groups = self.plays.get(name, [])
        for c in groups[self.placed[name]] if self.placed[name] < len(groups) else []:
            self.pack.append(c)
            f = line_foundation(self.found, line, parse_card(c))
            assert f >= 0, f"{c} does not fit line {line}'s foundations"
            self.found[f].append(parse_card(c))
            was = [r[:] for r in self.rows]
            play_outside_cards(self.rows, self.outside, self.found, line)
            for r, row_was in enumerate(was):
                self.played.extend((ROW_NAMES[r], x) for x in names(row_was[len(self.rows[r]) :]))

    def slot_card(self, name: str, line: int) -> str:
        """The card that lands in the row's next slot: a named one, or the lowest filler that
        neither fits the line's foundations nor could fit them later."""
        placed = self.placed[name]
        pos = placed - (self.length[name] - len(self.want.get(name, [])))
        if pos >= 0:
            return self.want[name][pos]
        if placed < len(self.first.get(name, [])):
            return self.first[name][placed]
        avoid = {len(self.found[2 * line]), len(self.found[2 * line + 1])} | self.still_to_play(line, name)
        fits = [c for c in sorted(+self.pool) if RANK[parse_card(c)] - 1 not in avoid]
        assert fits, f"no card left that stays in row {name}"
        c = min(fits, key=lambda x: RANK[parse_card(x)])
        self.pool[c] -= 1
        return c

    def still_to_play(self, line: int, now: str) -> set[int]:
        """Ranks the foundations of ``line`` may yet rise to, ``now`` being the row dealt to:
        those of the named cards the deal plays or may play later (``before`` cards not dealt
        yet, and ``inner`` cards from the row's outside one on, which a rise can take)."""
        ranks = set()
        for name in (ROW_NAMES[line], ROW_NAMES[4 + line]):
            placed = self.placed[name]
            later = [c for g in self.plays.get(name, [])[placed + (name == now) :] for c in g]
            later += self.first.get(name, [])[max(0, placed - 1) :]
            ranks |= {RANK[parse_card(c)] for c in later}
        return ranks

    def check(self) -> None:
        """The pack deals as followed, and each row ends with the cards asked for."""
        dealt, _ = kings_deal([parse_card(c) for c in self.pack])
        assert dealt == self.rows, "the deal does not follow the columns as this helper does"
        for name, cards in self.want.items():
            got = names(self.rows[ROW[name]])
            kept = [c for c in cards if (name, c) not in self.played]
            assert got[len(got) - len(kept) :] == kept, f"row {name} deals as {got}, not ending {kept}"


def kings_pack(
    outer: dict[str, str], before: dict[str, str] | None = None, inner: dict[str, str] | None = None
) -> list[str]:
    """Invert the deal: a 104-card pack (the eight aces first) that deals this layout.

    ``outer[row]``: the row's outermost cards, inner first. ``before[row]``: cards dealt just
    before one of the row's cards and played to its line's foundations, slot groups separated by
    ``|`` (``"2C 2D"``: before its first card; ``"| 2D"``: before its second). Default: 2C and 2D
    before L3's first card, so that the other 2s have a line to land on. ``inner[row]``: the
    cards dealt to the row first, inner first (the deal may play some of them: the tests say
    which). Every other card fills the rows' middles: at each slot, in deal order, the lowest
    card that neither fits the line's foundations nor could fit them later (one above a rank
    named on the line and not dealt yet), so that the filling never plays. The pack is then
    checked by dealing it.
    """
    return DealInverter(outer, {"L3": "2C 2D"} if before is None else before, inner or {}).build()


def game_for(
    outer: dict[str, str],
    before: dict[str, str] | None = None,
    inner: dict[str, str] | None = None,
    **options: str,
) -> TheKings:
    return scenario_deal(TheKings, kings_pack(outer, before, inner), **options)


def row(game: TheKings, name: str) -> list[str]:
    return names(game.rows[ROW[name]])


def heights(game: TheKings) -> list[int]:
    return [len(f) for f in game.foundations]


def step_text(env: gym.Env[Any, Any], text: str) -> tuple[float, bool, bool, dict[str, Any]]:
    """Step the env with the legal action described as ``text``."""
    game: TheKings = getattr(env.unwrapped, "game")  # noqa: B009  (Env does not declare it)
    ids = [a for a in game.legal_actions() if game.describe(a) == text]
    assert len(ids) == 1, f"{text!r} is not one legal move; legal: {legal_moves_text(game)}\n{game.render()}"
    _, reward, term, trunc, info = env.step(ids[0])
    return float(reward), term, trunc, info


def foundations(game: TheKings) -> list[list[str]]:
    return [names(pile) for pile in game.foundations]
