"""The ``patience-gym`` command and the evaluation behind it."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from patience_gym.agents.cli import main
from patience_gym.agents.evaluation.evaluate import evaluate, format_table, to_json, wilson
from patience_gym.agents.policies.base import GreedyPolicy
from patience_gym.agents.registry import make_policy
from patience_gym.env import PatienceEnv
from tests.helpers import ROOT, ctrl_c


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
    assert row["mean_length"] > 0 and 0 <= row["mean_foundation_cards"] <= 52


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
        capsys,
        "evaluate",
        "--env",
        "Klondike-v0",
        "--policy",
        "random",
        "--policy",
        "greedy",
        "--episodes",
        "5",
    )
    assert code == 0
    rows = [line for line in out.splitlines() if line.startswith("Klondike-v0")]
    assert [r.split()[1] for r in rows] == ["random", "greedy"]


def test_evaluate_from_a_config_file_with_overrides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "eval.yaml"
    cfg.write_text("env: Klondike-v0\nenv_kwargs: {draw: 3}\npolicies: [greedy]\nepisodes: 50\nseed: 2\n")
    code, out, _ = run_cli(capsys, "evaluate", str(cfg), "--set", "episodes=4", "--json")
    assert code == 0
    (row,) = json.loads(out)
    assert row["games"] == 4 and row["env_kwargs"] == {"draw": 3} and row["seed"] == 2


NESTOR = ["--env", "Nestor-v0", "--policy", "random"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--env", "Spider-v0", "--policy", "random"], "unknown environment 'Spider-v0'; registered:"),
        (["--env", "Nestor-v0", "--policy", "smart"], "unknown policy 'smart'"),
        ([*NESTOR, "--episodes", "0"], "key 'episodes' must be >= 1"),
        ([*NESTOR, "--workers", "0"], "key 'workers' must be >= 1"),
        ([*NESTOR, "--seed", "-1"], "command line: key 'seed' must be >= 0, got -1"),
        ([*NESTOR, "--set", "env_kwargs.reserv=open"], "no option 'reserv'"),
        ([*NESTOR, "--set", "env_kwargs.reserve=half"], "reserve='half'"),
        ([*NESTOR, "--set", "env_kwargs.max_episode_steps=0"], "max_episode_steps is the step limit"),
        ([*NESTOR, "--set", "env_kwargs.max_episode_steps=many"], "a whole number >= 1, or null"),
        ([*NESTOR, "--set", "episods=3"], "unknown key 'episods' (did you mean 'episodes'?)"),
        ([*NESTOR, "--set", "episodes=many"], "key 'episodes' must be int"),
        ([*NESTOR, "--set", "episodes"], "must look like key=value"),
        ([*NESTOR, "--set", "policies=[random"], "override 'policies=[random': malformed YAML: expected"),
        (["--policy", "random"], "missing required key 'env'"),
    ],
)
def test_bad_arguments_fail_with_a_clear_message(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, _, err = run_cli(capsys, "evaluate", *args)
    assert code == 2
    assert message in err
    assert err.count("\n") == 1 and err.startswith("patience-gym evaluate: error: ")


def test_show_refuses_a_negative_seed(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "show", "Nestor-v0", "--seed", "-2")
    assert code == 2 and err == "patience-gym show: error: --seed must be >= 0, got -2\n"


def test_malformed_yaml_names_the_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "eval.yaml"
    cfg.write_text("env: Nestor-v0\npolicies: [random\nepisodes: 3\n")
    code, _, err = run_cli(capsys, "evaluate", str(cfg))
    assert code == 2 and err.count("\n") == 1
    assert f"{cfg}:3: malformed YAML: expected ',' or ']'" in err and "opened on line 2" in err
    cfg.write_text("env: Nestor-v0\n  episodes: 3\n")
    code, _, err = run_cli(capsys, "evaluate", str(cfg))
    assert code == 2 and f"{cfg}:2: malformed YAML: mapping values are not allowed here" in err


def test_a_missing_extra_is_named_with_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)  # as if the train extra were not installed
    code, _, err = run_cli(capsys, "evaluate", "--env", "Nestor-v0", "--policy", "ppo:runs/x.zip")
    assert code == 2 and err.count("\n") == 1
    assert "policy 'ppo:runs/x.zip' needs the 'train' extra (sb3_contrib is missing)" in err
    assert "pip install 'patience-gym[train]'" in err
    # torch pinned as scripts/setup.sh and the README pin it, never the unpinned multi-GB download
    assert "`pip install torch==2.13.0` (the pinned build) then" in err and "pip install torch`" not in err
    for path in ("scripts/setup.sh", "README.md"):
        assert "torch==2.13.0" in (ROOT / path).read_text(), path
    code, _, err = run_cli(capsys, "train", str(ROOT / "configs" / "ppo" / "tiny.yaml"))
    assert code == 2 and err.startswith("patience-gym train: error: training needs the 'train' extra")


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
    args = ["evaluate", "--env", "Nestor-v0", "--policy", "greedy", "--episodes", "3", "--json"]
    out = subprocess.run(
        [sys.executable, "-m", "patience_gym.agents.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    assert json.loads(out.stdout)[0]["games"] == 3


def test_intervals_at_no_wins_and_all_wins_are_exactly_0_and_1() -> None:
    for n in (3, 100, 200, 1000):  # the subtraction used to leave 5.6e-17, 3.5e-18, ...
        assert wilson(0, n)[0] == 0.0 and wilson(n, n)[1] == 1.0
    result = evaluate("LightAndShade-v0", "random", episodes=100, seed=0)
    assert result.wins == 0
    (row,) = json.loads(to_json([result]))
    assert row["ci95"][0] == 0 and '"ci95": [\n      0.0,' in to_json([result])


def first_legal(env: PatienceEnv, obs: np.ndarray) -> int:
    """A module-level function policy (picklable, so it can run on workers)."""
    return int(env.action_masks().argmax())


class LongNamedGreedy(GreedyPolicy):
    name = "greedy-with-a-long-name-the-table-used-to-cut"


def test_evaluate_takes_policy_objects_and_functions() -> None:
    spec = evaluate("Nestor-v0", "greedy", episodes=8, seed=3)
    obj = evaluate("Nestor-v0", GreedyPolicy(), episodes=8, seed=3)
    assert obj.policy == "greedy"
    assert [(e.won, e.length) for e in obj.episodes] == [(e.won, e.length) for e in spec.episodes]
    fn = evaluate("Nestor-v0", first_legal, episodes=8, seed=3)
    on_two = evaluate("Nestor-v0", first_legal, episodes=8, seed=3, workers=2)
    assert fn.policy == "first_legal" and fn.games == 8
    assert [e.length for e in fn.episodes] == [e.length for e in on_two.episodes]
    with pytest.raises(ValueError, match="cannot be sent to worker processes"):
        evaluate("Nestor-v0", lambda env, obs: first_legal(env, obs), episodes=4, workers=2)
    with pytest.raises(TypeError, match="a policy must be a spec string"):
        evaluate("Nestor-v0", 42, episodes=1)  # type: ignore[arg-type]


def test_table_shows_full_policy_names_and_the_options_in_effect(
    capsys: pytest.CaptureFixture[str],
) -> None:
    table = format_table([evaluate("Klondike-v0", LongNamedGreedy(), episodes=2, env_kwargs={"draw": 3})])
    assert "greedy-with-a-long-name-the-table-used-to-cut " in table
    assert table.splitlines()[0].endswith("options")
    in_effect = "draw=3 passes=1 partial_moves=False stock=hidden worrying_back=False"
    assert table.splitlines()[2].endswith(in_effect)
    code, out, _ = run_cli(capsys, "evaluate", "--env", "StLouis-v0", "--policy", "random", "--episodes", "1")
    assert code == 0 and out.splitlines()[2].endswith("deal=dick recall=False")
    code, out, _ = run_cli(
        capsys, "evaluate", "--env", "StLouis-v0", "--policy", "random", "--episodes", "1", "--json"
    )
    assert json.loads(out)[0]["options"] == {"deal": "dick", "recall": False}
    assert json.loads(out)[0]["env_kwargs"] == {}


def test_a_step_limit_given_reaches_gym_make_and_the_table() -> None:
    result = evaluate("Nestor-v0", "random", episodes=4, env_kwargs={"max_episode_steps": 5})
    assert all(e.length <= 5 for e in result.episodes) and any(e.truncated for e in result.episodes)
    assert result.options == {"reserve": "strict"}  # the rule options (labels are looked up by them)
    assert format_table([result]).splitlines()[2].endswith("reserve=strict max_episode_steps=5")


def _children(pid: int) -> list[str]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return path.read_text().split() if path.exists() else []


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc to see the workers")
def test_ctrl_c_stops_a_multi_worker_evaluation_without_a_traceback() -> None:
    def workers_playing(proc: subprocess.Popen[str]) -> None:
        while len(_children(proc.pid)) < 2 and proc.poll() is None:  # wait for the workers to start
            time.sleep(0.1)
        time.sleep(0.5)  # let them start playing

    args = ["evaluate", "--env", "Louis-v0", "--policy", "greedy", "--episodes", "100000"]
    args += ["--workers", "2", "--json"]
    # 100,000 games would take hours: it stopped early
    returncode, _, out, err = ctrl_c(args, workers_playing, timeout=60)
    assert returncode == 130 and out == ""
    assert err == "patience-gym evaluate: interrupted\n"


@pytest.mark.parametrize(
    "args", [["list"], ["evaluate", "--env", "Nestor-v0", "--policy", "random", "--episodes", "2", "--json"]]
)
def test_a_reader_that_goes_away_ends_the_output_quietly(args: list[str]) -> None:
    # `patience-gym evaluate --json | head`: head closes the pipe once it has read enough; the
    # command stops with SIGPIPE's status (as Unix tools do) and no BrokenPipeError traceback
    proc = subprocess.Popen(
        [sys.executable, "-m", "patience_gym.agents.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the command writes: its first write meets a closed pipe
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141 and err == ""


def test_agents_modules_and_functions_stay_small() -> None:
    for path in sorted((ROOT / "agents").rglob("*.py")):
        source = path.read_text()
        assert len(source.splitlines()) <= 400, path
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                assert length <= 60, f"{path.name}: {node.name} has {length} lines"


def test_the_baselines_page_evaluation_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    text = (ROOT / "docs" / "baselines.md").read_text()
    code = text.split("From Python, `patience_gym.agents.evaluation.evaluate.evaluate`", 1)[1].split(
        "```python", 1
    )[1]
    code = code.split("```", 1)[0].replace("episodes=20", "episodes=3")
    exec(compile(code, "docs/baselines.md", "exec"), {})
    rows = capsys.readouterr().out.splitlines()[2:]
    assert [r.split()[1] for r in rows] == ["random", "greedy", "first_legal"]
    in_effect = "draw=3 passes=1 partial_moves=False stock=hidden worrying_back=False"
    assert all(r.endswith(in_effect) for r in rows)
