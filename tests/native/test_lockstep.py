"""The lockstep that runs the rule scenarios on the native engine catches a disagreement.

``patience_gym.testing.scenario_game`` under ``scenario_engine("native")`` gives the Python game
carrying a native twin; these tests push the two apart on purpose and expect the failure.
"""

from __future__ import annotations

import pytest

from patience_gym.core.game import IllegalMove
from patience_gym.games.klondike import Klondike
from patience_gym.native import NativeGame, native_available
from patience_gym.testing import Lockstep, act, action_id, deck, rest_of_pack, scenario_engine, scenario_game

needs_native = pytest.mark.skipif(not native_available(), reason="the native engine is not built")

# The Klondike scenarios' deal: pile 2 shows AS, pile 3 shows 2S, the stock turns JC first.
DEALT = deck("KH 3C 4C 5C 6C 7C 8D QS 4D 5D 6D 7D 8H AS 5H 6H 7H 8S 2S 6S 7S 9C JD 8C 9D TC 9H 2H JC 9S")


def lockstep() -> Lockstep:
    with scenario_engine("native") as run:
        g = scenario_game(Klondike, draw=1)
        g.new_game(deck=DEALT + rest_of_pack(DEALT, 1))
    assert isinstance(g, Lockstep) and isinstance(g.twin, NativeGame)
    assert run.native_deals == 1
    return g


def test_python_scenarios_build_plain_python_games() -> None:
    with scenario_engine("python") as run:
        g = scenario_game(Klondike)
        g.new_game(deck=DEALT + rest_of_pack(DEALT, 1))
    assert type(g) is Klondike and run.native_deals == 0
    with pytest.raises(ValueError, match="choose one of"), scenario_engine("c++"):
        pass


@needs_native
def test_a_lockstep_game_is_the_python_game_with_its_twin_moved_alongside() -> None:
    g = lockstep()
    assert isinstance(g, Klondike) and g.options == {
        "draw": 1,
        "passes": 1,
        "partial_moves": False,
        "stock": "hidden",
        "worrying_back": False,
    }
    act(g, "AS pile 2 -> foundation")
    assert g.twin is not None and g.twin.foundation_cards == g.foundation_cards == 1
    c = g.clone()
    act(c, "2S pile 3 -> foundation")
    assert g.twin.foundation_cards == 1, "a clone's moves reach its own twin only"
    assert g.played == ("'AS pile 2 -> foundation' (id 3)",)


@needs_native
def test_a_position_that_differs_fails_naming_the_deck_and_moves() -> None:
    g = lockstep()
    act(g, "stock -> talon")
    assert g.twin is not None
    g.twin.apply(action_id(g, "stock -> talon"))  # the twin alone: the talons now differ
    with pytest.raises(AssertionError, match="engines disagree") as failure:
        act(g, "AS pile 2 -> foundation")
    text = str(failure.value)
    assert "deck: KH 3C 4C" in text, "the deck, to replay it"
    assert """moves: ["'stock -> talon' (id 15)", "'AS pile 2 -> foundation' (id 3)"]""" in text


@needs_native
def test_a_move_only_the_native_engine_accepts_fails() -> None:
    g = lockstep()
    assert g.twin is not None
    g.twin.apply(action_id(g, "pile 2 -> foundation"))  # AS up on the twin only: 2S may follow there
    with pytest.raises(AssertionError, match="the native engine accepts '2S pile 3 -> foundation'"):
        g.apply(action_id(g, "pile 3 -> foundation"))


@needs_native
def test_a_refusal_must_come_with_the_same_message(monkeypatch: pytest.MonkeyPatch) -> None:
    g = lockstep()
    with pytest.raises(IllegalMove, match="is not legal now"):
        g.apply(action_id(g, "pile 3 -> foundation"))  # both refuse, with the same words

    def refuse(action: int) -> None:
        raise IllegalMove("Klondike: no")

    assert g.twin is not None
    monkeypatch.setattr(g.twin, "apply", refuse)
    with pytest.raises(AssertionError, match="refused as 'Klondike: no' \\(native\\)"):
        g.apply(action_id(g, "pile 3 -> foundation"))
    with pytest.raises(AssertionError, match="the native engine refuses 'AS pile 2 -> foundation'"):
        g.apply(action_id(g, "pile 2 -> foundation"))
