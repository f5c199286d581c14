"""No import cycle anywhere in the project, and every import in agents/ runs down its floors.

The graph is built from the source with :mod:`ast`, never by importing: every ``import`` and
``from ... import`` of a module, at module level, inside functions and under ``TYPE_CHECKING``
alike (a cycle through a lazy import is a cycle all the same, only hidden), with relative imports
resolved and ``from package import submodule`` counted as importing the submodule.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from tests.helpers import ROOT

#: The importable packages, and the folders of scripts whose modules import them.
PACKAGES = ("patience_gym", "agents")
SCRIPTS = ("scripts", "benchmarks")

#: The rooms, floor by floor from the ground up. A module imports only modules of its own room or
#: of rooms on lower floors: the rules core knows nothing of the agents; ``agents/common`` nothing
#: of the policies; the policies nothing of the registry that names them, of training, evaluation
#: or solving; training and evaluation (one floor) nothing of each other; the command sits on top.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("patience_gym",),
    ("agents.common",),
    ("agents.policies",),
    ("agents.registry",),
    ("agents.training", "agents.evaluation"),
    ("agents.solving",),
    ("agents.cli",),
    SCRIPTS,
)
#: Modules on no floor: the agents package itself, which imports nothing.
UNPLACED = {"agents"}

Graph = Mapping[str, set[str]]


def module_name(path: Path, root: Path = ROOT) -> str:
    """``agents/policies/base.py`` -> ``agents.policies.base``; a package's ``__init__.py`` is
    the package."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the packages and script folders, by dotted name."""
    files = [p for folder in (*PACKAGES, *SCRIPTS) for p in (root / folder).rglob("*.py")]
    return {module_name(p, root): p for p in sorted(files) if "__pycache__" not in p.parts}


def _known(name: str, known: Iterable[str]) -> str | None:
    """``name`` if it is a project module, else its longest prefix that is one (``agents.x.Y``, a
    class, is its module ``agents.x``); ``None`` outside the project."""
    known = set(known)
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        if ".".join(parts[:n]) in known:
            return ".".join(parts[:n])
    return None


def imports_of(name: str, source: str, known: Iterable[str], *, package: bool = False) -> set[str]:
    """The project modules that module ``name`` imports anywhere in ``source`` (``package``: the
    module is a package's ``__init__``, so its relative imports start from itself)."""
    known = set(known)
    here = name.split(".") if package else name.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base_parts = here[: len(here) - node.level + 1] if node.level else []
            base = ".".join([*base_parts, *([node.module] if node.module else [])])
            # ``from pkg import sub`` imports the submodule; ``from mod import name`` the module
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        out.update(t for t in (_known(t, known) for t in targets) if t is not None)
    return out


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the project modules it imports, for every module of the project."""
    modules = project_modules(root)
    return {
        name: imports_of(name, path.read_text(), modules, package=path.name == "__init__.py")
        for name, path in modules.items()
    }


def find_cycle(graph: Graph) -> list[str] | None:
    """A cycle of ``graph`` as ``[a, b, ..., a]``, or ``None`` when it has none (an iterative
    depth-first search: a node met again while it is still on the path closes a cycle)."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path, on_path = [start], {start}
        stack = [iter(sorted(graph.get(start, ())))]
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                stack.pop()
                finished = path.pop()
                on_path.discard(finished)
                done.add(finished)
                continue
            if nxt in on_path:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in done:
                path.append(nxt)
                on_path.add(nxt)
                stack.append(iter(sorted(graph.get(nxt, ()))))
    return None


def floor_of(module: str) -> tuple[int, str] | None:
    """The floor and room of ``module`` (its longest room prefix), or ``None`` on no floor."""
    best: tuple[int, str] | None = None
    for level, rooms in enumerate(FLOORS):
        for room in rooms:
            if (module == room or module.startswith(room + ".")) and (
                best is None or len(room) > len(best[1])
            ):
                best = (level, room)
    return best


def floor_breaches(graph: Graph) -> list[str]:
    """Every import that goes up a floor, or sideways into another room of the same floor."""
    out = []
    for module, targets in sorted(graph.items()):
        here = floor_of(module)
        for target in sorted(targets):
            there = floor_of(target)
            if here is None or there is None or there[1] == here[1]:
                continue
            if there[0] >= here[0]:
                out.append(
                    f"{module} (floor {here[0]}, {here[1]}) imports {target} (floor {there[0]}, {there[1]})"
                )
    return out


# ---- the cycle finder and the graph builder on toy inputs ------------------------------------------


@pytest.mark.parametrize(
    ("graph", "cycle"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, None),
        ({"a": {"b", "c"}, "b": {"d"}, "c": {"d"}, "d": set()}, None),  # a diamond is no cycle
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, ["a", "b", "c", "a"]),
        ({"a": {"a"}}, ["a", "a"]),
        ({"x": {"y"}, "y": set(), "p": {"q"}, "q": {"r"}, "r": {"q"}}, ["q", "r", "q"]),
    ],
)
def test_find_cycle_finds_a_cycle_exactly_when_there_is_one(graph: Graph, cycle: list[str] | None) -> None:
    assert find_cycle(graph) == cycle


def test_imports_of_resolves_relative_lazy_and_submodule_imports() -> None:
    known = {"pkg", "pkg.a", "pkg.b", "pkg.sub", "pkg.sub.c", "pkg.sub.d"}
    source = (
        "from . import d\n"  # a submodule, by a relative import
        "from ..a import thing\n"  # a name of a module: the module
        "import pkg.b as b\n"
        "def later():\n"
        "    from pkg import sub\n"  # the subpackage, imported inside a function
        "    import numpy\n"  # outside the project: no edge
        "if False:\n"
        "    from pkg.sub.c import C\n"
    )
    assert imports_of("pkg.sub.e", source, known) == {"pkg.sub.d", "pkg.a", "pkg.b", "pkg.sub", "pkg.sub.c"}
    assert imports_of("pkg.sub", "from .c import C\n", known, package=True) == {"pkg.sub.c"}


def test_a_cycle_written_into_a_toy_tree_is_caught(tmp_path: Path) -> None:
    for path, text in {
        "agents/__init__.py": "",
        "agents/common/__init__.py": "",
        "agents/common/one.py": "def f():\n    from agents.common import two\n",
        "agents/common/two.py": "from .one import f\n",
        "agents/policies/__init__.py": "",
        "agents/policies/base.py": "from agents.registry import make_policy\n",
        "agents/registry.py": "",
    }.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    graph = import_graph(tmp_path)
    assert find_cycle(graph) == ["agents.common.one", "agents.common.two", "agents.common.one"]
    assert floor_breaches(graph) == [
        "agents.policies.base (floor 2, agents.policies) imports agents.registry (floor 3, agents.registry)"
    ]


# ---- the project ------------------------------------------------------------------------------------


def test_the_project_has_no_import_cycle() -> None:
    graph = import_graph()
    assert "agents.cli" in graph and "patience_gym.env" in graph, "the graph covers both packages"
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_every_import_in_the_project_runs_down_the_floors() -> None:
    assert floor_breaches(import_graph()) == []


def test_every_module_of_agents_stands_on_a_floor() -> None:
    unplaced = [m for m in project_modules() if floor_of(m) is None and m not in UNPLACED]
    assert unplaced == [], f"add the room of {unplaced} to FLOORS"
