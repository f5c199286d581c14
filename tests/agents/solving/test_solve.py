"""Labelling deals (patience_gym.agents.solving: ``patience-gym solve`` and its label files): stored won lines
replay through gym.make, labels resume, unknown deals are deepened, the probe is recorded, bad
input is refused, and evaluate sets each policy against the labels. The search itself:
tests/solver/test_search.py; each game's hooks: tests/solver/test_hooks.py."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

import patience_gym  # noqa: F401
from patience_gym.agents.cli import main
from patience_gym.agents.solving import solve as solve_module
from patience_gym.agents.solving.chunks import SolveConfig, parse_seeds
from patience_gym.agents.solving.labels import header_lines, label_header, label_path, labels_for, read_labels
from patience_gym.agents.solving.solve import deepen_unknown, label_seeds
from patience_gym.games import get_variant
from patience_gym.native import native_available
from patience_gym.solver import Label, solve_deal
from tests.helpers import LABELS, PORTED, interrupted_after, replay_wins

pytestmark = pytest.mark.skipif(not native_available(), reason="the solver runs on the native engine")


def _stored(env_name: str) -> list[Label]:
    path = LABELS / f"{env_name}.csv"
    return [lb for lb in read_labels(path).values() if lb.label == "won"] if path.exists() else []


@pytest.mark.parametrize("variant", PORTED, ids=lambda v: v.env_name)
def test_stored_solutions_replay(variant):
    won = _stored(variant.env_name)
    if not won:
        pytest.skip(f"no committed labels for {variant.env_name} (agents/data/labels/)")
    sample = won[:: max(1, len(won) // 8)][:8]
    for lb in sample:
        assert lb.seed is not None
        assert replay_wins(variant.env_name, lb.seed, lb.actions), f"seed {lb.seed}"


OPTION_FILES = sorted(p for p in LABELS.glob("*__*.csv"))


@pytest.mark.parametrize("path", OPTION_FILES, ids=lambda p: p.stem)
def test_stored_solutions_replay_under_their_options(path):
    """The option sets' label files too: each names its id and options in its header."""
    head = dict(line[2:].split("=", 1) for line in path.read_text().splitlines()[:2] if line.startswith("# "))
    env_name, options = head["env"], json.loads(head["options"])
    won = [lb for lb in read_labels(path).values() if lb.label == "won"]
    assert won, f"{path.name} holds no won deal"
    for lb in won[:: max(1, len(won) // 4)][:4]:
        assert lb.seed is not None
        assert replay_wins(env_name, lb.seed, lb.actions, **options), f"{path.name} seed {lb.seed}"


def test_labels_resume_where_they_stopped(tmp_path):
    cfg = SolveConfig(env="Nestor-v0", seeds="0:6", budget=20_000, labels=str(tmp_path))
    path, first = label_seeds(cfg, progress=False)
    assert sorted(first) == list(range(6))
    # An interrupted run: keep the first three rows only.
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[: 4 + 3]) + "\n")
    cfg.seeds = "0:10"
    _, again = label_seeds(cfg, progress=False)
    assert sorted(again) == list(range(10))
    for s in range(3):  # the rows kept are read back, not solved again
        assert (again[s].label, again[s].nodes, again[s].actions) == (
            first[s].label,
            first[s].nodes,
            first[s].actions,
        )
    rows = list(csv.reader(ln for ln in path.read_text().splitlines() if not ln.startswith("#")))
    assert [int(r[0]) for r in rows[1:]] == list(range(10))  # each seed once, in order


def test_resuming_with_another_budget_is_refused(tmp_path):
    label_seeds(
        SolveConfig(env="Nestor-v0", seeds="0:2", budget=20_000, labels=str(tmp_path)), progress=False
    )
    with pytest.raises(ValueError, match="other settings"):
        label_seeds(
            SolveConfig(env="Nestor-v0", seeds="0:4", budget=30_000, labels=str(tmp_path)), progress=False
        )


def test_deepen_solves_the_unknown_deals_again_and_keeps_the_rest(tmp_path):
    # Klondike seeds 0-11 at 2,000 nodes are all unknown; at 300,000 some are won or proven lost.
    small = SolveConfig(env="Klondike-v0", seeds="0:12", budget=2_000, labels=str(tmp_path))
    path, before = label_seeds(small, progress=False)
    assert {lb.label for lb in before.values()} == {"unknown"}
    # An interrupted deepening: only seeds 0-5 asked for; 6-11 keep their rows.
    _, _, again = deepen_unknown(
        SolveConfig(env="Klondike-v0", seeds="0:6", budget=300_000, labels=str(tmp_path)), progress=False
    )
    assert again == 6
    stored = read_labels(path)
    for s in range(6):  # exactly what a fresh solve with the larger budget answers
        fresh = solve_deal(get_variant("Klondike-v0"), seed=s, max_nodes=300_000, probe_nodes=30_000)
        assert (stored[s].label, stored[s].nodes, stored[s].actions) == (
            fresh.label,
            fresh.nodes,
            fresh.actions,
        )
    assert any(stored[s].label != "unknown" for s in range(6))
    for s in range(6, 12):
        assert (stored[s].label, stored[s].nodes) == ("unknown", before[s].nodes)
    # Resuming over 0-12 solves only the deals that have not used the larger budget yet.
    _, labels, again = deepen_unknown(
        SolveConfig(env="Klondike-v0", seeds="0:12", budget=300_000, labels=str(tmp_path)), progress=False
    )
    assert again == 6 and sorted(labels) == list(range(12))
    text = path.read_text()
    assert "# budget=2000 nodes per deal" in text and "up to 300000 nodes" in text
    with pytest.raises(ValueError, match="deepened to 300,000 nodes per deal already"):
        deepen_unknown(
            SolveConfig(env="Klondike-v0", seeds="0:12", budget=100_000, labels=str(tmp_path)), progress=False
        )
    # A plain resume at the file's own budget still works on a deepened file.
    label_seeds(
        SolveConfig(env="Klondike-v0", seeds="0:14", budget=2_000, labels=str(tmp_path)), progress=False
    )
    assert sorted(read_labels(path)) == list(range(14)) and read_labels(path)[3] == stored[3]
    # A later deepening, time-limited: the header keeps the earlier one and names the limit.
    deepen_unknown(
        SolveConfig(env="Klondike-v0", seeds="0:2", budget=400_000, seconds=5.0, labels=str(tmp_path)),
        progress=False,
    )
    deepened = [h for h in header_lines(path) if h.startswith("# deepened:")]
    assert len(deepened) == 2 and "up to 300000 nodes" in deepened[0]
    assert "up to 400000 nodes" in deepened[1] and deepened[1].endswith(", or 5 seconds a deal")


def test_an_interrupted_deepening_keeps_every_deal_it_finished(tmp_path, monkeypatch):
    # Deepening is slow deal by deal, so each deal is written as it ends: stopped (Ctrl-C) after
    # its second deal, the file holds exactly those two at the larger budget and the rest as they were.
    path, before = label_seeds(
        SolveConfig(env="Klondike-v0", seeds="0:6", budget=2_000, labels=str(tmp_path)), progress=False
    )
    real = solve_module.solved_chunks
    monkeypatch.setattr(solve_module, "solved_chunks", interrupted_after(real, 2))
    with pytest.raises(KeyboardInterrupt):
        deepen_unknown(
            SolveConfig(env="Klondike-v0", seeds="0:6", budget=50_000, labels=str(tmp_path)), progress=False
        )
    stored = read_labels(path)
    assert [s for s in range(6) if stored[s].nodes != before[s].nodes] == [0, 1]
    monkeypatch.setattr(solve_module, "solved_chunks", real)
    _, _, again = deepen_unknown(
        SolveConfig(env="Klondike-v0", seeds="0:6", budget=50_000, labels=str(tmp_path)), progress=False
    )
    assert again == 4  # the same command resumes with the four left


def test_deepen_refuses_what_it_cannot_do(tmp_path, capsys):
    base = ["solve", "--env", "Nestor-v0", "--seeds", "0:3", "--labels", str(tmp_path)]
    assert main([*base, "--budget", "5000", "--deepen"]) == 2
    assert "does not exist; label them first" in capsys.readouterr().err
    assert main([*base, "--budget", "5000"]) == 0
    capsys.readouterr()
    for extra, message in [
        (["--budget", "5000", "--deepen"], "budget above the file's 5,000"),
        (["--budget", "9000", "--deepen", "--overwrite"], "cannot be used with --overwrite"),
        (["--budget", "9000", "--deepen", "--deck", "x.txt"], "cannot be used with --deck"),
    ]:
        assert main([*base, *extra]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("patience-gym solve: error:") and message in err and "\n" not in err


def test_the_probe_is_recorded_in_the_header_and_checked_on_resume(tmp_path, capsys):
    base = ["solve", "--env", "Nestor-v0", "--seeds", "0:2", "--budget", "5000", "--labels", str(tmp_path)]
    assert main([*base, "--probe", "500"]) == 0
    capsys.readouterr()
    path = tmp_path / "Nestor-v0.csv"
    assert "# budget=5000 nodes per deal, the first 500 in a probe" in path.read_text()
    assert main([*base[:4], "0:3", *base[5:]]) == 0  # the default probe (a tenth: 500) resumes it
    capsys.readouterr()
    assert sorted(read_labels(path)) == [0, 1, 2]
    assert main([*base, "--probe", "0"]) == 2
    assert "same budget and probe (--probe 0 for none)" in capsys.readouterr().err
    for probe, message in [("-1", "from 0 to the budget (5000)"), ("6000", "from 0 to the budget (5000)")]:
        assert main([*base, "--probe", probe, "--overwrite"]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("patience-gym solve: error:") and message in err and "\n" not in err


def test_label_files_are_named_by_the_options_that_differ():
    v = get_variant("Klondike-v0")
    assert label_path(v, {}).name == "Klondike-v0.csv"
    assert label_path(v, {"draw": 3}).name == "Klondike-v0__draw=3.csv"


def test_the_stock_option_names_no_label_file_and_changes_no_verdict():
    """Klondike's stock="known" only shows the stock (Option.view_only): the solver sees every card
    anyway, so the labels of the stock hidden are those of the stock known, file and header alike."""
    v = get_variant("Klondike-v0")
    k_plus = {"draw": 3, "passes": None, "partial_moves": True}
    known = {**k_plus, "stock": "known"}
    assert label_path(v, known) == label_path(v, k_plus)
    assert label_path(v, known).name == "Klondike-v0__draw=3__partial_moves=True__passes=None.csv"
    assert label_path(v, {"stock": "known"}).name == "Klondike-v0.csv"
    assert label_header(v, known, 1000, None) == label_header(v, k_plus, 1000, None)
    shipped = labels_for("Klondike-v0", k_plus)
    assert shipped and labels_for("Klondike-v0", known) == shipped
    for seed in (0, 1, 2):
        a = solve_deal(v, k_plus, seed=seed, max_nodes=20_000)
        b = solve_deal(v, known, seed=seed, max_nodes=20_000)
        assert (a.label, a.nodes, a.actions) == (b.label, b.nodes, b.actions)


@pytest.mark.parametrize(
    ("text", "message"), [("5:5", "empty"), ("-3:4", ">= 0"), ("a:b", "START:STOP"), ("1:2:3", "START:STOP")]
)
def test_bad_seed_ranges_are_refused(text, message):
    with pytest.raises(ValueError, match=message):
        parse_seeds(text)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--env", "Nestor-v0", "--seeds", "4:4"], "empty"),
        (["--env", "Nestor-v0", "--seeds=-1:4"], ">= 0"),
        (["--env", "Nestor-v0", "--budget", "0"], "positive"),
        (["--env", "Nestor-v0", "--seconds", "-1"], "positive"),
        (["--env", "Nestor-v0", "--set", "env_kwargs.bogus=1"], "rule options"),
        (["--env", "Klondike-v0", "--set", "env_kwargs.draw=5"], "draw"),
        (["--env", "Nestor-v0", "--set", "env_kwargs.reward_mode=win"], "rule options"),
        (["--env", "Nope-v0"], "Nope"),
        (["--env", "Nestor-v0", "--deck", "/nonexistent/deck.txt"], "cannot read"),
    ],
)
def test_cli_refuses_bad_input_in_one_line(argv, message, capsys, tmp_path):
    assert main(["solve", *argv, "--labels", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("patience-gym solve: error:") and message in err and "\n" not in err


def test_cli_refuses_a_malformed_deck(capsys, tmp_path):
    deck = tmp_path / "deck.txt"
    deck.write_text("AS AS 2C")
    assert main(["solve", "--env", "Nestor-v0", "--deck", str(deck)]) == 2
    assert "error:" in capsys.readouterr().err


def test_cli_solves_one_deck_and_prints_the_line(capsys, tmp_path):
    variant = get_variant("Congress-v0")
    game = variant.make_game()

    game.new_game(np.random.default_rng(3))
    deck = tmp_path / "deck.txt"
    deck.write_text(" ".join(game.deck()))
    expected = solve_deal(variant, seed=3, max_nodes=100_000, probe_nodes=10_000)  # solve's default probe
    assert main(["solve", "--env", "Congress-v0", "--deck", str(deck), "--budget", "100000"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Congress-v0: {expected.label}")
    assert len([ln for ln in out.splitlines()[1:] if ln.strip()]) == expected.length


def test_a_policy_is_compared_with_the_labels_of_the_same_deals():
    from patience_gym.agents.solving.labels import winnable_share

    labels = {s: Label(s, lab, 1, 0.0) for s, lab in enumerate(["won", "won", "lost", "unknown", "won"])}
    share = winnable_share(labels, {0: True, 1: False, 2: False, 3: True, 4: True, 9: True})
    assert (share.labelled, share.winnable, share.wins, share.unknown) == (5, 3, 2, 1)
    assert share.share == pytest.approx(2 / 3)
    # A win on a deal the solver proved lost is a bug somewhere, never a figure to print.
    with pytest.raises(ValueError, match="labelled lost"):
        winnable_share(labels, {2: True})


def test_ray_labels_equal_local_labels(tmp_path, local_ray):
    local_path, local = label_seeds(
        SolveConfig(env="Nestor-v0", seeds="0:25", budget=20_000, labels=str(tmp_path / "local")),
        progress=False,
    )
    ray_path, on_ray = label_seeds(
        SolveConfig(
            env="Nestor-v0",
            seeds="0:25",
            budget=20_000,
            labels=str(tmp_path / "ray"),
            backend="ray",
            workers=2,
        ),
        progress=False,
    )
    assert sorted(on_ray) == list(range(25))
    for s in range(25):
        assert (on_ray[s].label, on_ray[s].nodes, on_ray[s].actions) == (
            local[s].label,
            local[s].nodes,
            local[s].actions,
        )
    # The files differ only in the seconds column.
    strip = lambda p: [ln.rsplit(",", 3)[0].rsplit(",", 1)[0] for ln in p.read_text().splitlines()]  # noqa: E731
    assert strip(local_path) == strip(ray_path)


def test_evaluate_sets_each_policy_against_the_labels(tmp_path, capsys):
    label_seeds(
        SolveConfig(env="Nestor-v0", seeds="0:30", budget=50_000, labels=str(tmp_path)), progress=False
    )
    labels = read_labels(tmp_path / "Nestor-v0.csv")
    argv = ["evaluate", "--env", "Nestor-v0", "--policy", "greedy", "--episodes", "30"]
    argv += ["--labels", str(tmp_path)]
    assert main([*argv, "--json"]) == 0
    import json

    (row,) = json.loads(capsys.readouterr().out)
    winnable = [s for s, lb in labels.items() if lb.label == "won"]
    assert row["winnable"]["labelled"] == 30 and row["winnable"]["winnable"] == len(winnable)
    # A win is on a deal labelled won (or unknown): never on one proven lost.
    assert row["winnable"]["wins"] <= row["wins"]
    if row["winnable"]["unknown"] == 0:
        assert row["winnable"]["wins"] == row["wins"]
    assert main(argv) == 0
    assert "winnable won" in capsys.readouterr().out
    # Without labels for these rules the column is left out.
    assert main([*argv[:-2], "--labels", str(tmp_path / "none")]) == 0
    assert "winnable won" not in capsys.readouterr().out
