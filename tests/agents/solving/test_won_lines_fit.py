"""Winnable means winnable through the env (issue 36): every won line of every label file wins
through ``gym.make`` as registered, its step limit active; and the shortener
(agents/solving/shorten.py, scripts/shorten_lines.py) that cut The Kings' long lines to fit cuts a
detour out of a line, keeps the rest of a label file byte for byte, and refuses bad input in one
line."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from patience_gym.agents.solving.labels import read_labels
from patience_gym.agents.solving.shorten import (
    Deal,
    dealt,
    erase_loops,
    shorten,
    shorten_file,
    wins_within_limit,
)
from patience_gym.core.game import Game
from patience_gym.games import get_variant
from tests.helpers import LABELS, script

LABEL_FILES = sorted(LABELS.glob("*.csv"))


def _head(path: Path) -> tuple[str, dict[str, Any]]:
    """The env and rule options a label file's header names."""
    head = dict(line[2:].split("=", 1) for line in path.read_text().splitlines()[:2] if line.startswith("# "))
    return head["env"], json.loads(head["options"])


def test_every_label_file_is_checked() -> None:
    assert len(LABEL_FILES) == 13


@pytest.mark.parametrize("path", LABEL_FILES, ids=lambda p: p.stem)
def test_every_won_line_wins_within_the_registered_step_limit(path: Path) -> None:
    """Each won row: ``reset(seed=seed)`` on the env as ``gym.make`` gives it (no step limit
    passed: the registered one), then every action legal, the last one winning, none truncated."""
    env_name, options = _head(path)
    env = gym.make(f"patience_gym/{env_name}", **options)
    assert env.spec is not None and env.spec.max_episode_steps == get_variant(env_name).max_episode_steps
    won = [lb for lb in read_labels(path).values() if lb.label == "won"]
    assert won, f"{path.name} holds no won deal"
    failed = []
    for lb in won:
        _, info = env.reset(seed=lb.seed)
        terminated = truncated = False
        for a in lb.actions:
            if terminated or truncated or not info["action_mask"][a]:
                break
            _, _, terminated, truncated, info = env.step(a)
        else:
            if terminated and info["won"]:
                continue
        failed.append((lb.seed, lb.length))
    assert not failed, f"{path.name}: {len(failed)} won line(s) do not win within the limit: {failed[:10]}"


# ---- the shortener ------------------------------------------------------------------------------

KINGS = Deal("TheKings-v0", {"sequences": "either"}, 0)


def _won_line(deal: Deal) -> tuple[int, ...]:
    path = LABELS / "TheKings-v0__sequences=either.csv"
    label = read_labels(path)[deal.seed]
    assert label.label == "won"
    return label.actions


def _at(start: Game[Any], line: tuple[int, ...]) -> Game[Any]:
    game = start.clone()
    for a in line:
        game.apply(a)
    return game


def _legal(game: Game[Any]) -> list[int]:
    return [int(a) for a in np.flatnonzero(game.legal_mask())]


def _two_moves(here: Game[Any]) -> Iterator[tuple[int, int, Game[Any]]]:
    """Every two legal moves in a row from ``here``, with the position they lead to."""
    for a in _legal(here):
        there = _at(here, (a,))
        for b in _legal(there):
            yield a, b, _at(there, (b,))


def _a_move_and_its_undo(start: Game[Any], line: tuple[int, ...]) -> tuple[int, tuple[int, int]]:
    """The first place of ``line`` with two moves that leave the position as it was, and those."""
    for k in range(len(line)):
        here = _at(start, line[:k])
        for a, b, back in _two_moves(here):
            if back.state_key() == here.state_key():
                return k, (a, b)
    raise AssertionError("no move on the line can be undone")


def _a_move_in_two(start: Game[Any], line: tuple[int, ...]) -> tuple[int, tuple[int, int]]:
    """The first move of ``line`` that two other moves also make (a card moved on via a third
    row), its place and those two moves."""
    for k, move in enumerate(line):
        here = _at(start, line[:k])
        target = _at(here, (move,)).state_key()
        for a, b, two in _two_moves(here):
            if a != move and two.state_key() == target:
                return k, (a, b)
    raise AssertionError("no move of the line is made by two others")


def test_the_shortener_cuts_out_a_detour_and_the_line_still_wins() -> None:
    start = dealt(KINGS)
    line = _won_line(KINGS)
    assert wins_within_limit(KINGS, line)
    # One move made the long way round (two moves through a third row) ...
    j, two = _a_move_in_two(start, line)
    longer = line[:j] + two + line[j + 1 :]
    # ... and a loop: a move and its undo, twice (position k of the line is k + 1 of the longer
    # line once past the long way round).
    k, undo = _a_move_and_its_undo(start, line)
    if k > j:
        k += 1
    detoured = longer[:k] + undo + undo + longer[k:]
    assert len(detoured) == len(line) + 5 and _at(start, detoured).won
    assert len(erase_loops(start, detoured)) <= len(line) + 1  # the loops go
    shorter = shorten(start, detoured)
    assert len(shorter) <= len(line)
    assert _at(start, shorter).won and wins_within_limit(KINGS, shorter)


def test_a_label_file_keeps_every_other_line_byte_for_byte(tmp_path: Path) -> None:
    """A won row padded over the limit by loops comes back within it; the header gains one line
    and every other line of the file is unchanged."""
    source = LABELS / "TheKings-v0__sequences=either.csv"
    # the header and those of the first 30 rows whose line fits the limit, one of them padded
    lines = source.read_text().splitlines(keepends=True)
    fields = next(i for i, ln in enumerate(lines) if not ln.startswith("#"))
    rows = [ln for ln in lines[fields + 1 : fields + 31] if int(next(csv.reader([ln]))[4]) <= 1000]
    lines = lines[: fields + 1] + rows
    start = dealt(KINGS)
    line = _won_line(KINGS)
    k, undo = _a_move_and_its_undo(start, line)
    padded = line[:k] + undo * 600 + line[k:]
    at = next(i for i, ln in enumerate(lines) if ln.startswith(f"{KINGS.seed},won,"))
    row = next(csv.reader([lines[at]]))
    lines[at] = ",".join([*row[:4], str(len(padded)), " ".join(map(str, padded))]) + "\n"
    path = tmp_path / source.name
    path.write_text("".join(lines))
    report = shorten_file(path, budgets=())
    assert list(report.lengths) == [KINGS.seed] and not report.still_long
    assert report.lengths[KINGS.seed][0] == len(padded) and report.lengths[KINGS.seed][1] <= len(line)
    after = path.read_text().splitlines(keepends=True)
    assert after[:fields] == lines[:fields]
    assert after[fields].startswith("# shortened: 1 won line(s) longer than the step limit of 1000 moves")
    assert after[fields + 1 :] == [*lines[fields:at], after[at + 1], *lines[at + 1 :]]
    new = next(csv.reader([after[at + 1]]))
    shortened = tuple(int(a) for a in new[5].split())
    assert new[:4] == row[:4] and int(new[4]) == len(shortened) <= len(line)
    assert wins_within_limit(KINGS, shortened)
    assert shorten_file(path, budgets=()).lengths == {}  # nothing left to do: the file stays


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--env", "Nope-v0"], "unknown environment 'Nope-v0'"),
        (["--env", "TheKings-v0", "--set", "bogus=1"], "rule options"),
        (["--env", "TheKings-v0", "--set", "sequences=sideways"], "sequences='sideways' is not allowed"),
        (["--env", "TheKings-v0", "--set", "sequences"], "key=value"),
        (["--env", "TheKings-v0", "--labels", "/nonexistent/labels"], "no label file"),
        ([], "--env"),
    ],
)
def test_the_script_refuses_bad_input_in_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        script("shorten_lines").main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("shorten_lines.py: error:") and message in err and "\n" not in err


def test_a_label_file_with_later_passes_recorded_resumes(tmp_path: Path) -> None:
    """The header lines of later passes (``# shortened:`` among them) are not settings: solving the
    shortened Kings file again with its own budget reads its rows back instead of refusing."""
    from patience_gym.agents.solving.chunks import SolveConfig
    from patience_gym.agents.solving.solve import label_seeds

    source = LABELS / "TheKings-v0.csv"
    assert any(line.startswith("# shortened:") for line in source.read_text().splitlines())
    (tmp_path / source.name).write_text(source.read_text())
    cfg = SolveConfig(env="TheKings-v0", seeds="0:3", budget=1_000_000, probe=0, labels=str(tmp_path))
    _, labels = label_seeds(cfg, progress=False)
    stored = read_labels(source)
    assert [(labels[s].label, labels[s].actions) for s in range(3)] == [
        (stored[s].label, stored[s].actions) for s in range(3)
    ]
