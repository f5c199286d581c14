"""Pictures of the table (``render_mode="rgb_array"``), driven by the registry.

Every variant: a valid picture at the deal and after moves, one size for the whole episode, the
same picture for the same position, a different one after every move, and no hidden card's
identity in it (two deals that differ only in hidden cards give identical pictures).
"""

from __future__ import annotations

import itertools
import re

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.core.game import Game
from patience_gym.env import PatienceEnv
from patience_gym.games import VARIANTS, Variant
from patience_gym.games.babette import Babette
from patience_gym.render.picture import picture
from patience_gym.render.view import BACK, TableView, layout
from patience_gym.render.views import VIEWS, table_view
from patience_gym.testing import action_id
from tests.helpers import ROOT

IDS = [v.env_name for v in VARIANTS]


def snap(game: Game) -> np.ndarray:
    return picture(table_view(game))


def rollout(variant: Variant, seed: int, moves: int) -> list[tuple[Game, int | None]]:
    """Positions of a random game: ``(clone, action taken from it)``, the last one's action None."""
    game = variant.make_game()
    rng = np.random.default_rng(seed)
    game.new_game(rng)
    out: list[tuple[Game, int | None]] = []
    for _ in range(moves):
        legal = game.legal_actions()
        if not legal:
            break
        a = int(rng.choice(legal))
        out.append((game.clone(), a))
        game.apply(a)
    out.append((game.clone(), None))
    return out


def test_every_registered_game_has_a_view() -> None:
    missing = sorted({v.game.__name__ for v in VARIANTS} - {cls.__name__ for cls in VIEWS})
    assert not missing, f"no table view for {missing}"


@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
def test_picture_is_valid_at_the_deal_and_after_moves_and_keeps_its_size(variant: Variant) -> None:
    shapes = set()
    for k, (game, _) in enumerate(rollout(variant, seed=5, moves=40)):
        if k % 8:
            continue
        img = snap(game)
        assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
        assert img.shape[0] % 16 == 0 and img.shape[1] % 16 == 0  # what video encoders want
        assert img.std() > 10, "the picture is (nearly) blank"
        shapes.add(img.shape)
    assert len(shapes) == 1, f"the picture changed size during the game: {shapes}"


@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
def test_same_position_same_picture_and_every_move_changes_it(variant: Variant) -> None:
    positions = rollout(variant, seed=11, moves=25)
    for game, action in positions:
        if action is None:
            continue
        before = snap(game)
        assert np.array_equal(before, snap(game.clone())), "same position, different picture"
        after = game.clone()
        after.apply(action)
        assert not np.array_equal(before, snap(after)), f"{game.describe(action)} left the picture unchanged"
    # the same deal dealt again draws the same picture
    first = positions[0][0]
    again = variant.make_game()
    again.new_game(deck=first.deck())
    assert np.array_equal(snap(first), snap(again))


def _hidden_twin(variant: Variant, seed: int) -> tuple[Game, Game] | None:
    """Two deals whose positions differ and yet look the same to a player: equal observations
    (the observation holds everything visible and nothing hidden), different states. Found by
    swapping two cards of the pack, among its last cards (which every deal keeps hidden longest)."""
    game = variant.make_game()
    game.new_game(np.random.default_rng(seed))
    pack = game.deck()
    n = len(pack)
    for i, j in itertools.combinations(range(n - 16, n), 2):
        if pack[i] == pack[j]:
            continue
        other = list(pack)
        other[i], other[j] = other[j], other[i]
        twin = variant.make_game()
        twin.new_game(deck=other)
        if twin.state_key() != game.state_key() and np.array_equal(game.observation(), twin.observation()):
            return game, twin
    return None


@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
def test_no_hidden_card_can_be_read_from_the_picture(variant: Variant) -> None:
    pair = _hidden_twin(variant, seed=2)
    if pair is None:
        pytest.skip(f"{variant.env_name} deals every card face up: nothing is hidden at the deal")
    game, twin = pair
    rng = np.random.default_rng(0)
    # Play the same moves on both while they look alike: the pictures must stay identical.
    for step in range(30):
        if not np.array_equal(game.observation(), twin.observation()):
            assert step > 0  # the swapped cards came into view: from here on they may differ
            break
        assert np.array_equal(snap(game), snap(twin)), "the picture shows a hidden card"
        legal = game.legal_actions()
        if not legal:
            break
        a = int(rng.choice(legal))
        game.apply(a)
        twin.apply(a)


def test_klondike_hidden_cards_are_backs_and_the_stock_a_count() -> None:
    env = gym.make("patience_gym/Klondike-v0", render_mode="rgb_array")
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    env.reset(seed=0)
    view = table_view(core.game)
    by_label = {p.label: p for p in view.places}
    assert by_label["pile 6"].cards == (BACK,) * 6 + (by_label["pile 6"].cards[-1],)
    assert by_label["pile 6"].cards[-1] != BACK
    assert by_label["stock"].cards == (BACK,) and by_label["stock"].count == 24
    # Two deals differing only inside the stock (cards 28-51 of the pack) and under pile 6
    # (cards 6 and 12, its first two, face down): identical pictures.
    other = core.game.deck()
    other[28], other[40], other[6], other[12] = other[40], other[28], other[12], other[6]
    a = env.render()
    env.reset(options={"deck": other})
    b = env.render()
    assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)


def test_a_known_klondike_stock_shows_its_next_card_face_up() -> None:
    """With stock="known" (not the book's rule) the stock lies face up, squared: its next card
    shows, with the count; the text board lists the whole stock in order."""
    env = gym.make("patience_gym/Klondike-v0", render_mode="rgb_array", stock="known")
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    env.reset(seed=0)
    stock = {p.label: p for p in table_view(core.game).places}["stock"]
    nxt = core.game.render().split("stock (known), next first: ")[1].split()[0]
    assert stock.cards[-1] == nxt and BACK not in stock.cards and stock.count == 24
    hidden = gym.make("patience_gym/Klondike-v0", render_mode="rgb_array")
    hidden.reset(seed=0)
    a, b = env.render(), hidden.render()
    assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
    assert a.shape == b.shape and not np.array_equal(a, b)


# Place names in move texts: "pile 3", "packet c", "row L2", "col 5"; Babette's grid rows
# ("row 7", a number alone) are captioned only once dealt, and checked on their own below.
ACTION_PLACE = re.compile(r"\b(pile|column|reserve|help|river|auxiliary|rival|packet|row|col) ([A-Za-z0-9]+)")
GRID_ROW = re.compile(r"row \d+$")


def names_shown(view: TableView) -> set[str]:
    return {p.label for p in view.places} | {c.text for c in view.captions}


@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
def test_the_places_the_action_table_names_are_labelled(variant: Variant) -> None:
    game = variant.make_game()
    game.new_game(np.random.default_rng(0))
    named = {" ".join(m) for move in game.moves for m in ACTION_PLACE.findall(move.text)}
    named = {n for n in named if not GRID_ROW.match(n)}
    assert named, "the action table names no place"
    missing = named - names_shown(table_view(game))
    assert not missing, f"named by moves but not labelled: {sorted(missing)}"


def test_babette_garden_rows_are_captioned_as_they_are_dealt() -> None:
    game = Babette()
    game.new_game(np.random.default_rng(0))
    assert "row 0" in names_shown(table_view(game)) and "row 1" not in names_shown(table_view(game))
    deal = action_id(game, "deal a row")
    while game.is_legal(deal):
        game.apply(deal)
    shown = names_shown(table_view(game))
    assert {f"row {r}" for r in range(13)} | {f"col {c}" for c in range(8)} <= shown


def test_views_never_name_a_card_a_player_cannot_see_in_the_text_board() -> None:
    # Every face-up card in the view is one that render() (the text board) names too.
    for variant in VARIANTS:
        for game, _ in rollout(variant, seed=3, moves=15)[::5]:
            text = game.render()
            view: TableView = table_view(game)
            for place in view.places:
                for c in place.cards:
                    if c is not None and c != BACK:
                        assert c in text, (
                            f"{variant.env_name}: {place.label} shows {c}, the text board does not"
                        )


def test_frame_layout_is_json_ready_and_places_every_card() -> None:
    game = VARIANTS[0].make_game()
    game.new_game(np.random.default_rng(0))
    view = table_view(game)
    frame = layout(view)
    shown = sum(len(p.cards) if p.fan != "none" else int(bool(p.cards)) for p in view.places)
    assert len(frame.cards) == shown
    data = frame.to_json()
    assert data["w"] == frame.width and len(data["c"]) == len(frame.cards)  # type: ignore[arg-type]


def test_env_declares_rgb_array_and_refuses_unknown_modes() -> None:
    assert PatienceEnv.metadata["render_modes"] == ["ansi", "rgb_array"]
    assert PatienceEnv.metadata["render_fps"] > 0
    env = gym.make("patience_gym/Nestor-v0", render_mode="rgb_array")
    env.reset(seed=1)
    img = env.render()
    assert isinstance(img, np.ndarray) and img.dtype == np.uint8 and img.shape[2] == 3
    assert isinstance(gym.make("patience_gym/Nestor-v0", render_mode="ansi").unwrapped.render_mode, str)
    with pytest.raises(ValueError, match="'ansi', 'rgb_array'"):
        PatienceEnv("Nestor-v0", render_mode="rgb")


def test_the_rendering_page_shows_a_picture_of_every_variant() -> None:
    root = ROOT
    page = (root / "docs" / "rendering.md").read_text()
    for v in VARIANTS:
        png = root / "docs" / "images" / f"{v.env_name}.png"
        assert png.is_file(), f"{png} missing: run python scripts/pictures.py"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size < 100_000
        assert f'src="images/{v.env_name}.png"' in page
