"""The net's own mistakes (agents/training/exit_mine.py): in a DAgger round's lost games, the move
after which the real deal is no longer won, the teacher's advice there, and their weight in
training (scripts/exit_mine.py, scripts/exit_train.py --decisive-weight)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from patience_gym.agents.common.losing import deck_of, label_after
from patience_gym.agents.policies.base import GreedyPolicy
from patience_gym.agents.registry import make_policy
from patience_gym.agents.training.exit import LabelRun, label, make_env, read_games, replay
from patience_gym.agents.training.exit_mine import DECISIVE, decisive_rows, mine, read_decisive, summary
from tests.helpers import script

ENV = "Nestor-v0"
TEACHER = "macro:samples=2,batch=1,nodes=100,first=1"
BUDGET = 50_000


@pytest.fixture(scope="module")
def round_played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A DAgger round on Nestor: greedy plays 16 deals (it loses most), the teacher advises."""
    folder = tmp_path_factory.mktemp("mine") / ENV / "dagger-1"
    options = dict(make_env(ENV).unwrapped.game.options)  # type: ignore[attr-defined]
    run = LabelRun(ENV, options, TEACHER, 4_100_000, chunk_games=16, player="greedy")
    teacher = lambda: make_policy(TEACHER)  # noqa: E731
    label(folder, run, chunks=1, make_labeller=teacher, make_player=GreedyPolicy, report=str)
    return folder


def test_the_decisive_move_is_the_first_after_which_the_real_deal_is_lost(round_played: Path) -> None:
    found = mine(round_played, BUDGET, report=str)
    games = {g.seed: g for g in read_games(round_played)}
    assert len(found) == sum(not g.won for g in games.values()) > 0
    located = [d for d in found if d.step >= 0]
    assert located  # greedy loses winnable Nestor deals
    core = make_env(ENV).unwrapped
    for d in located:
        g = games[d.seed]
        core.reset(seed=d.seed)  # type: ignore[call-arg]
        deck = deck_of(core)  # type: ignore[arg-type]
        assert label_after(core, deck, g.actions[: d.step], BUDGET, BUDGET // 2) == "won"  # type: ignore[arg-type]
        assert label_after(core, deck, g.actions[: d.step + 1], BUDGET, BUDGET // 2) != "won"  # type: ignore[arg-type]
        assert d.played == g.actions[d.step]
        if d.advice_label:
            assert d.advice != d.played
            after = label_after(core, deck, [*g.actions[: d.step], d.advice], BUDGET, BUDGET // 2)  # type: ignore[arg-type]
            assert after == d.advice_label
    counts = summary(found)
    assert counts["lost_games"] == len(found) and counts["losing_move_found"] == len(located)


def test_mining_resumes_without_solving_a_game_twice(round_played: Path) -> None:
    first = mine(round_played, BUDGET, report=str)
    lines: list[str] = []
    again = mine(round_played, BUDGET, report=lines.append)
    assert again == first and lines == []
    assert len((round_played / DECISIVE).read_text().splitlines()) == len(first)


def test_decisive_rows_are_the_replayed_decisions_at_the_decisive_steps(round_played: Path) -> None:
    found = mine(round_played, BUDGET, report=str)
    games = list(read_games(round_played))
    run_options = dict(make_env(ENV).unwrapped.game.options)  # type: ignore[attr-defined]
    data = replay(ENV, run_options, games)
    rows = decisive_rows(games, found)
    keep = [d for d in found if d.advice_label == "won"]
    assert len(rows) == len(keep)
    env = make_env(ENV)
    by_seed = {g.seed: g for g in games}
    for row, d in zip(rows, sorted(keep, key=lambda d: [g.seed for g in games].index(d.seed)), strict=True):
        obs, _ = env.reset(seed=d.seed)
        for a in by_seed[d.seed].actions[: d.step]:
            obs, *_ = env.step(a)
        stored, _, target = data.batch(np.array([row]))
        assert np.allclose(stored[0], obs, atol=1e-3)
        assert target[0].sum() > 0 and target[0, d.advice] == target[0].max()


def test_the_training_script_weighs_the_decisive_decisions(round_played: Path, tmp_path: Path) -> None:
    found = mine(round_played, BUDGET, report=str)
    out = tmp_path / "net.pt"
    root = str(round_played.parent.parent)
    trainer = script("exit_train")
    args = ["--root", root, "--env", ENV, "--out", str(out), "--epochs", "1", "--decisive-weight", "10"]
    assert trainer.main(args) == 0
    card = json.loads(out.with_suffix(".json").read_text())
    assert card["decisive_decisions"] == sum(d.advice_label == "won" for d in found) > 0
    assert card["decisive_weight"] == 10
    with pytest.raises(SystemExit):
        trainer.main([*args, "--skip-lost"])


def test_the_mining_script_refuses_a_folder_without_a_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        script("exit_mine").main([str(tmp_path)])
    assert "not a labelling folder" in capsys.readouterr().err
    assert read_decisive(tmp_path) == []
