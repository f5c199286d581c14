"""``turnbull``: Bill Turnbull's move-priority list (agents/policies/turnbull.py), each category
pinned on a position built for it, and the policy blind to hidden cards."""

from __future__ import annotations

import gymnasium as gym
import pytest

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.agents.policies.turnbull import UNLISTED, TurnbullPolicy, category
from patience_gym.agents.registry import make_policy
from patience_gym.core.cards import parse_card
from patience_gym.games.klondike import Klondike
from patience_gym.native import reference
from patience_gym.testing import action_id, deck
from tests.helpers import check_blind_to_hidden_cards


def position(
    piles: list[str], talon: str = "", stock: str = "", foundations: str = "", **options: object
) -> Klondike:
    """A Klondike position: pile i as text bottom first, ``##`` a face-down card (a card not named
    elsewhere); the talon bottom first, the stock's next card last; the foundations' top cards."""
    game = Klondike(**options)
    game.new_game()
    named = {parse_card(c) for c in " ".join([*piles, talon, stock, foundations]).split() if c != "##"}
    spare = iter(c for c in range(52) if c not in named)
    game.piles = [[next(spare) if c == "##" else parse_card(c) for c in p.split()] for p in piles]
    game.down = [p.split().count("##") for p in piles]
    game.talon, game.stock = [parse_card(c) for c in deck(talon)], [parse_card(c) for c in deck(stock)]
    game.foundations = [[] for _ in range(4)]
    for top in deck(foundations):
        suit = "CDHS".index(top[1])
        game.foundations[suit] = [
            parse_card(r + top[1]) for r in "A23456789TJQK"[: "A23456789TJQK".index(top[0]) + 1]
        ]
    return game


SIX_EMPTY = ["", "", "", "", "", ""]

# (what the position shows, the position, the move's table text, its category)
CASES = [
    ("a talon ace", position(["TC", *SIX_EMPTY], talon="AH"), "talon -> foundation", 1),
    ("a pile ace", position(["## AC", *SIX_EMPTY], stock="5D"), "pile 0 -> foundation", 2),
    ("the stock, the talon empty", position(["TC", *SIX_EMPTY], stock="5D"), "stock -> talon", 3),
    (
        "a king over face-down cards to a space",
        position(["", "## KD QS", *SIX_EMPTY[1:]]),
        "pile 1 -> pile 0",
        5,
    ),
    (
        "face-up cards over face-down ones onto a pile",
        position(["## 9H", "TC", *SIX_EMPTY[1:]]),
        "pile 0 -> pile 1",
        6,
    ),
    ("a talon king to a space", position(["TC", *SIX_EMPTY], talon="KH"), "talon -> pile 1", 7),
    ("a talon card onto a pile", position(["TC", *SIX_EMPTY], talon="9H"), "talon -> pile 0", 8),
    (
        "a pile card up, the pile keeping a card",
        position(["## 3C", *SIX_EMPTY], foundations="2C"),
        "pile 0 -> foundation",
        9,
    ),
    (
        "part of the face-up cards moved, the card under them up next",
        position(["## 6D 5S 4D", "5C", *SIX_EMPTY[1:]], foundations="4S", partial_moves=True),
        "pile 0 -> pile 1",
        10,
    ),
    ("a pile's only card up", position(["3C", *SIX_EMPTY], foundations="2C"), "pile 0 -> foundation", 11),
    (
        "a talon card up",
        position(["TH", *SIX_EMPTY], talon="3C", foundations="2C"),
        "talon -> foundation",
        12,
    ),
    (
        "a foundation card back for the talon's card",
        position(["7C", *SIX_EMPTY], talon="5S", foundations="6H", worrying_back=True),
        "foundation H -> pile 0",
        14,
    ),
    (
        "a foundation card back for face-up cards over face-down ones",
        position(["7S", "## 5C", *SIX_EMPTY[1:]], foundations="6D", worrying_back=True),
        "foundation D -> pile 0",
        15,
    ),
    (
        "the stock, the talon showing a card",
        position(["TC", *SIX_EMPTY], talon="5H", stock="5D"),
        "stock -> talon",
        16,
    ),
    ("a new pass", position(["TC", *SIX_EMPTY], talon="5H 5D", passes=None), "stock -> talon", 17),
    (
        "a lone build onto a pile, a king waiting",
        position(["9H", "TS", *SIX_EMPTY[1:]], talon="KC"),
        "pile 0 -> pile 1",
        18,
    ),
    (
        "a lone build onto a pile, no king waiting",
        position(["9H", "TS", *SIX_EMPTY[1:]], talon="3D"),
        "pile 0 -> pile 1",
        UNLISTED,
    ),
    (
        "part of the face-up cards, the card under them not going up",
        position(["## 6D 5S 4D", "5C", *SIX_EMPTY[1:]], partial_moves=True),
        "pile 0 -> pile 1",
        UNLISTED,
    ),
    (
        "a foundation card back that nothing can follow",
        position(["7C", *SIX_EMPTY], talon="5H", foundations="6H", worrying_back=True),
        "foundation H -> pile 0",
        UNLISTED,
    ),
]


@pytest.mark.parametrize(("what", "game", "move", "rank"), CASES, ids=[c[0] for c in CASES])
def test_each_move_falls_in_the_lists_category(what: str, game: Klondike, move: str, rank: int) -> None:
    action = action_id(game, move)
    assert game.is_legal(action), f"{what}: {move!r} should be legal here\n{game.render()}"
    assert category(game, action) == rank, f"{what}\n{game.render()}"


def test_ties_in_categories_five_and_six_go_to_the_pile_with_the_most_face_down_cards() -> None:
    game = position(["## 9H", "TC", "## ## ## 9D", *SIX_EMPTY[2:]])
    fewer, more = action_id(game, "pile 0 -> pile 1"), action_id(game, "pile 2 -> pile 1")
    assert category(game, fewer) == category(game, more) == 6
    assert min(TurnbullPolicy.order(game, a) for a in game.legal_actions())[2] == more


def _play(seed: int, **options: object) -> tuple[list[str], list[str], list[bool], list[object]]:
    """``turnbull`` playing deal ``seed`` to its end: how each move was chosen, the moves, whether
    each position had a legal move the list names, and each position's key."""
    env = gym.make("patience_gym/Klondike-v0", **options)  # type: ignore[arg-type]
    obs, _ = env.reset(seed=seed)
    policy = make_policy("turnbull")
    assert isinstance(policy, TurnbullPolicy)
    policy.reset(seed)
    core = env.unwrapped
    hows, moves, named, keys, done = [], [], [], [], False
    while not done:
        game = reference(core.game)  # type: ignore[attr-defined]
        named.append(any(category(game, a) != UNLISTED for a in game.legal_actions()))
        keys.append(game.state_key())
        action = policy(core, obs)
        hows.append(policy.how)
        moves.append(core.describe_action(action))  # type: ignore[attr-defined]
        obs, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
    return hows, moves, named, keys


def test_it_plays_the_lists_first_move() -> None:
    hows, moves, _, _ = _play(3)  # seed 3: AS face up on pile 5, the talon empty, then QD from the stock
    assert list(zip(hows[:3], moves[:3], strict=True)) == [
        ("2", "AS pile 5 -> foundation"),
        ("3", "stock -> talon"),
        ("8", "QD talon -> pile 4"),
    ]
    assert "greedy" not in hows  # one pass, the book's rules: the list speaks to the end


def test_greedy_plays_where_the_list_is_silent() -> None:
    # with foundation cards coming back, moves the list does not name stay legal once it is done
    hows, _, named, keys = _play(3, partial_moves=True, worrying_back=True)
    first = hows.index("greedy")
    assert first > 10 and all(named[:first])
    # greedy plays where no legal move is named, or where a position comes back (a pass in vain)
    assert not named[first] or keys[first] in keys[:first]
    assert sum(h == "greedy" for h in hows) > 100


def test_it_is_blind_to_hidden_cards() -> None:
    check_blind_to_hidden_cards(gym.make("patience_gym/Klondike-v0"), TurnbullPolicy, 120)


def test_it_refuses_other_games_saying_which_it_plays() -> None:
    env = gym.make("patience_gym/Nestor-v0")
    obs, _ = env.reset(seed=0)
    with pytest.raises(ValueError, match="plays Klondike only, not Nestor-v0"):
        TurnbullPolicy()(env.unwrapped, obs)
