"""MaskablePPO training from configs: a tiny run end to end, config errors, overrides, resume."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

import yaml
from stable_baselines3.common.callbacks import BaseCallback

from patience_gym.agents.cli import main
from patience_gym.agents.common.config import ConfigError
from patience_gym.agents.common.wrappers import DealSeeds
from patience_gym.agents.evaluation.evaluate import evaluate
from patience_gym.agents.registry import make_policy
from patience_gym.agents.training.config import HELD_OUT_SEEDS, TrainConfig, load_config
from patience_gym.agents.training.envs import make_env
from patience_gym.agents.training.sb3 import TrainingInterrupted, train
from tests.helpers import TINY, ctrl_c

#: Overrides for the quickest run: 64 steps, no evaluation, no checkpoints.
QUICK = ["total_timesteps=64", "ppo.n_steps=32", "ppo.batch_size=32", "eval_freq=0", "checkpoint_freq=0"]
REPORTED: list[str] = []  # what the tiny run reported as it went


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny config trained once (256 steps, checkpoints every 128) for the tests below."""
    out = tmp_path_factory.mktemp("tiny")
    return train(load_config(TINY, [f"output_dir={out}"]), report=REPORTED.append)


def test_tiny_config_trains_saves_reloads_and_evaluates(tiny_run: Path) -> None:
    for name in ("final_model.zip", "best_model.zip", "config.yaml", "train_info.json", "evaluations.npz"):
        assert (tiny_run / name).is_file(), name
    assert sorted(p.name for p in (tiny_run / "checkpoints").iterdir()) == [
        "ppo_128_steps.zip",
        "ppo_256_steps.zip",
    ]
    assert any((tiny_run / "tb").rglob("events.out.tfevents.*"))
    # the resolved config trains again as is
    again = load_config(str(tiny_run / "config.yaml"))
    assert again.output_dir == str(tiny_run) and again.total_timesteps == 256

    policy = make_policy(f"ppo:{tiny_run / 'final_model.zip'}")
    assert make_policy(f"ppo:{tiny_run / 'final_model.zip'}").model is policy.model  # loaded once
    result = evaluate("Nestor-v0", f"ppo:{tiny_run}", episodes=6, seed=0)  # a folder: best_model.zip
    assert result.games == 6 and 0 <= result.mean_foundation_cards <= 52
    again_result = evaluate("Nestor-v0", f"ppo:{tiny_run}", episodes=6, seed=0)
    assert [e.length for e in result.episodes] == [e.length for e in again_result.episodes]


def test_model_plays_with_masks_in_a_few_lines(tiny_run: Path) -> None:
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    env = gym.make("patience_gym/Nestor-v0")
    model = MaskablePPO.load(tiny_run / "final_model.zip", device="cpu")
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
        obs, _, terminated, truncated, info = env.step(action)
        assert not info["illegal_action"]
        done = terminated or truncated


def test_a_model_refuses_another_variant(tiny_run: Path) -> None:
    with pytest.raises(ValueError, match="trained on observations"):
        evaluate("Klondike-v0", f"ppo:{tiny_run / 'final_model.zip'}", episodes=1)


def test_missing_model_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "--env", "Nestor-v0", "--policy", f"ppo:{tmp_path / 'nope.zip'}"]) == 2
    assert "no such model file" in capsys.readouterr().err


def test_resume_continues_the_timestep_count(tiny_run: Path, tmp_path: Path) -> None:
    import json

    from sb3_contrib import MaskablePPO

    out = train(
        load_config(
            TINY,
            [
                f"output_dir={tmp_path}",
                f"resume={tiny_run / 'checkpoints' / 'ppo_128_steps.zip'}",
                "total_timesteps=384",
            ],
        )
    )
    info = json.loads((out / "train_info.json").read_text())
    assert info["resumed_at"] == 128 and info["num_timesteps"] == 384
    assert MaskablePPO.load(out / "final_model.zip", device="cpu").num_timesteps == 384
    assert (out / "checkpoints" / "ppo_384_steps.zip").is_file()


def test_cli_train_with_overrides(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "train",
            TINY,
            "--set",
            f"output_dir={tmp_path}",
            "--set",
            "total_timesteps=64",
            "--set",
            "ppo.n_steps=32",
            "--set",
            "ppo.batch_size=32",
            "--set",
            "env_kwargs.reserve=open",
            "--set",
            "eval_freq=0",
            "--set",
            "checkpoint_freq=0",
            "--set",
            "ppo.learning_rate=lin_1e-3",
        ]
    )
    assert code == 0, capsys.readouterr().err
    resolved = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert resolved["total_timesteps"] == 64 and resolved["env_kwargs"] == {"reserve": "open"}
    assert resolved["ppo"]["n_steps"] == 32 and resolved["ppo"]["learning_rate"] == "lin_1e-3"
    assert resolved["ppo"]["n_epochs"] == 2  # untouched keys keep the file's value
    assert (tmp_path / "final_model.zip").is_file() and not (tmp_path / "best_model.zip").exists()
    assert "trained Nestor-v0 to 64 steps" in capsys.readouterr().out


BAD = [
    (["n_env=4"], "unknown key 'n_env' (did you mean 'n_envs'?); allowed keys: env,"),
    (["n_envs=four"], "key 'n_envs' must be int, got 'four'"),
    (["vec_env=threads"], "key 'vec_env' must be one of 'dummy', 'subproc', 'native'"),
    (["ppo.n_step=128"], "key 'ppo.n_step' is not a MaskablePPO argument (did you mean 'n_steps'?);"),
    (["ppo.ent_coef=high"], "key 'ppo.ent_coef' must be float, got 'high'"),
    (["ppo.learning_rate=cos_1e-3"], "key 'ppo.learning_rate' must be a number or 'lin_<number>'"),
    (["ppo.seed=1"], "key 'ppo.seed' is set elsewhere"),
    (["env=Solitaire-v9"], "key 'env': unknown environment 'Solitaire-v9'; registered: Klondike-v0"),
    (["env_kwargs.draw=3"], "key 'env_kwargs': Nestor has no option 'draw'"),
    (["eval_deal_seed=0"], f"key 'eval_deal_seed' must be >= {HELD_OUT_SEEDS:,}"),
    (["train_deal_seed=500002"], "training deals (train_deal_seed and up) must start above"),
    (["policy_kwargs.activation_fn=sigmoid"], "'sigmoid' is not allowed; choose one of relu"),
    (["seed=-1"], "key 'seed' must be >= 0, got -1"),
    (["ppo.gamma=1.5"], "key 'ppo.gamma' must be between 0 and 1, got 1.5"),
    (["ppo.gae_lambda=-0.1"], "key 'ppo.gae_lambda' must be between 0 and 1, got -0.1"),
    (["ppo.learning_rate=0"], "key 'ppo.learning_rate' must be > 0, got 0"),
    (["ppo.learning_rate=lin_-1e-3"], "key 'ppo.learning_rate' must be > 0, got -0.001"),
    (["ppo.n_steps=0"], "key 'ppo.n_steps' must be >= 1, got 0"),
    (["ppo.target_kl=high"], "key 'ppo.target_kl' must be float, got 'high'"),
    (["ppo.normalize_advantage=1"], "key 'ppo.normalize_advantage' must be bool, got 1"),
    (["policy_kwargs.net_arch=[64, wide]"], "key 'policy_kwargs.net_arch' must be a list of layer sizes"),
    (["policy_kwargs.net_arch=64"], "key 'policy_kwargs.net_arch' must be a list of layer sizes >= 1"),
    (["policy_kwargs.net_arch={pi: [8], vf: [0]}"], "key 'policy_kwargs.net_arch.vf' must be a list"),
    (["policy_kwargs.net_arch={pi: [8]}"], "key 'policy_kwargs.net_arch' must be a list of layer sizes"),
    (["imitation.episodes=0"], "key 'imitation.episodes' must be a positive integer"),
    (["imitation.teachr=greedy"], "key 'imitation': unknown setting(s) ['teachr']"),
    (["imitation.learning_rate=-1"], "key 'imitation.learning_rate' must be a positive number"),
    (
        ["policy=move_scorer"],
        "policy move_scorer scores each move from its features; set move_features: true",
    ),
    (["policy=cnn"], "key 'policy' must be one of 'mlp', 'move_policy', 'move_scorer'"),
    (["policy=move_policy"], "policy move_policy reads the move features the batched engine computes"),
    (
        ["policy_kwargs.scorer_arch=[16]"],
        "key 'policy_kwargs.scorer_arch' is a setting of policy: move_policy or move_scorer only",
    ),
    (
        ["move_features=true", "policy=move_scorer", "policy_kwargs.scorer_arch=[0]"],
        "key 'policy_kwargs.scorer_arch' must be a list of layer sizes >= 1",
    ),
    (["vec_env=native", "move_features=true"], "keys 'vec_env' and 'move_features': the native batch"),
]


@pytest.mark.parametrize(("overrides", "message"), BAD, ids=[b[0][0] for b in BAD])
def test_config_errors_name_the_key(
    overrides: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ConfigError) as exc:
        load_config(TINY, overrides)
    assert message in str(exc.value)
    assert str(exc.value).startswith(TINY)
    argv = ["train", TINY]
    for o in overrides:
        argv += ["--set", o]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("patience-gym train: error:") and message in err and err.count("\n") == 1


def test_train_checks_a_config_built_in_code(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown environment"):
        TrainConfig(env="Nope-v0", total_timesteps=10)
    cfg = TrainConfig(env="Nestor-v0", total_timesteps=10, output_dir=str(tmp_path))
    cfg.ppo = {"n_step": 8}  # edited after construction: train checks again before any work
    with pytest.raises(ConfigError, match="did you mean 'n_steps'"):
        train(cfg)
    with pytest.raises(ConfigError, match="is not a saved model"):
        train(TrainConfig(env="Nestor-v0", total_timesteps=10, output_dir=str(tmp_path), resume="nope.zip"))


def test_training_and_eval_deals_come_from_their_own_seeds() -> None:
    import gymnasium as gym

    import patience_gym  # noqa: F401

    env = make_env("Nestor-v0", {}, reward="foundation", first=1_000_003, stride=8)
    ref = gym.make("patience_gym/Nestor-v0")
    for k in range(3):
        obs, _ = env.reset(seed=0)  # a caller's seed is ignored
        assert (obs == ref.reset(seed=1_000_003 + 8 * k)[0]).all()
    cyc = DealSeeds(gym.make("patience_gym/Nestor-v0"), first=500_000, cycle=2)
    firsts = [cyc.reset()[0] for _ in range(4)]
    assert (firsts[0] == firsts[2]).all() and (firsts[1] == firsts[3]).all()
    assert not (firsts[0] == firsts[1]).all()


def test_revisit_penalty_shapes_only_repeated_positions() -> None:
    env = make_env("Nestor-v0", {}, reward="foundation", first=1_000_000, revisit_penalty=0.25)
    plain = make_env("Nestor-v0", {}, reward="foundation", first=1_000_000)
    env.reset()
    plain.reset()
    a = int(env.unwrapped.action_masks().argmax())
    assert env.step(a)[1] == plain.step(a)[1]  # a new position: the reward is untouched
    game = env.unwrapped.game
    game.state_key = lambda: "always the same"  # type: ignore[method-assign]
    env.reset()
    a = int(env.unwrapped.action_masks().argmax())
    plain.reset()
    assert env.step(a)[1] == pytest.approx(plain.step(a)[1] - 0.25)


def test_training_reports_each_evaluation_and_keeps_them_in_a_csv(tiny_run: Path) -> None:
    evals = [line for line in REPORTED if line.startswith("eval at")]
    # the first before any update (the untrained network, after the first step of its 2 envs)
    assert [e.split(" steps")[0] for e in evals] == ["eval at 2", "eval at 128", "eval at 256"]
    assert all("win rate " in e and "cards on the foundations" in e for e in evals)
    assert REPORTED[-1].startswith("trained Nestor-v0 to 256 steps in ") and "best model at " in REPORTED[-1]
    lines = (tiny_run / "evaluations.csv").read_text().splitlines()
    assert lines[0] == "steps,win_rate,mean_foundation_cards,mean_reward,mean_length"
    rows = [line.split(",") for line in lines[1:]]
    assert [r[0] for r in rows] == ["2", "128", "256"]
    assert all(0 <= float(r[1]) <= 1 and 0 < float(r[2]) <= 52 for r in rows)  # Nestor pairs some cards
    info = json.loads((tiny_run / "train_info.json").read_text())
    assert info["last_evaluation"]["steps"] == 256 and info["interrupted"] is False
    assert info["imitation_seconds"] < 1  # no warm start in tiny.yaml: nothing but the timer


@pytest.mark.parametrize("vec_env", ["dummy", "native"])
def test_a_run_shorter_than_eval_freq_evaluates_within_it_and_at_its_end(
    tmp_path: Path, vec_env: str
) -> None:
    # issue 47: a short run of a shipped config (eval_freq 100,000s) evaluated only the untrained
    # network and kept it as best_model.zip; now the periodic evaluation comes within the run and
    # the final model is evaluated too (dummy: sb3's masked evaluation; native: the batched one)
    lines: list[str] = []
    overrides = ["total_timesteps=100", "eval_freq=1000000", "checkpoint_freq=0", f"vec_env={vec_env}"]
    train(load_config(TINY, [f"output_dir={tmp_path}", *overrides]), report=lines.append)
    steps = [int(line.split(",")[0]) for line in (tmp_path / "evaluations.csv").read_text().splitlines()[1:]]
    # the untrained network, the periodic point capped to the run (100 steps: 50 calls of 2 envs),
    # and the model sb3 ends with after its one rollout of 2 x 64 steps
    assert steps[1:] == [100, 128] and steps[0] <= 2, steps
    info = json.loads((tmp_path / "train_info.json").read_text())
    assert info["last_evaluation"]["steps"] == 128 == info["num_timesteps"]
    closing = lines[-1]
    assert (
        closing.startswith("trained Nestor-v0 to 128 steps in ")
        and "final model at 128 steps: win rate " in closing
    )
    assert "best model at " in closing and closing.endswith(f"models in {tmp_path}/")


def test_saved_config_shows_the_env_options_in_effect(tiny_run: Path) -> None:
    saved = yaml.safe_load((tiny_run / "config.yaml").read_text())
    assert "env_kwargs" not in yaml.safe_load(Path(TINY).read_text())
    assert saved["env_kwargs"] == {"reserve": "strict"}  # Nestor's default, written out


def test_a_non_empty_output_dir_needs_overwrite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "ppo_999_steps.zip").write_text("an older run")
    (tmp_path / "notes.txt").write_text("mine")
    argv = ["train", TINY, "--set", f"output_dir={tmp_path}"] + [a for q in QUICK for a in ("--set", q)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not empty (checkpoints, notes.txt, ...); pass --overwrite" in err
    assert main([*argv, "--overwrite"]) == 0
    assert (tmp_path / "final_model.zip").is_file() and (tmp_path / "notes.txt").read_text() == "mine"
    assert not (tmp_path / "checkpoints").exists()  # the older run's checkpoint does not mix in


def test_an_unwritable_output_dir_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(["train", TINY, "--set", f"output_dir={blocker / 'run'}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"key 'output_dir': cannot write to '{blocker / 'run'}'" in err


def test_resume_with_another_n_envs_is_refused(
    tiny_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkpoint = tiny_run / "checkpoints" / "ppo_128_steps.zip"
    argv = [
        "train",
        TINY,
        "--set",
        f"output_dir={tmp_path}",
        "--set",
        f"resume={checkpoint}",
        "--set",
        "n_envs=4",
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "key 'n_envs': " in err and "was trained with n_envs=2, this config has 4" in err


class StopAt(BaseCallback):
    """A callback pressing Ctrl-C after ``steps`` steps."""

    def __init__(self, steps: int) -> None:
        super().__init__()
        self.steps = steps

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.steps:
            raise KeyboardInterrupt
        return True


def test_ctrl_c_during_training_saves_a_model(tmp_path: Path) -> None:
    cfg = load_config(TINY, [f"output_dir={tmp_path}", "total_timesteps=100000", "checkpoint_freq=0"])
    with pytest.raises(TrainingInterrupted) as exc:
        train(cfg, report=lambda line: None, callbacks=[StopAt(70)])
    assert exc.value.steps == 70 and exc.value.path == tmp_path / "checkpoints" / "ppo_70_steps.zip"
    assert exc.value.path.is_file() and not (tmp_path / "final_model.zip").exists()
    info = json.loads((tmp_path / "train_info.json").read_text())
    assert info["interrupted"] is True and info["num_timesteps"] == 70
    assert info["last_evaluation"]["steps"] == 70  # the model as it stopped, evaluated
    assert (tmp_path / "evaluations.csv").read_text().splitlines()[-1].startswith("70,")
    resumed = train(
        load_config(TINY, [f"output_dir={tmp_path}", f"resume={exc.value.path}"]), report=lambda line: None
    )
    info = json.loads((resumed / "train_info.json").read_text())
    assert info["resumed_at"] == 70 and info["num_timesteps"] >= 256  # sb3 finishes its rollout


def test_ctrl_c_in_patience_gym_train_exits_with_one_line(tmp_path: Path) -> None:
    def first_line(proc: subprocess.Popen[str]) -> str:
        assert proc.stdout is not None
        return proc.stdout.readline()  # the first periodic evaluation: training is under way

    sets = [f"output_dir={tmp_path}", "total_timesteps=10000000", "eval_freq=64", "checkpoint_freq=0"]
    args = ["train", TINY, *(arg for value in sets for arg in ("--set", value))]
    returncode, first, _, err = ctrl_c(args, first_line, timeout=120)
    assert first.startswith("eval at 2 steps: win rate ")  # the untrained network (2 envs), first
    assert returncode == 130 and err.count("\n") == 1, err
    assert err.startswith("patience-gym train: interrupted: interrupted at ")
    saved = Path(err.split("model saved to ")[1].split(";")[0])
    assert saved.parent == tmp_path / "checkpoints" and saved.is_file()
    assert err.rstrip().endswith(f"resume with --set resume={saved}")


def test_vec_env_native_trains_from_the_batched_engine(tmp_path: Path) -> None:
    """``vec_env: native``: MaskablePPO collects its rollouts from the one-call batched engine."""
    from patience_gym.native import native_games

    if "Nestor" not in native_games():  # the tiny config plays Nestor
        pytest.skip("the native engine is not built")
    out = train(load_config(TINY, [*QUICK, "vec_env=native", "n_envs=4", f"output_dir={tmp_path / 'n'}"]))
    model = out / "final_model.zip"
    assert model.is_file()
    result = evaluate("Nestor-v0", f"ppo:{model}", episodes=2, seed=0)
    assert result.games == 2 and all(e.length > 0 for e in result.episodes)


def test_vec_env_native_refuses_revisit_shaping() -> None:
    with pytest.raises(ConfigError, match="vec_env"):
        load_config(TINY, ["vec_env=native", "revisit_penalty=0.01"])
