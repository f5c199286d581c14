"""The shared machinery of the rules core: typed move tables, foundations, the card-place encoder."""

from __future__ import annotations

from enum import Enum

import numpy as np
import pytest

from patience_gym.core.cards import card, parse_card
from patience_gym.core.foundations import FoundationRow, Pile
from patience_gym.core.moves import Move, MoveTable
from patience_gym.core.places import CardPlaces
from patience_gym.core.vocabulary import ALTERNATE_UP, SAME_SUIT_DOWN, SAME_SUIT_UP
from patience_gym.games.nestor import Nestor


class Kind(Enum):
    PAIR = "pair"
    TURN = "turn"


def test_move_table_derives_ids_kind_by_kind() -> None:
    table = MoveTable.build(
        (Kind.PAIR, [Move(Kind.PAIR, p, q, f"{p}+{q}") for p, q in [(0, 1), (0, 2), (1, 2)]]),
        (Kind.TURN, [Move(Kind.TURN, text="turn")]),
    )
    assert len(table) == 4
    assert table.first[Kind.TURN] == 3 and list(table.ids(Kind.PAIR)) == [0, 1, 2]
    assert table[3].kind is Kind.TURN and str(table[1]) == "0+2"


def test_move_table_refuses_a_move_filed_under_another_kind() -> None:
    with pytest.raises(ValueError, match="holds moves of kind"):
        MoveTable.build((Kind.PAIR, [Move(Kind.TURN)]))
    with pytest.raises(ValueError, match="two groups"):
        MoveTable.build((Kind.TURN, [Move(Kind.TURN)]), (Kind.TURN, [Move(Kind.TURN)]))


def test_foundation_row_starts_builds_and_picks_the_leftmost_pile() -> None:
    ace_c, king_c = card(1, 0), card(13, 0)
    row = FoundationRow((Pile(SAME_SUIT_UP, frozenset({ace_c})), Pile(SAME_SUIT_DOWN, frozenset({king_c}))))
    piles: list[list[int]] = [[], []]
    assert row.first_accepting(piles, ace_c) == 0 and row.first_accepting(piles, king_c) == 1
    assert row.first_accepting(piles, parse_card("2C")) == -1
    piles[0].append(ace_c)
    assert row.accepts(piles, 0, parse_card("2C")) and not row.accepts(piles, 0, parse_card("2D"))
    # two piles set out before the deal, alternate colours: the leftmost that accepts wins
    row2 = FoundationRow((Pile(ALTERNATE_UP), Pile(ALTERNATE_UP)))
    piles2 = [[parse_card("AH")], [parse_card("AD")]]
    assert row2.first_accepting(piles2, parse_card("2S")) == 0
    assert row2.first_accepting(piles2, parse_card("2S"), among=[1]) == 1
    assert row2.first_accepting(piles2, parse_card("2H")) == -1


def test_card_places_count_copies_over_packs() -> None:
    enc = CardPlaces(["a", "b", "c"], n_packs=2)
    out = np.zeros(2 + 52 * 3, dtype=np.float32)
    two_d = parse_card("2D")
    enc.write(out, 2, enc.index(1, [two_d, two_d]) + enc.index(2, [parse_card("AC")]))
    seg = out[2:].reshape(enc.shape)
    assert seg[two_d, 1] == 1.0 and seg[parse_card("AC"), 2] == 0.5 and seg.sum() == 1.5


def test_apply_says_what_changed_and_is_over_decides_the_end() -> None:
    g = Nestor(reserve="open")
    g.new_game(np.random.default_rng(3))
    a = g.legal_actions()[0]
    before = g.foundation_cards
    outcome = g.apply(a)
    assert outcome.gained == g.foundation_cards - before == 2 and not outcome.won
    assert g.is_over() == (not g.legal_mask().any())
