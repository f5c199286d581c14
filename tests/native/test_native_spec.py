"""Python is the spec of the native engine: the generated C++ headers are current, the build reads
them, options reach C++ by name, and every text (render, describe) is the Python game's.

``scripts/gen_native.py`` writes ``src/native/generated/<game>_spec.hpp`` (action ids, observation
offsets and sizes, option names, observation places) from each ported game's Python module; a
change in Python that the committed headers do not follow fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401
from patience_gym.games import VARIANTS, Variant
from patience_gym.native import encode_options, native_available, native_games
from tests.helpers import ROOT, gen_native

NATIVE = ROOT / "src" / "native"

needs_native = pytest.mark.skipif(not native_available(), reason="the native engine is not built")


def test_the_committed_headers_are_what_the_python_games_generate(tmp_path: Path) -> None:
    stale = gen_native.stale(NATIVE / "generated")
    assert not stale, f"stale generated headers {stale}: run python scripts/gen_native.py"
    # and the check notices a header that no longer matches, or one left over
    gen_native.write(tmp_path)
    assert gen_native.main(["--check", "--out", str(tmp_path)]) == 0
    klondike = tmp_path / "klondike_spec.hpp"
    klondike.write_text(klondike.read_text().replace('{"STOCK", 15, 1}', '{"STOCK", 15, 2}'))
    (tmp_path / "spider_spec.hpp").write_text("")
    assert gen_native.stale(tmp_path) == ["klondike_spec.hpp", "spider_spec.hpp"]
    assert gen_native.main(["--check", "--out", str(tmp_path)]) == 1


def test_a_header_holds_the_python_table_layout_and_options() -> None:
    text = gen_native.header(VARIANTS[0].game)  # Klondike
    game = VARIANTS[0].game()
    assert "inline constexpr GameSpec<5, 6, 7, 13, 2, 1> klondike{" in text
    # the widest layout: stock="known" appends stock_order to the default one
    known = VARIANTS[0].game(stock="known")
    assert [s.name for s in known.layout.segments] == [s.name for s in game.layout.segments] + ["stock_order"]
    for seg in known.layout.segments:
        assert f'{{"{seg.name}", {seg.start}, {seg.size}}}' in text
    assert "690 observation floats (742 with stock=known: the segments from 690)" in text
    assert '{"PILE_TO_PILE", 16, 42}' in text and len(game.moves) == 16 + 42
    # the widest table: worrying_back=True appends its kind to the default one
    assert '{"PILE_TO_PILE", 16, 42}, {"FOUNDATION_TO_PILE", 58, 28}}}' in text
    assert "58 actions (86 with worrying_back=True: the kinds from 58)" in text
    assert '{{"draw", "passes", "partial_moves", "stock", "worrying_back"}}' in text
    assert '{{{"stock", "hidden", 0}, {"stock", "known", 1}}}' in text
    assert '"talon top", "talon second from top"' in text
    assert '{{"counter_score"}}' in text  # the info extras
    nestor = gen_native.header(VARIANTS[1].game)
    assert '{{{"reserve", "strict", 0}, {"reserve", "open", 1}}}' in nestor


def test_every_port_and_only_a_port_has_a_header_and_reads_it() -> None:
    ported = {gen_native.module_stem(cls) for cls in gen_native.ported_games()}
    assert ported == {p.name.removesuffix("_spec.hpp") for p in (NATIVE / "generated").glob("*_spec.hpp")}
    assert ported == {gen_native.module_stem(v.game) for v in VARIANTS if v.game.__name__ in native_games()}
    for stem in ported:
        source = (NATIVE / f"{stem}.cpp").read_text()
        assert f'#include "{stem}_spec.hpp"' in source and f"generated::{stem};" in source, stem
        assert "register_game(spec, " in source and "public Port<" in source, (
            f"{stem}.cpp: Port, register_game"
        )
    cmake = (ROOT / "CMakeLists.txt").read_text()
    assert "src/native/generated" in cmake, "the build must put the generated headers on its include path"


def test_no_cpp_file_builds_text() -> None:
    """A move's text and the table drawing are Python's alone (patience_gym.native.Twin)."""
    for path in sorted(NATIVE.glob("*.?pp")):
        source = re.sub(r"//.*", "", path.read_text())  # code, not comments
        found = re.findall(r"\b(describe|render|move_text|card_name)\s*\(", source)
        allowed = {"card_name"} if path.name in ("core.hpp", "core.cpp") else set()  # checked_deal's message
        assert set(found) <= allowed, f"{path.name} builds text: {sorted(set(found))}"


def test_an_option_may_grow_the_layout_only_at_its_end(monkeypatch: pytest.MonkeyPatch) -> None:
    from patience_gym.core.game import ObsLayout
    from patience_gym.games import klondike

    # stock="known" with its segment first instead of last: one header cannot serve both
    last = klondike.LAYOUT_KNOWN_STOCK.segments[-1]
    moved = ObsLayout([(last.name, last.shape, last.doc), *klondike._SEGMENTS])
    monkeypatch.setattr(klondike, "LAYOUT_KNOWN_STOCK", moved)
    with pytest.raises(ValueError, match="stock='known' changes the layout other than by appending"):
        gen_native.header(klondike.Klondike)


def test_an_option_may_grow_the_table_only_at_its_end(monkeypatch: pytest.MonkeyPatch) -> None:
    from patience_gym.core.moves import MoveTable
    from patience_gym.games import klondike

    # worrying_back=True with its moves first instead of last: the ids of the others would move
    kinds = [(k, list(klondike.TABLE_WORRYING.moves[r.start : r.stop])) for k, r in _kind_ranges()]
    moved = MoveTable.build(kinds[-1], *kinds[:-1])
    monkeypatch.setattr(klondike, "TABLE_WORRYING", moved)
    with pytest.raises(ValueError, match="worrying_back=True changes the table other than by appending"):
        gen_native.header(klondike.Klondike)


def _kind_ranges() -> list[tuple[object, range]]:
    from patience_gym.games.klondike import TABLE_WORRYING, Kind

    return [(k, TABLE_WORRYING.ids(k)) for k in Kind]


@needs_native
def test_options_reach_cpp_by_name_and_unknown_names_are_a_programming_error() -> None:
    from patience_gym import _native  # type: ignore[attr-defined]

    for variant in VARIANTS:
        if variant.game.__name__ not in native_games():
            continue
        game = variant.make_game()
        encoded = encode_options(game.OPTIONS, game.options)
        assert list(encoded) == list(game.OPTIONS)
        c = _native.Game.make(variant.game.__name__, encoded)
        assert (c.n_actions, c.obs_size) == (len(game.moves), game.layout.size)
        with pytest.raises(RuntimeError, match="a bug in the caller"):
            _native.Game.make(variant.game.__name__, {**encoded, "no_such_option": 1})
    resolved = {"draw": 3, "passes": None, "partial_moves": True, "stock": "known", "worrying_back": True}
    assert encode_options(VARIANTS[0].game.OPTIONS, resolved) == {
        "draw": 3,
        "passes": -1,
        "partial_moves": 1,
        "stock": 1,
        "worrying_back": 1,
    }
    # an option that appends segments: the port's size follows it
    for stock, size in (("hidden", 690), ("known", 742)):
        game = VARIANTS[0].make_game(stock=stock)
        c = _native.Game.make("Klondike", encode_options(game.OPTIONS, game.options))
        assert c.obs_size == game.layout.size == size
    # an option that appends move kinds: the port's action count follows it
    for worrying, n in ((False, 58), (True, 86)):
        game = VARIANTS[0].make_game(worrying_back=worrying)
        c = _native.Game.make("Klondike", encode_options(game.OPTIONS, game.options))
        assert c.n_actions == len(game.moves) == n


@needs_native
@pytest.mark.parametrize("variant", [VARIANTS[0], VARIANTS[3]], ids=lambda v: v.env_name)
def test_the_batch_renders_each_row_as_its_python_twin(variant: Variant) -> None:
    """The batched engine draws no text: each row's Python twin follows its moves (and its new deals
    after an autoreset) and draws it, as N single Python environments do."""
    n, limit = 3, 30
    vec = gym.make_vec(
        variant.env_id,
        num_envs=n,
        vectorization_mode="vector_entry_point",
        render_mode="ansi",
        max_episode_steps=limit,
    )
    ref = gym.make_vec(
        variant.env_id,
        num_envs=n,
        vectorization_mode="sync",
        render_mode="ansi",
        engine="python",
        max_episode_steps=limit,
    )
    vec.reset(seed=5)
    ref.reset(seed=5)
    rng = np.random.default_rng(0)
    for t in range(80):  # past a few step limits: autoresets deal anew
        assert vec.render() == ref.render(), f"step {t}"
        masks = vec.action_masks()  # type: ignore[attr-defined]
        actions = np.array([int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in masks])
        vec.step(actions)
        ref.step(actions)
    assert vec.render() == ref.render()


def test_the_illegal_step_marker_is_the_same_number_in_python_and_cpp() -> None:
    # a legal move may gain -1 (Klondike's worrying_back), so an illegal step says so otherwise
    from patience_gym.native import ILLEGAL_GAIN, _module

    assert _module().ILLEGAL_GAIN == ILLEGAL_GAIN < -104
