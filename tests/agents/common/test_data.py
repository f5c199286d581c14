"""The package's data (agents/common/data.py): the shipped labels and configs are found through the
package, a shipped config can be named instead of given by path (a file that exists wins), and an
unknown name is one line with status 2 that lists the names there are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from patience_gym.agents.cli import main
from patience_gym.agents.common.config import ConfigError
from patience_gym.agents.common.data import (
    KINDS,
    checkout,
    config_names,
    find_config,
    shipped_configs,
    shipped_labels,
)
from tests.helpers import LABELS, ROOT, needs_ray


def test_a_checkout_finds_its_labels_and_configs() -> None:
    assert checkout() == ROOT
    assert shipped_labels() == LABELS and any(LABELS.glob("*.csv"))
    assert shipped_configs() == ROOT / "configs"


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_shipped_config_can_be_named(kind: str) -> None:
    names = config_names(kind)
    assert "nestor" in names and "defaults" not in names
    for name in names:
        assert find_config(name, kind) == ROOT / "configs" / kind / f"{name}.yaml"


def test_a_path_that_exists_wins_over_a_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "nestor").write_text("env: Nestor-v0\n")
    monkeypatch.chdir(tmp_path)
    assert find_config("nestor", "ppo") == Path("nestor")
    assert find_config(str(ROOT / "configs" / "ppo" / "tiny.yaml"), "ppo") == ROOT / "configs/ppo/tiny.yaml"


def test_an_unknown_name_lists_the_names_and_a_missing_path_says_so() -> None:
    with pytest.raises(ConfigError, match=r"no shipped ppo config .*anna, babette.*tiny"):
        find_config("nestr", "ppo")
    with pytest.raises(ConfigError, match=r"config file 'configs/ppo/nestr.yaml' does not exist"):
        find_config("configs/ppo/nestr.yaml", "ppo")


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (["train", "nestr"], "the shipped ones (train): anna"),
        (["train", "nestr", "--trainer", "rllib"], "the shipped ones (train --trainer rllib): anna"),
        (["evaluate", "nestr"], "the shipped ones (evaluate): anna"),
    ],
)
def test_the_cli_refuses_an_unknown_name_in_one_line(
    argv: list[str], names: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import patience_gym.agents.common.backends

    # no Ray needed
    monkeypatch.setattr(patience_gym.agents.common.backends, "require_scale", lambda flag: None)
    assert main(argv) == 2
    line = _one_line(capsys.readouterr().err)
    assert line.startswith(f"patience-gym {argv[0]}: error: no config file 'nestr'") and names in line


def test_train_reads_the_named_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    import patience_gym.agents.training.sb3

    seen: list[Any] = []
    monkeypatch.setattr(patience_gym.agents.training.sb3, "train", lambda cfg, overwrite: seen.append(cfg))
    assert main(["train", "tiny", "--set", f"output_dir={tmp_path}"]) == 0
    assert (
        seen[0].env == "Nestor-v0" and seen[0].total_timesteps == 256 and seen[0].output_dir == str(tmp_path)
    )


@needs_ray
def test_train_with_rllib_reads_the_named_rllib_config(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ray.rllib")
    import patience_gym.agents.training.rllib

    seen: list[Any] = []
    monkeypatch.setattr(patience_gym.agents.training.rllib, "train", lambda cfg, overwrite: seen.append(cfg))
    assert main(["train", "tiny", "--trainer", "rllib"]) == 0
    from patience_gym.agents.training.rllib_config import load_config

    assert seen == [load_config(str(ROOT / "configs" / "rllib" / "tiny.yaml"))]


def test_evaluate_reads_the_named_eval_config(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "nestor", "--set", "episodes=3", "--set", "policies=[random]", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"env": "Nestor-v0"' in out and '"games": 3' in out


def test_a_merged_view_of_package_folders_reads_the_checkouts(monkeypatch: pytest.MonkeyPatch) -> None:
    """An editable install may give importlib.resources a view merging the checkout's package with
    the copies made in site-packages at install time: the checkout's folder is the one read."""
    import patience_gym.agents.common.data

    class Merged:
        def joinpath(self, part: str) -> Merged:
            return self

    monkeypatch.setattr(patience_gym.agents.common.data, "files", lambda package: Merged())
    assert patience_gym.agents.common.data.package_data("data", "labels") == LABELS
