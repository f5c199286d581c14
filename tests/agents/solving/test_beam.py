"""The layered beam search (patience_gym.solver.beam, src/native/beam.hpp, patience-gym solve
--beam W): wins the other searches miss on Light and Shade, Anna and one-pass Klondike, whose
lines replay through gym.make; a loss only where no layer was cut, agreeing with the depth-first
search; layers that no move lowers; clear refusals."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from patience_gym.agents.cli import main
from patience_gym.agents.solving.chunks import SolveConfig
from patience_gym.agents.solving.labels import header_lines, read_labels
from patience_gym.agents.solving.solve import label_seeds
from patience_gym.games import get_variant
from patience_gym.native import _module, native_available
from patience_gym.solver import _dealt, beam, has_beam_layers, solve_deal
from tests.helpers import check_a_win_the_search_misses, replay_wins

pytestmark = pytest.mark.skipif(not native_available(), reason="the beam search needs the native engine")

LIGHT_AND_SHADE = get_variant("LightAndShade-v0")
#: Light and Shade seed 1: unknown after 100,000 nodes of the depth-first search, dives of 5,000
#: and 20,000 nodes a move, nested rollouts and rollout:16's play (agents/data/labels, before the beam),
#: won by a beam of width 300 in under a second.
WON_BY_BEAM = 1


def test_the_beam_wins_a_deal_every_other_search_left_unknown() -> None:
    check_a_win_the_search_misses("LightAndShade-v0", WON_BY_BEAM, 100_000, partial(beam, width=300))


def _late_position(seed: int, moves: int) -> object:
    """The native game of Light and Shade ``seed`` after the rollout base policy's first ``moves``
    actions: late enough in a lost game for every search to exhaust it."""
    game = _dealt(LIGHT_AND_SHADE, {}, seed, None)._c
    _cards, line = _module().rollout_line(game.clone(), 600)
    for a in line[:moves]:
        game.apply(a)
    return game


def test_the_beam_answers_lost_only_when_no_layer_was_cut() -> None:
    module = _module()
    position = _late_position(16, 53)  # 36 cards left in the pack
    assert module.solve(position, 2_000_000, 0.0, 0)[0] == "lost"
    verdict, actions, nodes, *_ = module.beam_solve(position, 1_000_000, 2_000_000, 0.0)
    assert verdict == "lost" and actions == [] and 0 < nodes < 2_000_000  # wide enough never to cut
    assert module.beam_solve(position, 1, 2_000_000, 0.0)[0] == "unknown"  # cut: no proof
    module.solver_hooks(False)
    try:  # without the variant's hooks (whole-state keys, no safe move) the same verdict
        assert module.beam_solve(position, 1_000_000, 2_000_000, 0.0)[0] == "lost"
    finally:
        module.solver_hooks(True)


@pytest.mark.parametrize(
    ("env", "options"),
    [
        ("LightAndShade-v0", {}),
        ("LightAndShade-v0", {"redeals": 1}),
        ("LightAndShade-v0", {"talon_to_auxiliaries": False}),
        ("Anna-v0", {}),
        ("Anna-v0", {"refill": "pack"}),
        ("Klondike-v0", {}),
        ("Klondike-v0", {"passes": 3}),
        ("Klondike-v0", {"draw": 3, "passes": 4, "partial_moves": True}),
    ],
)
def test_no_move_lowers_the_beam_layer(env: str, options: dict[str, object]) -> None:
    rng = np.random.default_rng(0)
    for seed in range(3):
        game = _dealt(get_variant(env), options, seed, None)._c
        layer = game.beam_layer()
        assert layer >= 0
        for _ in range(400):
            legal = np.flatnonzero(game.mask())
            if legal.size == 0:
                break
            for a in legal.tolist():  # every legal move, not only the one played
                child = game.clone()
                child.apply(a)
                assert child.beam_layer() >= layer
            game.apply(int(rng.choice(legal)))
            assert game.beam_layer() >= layer
            layer = game.beam_layer()


#: Anna with refill="pack", seed 16: unknown after 8,000,000 nodes of the depth-first search and its
#: probe, dives of 5,000 nodes a move and nested rollouts (agents/data/labels, before the beam); won by a
#: beam of width 1,000 in about a second.
ANNA_WON_BY_BEAM = 16


def test_the_beam_wins_an_anna_deal_the_other_searches_left_unknown() -> None:
    anna = get_variant("Anna-v0")
    assert solve_deal(anna, {"refill": "pack"}, seed=ANNA_WON_BY_BEAM, max_nodes=300_000).label == "unknown"
    label = beam(anna, {"refill": "pack"}, seed=ANNA_WON_BY_BEAM, width=1_000, max_nodes=5_000_000)
    assert label.label == "won"
    assert replay_wins("Anna-v0", ANNA_WON_BY_BEAM, label.actions, refill="pack")


#: One-pass Klondike (the book's game) seed 6: unknown after 200,000 nodes of the depth-first
#: search; a beam of width 30 wins it in about 4,000 (its layers: the cards turned from the stock).
KLONDIKE_WON_BY_BEAM = 6


def test_the_beam_wins_a_one_pass_klondike_deal_the_depth_first_search_does_not() -> None:
    search = partial(beam, width=30, max_nodes=20_000)
    check_a_win_the_search_misses("Klondike-v0", KLONDIKE_WON_BY_BEAM, 200_000, search)


def test_variants_without_layers_are_refused() -> None:
    nestor = get_variant("Nestor-v0")
    assert has_beam_layers(LIGHT_AND_SHADE) and has_beam_layers(get_variant("Klondike-v0"))
    assert not has_beam_layers(nestor) and not has_beam_layers(get_variant("Klondike-v0"), {"passes": None})
    with pytest.raises(ValueError, match="Nestor-v0 has no beam layers"):
        beam(nestor, seed=0)
    with pytest.raises(ValueError, match="positive integer"):
        beam(LIGHT_AND_SHADE, seed=0, width=0)


def test_the_cli_searches_unknown_deals_by_beam_and_resumes(tmp_path, capsys) -> None:
    seeds = f"{WON_BY_BEAM}:{WON_BY_BEAM + 2}"  # 1 (won by the beam) and 2
    cfg = SolveConfig(env="LightAndShade-v0", seeds=seeds, budget=1, probe=0, labels=str(tmp_path))
    path, _ = label_seeds(cfg, progress=False)
    assert {lb.label for lb in read_labels(path).values()} == {"unknown"}
    argv = ["solve", "--env", "LightAndShade-v0", "--seeds", seeds, "--labels", str(tmp_path)]
    assert main([*argv, "--beam", "3", "--budget", "200000"]) == 0
    assert "searched by a beam of width 3: 2 unknown deal(s)" in capsys.readouterr().out
    assert header_lines(path)[-1].endswith("(200000 nodes); still unknown: 1 2")  # too narrow
    assert main([*argv, "--beam", "300", "--budget", "2000000"]) == 0
    assert "width 300: 2 unknown deal(s)" in capsys.readouterr().out
    after = read_labels(path)
    assert after[WON_BY_BEAM].label == "won"
    assert replay_wins("LightAndShade-v0", WON_BY_BEAM, after[WON_BY_BEAM].actions)
    assert main([*argv, "--beam", "300", "--budget", "2000000"]) == 0  # the same again: resumed
    assert "width 300: 0 unknown deal(s)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("env", "extra", "message"),
    [
        ("LightAndShade-v0", ["--beam", "0"], "--beam takes the beam width as a positive integer"),
        ("Nestor-v0", ["--beam", "100"], "--beam: Nestor-v0 has no beam layers"),
        ("LightAndShade-v0", ["--beam", "100", "--nested"], "cannot be used with"),
        ("LightAndShade-v0", ["--beam", "100", "--overwrite"], "cannot be used with --overwrite"),
    ],
)
def test_the_cli_refuses_a_bad_beam_in_one_line(
    env: str, extra: list[str], message: str, capsys, tmp_path
) -> None:
    cfg = SolveConfig(env=env, seeds="0:2", budget=1, probe=0, labels=str(tmp_path))
    label_seeds(cfg, progress=False)
    assert main(["solve", "--env", env, "--seeds", "0:2", "--labels", str(tmp_path), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("patience-gym solve: error:") and message in err and "\n" not in err
