"""Rule scenarios for The "Louis" Patience (Cadogan) and St. Louis (Dick), docs/rules.md section 4.

Every position is dealt from a fixed pack. :func:`pack_for` inverts the deal: it puts the eight
foundation cards first (their first copies are the ones taken out), then the cards in the order
they are to be turned or dealt, then the rest of the two packs in a fixed order.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.agents.policies.heuristics.louis import heuristic
from patience_gym.core.cards import NAME, names, ordered_pack, parse_card
from patience_gym.core.game import IllegalMove
from patience_gym.core.moves import Move
from patience_gym.games import get_variant
from patience_gym.games.louis import DOWN_ROW, LETTERS, TABLE, UP_ROW, Kind, Louis
from patience_gym.testing import (
    act,
    action_id,
    check_position,
    deck,
    legal_moves_text,
    rest_of_pack,
    scenario_game,
)
from tests.helpers import pile_read_back, scenario_deal

# each scenario on the Python engine, then in lockstep with the native one (tests/conftest.py)
pytestmark = pytest.mark.both_engines


ALL = [NAME[c] for c in ordered_pack(2)]
BASES = deck("AC AD AH AS KC KD KH KS")
#: The last cards the king foundations want: left in the alphabet to finish a game with.
ENDS = deck("3C 3D 3H 3S 2C 2D 2H 2S AC AD AH AS")


def complete(front: list[str], back: list[str] | None = None) -> list[str]:
    """``front``, then the cards two packs still lack (:func:`rest_of_pack`), then ``back``."""
    back = back or []
    return front + rest_of_pack(front + back, 2) + back


def pack_for(order: list[str], back: list[str] | None = None) -> list[str]:
    """The 104-card pack that turns (Cadogan) or deals (Dick) ``order`` first."""
    return complete(BASES + order, back)


def dealt_order(pack: list[str]) -> list[str]:
    """The 96 cards dealt from ``pack``: the first copies of the foundation cards taken out."""
    rest = list(pack)
    for b in BASES:
        rest.remove(b)
    return rest


def suit_stream(suit: str) -> list[tuple[str, str]]:
    """One suit's cards in foundation order, with the foundation each goes to: up 2..K on the
    ace, down Q..4 on the king (3, 2 and A of the king foundation are in ``ENDS``)."""
    up = [(r + suit, "ace") for r in "23456789TJQK"]
    down = [(r + suit, "king") for r in "QJT987654"]
    return up + down


STREAM = [x for s in "CDHS" for x in suit_stream(s)]  # 84 cards


def new_game(pack: list[str], deal: str = "cadogan") -> Louis:
    game = scenario_deal(Louis, pack, deal=deal)
    check_position(game)
    return game


def legal(game: Louis, text: str) -> bool:
    return any(text in (game.describe(a), game.moves[a].text) for a in game.legal_actions())


def obs(game: Louis, segment: str) -> np.ndarray:
    return game.layout.view(game.observation(), segment)


def step_text(env: gym.Env[Any, Any], text: str) -> tuple[Any, ...]:
    game: Louis = env.unwrapped.game  # type: ignore[attr-defined]
    found = [a for a in game.legal_actions() if text in (game.describe(a), game.moves[a].text)]
    assert len(found) == 1, f"{text!r}: {legal_moves_text(game)}\n{game.render()}"
    return env.step(found[0])


def play_through(env: gym.Env[Any, Any], moves: list[str]) -> dict[str, Any]:
    for k, text in enumerate(moves):
        _, _, term, trunc, info = step_text(env, text)
        assert not trunc
        assert term == (k == len(moves) - 1), f"terminated={term} after move {k} {text!r}"
    return dict(info)


# ---- foundations and the pack ------------------------------------------------------------------


def test_first_copies_of_one_ace_and_king_per_suit_are_taken_out() -> None:
    # 2C comes before any ace: the first AC (dealt second) is still the foundation, and the second
    # AC is an ordinary card that fits neither clubs foundation.
    pack = complete(["2C", *BASES, "AC", "QC"])
    game = new_game(pack)
    assert game.turned == parse_card("2C")
    assert legal_moves_text(game) == ["2C turned card -> ace foundation", "2C turned card -> packet a"]
    act(game, "2C turned card -> ace foundation")
    assert legal_moves_text(game) == ["AC turned card -> packet a"]
    act(game, "AC turned card -> packet a")
    act(game, "QC turned card -> king foundation")
    assert game.foundation_cards == 2 and game.extra_info()["cards_on_foundations"] == 10
    assert list(obs(game, "foundation")) == pytest.approx(
        [2 / 13, 1 / 13, 1 / 13, 1 / 13, 2 / 13, 1 / 13, 1 / 13, 1 / 13]
    )


def test_a_card_fitting_both_foundations_of_its_suit_goes_where_the_player_says() -> None:
    hearts = deck("2H 3H 4H 5H 6H QH JH TH 9H 8H 7H")
    game = new_game(pack_for(hearts))
    for c in hearts[:5]:
        act(game, f"{c} turned card -> ace foundation")
    for c in hearts[5:10]:
        act(game, f"{c} turned card -> king foundation")
    assert {"7H turned card -> ace foundation", "7H turned card -> king foundation"} <= set(
        legal_moves_text(game)
    )
    act(game, "7H turned card -> king foundation")
    assert names(game.foundations[UP_ROW + 2]) == deck("AH 2H 3H 4H 5H 6H")
    assert names(game.foundations[DOWN_ROW + 2]) == deck("KH QH JH TH 9H 8H 7H")


# ---- Cadogan's deal ----------------------------------------------------------------------------


def test_cadogan_places_round_the_circle_and_a_played_card_keeps_the_position() -> None:
    game = new_game(pack_for(deck("5H 2D 9S 6C")))
    act(game, "5H turned card -> packet a")
    act(game, "2D turned card -> ace foundation")  # played: the next card goes to b all the same
    act(game, "9S turned card -> packet b")
    assert [p[-1] if p else None for p in game.packets[:3]] == [parse_card("5H"), parse_card("9S"), None]
    assert game.turned == parse_card("6C")
    assert list(obs(game, "next_position")).index(1.0) == LETTERS.index("c")


def test_cadogan_circle_cards_are_open_until_the_next_circle_then_blocked() -> None:
    circle1 = deck("2C 2H 5S 6S 7S 8S 9S TS 5D 6D 7D 8D")
    game = new_game(pack_for(circle1 + deck("QC 9H")))
    act(game, "2C turned card -> packet a")  # placing a card that fits is allowed
    assert legal(game, "2C packet a -> ace foundation")  # the circle now being dealt is open
    for _ in range(11):
        act(game, "deal")
    # circle 1 is complete; the next card has been turned but not placed: circle 1 is still open
    assert game.turned == parse_card("QC")
    assert legal(game, "2C packet a -> ace foundation") and legal(game, "2H packet b -> ace foundation")
    assert not legal(game, "packet a -> packet b")  # no marriages during the deal
    assert obs(game, "blocked").sum() == 0 and obs(game, "circle")[0] == pytest.approx(1 / 8)
    act(game, "QC turned card -> packet a")  # circle 2 begins: circle 1 is blocked
    assert not legal(game, "2H packet b -> ace foundation")  # blocked although nothing covers it
    assert list(obs(game, "blocked")) == [0.0] + [1.0] * 11
    assert list(obs(game, "available")) == [1.0] + [0.0] * 11
    assert obs(game, "circle")[0] == pytest.approx(2 / 8)
    act(game, "QC packet a -> king foundation")  # a card of the circle being dealt is open
    assert not legal(game, "2C packet a -> ace foundation")  # uncovered, but of circle 1
    with pytest.raises(IllegalMove):
        game.apply(action_id(game, "packet a -> ace foundation"))
    assert game.turned == parse_card("9H")
    check_position(game)


def test_cadogan_deal_then_marriages_both_ways_in_suit_only() -> None:
    # the last circle dealt ends up on top: a 7H, b 8H, c 6H, d 8D, e 7S, f 4C, ...
    last = deck("7H 8H 6H 8D 7S 4C 9C TC 5D 5S 9D TD")
    game = new_game(pack_for([], back=last))
    while game.phase == 0:
        game.apply(action_id(game, "deal"))  # place every card, whether it fits or not
    assert [p[-1] for p in game.packets] == [parse_card(c) for c in last]
    assert not legal(game, "deal") and obs(game, "phase").tolist() == [0.0, 0.0, 1.0]
    assert obs(game, "available").tolist() == [1.0] * 12 and obs(game, "blocked").sum() == 0
    for text in (
        "7H packet a -> packet b",
        "8H packet b -> packet a",
        "7H packet a -> packet c",
        "6H packet c -> packet a",
        "9C packet g -> packet h",
        "TC packet h -> packet g",
    ):
        assert legal(game, text), text
    for text in (
        "packet a -> packet d",
        "packet a -> packet e",
        "packet b -> packet d",
        "packet c -> packet b",
        "packet f -> packet g",
    ):
        assert not legal(game, text), text
    act(game, "7H packet a -> packet b")
    assert game.packets[1][-2:] == [parse_card("8H"), parse_card("7H")]
    check_position(game)


def test_cadogan_observation_hides_the_pack_but_not_the_turned_card() -> None:
    first = deck("5H 9S 6C")
    a = new_game(pack_for(first))
    rest_b = dealt_order(pack_for(first))[len(first) :][::-1]
    b = new_game(BASES + first + rest_b)
    for game in (a, b):
        act(game, "5H turned card -> packet a")
        act(game, "9S turned card -> packet b")
    assert a.pack != b.pack and a.turned == b.turned == parse_card("6C")
    assert np.array_equal(a.observation(), b.observation())
    assert obs(a, "turned")[parse_card("6C")] == 1.0 and obs(a, "pack_size")[0] == pytest.approx(93 / 96)


# ---- Dick's deal -------------------------------------------------------------------------------


def test_dick_first_circle_is_open_and_gaps_are_refilled_at_once() -> None:
    first = deck("5C 2D 6C 9S TS JS 5H 6H 7H 8H 9H TH")
    game = new_game(pack_for(first + deck("3D 4S QS")), deal="dick")
    assert [p for p in game.packets] == [[parse_card(c)] for c in first]
    assert obs(game, "phase").tolist() == [0.0, 1.0, 0.0] and obs(game, "available").sum() == 12
    assert not legal(game, "packet a -> packet c")  # 5C and 6C: no marriage before the deal ends
    assert legal_moves_text(game) == ["2D packet b -> ace foundation", "deal the rest of the pack"]
    act(game, "2D packet b -> ace foundation")
    assert game.packets[1] == [parse_card("3D")]  # refilled at once, and open too
    act(game, "3D packet b -> ace foundation")
    assert game.packets[1] == [parse_card("4S")] and len(game.pack) == 96 - 14
    act(game, "deal the rest of the pack")  # the rest in circles from a, with no play
    assert game.packets[0][:2] == [parse_card("5C"), parse_card("QS")]
    assert [len(p) for p in game.packets] == [8] * 10 + [7] * 2
    assert game.pack == [] and obs(game, "phase").tolist() == [0.0, 0.0, 1.0]
    assert obs(game, "circle")[0] == pytest.approx(8 / 8)


def test_dick_observation_hides_the_rest_of_the_pack() -> None:
    first = deck("5C 2D 6C 9S TS JS 5H 6H 7H 8H 9H TH")
    a = new_game(pack_for(first), deal="dick")
    b = new_game(BASES + first + dealt_order(pack_for(first))[12:][::-1], deal="dick")
    assert a.pack != b.pack
    assert np.array_equal(a.observation(), b.observation())


def dick_packet_a(bottom_four: str) -> Louis:
    """A Dick deal, dealt out, whose packet a starts (bottom first) with ``bottom_four``: its
    cards are the 1st, 13th, 25th and 37th dealt; distinct fillers take the places between."""
    fill = iter(c for c in dict.fromkeys(ALL) if c[0] not in "AK" and c not in ("5C", "9D"))
    four = iter(deck(bottom_four))
    order = [next(four) if k % 12 == 0 else next(fill) for k in range(37)]
    game = new_game(pack_for(order), deal="dick")
    act(game, "deal the rest of the pack")
    return game


def packets_read_back(game: Louis) -> list[list[int]]:
    """Each packet, bottom first, rebuilt from the observation alone."""
    held, top, lower = (obs(game, s) for s in ("packet_cards", "packet_depth", "packet_depth_lower"))
    return [pile_read_back(held[p], top[p], lower[p]) for p in range(len(LETTERS))]


def pack_read_back(game: Louis) -> list[int]:
    """The pack, next card last (as ``game.pack``), rebuilt from the observation alone (recall=True)."""
    return pile_read_back(*(obs(game, s) for s in ("pack_cards", "pack_depth", "pack_depth_lower")))


def test_where_both_copies_of_a_card_lie_in_a_packet_is_observed() -> None:
    # packet a: 5C 9D 9D 5C ... against 9D 5C 9D 5C ...: the same cards, the same uppermost
    # copies, only the lower copies traded places. The render shows it; so must the observation.
    a, b = dick_packet_a("5C 9D 9D 5C"), dick_packet_a("9D 5C 9D 5C")
    assert "a: 5C 9D 9D 5C" in a.render() and "a: 9D 5C 9D 5C" in b.render()
    for segment in ("packet_top", "packet_cards", "packet_depth"):
        assert np.array_equal(obs(a, segment), obs(b, segment)), segment
    five, nine = parse_card("5C"), parse_card("9D")
    assert len(a.packets[0]) == 8  # 5C's lower copy lies under 7 cards in a, under 6 in b
    assert obs(a, "packet_depth_lower")[0, five] == pytest.approx(7 / 15)
    assert obs(b, "packet_depth_lower")[0, five] == pytest.approx(6 / 14)
    assert obs(a, "packet_depth_lower")[0, nine] == pytest.approx(6 / 14)
    assert obs(a, "packet_depth_lower")[1].sum() == 0.0, "one copy or none: no lower copy"
    assert packets_read_back(a) == a.packets and packets_read_back(b) == b.packets


@pytest.mark.parametrize("deal", ["cadogan", "dick"])
def test_every_packet_reads_back_from_the_observation_however_tall(deal: str) -> None:
    game = scenario_game(Louis, deal=deal)
    rng = np.random.default_rng(3)
    game.new_game(rng)
    for _ in range(300):
        assert packets_read_back(game) == game.packets
        mask = game.legal_mask()
        if not mask.any():
            break
        game.apply(int(rng.choice(np.flatnonzero(mask))))
    # marriages can stack a packet without limit: the whole pack on packet a, twins included
    game.new_game(rng)
    game.packets = [game.pack[:]] + [[] for _ in LETTERS[1:]]
    assert len(game.packets[0]) > 80 and packets_read_back(game) == game.packets


def test_the_deal_option_changes_the_deal() -> None:
    pack = pack_for(ENDS)
    assert new_game(pack).packets == [[] for _ in range(12)]
    assert new_game(pack, "dick").packets == [[parse_card(c)] for c in ENDS]
    dick, cadogan = (get_variant(name).make_game() for name in ("StLouis-v0", "Louis-v0"))
    assert isinstance(dick, Louis) and dick.dick and isinstance(cadogan, Louis) and not cadogan.dick
    with pytest.raises(ValueError, match="deal"):
        Louis(deal="pysol")


# ---- re-deals ----------------------------------------------------------------------------------


@pytest.mark.parametrize("deal", ["cadogan", "dick"])
def test_redeal_gathers_g_to_m_then_a_to_f_and_deals_again(deal: str) -> None:
    pack = [NAME[c] for c in np.random.default_rng(11).permutation(ordered_pack(2))]
    order = dealt_order(pack)
    game = new_game(pack, deal)
    assert not legal(game, "re-deal")  # not during the deal
    while game.phase != 2:
        game.apply(action_id(game, "deal"))  # every card placed: packet p holds order[p::12]
    assert [[NAME[c] for c in p] for p in game.packets] == [order[p::12] for p in range(12)]
    expected: list[str] = []
    for letter in "ghiklmabcdef":
        expected += order[LETTERS.index(letter) :: 12]  # bottom card first
    act(game, "re-deal (2 left)")
    new_pack = (
        ([game.turned] if game.turned >= 0 else []) + [c for p in game.packets for c in p] + game.pack[::-1]
    )
    assert [NAME[c] for c in new_pack] == expected
    assert game.redeals_left == 1 and obs(game, "redeals_left")[0] == 0.5
    if deal == "dick":
        assert [NAME[p[0]] for p in game.packets] == expected[:12]
    else:
        assert NAME[game.turned] == expected[0] and game.packets == [[] for _ in range(12)]
    while game.phase != 2:
        game.apply(action_id(game, "deal"))
    act(game, "re-deal (1 left)")
    while game.phase != 2:
        game.apply(action_id(game, "deal"))
    assert game.redeals_left == 0 and not legal(game, "re-deal")
    check_position(game)


@pytest.mark.parametrize("deal", ["cadogan", "dick"])
def test_recall_shows_a_redealt_packs_order_and_nothing_of_the_first(deal: str) -> None:
    pack = [NAME[c] for c in np.random.default_rng(5).permutation(ordered_pack(2))]
    game, plain = scenario_deal(Louis, pack, deal=deal, recall=True), new_game(pack, deal)
    assert game.layout.size == plain.layout.size + 3 * 52 == 2754
    while game.phase != 2:  # the first deal's pack: never seen, never shown
        assert pack_read_back(game) == [] and "pack, next" not in game.render()
        assert np.array_equal(game.observation()[: plain.layout.size], plain.observation())
        for g in (game, plain):
            g.apply(action_id(g, "deal"))
    for redeal in ("re-deal (2 left)", "re-deal (1 left)"):
        while game.phase != 2:
            game.apply(action_id(game, "deal"))
        act(game, redeal)
        assert len(game.pack) > 80
        for _ in range(20):  # the gathered pack as it is dealt (Dick: all at once)
            if not game.pack:
                break
            assert pack_read_back(game) == game.pack
            assert "pack, next first: " + " ".join(NAME[c] for c in game.pack[::-1]) in game.render()
            game.apply(action_id(game, "deal"))


# ---- whole games through the environment -------------------------------------------------------

# Cadogan: circle 1 is ENDS; KC (placed at a) starts circle 2 and blocks circle 1; every other card
# is played as it is turned; after the deal circle 1 is released; one marriage, one re-deal.
LOUIS_ORDER = ENDS + ["KC"] + [c for c, _ in STREAM if c != "KC"]


def louis_moves() -> list[str]:
    moves = ["deal"] * 12 + ["KC turned card -> packet a"]
    for c, f in STREAM:
        if c == "KC":
            moves.append("KC packet a -> ace foundation")  # open: placed in the circle being dealt
        else:
            moves.append(f"{c} turned card -> {f} foundation")
    moves += ["3C packet a -> packet e", "re-deal (2 left)"]
    # new pack: g 2H, h 2S, i AC, k AD, l AH, m AS, (a empty), b 3D, c 3H, d 3S, e 2C 3C, f 2D
    places = zip(deck("2H 2S AC AD AH AS"), "abcdef", strict=True)
    moves += [f"{c} turned card -> packet {x}" for c, x in places]
    moves += [f"{c} turned card -> king foundation" for c in deck("3D 3H 3S")]
    moves += ["2C turned card -> packet g"]  # 3C is still wanted first; 2C takes the same position
    moves += [f"{c} turned card -> king foundation" for c in deck("3C 2D")]
    places = zip(deck("2H 2S 2C AC AD AH AS"), "abgcdef", strict=True)
    moves += [f"{c} packet {x} -> king foundation" for c, x in places]
    return moves


def test_louis_fixed_deck_wins_through_the_env(engine: str) -> None:
    env = gym.make("patience_gym/Louis-v0", engine=engine)
    env.reset(options={"deck": pack_for(LOUIS_ORDER)})
    moves = louis_moves()
    game: Louis = env.unwrapped.game  # type: ignore[attr-defined]
    for k, text in enumerate(moves):
        if text == "4C turned card -> king foundation":
            assert game.packets[0][-1] == parse_card("3C") and not legal(
                game, "3C packet a -> king foundation"
            )
        if text == "re-deal (2 left)":
            assert game.packets[0] == [] and not legal(game, "3C packet e -> packet a")  # stays empty
        _, _, term, trunc, info = step_text(env, text)
        assert term == (k == len(moves) - 1) and not trunc, (k, text)
    assert info["won"] and info["foundation_cards"] == 96 and info["redeals_left"] == 1


def dick_order() -> list[str]:
    """ENDS as the first circle; the rest dealt so that packet p holds STREAM[7p..7p+6], the
    first of them on top."""
    rest = [""] * 84
    for p in range(12):
        for j in range(7):
            rest[p + 12 * j] = STREAM[7 * p + 6 - j][0]
    return ENDS + rest


def stlouis_moves() -> list[str]:
    moves = ["deal the rest of the pack"]
    for p in range(12):
        moves += [f"{c} packet {LETTERS[p]} -> {f} foundation" for c, f in STREAM[7 * p : 7 * p + 7]]
    moves += ["3C packet a -> packet e", "3C packet e -> king foundation", "2C packet e -> king foundation"]
    places = zip(deck("3D 3H 3S 2D 2H 2S"), "bcdfgh", strict=True)
    moves += [f"{c} packet {x} -> king foundation" for c, x in places]
    moves += [f"{c} packet {x} -> king foundation" for c, x in zip(deck("AC AD AH AS"), "iklm", strict=True)]
    return moves


def test_stlouis_fixed_deck_wins_through_the_env(engine: str) -> None:
    env = gym.make("patience_gym/StLouis-v0", engine=engine)
    env.reset(options={"deck": pack_for(dick_order())})
    info = play_through(env, stlouis_moves())
    assert info["won"] and info["foundation_cards"] == 96 and info["redeals_left"] == 2


def test_endless_marriages_are_cut_by_the_step_limit(engine: str) -> None:
    env = gym.make("patience_gym/StLouis-v0", engine=engine)
    env.reset(options={"deck": pack_for(dick_order())})
    step_text(env, "deal the rest of the pack")  # tops: b 9C (TC under it), c TC
    steps, trunc, term = 1, False, False
    while not (trunc or term):
        text = "9C packet b -> packet c" if steps % 2 else "9C packet c -> packet b"
        _, _, term, trunc, _ = step_text(env, text)
        steps += 1
    assert env.spec is not None and env.spec.max_episode_steps == Louis.default_max_steps
    assert trunc and not term and steps == Louis.default_max_steps


# ---- the action table and the greedy heuristic --------------------------------------------------


def test_the_action_table_is_read_off_by_kind() -> None:
    assert [TABLE.first[k] for k in Kind] == [0, 13, 26, 27, 159] and len(TABLE) == 160
    assert [TABLE[a].dst for a in (0, 12, 13, 25)] == [UP_ROW, UP_ROW, DOWN_ROW, DOWN_ROW]
    assert TABLE[12].text == "turned card -> ace foundation" and TABLE[25].src == 12
    assert TABLE[TABLE.first[Kind.MARRY] + 11 * 2 + 3].text == "packet c -> packet e"  # q skips p


def test_a_move_of_an_unknown_kind_is_refused_not_taken_for_a_marriage() -> None:
    game = new_game(pack_for(ENDS), deal="dick")
    act(game, "deal the rest of the pack")
    before = game.state_key()
    with pytest.raises(AssertionError):
        game._apply(Move("marry", 0, 1))  # type: ignore[arg-type]  # a string, not Kind.MARRY
    assert game.state_key() == before


def test_greedy_heuristic_never_reads_the_face_down_pack() -> None:
    # 10 per card played, -0.25 per card on each wanted card (4 while it is in the pack), +3 per
    # re-deal: two deals that differ only in the pack's order score the same.
    first = deck("5H 9S 6C")
    a = new_game(pack_for(first))
    b = new_game(BASES + first + dealt_order(pack_for(first))[len(first) :][::-1])
    assert a.pack != b.pack and heuristic(a) == heuristic(b) == -0.25 * 8 * 4 + 3.0 * 2
    act(a, "5H turned card -> packet a")  # 5H was not wanted: nothing changes
    assert heuristic(a) == -0.25 * 8 * 4 + 3.0 * 2
