"""``patience-gym solve --dive N``: look again for wins among the deals a label file calls unknown.

The depth-first search commits to the move ordering's first choices near the root and, once its
budget is spent deep in one subtree, never gets back (docs/solver.md: St. Louis). A *dive*
(:func:`patience_gym.solver.dive`) commits one move at a time instead: it searches on from every
legal move with ``N`` nodes, stops at the first search that wins, and otherwise plays the move
whose search reached the most foundation cards. It finds wins only; a deal it does not win stays
unknown (its row untouched).

A won deal's row is replaced (label ``won``, its line, the nodes and seconds of the dive) as
chunks finish. A header line records the nodes per move and the deals the dive left unknown, so an
interrupted run keeps what it found and the same command resumes with the deals not yet dived.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.config import ConfigError
from agents.labels import header_lines, read_labels, write_rows
from patience_gym.games import get_variant
from patience_gym.solver import Label, dive

#: The header line of a dive: its nodes per move, then the seeds it dived and left unknown.
DIVED = "# dived: unknown deals searched again by dives of {nodes} nodes a move; still unknown:"

#: Deals per task handed to a worker (and per rewrite of the label file).
CHUNK = 10


def _dive_chunk(task: tuple[str, dict[str, Any], list[int], int]) -> list[Label]:
    from agents.backends import per_seed

    env, options, seeds, nodes = task
    variant = get_variant(env)
    return per_seed(seeds, lambda s: dive(variant, options, seed=s, move_nodes=nodes))


def _dived_line(head: list[str], nodes: int) -> tuple[int, set[int]]:
    """The index of this dive's header line in ``head`` (appended when missing) and its seeds."""
    prefix = DIVED.format(nodes=nodes)
    for i, line in enumerate(head):
        if line.startswith(prefix):
            return i, {int(s) for s in line[len(prefix) :].split()}
    head.append(prefix)
    return len(head) - 1, set()


def dive_unknown(cfg: Any, nodes: int, *, progress: bool = True) -> tuple[Path, dict[int, Label], int]:
    """Dive (``nodes`` a move) into every deal of ``cfg.seeds`` that the label file calls unknown and
    that no dive of ``nodes`` has tried; return the path, the labels of ``cfg.seeds`` and how many
    deals were dived. ``cfg`` is a :class:`agents.solve.SolveConfig` (its budget is not used)."""
    from agents.solve import existing_labels, solved_chunks

    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes <= 0:
        raise ConfigError(f"--dive takes the nodes a move as a positive integer, got {nodes!r}")
    variant, options, seeds, path = existing_labels(cfg, "--dive")
    head = header_lines(path)
    at, tried = _dived_line(head, nodes)
    done = read_labels(path)
    todo = [s for s in seeds if s in done and done[s].label == "unknown" and s not in tried]
    tasks = [(variant.env_name, options, todo[i : i + CHUNK], nodes) for i in range(0, len(todo), CHUNK)]
    for labels in solved_chunks(cfg, _dive_chunk, tasks, f"dive {variant.env_name}", progress):
        for lb in labels:
            assert lb.seed is not None
            if lb.label == "won":
                done[lb.seed] = lb
            else:
                tried.add(lb.seed)
        head[at] = " ".join([DIVED.format(nodes=nodes), *map(str, sorted(tried))])
        write_rows(path, head, done)
    return path, {s: done[s] for s in seeds if s in done}, len(todo)
