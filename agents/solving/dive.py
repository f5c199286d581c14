"""``patience-gym solve --dive N | --nested | --play SPEC | --beam W``: look again for wins among the
deals a label file calls unknown.

The depth-first search commits to the move ordering's first choices near the root and, once its
budget is spent deep in one subtree, never gets back (docs/solver.md: St. Louis). A *dive*
(:func:`patience_gym.solver.dive`) commits one move at a time instead: it searches on from every
legal move with ``N`` nodes, stops at the first search that wins, and otherwise plays the move
whose search reached the most foundation cards. It finds wins only; a deal it does not win stays
unknown (its row untouched).

A won deal's row is replaced (label ``won``, its line, the nodes and seconds of the dive) as
chunks finish. A header line records the nodes per move and the deals the dive left unknown, so an
interrupted run keeps what it found and the same command resumes with the deals not yet dived.

``--nested`` does the same with a nested rollout search (level 1; Cazenave's nested Monte-Carlo
search; :func:`patience_gym.solver.nested_rollout`): every legal move rolled out by the fast native
base policy, the best line met remembered and followed. ``--play SPEC`` plays each unknown deal
with a policy (``planner:...``, ``rollout:16``, ``ppo:<model>``) through ``gym.make``: a game it
wins is a winning line like any other, and proves the deal winnable whatever the policy read.
``--beam W`` searches each unknown deal with the layered beam search (:func:`patience_gym.solver.beam`,
``src/native/beam.hpp``; Light and Shade, Anna, Klondike with limited passes), ``--budget`` nodes a
deal: at most ``W`` positions go on from each layer of cards taken from the pack. It answers lost
(the row replaced) only when no layer was cut, so that the search was exhaustive.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from patience_gym.games import get_variant
from patience_gym.solver import Label, beam, dive, has_beam_layers, nested_rollout

from ..common.backends import per_seed
from ..common.config import ConfigError
from .chunks import existing_labels, solved_chunks
from .labels import header_lines, read_labels, rule_options, write_rows

#: The header line of a dive: its nodes per move, then the seeds it dived and left unknown.
DIVED = "# dived: unknown deals searched again by dives of {nodes} nodes a move; still unknown:"
#: The header line of the nested rollout search, then the seeds it left unknown.
NESTED = "# nested: unknown deals searched again by nested rollouts (level 1); still unknown:"
#: The header line of a policy's play (``--play``): the policy's spec, then the seeds it did not win.
PLAYED = "# played: unknown deals played by the policy {spec}, a win being a winning line; still unknown:"
#: The header line of the beam search: its width and nodes, then the seeds it left unknown.
BEAMED = (
    "# beam: unknown deals searched again by a layered beam of width {width} ({nodes} nodes); still unknown:"
)


def _dive_chunk(task: tuple[str, dict[str, Any], list[int], int]) -> list[Label]:
    env, options, seeds, nodes = task
    variant = get_variant(env)
    return per_seed(seeds, lambda s: dive(variant, options, seed=s, move_nodes=nodes))


def _nested_chunk(task: tuple[str, dict[str, Any], list[int], int]) -> list[Label]:
    env, options, seeds, _ = task
    variant = get_variant(env)
    return per_seed(seeds, lambda s: nested_rollout(variant, options, seed=s))


def _beam_chunk(task: tuple[str, dict[str, Any], list[int], tuple[int, int, float]]) -> list[Label]:
    env, options, seeds, (width, nodes, seconds) = task
    variant = get_variant(env)
    return per_seed(
        seeds, lambda s: beam(variant, options, seed=s, width=width, max_nodes=nodes, max_seconds=seconds)
    )


def _play_chunk(task: tuple[str, dict[str, Any], list[int], str]) -> list[Label]:
    env, options, seeds, spec = task
    return per_seed(seeds, lambda s: played(env, options, s, spec))


def played(env: str, options: dict[str, Any], seed: int, spec: str) -> Label:
    """Deal ``seed`` played to its end by the policy ``spec`` through ``gym.make``: **won** with the
    actions it played when it wins (a line that replays to a win by construction), else unknown."""
    import gymnasium as gym

    from ..evaluation.evaluate import play_one
    from ..registry import make_policy

    start = time.perf_counter()
    game_env = gym.make(get_variant(env).env_id, **options)
    line: list[int] = []
    episode = play_one(game_env, game_env.unwrapped, make_policy(spec), seed, 0, line)  # type: ignore[arg-type]
    game_env.close()  # type: ignore[no-untyped-call, unused-ignore]
    seconds = time.perf_counter() - start
    if episode.won:
        return Label(seed, "won", 0, seconds, tuple(line))
    return Label(seed, "unknown", 0, seconds, best_cards=episode.foundation_cards)


def _searched_line(head: list[str], prefix: str) -> tuple[int, set[int]]:
    """The index of this search's header line in ``head`` (appended when missing) and its seeds."""
    for i, line in enumerate(head):
        if line.startswith(prefix):
            return i, {int(s) for s in line[len(prefix) :].split()}
    head.append(prefix)
    return len(head) - 1, set()


def dive_unknown(cfg: Any, nodes: int, *, progress: bool = True) -> tuple[Path, dict[int, Label], int]:
    """Dive (``nodes`` a move) into every deal of ``cfg.seeds`` that the label file calls unknown and
    that no dive of ``nodes`` has tried; return the path, the labels of ``cfg.seeds`` and how many
    deals were dived. ``cfg`` is a :class:`agents.solving.chunks.SolveConfig` (its budget is not used)."""
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes <= 0:
        raise ConfigError(f"--dive takes the nodes a move as a positive integer, got {nodes!r}")
    return search_unknown(cfg, "--dive", DIVED.format(nodes=nodes), _dive_chunk, nodes, progress)


def nested_unknown(cfg: Any, *, progress: bool = True) -> tuple[Path, dict[int, Label], int]:
    """:func:`dive_unknown` with a nested rollout search (:func:`patience_gym.solver.nested_rollout`)
    in place of the dives."""
    return search_unknown(cfg, "--nested", NESTED, _nested_chunk, 0, progress)


def play_unknown(cfg: Any, spec: str, *, progress: bool = True) -> tuple[Path, dict[int, Label], int]:
    """:func:`dive_unknown` with the policy ``spec`` playing each unknown deal (:func:`played`): a
    game it wins is a winning line, whatever the policy read."""
    from ..registry import make_policy

    try:
        make_policy(spec)
    except ValueError as exc:
        raise ConfigError(f"--play: {exc}") from None
    return search_unknown(cfg, "--play", PLAYED.format(spec=spec), _play_chunk, spec, progress)


def beam_unknown(cfg: Any, width: int, *, progress: bool = True) -> tuple[Path, dict[int, Label], int]:
    """:func:`dive_unknown` with the layered beam search of ``width`` (``cfg.budget`` nodes a deal)."""
    if isinstance(width, bool) or not isinstance(width, int) or width <= 0:
        raise ConfigError(f"--beam takes the beam width as a positive integer, got {width!r}")
    variant = get_variant(cfg.env)
    if not has_beam_layers(variant, rule_options(variant, cfg.env_kwargs)):
        raise ConfigError(
            f"--beam: {cfg.env} has no beam layers; the beam search needs a game whose play advances "
            "through the pack in one direction (LightAndShade-v0, Anna-v0)"
        )
    prefix = BEAMED.format(width=width, nodes=cfg.budget)
    return search_unknown(
        cfg, "--beam", prefix, _beam_chunk, (width, cfg.budget, cfg.seconds or 0.0), progress
    )


def search_unknown(
    cfg: Any, flag: str, prefix: str, chunk: Callable[[Any], list[Label]], arg: Any, progress: bool
) -> tuple[Path, dict[int, Label], int]:
    """Run ``chunk`` over the deals of ``cfg.seeds`` the label file calls unknown and that the search
    named by the header line ``prefix`` has not tried; a won deal's row is replaced, the others are
    named on that header line, and the file is rewritten after every deal (one deal a task: a search
    can take minutes a deal, and an interrupted run keeps every deal it finished and resumes)."""
    variant, options, seeds, path = existing_labels(cfg, flag)
    head = header_lines(path)
    at, tried = _searched_line(head, prefix)
    done = read_labels(path)
    todo = [s for s in seeds if s in done and done[s].label == "unknown" and s not in tried]
    tasks = [(variant.env_name, options, [s], arg) for s in todo]
    for labels in solved_chunks(cfg, chunk, tasks, f"{flag[2:]} {variant.env_name}", progress):
        for lb in labels:
            assert lb.seed is not None
            if lb.label != "unknown":  # won, or lost by a search that proves it (--beam)
                done[lb.seed] = lb
            else:
                tried.add(lb.seed)
        head[at] = " ".join([prefix, *map(str, sorted(tried))])
        write_rows(path, head, done)
    return path, {s: done[s] for s in seeds if s in done}, len(todo)


#: The flags of ``patience-gym solve`` that search a label file's unknown deals again, with their
#: arguments for argparse (in the order ``--help`` lists them).
SEARCH_FLAGS: dict[str, dict[str, Any]] = {
    "--dive": {
        "type": int,
        "metavar": "N",
        "help": "look for wins among the deals the label file calls unknown by diving, N nodes a move "
        "(agents/solving/dive.py); finds wins only",
    },
    "--nested": {
        "action": "store_true",
        "help": "look for wins among the unknown deals by nested rollouts (agents/solving/dive.py); "
        "finds wins only",
    },
    "--play": {
        "metavar": "SPEC",
        "help": "look for wins among the unknown deals by playing a policy (e.g. rollout:16, "
        "planner:..., ppo:<model>); its wins are winning lines",
    },
    "--beam": {
        "type": int,
        "metavar": "W",
        "help": "look for wins among the unknown deals by a layered beam search of width W, --budget "
        "nodes a deal (agents/solving/dive.py; Light and Shade, Anna, Klondike with limited passes)",
    },
}


def add_search_arguments(p: Any) -> None:
    """Add :data:`SEARCH_FLAGS` to ``patience-gym solve``'s parser ``p``."""
    for flag, kwargs in SEARCH_FLAGS.items():
        p.add_argument(flag, **kwargs)


def check_modes(args: Any) -> None:
    """Refuse ``patience-gym solve``'s flags that do not go together."""
    dive: int | None = getattr(args, "dive", None)
    nested, play = getattr(args, "nested", False), getattr(args, "play", None)
    modes = {
        "--beam": ("searches the unknown deals of a label file", getattr(args, "beam", None) is not None),
        "--dive": ("searches the unknown deals of a label file", dive is not None),
        "--nested": ("searches the unknown deals of a label file", nested),
        "--play": ("plays the unknown deals of a label file", play is not None),
        "--deepen": ("solves again the unknown deals of a label file", args.deepen),
    }
    for mode, (what, given) in modes.items():
        others = {"--deck": args.deck, "--overwrite": args.overwrite} | {m: g for m, (_, g) in modes.items()}
        for flag, other in others.items():
            if given and other and flag != mode:
                raise ConfigError(f"{mode} {what}; it cannot be used with {flag}")


def search_mode(
    cfg: Any, dive: int | None, play: str | None, progress: bool, beam_width: int | None = None
) -> tuple[Path, dict[int, Label]]:
    """``patience-gym solve``'s ``--dive N``, ``--play SPEC``, ``--beam W`` or else ``--nested``,
    over the label file's unknown deals; prints how many were searched when ``progress``."""
    if beam_width is not None:
        path, labels, again = beam_unknown(cfg, beam_width, progress=progress)
        how = f"searched by a beam of width {beam_width:,}"
    elif dive is not None:
        path, labels, again = dive_unknown(cfg, dive, progress=progress)
        how = f"dived with {dive:,} nodes a move"
    elif play is not None:
        path, labels, again = play_unknown(cfg, play, progress=progress)
        how = f"played by {play}"
    else:
        path, labels, again = nested_unknown(cfg, progress=progress)
        how = "searched by nested rollouts"
    if progress:
        print(f"{how}: {again} unknown deal(s)")
    return path, labels
