"""Every command in README.md and docs/*.md still runs, and every relative link still resolves.

The pages are read as a newcomer reads them: each ```python block is executed and each ```bash
block is run, in order, page by page, in a scratch folder that holds what a checkout holds
(configs/, scripts/, benchmarks/ linked; results/ copied, so a command that writes labels or
tables writes them there). A block a test cannot run (a full training run, a Ray cluster,
installing packages) carries ``<!-- docs-test: skip (why) -->`` on the line before it, and the
reason is required. A block that needs an extra or the native engine says so with
``<!-- docs-test: needs sb3_contrib, patience_gym._native -->`` (modules to import): where one is
missing the rest of the page is skipped, as the other tests skip without their extra. A long
command gets a small variant in the docs instead of a skip where one exists (fewer episodes, a
tiny config), so that what the page shows is what the test runs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import ROOT

#: The pages a newcomer reads: the README and every page under docs/.
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: A fence opening a code block (it may be indented, inside a list item) and its language.
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w+-]*)\s*$")
#: The marker of a block the test does not run, with its reason.
SKIP = re.compile(r"^\s*<!-- docs-test: skip \((?P<why>.*\S.*)\) -->\s*$")
#: The marker of a block that needs modules (an extra, the native engine) to run.
NEEDS = re.compile(r"^\s*<!-- docs-test: needs (?P<modules>[\w.]+(?:, [\w.]+)*) -->\s*$")
#: Any docs-test marker at all (a malformed one must not pass unnoticed).
MARKER = re.compile(r"<!--\s*docs-test")
#: Markdown links and images: ``[text](target)`` and ``src="target"``.
LINK = re.compile(r"\]\(([^)\s]+)\)|\bsrc=\"([^\"]+)\"")
#: What a scratch folder links to (read-only uses) and what it copies (commands may write there).
LINKED = ("configs", "scripts", "benchmarks", "docs")
COPIED = ("results",)
#: Folders of the checkout that commands write by default (tables, label files, pictures): a page's
#: commands must leave them as they were (small variants write elsewhere: --out, --labels).
GUARDED = ("results", "agents/data", "docs/images", "tests/data")


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page: its language, its text and where it starts."""

    page: Path
    line: int
    lang: str
    code: str
    skip: str | None  # the reason, for a block marked skip
    needs: tuple[str, ...] = ()  # modules it imports that an extra or the native build brings

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> Iterator[Block]:
    """The fenced blocks of ``page`` in order, each with the skip reason marked above it."""
    lines = page.read_text().splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, start = len(m["indent"]), i
        body: list[str] = []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        above = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        skip, needs = SKIP.match(above), NEEDS.match(above)
        yield Block(
            page,
            start + 1,
            m["lang"],
            "\n".join(body) + "\n",
            skip["why"] if skip else None,
            tuple(needs["modules"].split(", ")) if needs else (),
        )
        i += 1


ALL = [b for page in PAGES for b in blocks(page)]


def _scratch(tmp: Path) -> Path:
    """A folder laid out like a checkout, where the pages' commands run."""
    for name in LINKED:
        (tmp / name).symlink_to(ROOT / name, target_is_directory=True)
    for name in COPIED:
        shutil.copytree(ROOT / name, tmp / name)
    return tmp


def _stamps() -> dict[str, tuple[int, int]]:
    """Size and modification time of every file in the guarded folders of the checkout."""
    return {
        str(f.relative_to(ROOT)): (f.stat().st_size, f.stat().st_mtime_ns)
        for name in GUARDED
        if (ROOT / name).is_dir()
        for f in (ROOT / name).rglob("*")
        if f.is_file()
    }


def _run_bash(block: Block, cwd: Path) -> None:
    """Run a bash block as one script (stops at the first failing command), the venv's tools first."""
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    env["PYTHONPATH"] = f"{ROOT}{os.pathsep}{env.get('PYTHONPATH', '')}"  # scripts import agents
    env["MPLBACKEND"] = "Agg"
    proc = subprocess.run(
        ["bash", "-euo", "pipefail", "-x", "-c", block.code],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, f"{block.where} failed ({proc.returncode}):\n{proc.stderr[-4000:]}"


def _run_python(block: Block, cwd: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Execute a python block in a fresh namespace, in ``cwd``."""
    monkeypatch.chdir(cwd)
    exec(compile(block.code, block.where, "exec"), {"__name__": "__docs__"})


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_command_of_the_page_runs(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The page's python and bash blocks run in order in one scratch folder (a later block may use
    what an earlier one wrote, as a reader following the page would)."""
    cwd = _scratch(tmp_path)
    before = _stamps()
    ran = 0
    for block in (b for b in ALL if b.page == page):
        if block.skip is not None or block.lang not in ("python", "bash"):
            continue
        for module in block.needs:  # the rest of the page builds on this block: skip it all
            pytest.importorskip(module, reason=f"{block.where} needs {module} (an extra or the native build)")
        if block.lang == "bash":
            _run_bash(block, cwd)
        else:
            _run_python(block, cwd, monkeypatch)
        ran += 1
    capsys.readouterr()  # the examples print; what they print is not checked here
    after = _stamps()
    changed = sorted(f for f in before.keys() | after.keys() if before.get(f) != after.get(f))
    assert not changed, f"{page.name}'s commands wrote into the checkout: {changed} (use --out, --labels)"
    if ran == 0:
        pytest.skip(f"{page.name} has no command a test can run")


def test_every_skip_names_its_reason() -> None:
    """A skipped block says why, in the one marker form; commands are in bash or python blocks."""
    for page in PAGES:
        lines = page.read_text().splitlines()
        for n, line in enumerate(lines, 1):
            if MARKER.search(line):
                assert SKIP.match(line) or NEEDS.match(line), (
                    f"{page.relative_to(ROOT)}:{n}: use <!-- docs-test: skip (why) --> or "
                    "<!-- docs-test: needs module, module -->"
                )
                after = next((x for x in lines[n:] if x.strip()), "")
                assert FENCE.match(after), (
                    f"{page.relative_to(ROOT)}:{n}: the marker must stand above a block"
                )
    for block in ALL:
        if block.lang in ("sh", "shell", "console", "py"):
            pytest.fail(f"{block.where}: label commands ```bash or ```python so that this test runs them")


def test_every_relative_link_resolves() -> None:
    """Links and images between the pages, and to files of the checkout, point at what exists."""
    missing = []
    for page in PAGES:
        text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)  # code is not a link
        for m in LINK.finditer(text):
            target = (m[1] or m[2]).split("#", 1)[0]
            if not target or re.match(r"[a-z]+:", target):  # an anchor on the page, or a URL
                continue
            if not (page.parent / target).exists():
                missing.append(f"{page.relative_to(ROOT)}: {target}")
    assert not missing, f"links to nothing: {missing}"


def test_the_quick_start_does_what_the_readme_says() -> None:
    """``bash scripts/quickstart.sh``: "set up, then random vs greedy on 200 fixed Klondike deals".
    The set-up is the test suite's own; the evaluation it then runs is run here as it stands."""
    script = (ROOT / "scripts" / "quickstart.sh").read_text().splitlines()
    commands = [line for line in script if line.strip() and not line.lstrip().startswith("#")]
    assert "bash scripts/setup.sh" in "\n".join(commands)
    (evaluate,) = [c for c in commands if "patience-gym evaluate" in c]
    assert commands[-1] == evaluate, "the evaluation is the last thing the quick start does"
    bin_dir = Path(sys.executable).parent
    cmd = evaluate.replace(".venv/bin/patience-gym", str(bin_dir / "patience-gym")) + " --json"
    proc = subprocess.run(cmd, shell=True, cwd=ROOT, capture_output=True, text=True, check=False, timeout=300)
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)
    assert [(r["env"], r["policy"], r["games"], r["seed"]) for r in results] == [
        ("Klondike-v0", "random", 200, 0),
        ("Klondike-v0", "greedy", 200, 0),
    ]


def test_the_readme_reads_in_five_minutes() -> None:
    """At most 200 lines: the depth lives in docs/, and the README links to each page there."""
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 200
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"(docs/{page.name})" in text, f"the README links to docs/{page.name}"
