"""The solver's verdicts as the value target (issue 46): where each labelled game's real deal stops
being won, the script that writes them resumably, and training on them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from patience_gym.agents.common.losing import deck_of, label_after
from patience_gym.agents.training.exit import make_env, read_games, replay
from patience_gym.agents.training.exit_verdicts import VERDICTS_FILE, read_verdicts, verdict_targets
from tests.helpers import script

ENV = "Nestor-v0"
BUDGET = 20_000


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Twelve Nestor games of the planner, each judged by the verdicts' script."""
    root = tmp_path_factory.mktemp("verdicts")
    labels = ["--root", str(root), "--env", ENV, "--labeller", "planner:samples=2,budget=300"]
    assert script("exit_label").main([*labels, "--chunks", "1", "--chunk-games", "12", "--folder", "p"]) == 0
    folder = root / ENV / "p"
    assert script("exit_verdicts").main(["--folder", str(folder), "--budget", str(BUDGET)]) == 0
    return folder


def test_each_game_is_won_on_its_real_deal_up_to_its_verdicts_move_and_not_after(judged: Path) -> None:
    """A won game needs no solve; a lost one is won (the solver finds a line) after each of its
    first ``first_not_won`` moves checked here and not after that many, the label the verdict keeps."""
    verdicts = read_verdicts(judged)
    games = list(read_games(judged))
    assert sorted(verdicts) == sorted(g.seed for g in games)
    kinds = set()
    for g in games:
        v = verdicts[g.seed]
        if g.won:
            assert (v.first_not_won, v.label, v.solves) == (None, "won", 0)
            kinds.add("won")
            continue
        env = make_env(ENV)
        env.reset(seed=g.seed)
        core, n = env.unwrapped, v.first_not_won
        assert n is not None and v.label in ("lost", "unknown") and v.solves >= 1
        deck = deck_of(core)
        assert label_after(core, deck, g.actions[:n], BUDGET, BUDGET // 2) == v.label
        if n > 0:
            assert label_after(core, deck, g.actions[: n - 1], BUDGET, BUDGET // 2) == "won"
            kinds.add("lost on the way")
        else:
            kinds.add("lost from the deal")
    assert kinds == {"won", "lost on the way", "lost from the deal"}  # the deals cover each case


def test_the_targets_are_won_before_the_verdicts_move_and_not_from_it(judged: Path) -> None:
    """``verdict_targets`` and the replay under ``won_at``: 1 before ``first_not_won``, 0 from it;
    a won game's positions all 1, as its outcome says."""
    verdicts = read_verdicts(judged)
    games = list(read_games(judged))
    lost = next(g for g in games if not g.won and (verdicts[g.seed].first_not_won or 0) > 0)
    n = verdicts[lost.seed].first_not_won
    assert n is not None
    assert verdict_targets(verdicts[lost.seed], [0, n - 1, n, n + 5]) == [1.0, 1.0, 0.0, 0.0]
    data = replay(ENV, {}, [lost], won_at=lambda g, t: verdict_targets(verdicts[g.seed], [t])[0])
    steps = [t for t, _, _ in lost.decisions]
    assert data.won.tolist() == [1.0 if t < n else 0.0 for t in steps]
    assert replay(ENV, {}, [lost]).won.tolist() == [0.0] * len(steps)  # the outcome: all lost


def test_the_script_resumes_and_refuses_another_budget(
    judged: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Run again, it judges no game twice; at another budget it stops and says which it has."""
    before = (judged / VERDICTS_FILE).read_text()
    verdicts = script("exit_verdicts")
    assert verdicts.main(["--folder", str(judged), "--budget", str(BUDGET)]) == 0
    assert "0 to judge" in capsys.readouterr().out
    assert (judged / VERDICTS_FILE).read_text() == before
    for args, said in (
        (["--budget", "5"], f"has verdicts at --budget {BUDGET}"),
        (["--workers", "0"], "--workers must be at least 1, got 0"),
    ):
        with pytest.raises(SystemExit):
            verdicts.main(["--folder", str(judged), *args])
        assert said in capsys.readouterr().err


def test_training_on_verdicts_needs_every_game_judged_and_says_so_on_its_card(
    judged: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``exit_train.py --value-target verdicts`` trains on the verdicts and its card says so; with a
    game unjudged it stops and names the script that judges it."""
    out = tmp_path / "net.pt"
    train = ["--root", str(judged.parent.parent), "--env", ENV, "--out", str(out), "--epochs", "1"]
    assert script("exit_train").main([*train, "--value-target", "verdicts"]) == 0
    assert json.loads(out.with_suffix(".json").read_text())["value_target"] == "verdicts"
    lines = (judged / VERDICTS_FILE).read_text().splitlines()
    (judged / VERDICTS_FILE).write_text("\n".join(lines[:-1]) + "\n")
    try:
        capsys.readouterr()
        with pytest.raises(SystemExit):
            script("exit_train").main([*train, "--value-target", "verdicts", "--out", str(tmp_path / "b.pt")])
        assert "1 of the 12 games have no verdict" in capsys.readouterr().err
    finally:
        (judged / VERDICTS_FILE).write_text("\n".join(lines) + "\n")


def test_the_positions_script_keeps_one_judged_position_a_game_and_training_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``exit_positions.py``: each kept game is one decision at its last position, ``won`` the
    solver's verdict there on the real deal; run again it plays nothing; ``exit_train.py`` trains on
    the folder; a player that cannot follow random moves is refused with what to give."""
    positions = script("exit_positions")
    args = ["--root", str(tmp_path), "--env", ENV, "--games", "100", "--budget", str(BUDGET)]
    assert positions.main([*args, "--max-moves", "30"]) == 0
    folder = tmp_path / ENV / "positions"
    games = list(read_games(folder))
    assert 50 <= len(games) <= 100 and {g.won for g in games} == {True, False}
    env = make_env(ENV)
    for g in games[:25]:
        assert len(g.decisions) == 1 and g.decisions[0][0] == len(g.actions) - 1 < 30
        env.reset(seed=g.seed)
        label = label_after(env.unwrapped, deck_of(env.unwrapped), g.actions[:-1], BUDGET, BUDGET // 2)
        assert label == ("won" if g.won else "lost")
    before = sorted(p.stat().st_mtime_ns for p in folder.glob("chunk-*"))
    capsys.readouterr()
    assert positions.main([*args, "--max-moves", "30"]) == 0
    assert sorted(p.stat().st_mtime_ns for p in folder.glob("chunk-*")) == before
    assert capsys.readouterr().out == ""
    out = tmp_path / "net.pt"
    assert (
        script("exit_train").main(["--root", str(tmp_path), "--env", ENV, "--out", str(out), "--epochs", "1"])
        == 0
    )
    assert json.loads(out.with_suffix(".json").read_text())["decisions"] == len(games)
    with pytest.raises(SystemExit):
        positions.main([*args, "--player", "turnbull", "--folder", "t"])
    assert "cannot be told of the random moves; give --epsilon 0 or greedy" in capsys.readouterr().err
