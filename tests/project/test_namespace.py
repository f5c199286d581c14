"""The agents install as ``patience_gym.agents``: the checkout keeps them in ``agents/``, but a
top-level ``agents`` import name belongs to other packages (the OpenAI Agents SDK among them) and to
users' own folders. Inside ``agents/`` the package's own modules are imported relatively, so the
folder works under its installed name; everything else imports ``patience_gym.agents``. The wheel
test (scripts/wheel_test.sh) installs the wheel beside a foreign ``agents`` package."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

#: ``from agents.x import y`` / ``import agents`` at the start of a line (code, or a docs example).
TOP_LEVEL_AGENTS = re.compile(r"^\s*(from agents(\.| import)|import agents(\.|\s|$|,))", re.M)


def _absolute_own_imports(text: str, name: str) -> list[str]:
    """The imports in ``text`` that name the package absolutely (``agents...`` or
    ``patience_gym.agents...``) instead of relatively."""
    out = []
    for node in ast.walk(ast.parse(text)):
        names = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        out += [
            f"{name}:{node.lineno}: {n}"
            for n in names
            if n.split(".")[0] == "agents"
            or n == "patience_gym.agents"
            or n.startswith("patience_gym.agents.")
        ]
    return out


def test_the_agents_folder_imports_its_own_modules_relatively() -> None:
    found = [
        hit
        for path in sorted((ROOT / "agents").rglob("*.py"))
        for hit in _absolute_own_imports(path.read_text(), str(path.relative_to(ROOT)))
    ]
    assert not found, "absolute imports of the package inside agents/:\n" + "\n".join(found)


def test_the_checks_find_both_spellings_of_an_absolute_import() -> None:
    text = "from agents.common import data\nimport patience_gym.agents.cli\nfrom .common import x\n"
    assert _absolute_own_imports(text, "f") == ["f:1: agents.common", "f:2: patience_gym.agents.cli"]
    assert TOP_LEVEL_AGENTS.search("from agents.registry import make_policy")
    assert TOP_LEVEL_AGENTS.search("    import agents")
    assert not TOP_LEVEL_AGENTS.search("from patience_gym.agents.registry import make_policy")


@pytest.mark.parametrize("folder", ["tests", "scripts", "benchmarks", "docs", "README.md"])
def test_nothing_imports_a_top_level_agents(folder: str) -> None:
    root = ROOT / folder
    paths = [root] if root.is_file() else sorted([*root.rglob("*.py"), *root.rglob("*.md")])
    hits = [
        f"{p.relative_to(ROOT)}: {m.group(0).strip()}"
        for p in paths
        if p != Path(__file__)
        for m in TOP_LEVEL_AGENTS.finditer(p.read_text())
    ]
    assert not hits, "imports of a top-level agents (the package is patience_gym.agents):\n" + "\n".join(hits)


def test_the_cli_runs_beside_a_foreign_agents_package_and_a_local_agents_folder(tmp_path: Path) -> None:
    """A foreign ``agents`` on sys.path and a user's own ``agents/`` in the working folder: the CLI
    and evaluate work, the foreign package stays what it is, and no ``agents.*`` module of ours is
    loaded under that name."""
    foreign = tmp_path / "site" / "agents"
    foreign.mkdir(parents=True)
    (foreign / "__init__.py").write_text("NAME = 'foreign'\n")
    user = tmp_path / "user"
    (user / "agents").mkdir(parents=True)
    (user / "agents" / "__init__.py").write_text("raise ImportError('the local agents/ was imported')\n")
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(tmp_path / 'site')!r})\n"
        "from patience_gym.agents.cli import main\n"
        "status = main(['evaluate', '--env', 'Nestor-v0', '--policy', 'greedy', '--episodes', '3'])\n"
        "import agents\n"
        "assert agents.NAME == 'foreign', agents.__file__\n"
        "ours = sorted(m for m in sys.modules if m.startswith('agents.'))\n"
        "assert not ours, ours\n"
        "print('status', status)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=user, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "greedy" in out.stdout and "status 0" in out.stdout


def test_a_model_saved_under_the_old_module_path_still_loads(tmp_path: Path) -> None:
    """Models saved before the rename name their network ``agents.policies.move_policy``: the loader
    hands SB3 the class itself instead of importing a top-level ``agents`` (which may be another
    package, or none)."""
    pytest.importorskip("sb3_contrib")
    import base64
    import json
    import zipfile

    from patience_gym.agents.policies.move_policy import is_move_policy
    from patience_gym.agents.policies.ppo import _load, _saved_policy_class, shipped_model

    src = shipped_model("Anna-v0")
    assert src is not None
    old = tmp_path / "old.zip"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(old, "w") as zout:
        for item in zin.infolist():
            raw = zin.read(item.filename)
            if item.filename == "data":
                data = json.loads(raw)
                # a pickle naming the class by its old module path, as older saves hold
                stream = b"\x80\x02cagents.policies.move_policy\nMovePolicy\n."
                data["policy_class"][":serialized:"] = base64.b64encode(stream).decode()
                raw = json.dumps(data).encode()
            zout.writestr(item, raw)
    assert _saved_policy_class(str(old)) == ("agents.policies.move_policy", "MovePolicy")
    model = _load(str(old), old.stat().st_mtime)
    assert is_move_policy(model)
    assert _saved_policy_class(str(src)) == ("patience_gym.agents.policies.move_policy", "MovePolicy")
