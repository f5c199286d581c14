"""The ``patience-gym`` command and the evaluation behind it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agents.cli import main
from agents.evaluate import evaluate, wilson
from agents.policies import GreedyPolicy, make_policy

ROOT = Path(__file__).resolve().parent.parent


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_wilson_interval_matches_known_values() -> None:
    lo, hi = wilson(13, 100)
    assert lo == pytest.approx(0.0776, abs=1e-3) and hi == pytest.approx(0.2098, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)


def test_evaluate_json_reports_rates_and_means(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys, "evaluate", "--env", "Nestor-v0", "--policy", "random", "--episodes", "30", "--json"
    )
    assert code == 0
    (row,) = json.loads(out)
    assert row["env"] == "Nestor-v0" and row["policy"] == "random" and row["games"] == 30
    assert 0 <= row["wins"] <= 30 and row["ci95"][0] <= row["win_rate"] <= row["ci95"][1]
    assert 0 < row["mean_length"] and 0 <= row["mean_foundation_cards"] <= 52


def test_episode_i_is_the_deal_of_seed_plus_i_whatever_the_policy() -> None:
    import gymnasium as gym

    result = evaluate("Nestor-v0", "greedy", episodes=6, seed=5)
    env = gym.make("patience_gym/Nestor-v0")
    policy = make_policy("greedy")
    for i in (0, 3, 5):
        obs, info = env.reset(seed=5 + i)
        policy.reset(5 + i)
        steps, term, trunc = 0, not info["action_mask"].any(), False
        while not (term or trunc):
            obs, _, term, trunc, info = env.step(policy(env.unwrapped, obs))
            steps += 1
        ep = result.episodes[i]
        assert (ep.won, ep.foundation_cards, ep.length) == (info["won"], info["foundation_cards"], steps)


def test_workers_give_the_same_results_as_one_process() -> None:
    one = evaluate("Nestor-v0", "greedy", episodes=24, seed=1, workers=1)
    two = evaluate("Nestor-v0", "greedy", episodes=24, seed=1, workers=2)
    assert [(e.won, e.foundation_cards, e.length) for e in one.episodes] == [
        (e.won, e.foundation_cards, e.length) for e in two.episodes
    ]


def test_table_output_has_one_row_per_policy(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys, "evaluate", "--env", "Klondike-v0", "--policy", "random", "--policy", "greedy",
        "--episodes", "5",
    )
    assert code == 0
    rows = [line for line in out.splitlines() if line.startswith("Klondike-v0")]
    assert [r.split()[1] for r in rows] == ["random", "greedy"]


def test_evaluate_from_a_config_file_with_overrides(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "eval.yaml"
    cfg.write_text("env: Klondike-v0\nenv_kwargs: {draw: 3}\npolicies: [greedy]\nepisodes: 50\nseed: 2\n")
    code, out, _ = run_cli(capsys, "evaluate", str(cfg), "--set", "episodes=4", "--json")
    assert code == 0
    (row,) = json.loads(out)
    assert row["games"] == 4 and row["env_kwargs"] == {"draw": 3} and row["seed"] == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--env", "Spider-v0", "--policy", "random"], "unknown environment 'Spider-v0'; registered:"),
        (["--env", "Nestor-v0", "--policy", "smart"], "unknown policy 'smart'"),
        (["--env", "Nestor-v0", "--policy", "random", "--episodes", "0"], "episodes must be >= 1"),
        (["--env", "Nestor-v0", "--policy", "random", "--workers", "0"], "workers must be >= 1"),
        (["--env", "Nestor-v0", "--policy", "random", "--set", "env_kwargs.reserv=open"], "no option 'reserv'"),
        (["--env", "Nestor-v0", "--policy", "random", "--set", "env_kwargs.reserve=half"], "reserve='half'"),
        (["--env", "Nestor-v0", "--policy", "random", "--set", "episods=3"], "unknown key 'episods' (did you mean 'episodes'?)"),
        (["--env", "Nestor-v0", "--policy", "random", "--set", "episodes=many"], "key 'episodes' must be int"),
        (["--env", "Nestor-v0", "--policy", "random", "--set", "episodes"], "must look like key=value"),
        (["--policy", "random"], "missing required key 'env'"),
    ],
)
def test_bad_arguments_fail_with_a_clear_message(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, _, err = run_cli(capsys, "evaluate", *args)
    assert code == 2
    assert message in err


def test_config_typo_in_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "eval.yaml"
    cfg.write_text("env: Nestor-v0\npolicy: [random]\n")
    code, _, err = run_cli(capsys, "evaluate", str(cfg))
    assert code == 2 and "unknown key 'policy' (did you mean 'policies'?)" in err
    code, _, err = run_cli(capsys, "evaluate", str(tmp_path / "missing.yaml"))
    assert code == 2 and "does not exist" in err


def test_argparse_rejects_non_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", "--env", "Nestor-v0", "--episodes", "ten"])
    assert exc.value.code == 2
    assert "invalid int value" in capsys.readouterr().err


def test_list_and_show(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "list")
    assert code == 0 and "patience_gym/Klondike-v0" in out and "draw=1" in out
    code, out, _ = run_cli(capsys, "show", "Klondike-v0", "--seed", "1")
    assert code == 0 and "pile 6:" in out and "legal:" in out


def test_greedy_never_picks_an_illegal_action_and_beats_random_on_klondike() -> None:
    greedy = evaluate("Klondike-v0", "greedy", episodes=40, seed=0)
    rnd = evaluate("Klondike-v0", "random", episodes=40, seed=0)
    assert greedy.mean_foundation_cards > rnd.mean_foundation_cards
    assert make_policy("greedy").name == "greedy" and isinstance(make_policy("greedy"), GreedyPolicy)


def test_console_script_runs_as_a_module() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "agents.cli", "evaluate", "--env", "Nestor-v0", "--policy", "greedy",
         "--episodes", "3", "--json"],
        capture_output=True, text=True, cwd=ROOT, check=True,
    )
    assert json.loads(out.stdout)[0]["games"] == 3
