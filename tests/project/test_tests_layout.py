"""The tests are laid out as the code is: tests/<folder>/ holds the tests of <folder> (a package or
module of patience_gym/, or a folder of the checkout), shared code lives in tests/helpers/ only, and
no test module imports another."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.helpers import ROOT, tracked_texts

TESTS = ROOT / "tests"
#: Folders of tests/ that mirror no code: shared test code, fixture files, checks of the whole checkout.
NOT_MIRRORS = {"helpers", "data", "project"}


def _folders() -> list[Path]:
    """Every folder under tests/ (caches left out)."""
    return sorted(p for p in TESTS.rglob("*") if p.is_dir() and p.name != "__pycache__")


def _code_for(folder: str) -> list[Path]:
    """Where the code that tests/<folder>/ tests may live: a package or module of patience_gym/, or
    a folder or module of the checkout (agents/policies, scripts, docs)."""
    candidates = [ROOT / "patience_gym" / folder, ROOT / folder]
    return [p for c in candidates for p in (c, c.with_name(c.name + ".py")) if p.exists()]


def test_every_tests_folder_mirrors_a_folder_of_the_code() -> None:
    strays = []
    for folder in _folders():
        rel = folder.relative_to(TESTS)
        if rel.parts[0] in NOT_MIRRORS:
            continue
        if not _code_for(rel.as_posix()):
            strays.append(rel.as_posix())
    assert not strays, f"tests/ folders that mirror no code (name them as the code they test): {strays}"


def test_no_test_module_sits_at_the_top_of_tests() -> None:
    top = [p.name for p in TESTS.glob("test_*.py")]
    assert not top, f"put these in the tests/ folder of the code they test: {top}"


def test_every_tests_folder_is_a_package() -> None:
    # Packages name each test module by its path (tests.games.test_klondike), so that two folders
    # may hold files of the same name and `tests.helpers` imports from anywhere.
    with_code = [f for f in [TESTS, *_folders()] if any(f.glob("*.py"))]
    missing = [f.relative_to(ROOT).as_posix() for f in with_code if not (f / "__init__.py").is_file()]
    assert not missing, f"these folders need an __init__.py: {missing}"


def _imported(tree: ast.Module, module: str) -> list[str]:
    """The dotted names a module imports (``from a import b`` gives a.b as well as a); relative
    imports are resolved against ``module``, its own dotted name."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".")[: -node.level]
                base = ".".join([*package, base] if base else package)
            names += [base, *(f"{base}.{alias.name}" for alias in node.names)]
    return names


@pytest.mark.parametrize("path", sorted(TESTS.rglob("*.py")), ids=lambda p: p.relative_to(TESTS).as_posix())
def test_no_module_of_tests_imports_a_test_module(path: Path) -> None:
    module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    tree = ast.parse(path.read_text())
    bad = [n for n in _imported(tree, module) if re.fullmatch(r"test_\w+|conftest", n.split(".")[-1])]
    assert not bad, f"{module} imports test modules {bad}: move what they share into tests/helpers"


def test_the_scan_sees_every_kind_of_import() -> None:
    source = "import tests.games.test_a\nfrom test_b import x\nfrom . import test_c\nfrom .test_d import y\n"
    found = _imported(ast.parse(source), "tests.games.test_e")
    assert {"tests.games.test_a", "test_b", "tests.games.test_c", "tests.games.test_d"} <= set(found)
    assert not [n for n in _imported(ast.parse("from tests.helpers import ROOT\n"), "x") if "test_" in n]


#: Files that name tests/ paths as they were when written (history, not directions).
HISTORY = {"CHANGELOG.md"}


def test_every_tests_path_the_project_names_exists() -> None:
    missing = []
    for name, text in tracked_texts({".py", ".md", ".sh", ".toml", ".yaml", ".cpp", ".hpp"}).items():
        if name in HISTORY:
            continue
        for ref in re.findall(r"(?<![\w/.])tests/[\w/]*\w\.py\b", text):
            if not (ROOT / ref).is_file():
                missing.append(f"{name}: {ref}")
    assert not missing, f"these tests/ paths no longer exist: {missing}"
