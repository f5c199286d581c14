"""scripts/results.py: the winnable rows follow the label files, option sets included, and a bad
``--set`` is refused with a message instead of a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from patience_gym.agents.solving.labels import labels_for
from tests.helpers import LABELS, ROOT, script

DRAW3 = {"draw": 3, "passes": None, "partial_moves": True}


def _script() -> ModuleType:
    return script("results", "results_script")


def test_labels_only_refreshes_the_option_set_rows_already_in_the_table(tmp_path: Path) -> None:
    results = _script()
    key = results.row_key("Klondike-v0", DRAW3)
    stale = {
        "policy": results.WINNABLE,
        "games": 1000,
        "wins": 1,
        "win_rate": 0.001,
        "ci95": [0, 0.01],
        "unknown": 999,
        "won_seeds": [0],
        "env_kwargs": DRAW3,
    }
    out = tmp_path / "results.md"
    out.with_suffix(".json").write_text(json.dumps({key: [stale]}))
    assert results.option_sets_in({key: [stale]}, "Klondike-v0") == [DRAW3]
    assert results.main(["--labels-only", "--env", "Klondike-v0", "--out", str(out)]) == 0
    rows = json.loads(out.with_suffix(".json").read_text())
    labels = labels_for("Klondike-v0", DRAW3, LABELS)
    won = sorted(s for s in range(1000) if s in labels and labels[s].label == "won")
    (row,) = rows[key]
    assert row["wins"] == len(won) > 1 and row["won_seeds"] == won
    assert "Klondike-v0" in rows  # the defaults' row is refreshed too
    assert key in out.read_text()


def test_a_bad_option_is_refused_with_a_message(tmp_path: Path) -> None:
    results = _script()
    out = str(tmp_path / "results.md")
    with pytest.raises(SystemExit, match=r"--set: .*passes='None'.*null for None"):
        results.main(["--labels-only", "--env", "Klondike-v0", "--set", "passes=None", "--out", out])
    with pytest.raises(SystemExit, match=r"--set: .*draw"):
        results.main(["--labels-only", "--env", "Klondike-v0", "--set", "draw=5", "--out", out])
    assert not (tmp_path / "results.json").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--episodes", "0"], "--episodes must be >= 1, got 0"),
        (["--workers", "0"], "--workers must be >= 1, got 0"),
        (["--env", "Spider-v0"], "unknown environment 'Spider-v0'; registered:"),
    ],
)
def test_bad_counts_and_ids_are_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    """``--episodes 0 --labels-only`` once rewrote the table from an empty sample of deals."""
    results = _script()
    out = str(tmp_path / "results.md")
    with pytest.raises(SystemExit) as stop:
        results.main(["--labels-only", *args, "--out", out])
    assert stop.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "results.json").exists() and not (tmp_path / "results.md").exists()


def test_each_planner_row_names_its_settings() -> None:
    """Planner rows may be measured with different settings: the table says which."""
    results = _script()
    row = {
        "policy": "planner",
        "spec": "planner:samples=4,budget=50000,probe=25000",
        "games": 10,
        "wins": 6,
        "win_rate": 0.6,
        "ci95": [0.31, 0.83],
        "mean_foundation_cards": 90.0,
        "mean_length": 250.0,
        "won_seeds": [0, 1, 2, 3, 4, 5],
    }
    plain = {**row, "spec": "planner"}
    table = results.markdown({"Anna-v0": [row], "Nestor-v0": [plain]})
    assert "| Anna-v0 | planner (samples=4,budget=50000,probe=25000) | 10 | 6 |" in table
    assert "| Nestor-v0 | planner | 10 | 6 |" in table


def test_each_ppo_row_says_what_it_measures() -> None:
    """A clone of a look-ahead teacher is named so, and no verdict says PPO "beats" greedy."""
    results = _script()

    def row(policy: str, wins: int, ci: list[float], **extra: Any) -> dict[str, Any]:
        return {
            "policy": policy,
            "games": 100,
            "wins": wins,
            "win_rate": wins / 100,
            "ci95": ci,
            "mean_foundation_cards": 10.0 + wins,
            "mean_length": 50.0,
            **extra,
        }

    base = [row("random", 0, [0.0, 0.04]), row("greedy", 5, [0.02, 0.11])]
    clone = row("ppo", 30, [0.22, 0.4], teacher="rollout:16", rollout_features=16)
    scratch = row("ppo", 5, [0.02, 0.11], teacher=None, rollout_features=0)
    table = results.markdown({"Nestor-v0": [*base, clone], "Klondike-v0": [*base, scratch]})
    assert "| Nestor-v0 | ppo+rollouts (clone of rollout:16) | 100 | 30 |" in table
    assert "| Klondike-v0 | ppo (from scratch) | 100 | 5 |" in table
    assert "beats" not in table
    assert "not reinforcement learning" in results.verdict([*base, clone])
    assert "not reinforcement learning" not in results.verdict([*base, scratch])


def test_a_clone_is_set_against_its_teacher_s_own_row() -> None:
    """``ppo+rollouts`` rows report their gain over ``rollout:16`` itself when the table has its row
    (the teacher's row keeps its count in its name), and say nothing of a teacher that is absent."""
    results = _script()
    assert results.policy_name("rollout:16") == "rollout:16"
    assert results.policy_name("planner:samples=8") == "planner"

    def row(policy: str, wins: int, ci: list[float], **extra: Any) -> dict[str, Any]:
        rate = wins / 1000
        return {"policy": policy, "games": 1000, "wins": wins, "win_rate": rate, "ci95": ci,
                "mean_foundation_cards": 30.0, "mean_length": 20.0, **extra}  # fmt: skip

    base = [row("random", 113, [0.095, 0.134]), row("greedy", 124, [0.105, 0.146])]
    clone = row("ppo+rollouts", 238, [0.213, 0.265], teacher="rollout:16", rollout_features=16)
    teacher = row("rollout:16", 250, [0.225, 0.278], spec="rollout:16")
    assert "Against its teacher rollout:16 itself (25.0% [22.5, 27.8]): -1.2 points (within noise)." in (
        results.verdict([*base, teacher, clone])
    )
    better = row("rollout:16", 150, [0.129, 0.174], spec="rollout:16")
    assert "+8.8 points (95% intervals apart)" in results.verdict([*base, better, clone])
    assert "Against its teacher" not in results.verdict([*base, clone])


def test_the_reward_only_row_names_its_config_learner_budget_and_commit() -> None:
    """The ppo row of a shipped model says what made it (from the model's card), and the verdict
    gives the run's best checkpoint and the training seeds' spread; a clone stays its own row."""
    results = _script()

    def row(policy: str, wins: int, ci: list[float], **extra: Any) -> dict[str, Any]:
        return {"policy": policy, "games": 100, "wins": wins, "win_rate": wins / 100, "ci95": ci,
                "mean_foundation_cards": 10.0 + wins, "mean_length": 50.0, **extra}  # fmt: skip

    card = {"learner": "sb3-contrib MaskablePPO", "config": "configs/ppo/nestor.yaml", "steps": 10_002_432,
            "train_seconds": 300.0, "seed": 0, "commit": "abc1234"}  # fmt: skip
    best = {"wins": 11, "games": 100, "win_rate": 0.11, "ci95": [0.06, 0.19], "steps": 7_500_000}
    seeds = [
        {"seed": s, "wins": w, "games": 100, "win_rate": w / 100, "ci95": [0, 1]}
        for s, w in ((0, 14), (1, 12), (2, 9))
    ]
    ppo = row("ppo", 14, [0.08, 0.22], card=card, best_checkpoint=best, training_seeds=seeds)
    clone = row("ppo+rollouts", 30, [0.22, 0.4], teacher="rollout:16", rollout_features=16)
    rows = [row("random", 0, [0.0, 0.04]), row("greedy", 5, [0.02, 0.11]), ppo, clone]
    table = results.markdown({"Nestor-v0": rows})
    assert (
        "| Nestor-v0 | ppo (reward only, flat observation) | 100 | 14 | 14.0% [8.0, 22.0] |  | 24.0 | 50.0 | "
        "sb3-contrib MaskablePPO (mlp), `configs/ppo/nestor.yaml`, 10,002,432 steps, 5 min, seed 0, "
        "commit abc1234 |" in table
    )
    assert "| Nestor-v0 | ppo+rollouts (clone of rollout:16) | 100 | 30 |" in table
    text = results.verdict(rows)
    assert (
        "best validation checkpoint (highest mean reward on the validation deals, 7,500,000 steps) "
        "wins 11.0% [6.0, 19.0]" in text
    )
    assert "Training seeds 0, 1, 2: 14.0%, 12.0%, 9.0% (spread 5.0 points)" in text
    assert "not reinforcement learning" in text  # said of the clone's row, not of ppo's
    assert results.verdict([*rows[:2], clone]).startswith("no reward-only PPO model yet.")


def test_a_model_played_by_sampling_says_so_with_the_validation_figures_that_chose_it() -> None:
    """A card whose ``play`` is ``sample`` is played as ``ppo-sample:<variant>``: the row stays the
    variant's one ``ppo`` row, is named "sampled moves", and gives both ways' validation wins."""
    results = _script()
    assert results.policy_name("ppo-sample:TheKings-v0") == "ppo"
    chosen = {"deals": "500000..500999", "argmax": {"wins": 0}, "sample": {"wins": 39}}
    card = {"learner": "sb3-contrib MaskablePPO", "config": "configs/ppo/the_kings.yaml", "steps": 10_002_432,
            "train_seconds": 900.0, "seed": 0, "commit": "abc1234", "play": "sample"}  # fmt: skip
    card["validation_play"] = chosen
    assert results.ppo_spec(card) == "ppo-sample" and results.ppo_spec({**card, "play": "argmax"}) == "ppo"
    assert results.ppo_spec({k: v for k, v in card.items() if k != "play"}) == "ppo"  # older cards
    row = {"policy": "ppo", "spec": "ppo-sample:TheKings-v0", "games": 1000, "wins": 30, "win_rate": 0.03,
           "ci95": [0.021, 0.043], "mean_foundation_cards": 28.0, "mean_length": 530.0}  # fmt: skip
    row["card"] = card
    table = results.markdown({"TheKings-v0": [row]})
    assert "| TheKings-v0 | ppo (reward only, flat observation, sampled moves) | 1000 | 30 |" in table
    assert "plays by sample (validation deals won: argmax 0, sampled 39 of 1,000) |" in table
    argmax = {**row, "spec": "ppo:TheKings-v0", "card": {**card, "play": "argmax"}}
    assert "| TheKings-v0 | ppo (reward only, flat observation) | 1000 | 30 |" in results.markdown(
        {"TheKings-v0": [argmax]}
    )


def test_the_training_seeds_of_a_row_are_the_runs_of_its_recipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The row's other training seeds are the runs whose config differs from the shipped run's only
    by seed, budget, resumed checkpoint or output folder: an experiment with another setting is not
    one of them."""
    import yaml

    results = _script()
    monkeypatch.setattr(results, "ROOT", tmp_path)
    base = {"env": "Nestor-v0", "seed": 0, "total_timesteps": 10_000_000, "ppo": {"gamma": 0.99}}
    runs = {
        "nestor": {**base, "resume": "runs/ppo/nestor/checkpoints/ppo_8192_steps.zip"},
        "nestor_seed1": {**base, "seed": 1, "output_dir": "runs/ppo/nestor_seed1"},
        "nestor_seed2": {**base, "seed": 2},  # no final model yet: still training
        "nestor_gamma999": {**base, "ppo": {"gamma": 0.999}},
        "babette": {**base, "env": "Babette-v0"},
    }
    for name, cfg in runs.items():
        d = tmp_path / "runs" / "ppo" / name
        d.mkdir(parents=True)
        (d / "config.yaml").write_text(yaml.safe_dump(cfg))
        (d / "train_info.json").write_text("{}")
        if name != "nestor_seed2":
            (d / "final_model.zip").write_bytes(b"")
    found = results.run_dirs("Nestor-v0", {"run": "nestor", "policy": "mlp"})
    assert [d.name for d in found] == ["nestor", "nestor_seed1"]
    assert results.run_dirs("Nestor-v0", {"run": "babette"}) == []  # a card naming another variant's run
    # a seed run counts at the shipped model's budget, a resumed one ending a rollout or two apart
    assert results.same_budget(10_002_432, 10_003_456) and not results.same_budget(100_002_048, 10_002_432)


def _measured(policy: str, wins: int, cards: list[int], **extra: Any) -> dict[str, Any]:
    """A row as results.py writes it: wins with their Wilson interval, cards with theirs."""
    from patience_gym.agents.evaluation.evaluate import wilson

    results = _script()
    n = len(cards)
    return {"policy": policy, "games": n, "wins": wins, "win_rate": wins / n, "ci95": list(wilson(wins, n)),
            "mean_foundation_cards": sum(cards) / n, "cards_ci95": results.cards_interval(cards),
            "mean_length": 50.0, **extra}  # fmt: skip


def test_the_cards_interval_is_the_mean_plus_or_minus_1_96_standard_errors() -> None:
    results = _script()
    lo, hi = results.cards_interval([10, 20])  # mean 15, s = 7.07, standard error 5
    assert lo == pytest.approx(15 - 1.96 * 5, abs=1e-3) and hi == pytest.approx(15 + 1.96 * 5, abs=1e-3)
    assert results.cards_interval([7, 7, 7]) == [7.0, 7.0]
    assert results.cards_interval([30]) == [30.0, 30.0]


def test_a_reward_only_row_names_the_network_and_the_inputs_it_read() -> None:
    """The per-move policy reads one-move features (a look-ahead of one move): its row says so."""
    results = _script()
    card = {"learner": "sb3-contrib MaskablePPO", "config": "configs/ppo/louis.yaml", "steps": 10_002_432,
            "train_seconds": 1800.0, "seed": 0, "commit": "abc1234", "policy": "move_policy"}  # fmt: skip
    row = _measured("ppo", 60, [90] * 50 + [95] * 50, card=card, spec="ppo-sample:Louis-v0")
    table = results.markdown({"Louis-v0": [row]})
    assert "| Louis-v0 | ppo (reward only, per-move, one-move features, sampled moves) | 100 | 60 |" in table
    flat = {**row, "spec": "ppo:Louis-v0", "card": {**card, "policy": "mlp"}}
    assert "| Louis-v0 | ppo (reward only, flat observation) | 100 | 60 |" in results.markdown(
        {"Louis-v0": [flat]}
    )
    assert "flat" not in results.ppo_label(row)


def test_the_strict_count_asks_for_intervals_apart_on_wins_and_on_cards() -> None:
    """Both counts from a small made-up table: a tie of no wins and a lead within noise count only
    at the point estimate; wins apart with cards overlapping, or cards unmeasured, are not strict."""
    results = _script()
    card = {"learner": "sb3-contrib MaskablePPO", "config": "c.yaml", "steps": 1, "train_seconds": 60.0,
            "seed": 0, "commit": "abc1234"}  # fmt: skip
    low, high = [10] * 300 + [20] * 300, [12] * 300 + [22] * 300  # cards 15 and 17: intervals apart
    unmeasured = _measured("ppo", 380, high, card=card)
    del unmeasured["cards_ci95"]
    table = {
        # wins apart (60 vs 20 of 600) and cards apart: strictly above
        "Klondike-v0": [_measured("greedy", 20, low), _measured("ppo", 60, high, card=card)],
        # no wins either side: at the point estimate only
        "LightAndShade-v0": [_measured("greedy", 0, low), _measured("ppo", 0, high, card=card)],
        # 85 vs 80 of 600: at or above the point estimate, within noise
        "Nestor-v0": [_measured("greedy", 80, low), _measured("ppo", 85, high, card=card)],
        # wins apart, the same cards: not strict
        "Louis-v0": [_measured("greedy", 300, low), _measured("ppo", 400, low, card=card)],
        # wins apart, cards measured before the table kept their interval: not strict, said so
        "Anna-v0": [_measured("greedy", 280, low), unmeasured],
        # below greedy
        "TheKings-v0": [_measured("greedy", 130, high), _measured("ppo", 20, low, card=card)],
        # a clone, not a reward-only row (no card): not counted
        "Babette-v0": [_measured("greedy", 130, low), _measured("ppo", 400, high, teacher="rollout:16")],
    }
    for rows in table.values():
        rows.insert(0, _measured("random", 0, [5] * 600))
    count = results.against_greedy(table)
    assert count.variants == [
        "Klondike-v0",
        "Nestor-v0",
        "Louis-v0",
        "Anna-v0",
        "LightAndShade-v0",
        "TheKings-v0",
    ]
    assert count.point == ["Klondike-v0", "Nestor-v0", "Louis-v0", "Anna-v0", "LightAndShade-v0"]
    assert count.strict == ["Klondike-v0"]
    assert count.unmeasured == ["Anna-v0"]
    text = results.markdown(table)
    assert "on **5 of 6** (Klondike-v0, Nestor-v0, Louis-v0, Anna-v0, LightAndShade-v0;" in text
    assert "on **1 of 6** (Klondike-v0)." in text
    assert "Not measured for the strict count (no cards' interval): Anna-v0." in text
    assert "(17.0 [16.6, 17.4] vs 15.0 [14.6, 15.4]: 95% intervals apart)" in results.verdict(
        table["Klondike-v0"]
    )
    assert "intervals overlap" in results.verdict(table["Louis-v0"])
    stale = {**table["Klondike-v0"][2], "stale": "rules changed"}
    assert results.against_greedy({"Klondike-v0": [*table["Klondike-v0"][:2], stale]}).variants == []


def test_a_row_of_the_same_model_keeps_its_seeds_where_the_training_folders_are_absent() -> None:
    """Rerunning the ppo row without runs/ppo/ here keeps the previous row's best checkpoint and
    training seeds when the card (the model) and the deals are the same, and only then."""
    results = _script()
    card = {"config": "configs/ppo/nestor.yaml", "seed": 0, "commit": "abc1234"}
    seeds = [{"seed": 0, "wins": 133}, {"seed": 1, "wins": 122}]
    old = [{"policy": "ppo", "games": 1000, "card": card, "training_seeds": seeds, "wins": 133}]
    new = {"policy": "ppo", "games": 1000, "card": dict(card), "wins": 133}
    assert results.keep_extras(old, new)["training_seeds"] == seeds
    assert "training_seeds" not in results.keep_extras(old, {**new, "card": {**card, "commit": "def5678"}})
    assert "training_seeds" not in results.keep_extras(old, {**new, "games": 100})
    measured = {**new, "training_seeds": [{"seed": 0, "wins": 1}]}
    assert results.keep_extras(old, measured)["training_seeds"] == [{"seed": 0, "wins": 1}]
    assert "training_seeds" not in results.keep_extras(old, {"policy": "greedy", "games": 1000})


def test_every_row_of_a_labelled_variant_gives_its_wins_among_the_winnable_deals() -> None:
    """The published table (issue 47: Nestor's random and greedy rows lacked it): where the solver
    labelled a variant's deals, every policy row says how many of the winnable ones it won, and
    that count is its won seeds' share of the winnable row's (results.json)."""
    table = json.loads((ROOT / "results" / "results.json").read_text())
    rows = [line.split(" | ") for line in (ROOT / "results" / "results.md").read_text().splitlines()]
    checked = 0
    for group, measured in table.items():
        winnable = next((r for r in measured if r["policy"].startswith("winnable")), None)
        if winnable is None:
            continue
        lines = [cells for cells in rows if cells[0] == f"| {group}" and "winnable" not in cells[1]]
        assert len(lines) == len(measured) - 1, group
        won = set(winnable["won_seeds"])
        for row, cells in zip((r for r in measured if r is not winnable), lines, strict=True):
            hits = len(won & set(row["won_seeds"]))
            assert cells[5].startswith(f"{hits}/{len(won)} ("), (group, cells[1], cells[5])
            checked += 1
    assert checked >= 40


def test_a_chunked_run_becomes_a_row_with_its_cost(tmp_path: Path) -> None:
    """--from-chunks: a finished scripts/eval_chunks.py run's row (seeds 0..N-1, CPU seconds and
    positions a game) replaces that policy's row of its variant, beside the labels' winnable row; a folder
    that is not such a run, or misses seeds, is refused in one line."""
    results, chunks = _script(), script("eval_chunks", "eval_chunks_script")
    run = tmp_path / "run"
    args = ["--env", "Nestor-v0", "--policy", "macro:samples=5,nodes=200", "--episodes", "4", "--chunk", "2"]
    assert chunks.main([*args, "--out", str(run)]) == 0
    out = tmp_path / "results.md"
    out.with_suffix(".json").write_text(json.dumps({"Nestor-v0": [{"policy": "macro", "stale": 1}]}))
    assert results.main(["--from-chunks", str(run), "--out", str(out)]) == 0
    rows = json.loads(out.with_suffix(".json").read_text())["Nestor-v0"]
    assert [r["policy"] for r in rows] == ["macro", results.WINNABLE]  # the stale row replaced
    row = rows[0]
    assert (row["policy"], row["spec"], row["games"]) == ("macro", "macro:samples=5,nodes=200", 4)
    assert row["seconds_per_game"] > 0 and row["nodes_per_game"] > 0
    line = next(x for x in out.read_text().splitlines() if "| macro (samples=5,nodes=200) |" in x)
    assert "CPU s and" in line and "positions a game" in line
    with pytest.raises(SystemExit, match="no eval_chunks run"):
        results.main(["--from-chunks", str(tmp_path), "--out", str(out)])
    (run / "00000.json").unlink()
    with pytest.raises(SystemExit, match=r"does not hold seeds 0\.\.N-1"):
        results.main(["--from-chunks", str(run), "--out", str(out)])


def test_an_exit_row_names_its_teacher_data_compute_and_that_it_is_not_rl() -> None:
    """A shipped net's row (``exit:<variant>``) says it learnt from a search and from which, with
    its card's data, compute and commit: never a ``ppo`` row, never reward-only RL."""
    results = _script()
    card = results.exit_card("exit:thekings")
    shipped = json.loads((ROOT / "agents" / "data" / "exit" / "TheKings-v0.json").read_text())
    assert card["labeller"] == shipped["labeller"] and card["decisions"] == shipped["decisions"]
    row = {
        "policy": results.policy_name("exit:thekings"),
        "spec": "exit:thekings",
        "exit_card": card,
        "games": 10,
        "wins": 3,
        "win_rate": 0.3,
        "ci95": [0.11, 0.6],
        "mean_foundation_cards": 50.0,
        "mean_length": 400.0,
        "won_seeds": [0, 1, 2],
    }
    table = results.markdown({"TheKings-v0": [row]})
    line = next(t for t in table.splitlines() if t.startswith("| TheKings-v0 | exit"))
    assert "not reward-only RL" in line and f"`{shipped['labeller']}`" in line
    assert f"{shipped['decisions']:,} decisions" in line and shipped["commit"] in line
