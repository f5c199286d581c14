"""Dives (patience_gym.solver.dive, patience-gym solve --dive), nested rollouts (--nested) and a
policy's play (--play): wins the depth-first search misses, found by committing one move at a
time; never a proof of loss; resumable on label files."""

from __future__ import annotations

from functools import partial

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401
import patience_gym.agents.solving.dive as dive_module
from patience_gym.agents.cli import main
from patience_gym.agents.solving.chunks import SolveConfig
from patience_gym.agents.solving.labels import header_lines, read_labels
from patience_gym.agents.solving.solve import label_seeds
from patience_gym.games import get_variant
from patience_gym.native import native_available
from patience_gym.solver import dive, nested_rollout, rollout_values, solve_deal
from tests.helpers import check_a_win_the_search_misses, interrupted_after, replay_wins

pytestmark = pytest.mark.skipif(not native_available(), reason="the solver needs the native engine")

ST_LOUIS = get_variant("StLouis-v0")
#: St. Louis seed 2: left unknown by 200,000 nodes of the depth-first search, won by a dive of
#: 500 nodes a move in under a second. (Seed 12 was, until the stuck sets of the last deal
#: (Louis::dead) changed which positions a dive's searches reach within 500 nodes.)
WON_BY_DIVING = 2


def test_a_dive_wins_a_deal_the_depth_first_search_leaves_unknown() -> None:
    check_a_win_the_search_misses("StLouis-v0", WON_BY_DIVING, 200_000, partial(dive, move_nodes=500))


def test_a_dive_never_answers_lost() -> None:
    nestor = get_variant("Nestor-v0")
    lost = next(s for s in range(200) if solve_deal(nestor, seed=s, max_nodes=50_000).label == "lost")
    label = dive(nestor, seed=lost, move_nodes=200)
    assert label.label == "unknown" and label.actions == ()


def test_a_dive_stops_after_its_moves() -> None:
    label = dive(ST_LOUIS, seed=WON_BY_DIVING, move_nodes=500, max_moves=3)
    assert label.label == "unknown"  # its win takes far more than 3 committed moves


@pytest.mark.parametrize(("kwargs", "message"), [({"move_nodes": 0}, "positive"), ({}, "exactly one")])
def test_bad_dive_arguments_are_refused(kwargs: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        dive(ST_LOUIS, **({"seed": 1} if kwargs else {}), **kwargs)


def test_the_cli_dives_into_the_unknown_deals_and_resumes(tmp_path, capsys) -> None:
    seeds = f"{WON_BY_DIVING - 1}:{WON_BY_DIVING + 1}"  # 1 (not won by this dive) and 2
    cfg = SolveConfig(env="StLouis-v0", seeds=seeds, budget=2_000, probe=0, labels=str(tmp_path))
    path, _ = label_seeds(cfg, progress=False)
    before = read_labels(path)
    assert {lb.label for lb in before.values()} == {"unknown"}
    argv = ["solve", "--env", "StLouis-v0", "--seeds", seeds, "--labels", str(tmp_path), "--dive", "500"]
    assert main(argv) == 0
    assert "dived with 500 nodes a move: 2 unknown deal(s)" in capsys.readouterr().out
    after = read_labels(path)
    assert after[WON_BY_DIVING].label == "won"
    assert replay_wins("StLouis-v0", WON_BY_DIVING, after[WON_BY_DIVING].actions)
    assert after[WON_BY_DIVING - 1] == before[WON_BY_DIVING - 1]  # left unknown: its row untouched
    assert header_lines(path)[-1].endswith(f"still unknown: {WON_BY_DIVING - 1}")
    assert main(argv) == 0  # the same command again: nothing left to dive
    assert "dived with 500 nodes a move: 0 unknown deal(s)" in capsys.readouterr().out
    plain = ["solve", "--env", "StLouis-v0", "--seeds", seeds, "--labels", str(tmp_path), "--budget", "2000"]
    assert main([*plain, "--probe", "0"]) == 0  # a plain resume reads the dive's header line past


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--dive", "0"], "positive integer"),
        (["--dive", "500", "--deepen", "--budget", "9000"], "cannot be used with --deepen"),
        (["--dive", "500", "--overwrite"], "cannot be used with --overwrite"),
    ],
)
def test_the_cli_refuses_a_bad_dive_in_one_line(extra: list[str], message: str, capsys, tmp_path) -> None:
    cfg = SolveConfig(env="Nestor-v0", seeds="0:2", budget=2_000, labels=str(tmp_path))
    label_seeds(cfg, progress=False)
    assert main(["solve", "--env", "Nestor-v0", "--seeds", "0:2", "--labels", str(tmp_path), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("patience-gym solve: error:") and message in err and "\n" not in err


def test_diving_without_a_label_file_is_refused(capsys, tmp_path) -> None:
    assert main(["solve", "--env", "Nestor-v0", "--labels", str(tmp_path), "--dive", "500"]) == 2
    assert "label them first" in capsys.readouterr().err


#: St. Louis seed 58: unknown after the depth-first search, its probe and dives of 2,000 and 5,000
#: nodes a move (agents/data/labels/StLouis-v0.csv), won by a nested rollout search in under a second.
WON_BY_NESTING = 58


def test_a_nested_rollout_search_wins_a_deal_the_other_searches_left_unknown() -> None:
    assert dive(ST_LOUIS, seed=WON_BY_NESTING, move_nodes=500).label == "unknown"
    label = nested_rollout(ST_LOUIS, seed=WON_BY_NESTING)
    assert label.label == "won" and 0 < len(label.actions) <= ST_LOUIS.max_episode_steps
    assert replay_wins("StLouis-v0", WON_BY_NESTING, label.actions)
    assert nested_rollout(ST_LOUIS, seed=WON_BY_NESTING).actions == label.actions  # deterministic


def test_a_nested_rollout_search_never_answers_lost_and_keeps_its_best_rollout() -> None:
    nestor = get_variant("Nestor-v0")
    lost = next(s for s in range(200) if solve_deal(nestor, seed=s, max_nodes=50_000).label == "lost")
    label = nested_rollout(nestor, seed=lost)
    assert label.label == "unknown" and label.actions == ()
    env = gym.make("patience_gym/Nestor-v0")
    _, info = env.reset(seed=lost)
    deck = env.unwrapped.game.deck()  # type: ignore[attr-defined]
    legal = np.flatnonzero(info["action_mask"]).tolist()
    first = rollout_values(nestor, None, deck, [], legal, nestor.max_episode_steps)
    assert label.best_cards >= max(first) > 0  # its line is never worse than a rollout it met


def _unknown_labels(tmp_path, env: str, seeds: str) -> None:
    cfg = SolveConfig(env=env, seeds=seeds, budget=1, probe=0, labels=str(tmp_path))
    path, _ = label_seeds(cfg, progress=False)
    assert {lb.label for lb in read_labels(path).values()} == {"unknown"}


def test_the_cli_searches_unknown_deals_by_nested_rollouts_and_resumes(tmp_path, capsys) -> None:
    seeds = f"{WON_BY_NESTING - 1}:{WON_BY_NESTING + 1}"  # 57 (not won this way) and 58
    _unknown_labels(tmp_path, "StLouis-v0", seeds)
    argv = ["solve", "--env", "StLouis-v0", "--seeds", seeds, "--labels", str(tmp_path), "--nested"]
    assert main(argv) == 0
    assert "searched by nested rollouts: 2 unknown deal(s)" in capsys.readouterr().out
    path = tmp_path / "StLouis-v0.csv"
    after = read_labels(path)
    assert after[WON_BY_NESTING].label == "won" and after[WON_BY_NESTING - 1].label == "unknown"
    assert replay_wins("StLouis-v0", WON_BY_NESTING, after[WON_BY_NESTING].actions)
    assert header_lines(path)[-1].startswith("# nested:") and header_lines(path)[-1].endswith("unknown: 57")
    assert main(argv) == 0  # the same command again: nothing left to search
    assert "searched by nested rollouts: 0 unknown deal(s)" in capsys.readouterr().out


def test_the_cli_plays_a_policy_on_unknown_deals_and_keeps_its_wins(tmp_path, capsys) -> None:
    """Nestor seeds 0-39 left unknown (a budget of one node); greedy's wins become won rows."""
    from patience_gym.agents.evaluation.evaluate import evaluate

    _unknown_labels(tmp_path, "Nestor-v0", "0:40")
    argv = ["solve", "--env", "Nestor-v0", "--seeds", "0:40", "--labels", str(tmp_path), "--play", "greedy"]
    assert main(argv) == 0
    assert "played by greedy: 40 unknown deal(s)" in capsys.readouterr().out
    wins = {e.index for e in evaluate("Nestor-v0", "greedy", episodes=40, seed=0).episodes if e.won}
    labels = read_labels(tmp_path / "Nestor-v0.csv")
    assert wins and {s for s, lb in labels.items() if lb.label == "won"} == wins
    assert all(replay_wins("Nestor-v0", s, labels[s].actions) for s in wins)
    assert (
        "# played: unknown deals played by the policy greedy" in header_lines(tmp_path / "Nestor-v0.csv")[-1]
    )


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--nested", "--dive", "500"], "cannot be used with"),
        (["--play", "greedy", "--nested"], "cannot be used with"),
        (["--play", "greedy", "--overwrite"], "cannot be used with --overwrite"),
        (["--play", "grredy"], "--play: unknown policy 'grredy'"),
    ],
)
def test_the_cli_refuses_bad_searches_of_unknown_deals(
    extra: list[str], message: str, capsys, tmp_path
) -> None:
    _unknown_labels(tmp_path, "Nestor-v0", "0:2")
    assert main(["solve", "--env", "Nestor-v0", "--seeds", "0:2", "--labels", str(tmp_path), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("patience-gym solve: error:") and message in err and "\n" not in err


def test_an_interrupted_search_of_unknown_deals_keeps_every_deal_it_finished(tmp_path, monkeypatch) -> None:
    # Each deal is a task of its own and written as it ends: stopped (Ctrl-C) after its second
    # deal, the file names exactly those two as searched, and the same command resumes with the rest.
    seeds = f"{WON_BY_NESTING - 2}:{WON_BY_NESTING + 2}"  # 56, 57, 58 (won this way), 59
    _unknown_labels(tmp_path, "StLouis-v0", seeds)
    cfg = SolveConfig(env="StLouis-v0", seeds=seeds, labels=str(tmp_path))
    real = dive_module.solved_chunks
    monkeypatch.setattr(dive_module, "solved_chunks", interrupted_after(real, 2))
    with pytest.raises(KeyboardInterrupt):
        dive_module.nested_unknown(cfg, progress=False)
    path = tmp_path / "StLouis-v0.csv"
    assert header_lines(path)[-1].endswith("still unknown: 56 57")
    monkeypatch.setattr(dive_module, "solved_chunks", real)
    _, labels, again = dive_module.nested_unknown(cfg, progress=False)
    assert again == 2  # 58 and 59 are left
    assert labels[WON_BY_NESTING].label == "won"
    assert header_lines(path)[-1].endswith("still unknown: 56 57 59")
