"""The README's environment table stays true to the registry."""

from __future__ import annotations

import re

from patience_gym.games import VARIANTS
from tests.helpers import ROOT

README = ROOT / "README.md"


def test_environment_table_matches_the_registry() -> None:
    rows = {}
    for line in README.read_text().splitlines():
        m = re.match(r"\| `(patience_gym/[\w-]+)` \|[^|]*\| (\d) \| (\d+) \| (\d+) \|.*\| (\d+) \|$", line)
        if m:
            rows[m.group(1)] = tuple(int(x) for x in m.groups()[1:])
    assert set(rows) == {v.env_id for v in VARIANTS}, "every registered id has one README row"
    for v in VARIANTS:
        game = v.make_game()
        assert rows[v.env_id] == (game.n_packs, game.n_actions, game.layout.size, v.max_episode_steps), (
            v.env_id
        )


def test_quick_start_is_two_commands_that_exist() -> None:
    text = README.read_text()
    block = text.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert len(commands) == 2
    for cmd in commands:
        script = cmd.split()[1]
        assert (README.parent / script).is_file(), script
    ci = (README.parent / ".ci" / "run").read_text()
    assert commands[1] in ci, ".ci/run runs the README's test command"


def test_the_usage_example_runs(capsys) -> None:  # type: ignore[no-untyped-def]
    text = README.read_text()
    code = text.split("## Using an environment", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "pile 6:" in out and ("True" in out or "False" in out)


def test_the_engines_page_batched_example_runs() -> None:
    from patience_gym.native import native_games

    if "Klondike" not in native_games():
        import pytest

        pytest.skip("the native engine is not built")
    text = (ROOT / "docs" / "engines.md").read_text()
    code = text.split("## The batched environment", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    scope: dict[str, object] = {}
    exec(compile(code, "docs/engines.md", "exec"), scope)
    assert scope["obs"].shape == (256, 690)  # type: ignore[attr-defined]
    assert scope["masks"].shape == (256, 58)  # type: ignore[attr-defined]
