"""``patience-gym solve``: label deals won / lost / unknown for a player who sees every card.

::

    patience-gym solve --env Nestor-v0 --seeds 0:1000 --workers 2
    patience-gym solve --env Klondike-v0 --set env_kwargs.draw=3 --set env_kwargs.passes=None
    patience-gym solve --env Babette-v0 --deck my_deal.txt
    patience-gym solve --env Klondike-v0 --seeds 0:1000 --budget 15000000 --deepen
    patience-gym solve --env StLouis-v0 --dive 2000 --workers 2

A run over seeds writes one label file per variant and option set,
``<EnvName>[__option=value...].csv`` (only the options that differ from the registered defaults
name the file) in the ``--labels`` folder. Without ``--labels`` a checkout (or an editable install)
writes the package's own labels, ``agents/data/labels/``, the ones ``evaluate`` reads by default;
an installed package does not write into itself, and asks for ``--labels DIR`` in one line.
Rows are written as chunks of deals finish, so an interrupted run keeps what it labelled, and the
same command resumes where it stopped. ``patience-gym
evaluate`` reads these files to report each policy's share of the winnable deals. ``--deepen``
solves again, with a larger budget, the deals a file labels unknown: each deal's row is replaced
as soon as it finishes, a ``# deepened`` header line records the budget, and each row's ``nodes`` says
what that deal used. ``--dive N`` looks for wins among the unknown deals another way
(:mod:`agents.solving.dive`).

File format: ``#`` lines (the env, its rule options, the budget) then CSV rows
``seed,label,nodes,seconds,length,actions`` where ``actions`` is a winning line of action ids
separated by spaces (empty unless won): ``env.reset(seed=seed)`` then ``env.step`` each id wins.
"""

from __future__ import annotations

import csv
import json
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from patience_gym.games import get_variant
from patience_gym.solver import Label, solve_deal

from ..common.backends import add_backend_arguments, per_seed, ray_command, refuse_workers_on_a_cluster
from ..common.config import ConfigError, load
from ..common.data import add_labels_argument
from .chunks import CHUNK, SolveConfig, existing_labels, parse_seeds, solved_chunks
from .dive import add_search_arguments, check_modes, search_mode
from .labels import (
    DEEPENED,
    FIELDS,
    check_header,
    file_budget,
    format_summary,
    header_lines,
    label_header,
    label_path,
    label_row,
    probe_text,
    read_labels,
    rule_options,
    sort_rows,
    summarize,
    writable_labels,
    write_rows,
)


def _solve_chunk(task: tuple[str, dict[str, Any], list[int], int, float | None, int]) -> list[Label]:
    env, options, seeds, budget, seconds, probe = task
    variant = get_variant(env)
    return per_seed(
        seeds,
        lambda s: solve_deal(
            variant, options, seed=s, max_nodes=budget, max_seconds=seconds, probe_nodes=probe
        ),
    )


def label_seeds(
    cfg: SolveConfig, *, overwrite: bool = False, progress: bool = True
) -> tuple[Path, dict[int, Label]]:
    """Label every seed of ``cfg`` not yet in its label file; return the path and all its labels."""
    variant = get_variant(cfg.env)
    options = rule_options(variant, cfg.env_kwargs)
    seeds = parse_seeds(cfg.seeds)
    path = label_path(variant, options, writable_labels(cfg.labels))
    header = label_header(variant, options, cfg.budget, cfg.seconds, cfg.probe_nodes)
    if path.exists() and not overwrite:
        check_header(path, header)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(header) + "\n" + ",".join(FIELDS) + "\n")
    done = read_labels(path)
    todo = [s for s in seeds if s not in done]
    tasks = [
        (variant.env_name, options, todo[i : i + CHUNK], cfg.budget, cfg.seconds, cfg.probe_nodes)
        for i in range(0, len(todo), CHUNK)
    ]
    with path.open("a", newline="") as f:
        writer = csv.writer(f)
        for labels in solved_chunks(cfg, _solve_chunk, tasks, f"solve {variant.env_name}", progress):
            for lb in labels:
                writer.writerow(label_row(lb))
                assert lb.seed is not None
                done[lb.seed] = lb
            f.flush()
    sort_rows(path)
    return path, {s: done[s] for s in seeds if s in done}


def deepen_unknown(cfg: SolveConfig, *, progress: bool = True) -> tuple[Path, dict[int, Label], int]:
    """Solve again, with ``cfg.budget`` nodes, every deal of ``cfg.seeds`` that the label file
    calls unknown and that has not yet used that budget. Each deal's row is replaced in the file as
    soon as it finishes, so an interrupted run keeps them and the same command resumes. Returns the path, the
    labels of ``cfg.seeds`` and how many deals were solved again."""
    variant, options, seeds, path = existing_labels(cfg, "--deepen")
    base = file_budget(path)
    if cfg.budget <= base:
        raise ConfigError(
            f"--deepen needs a budget above the file's {base:,} nodes per deal (got {cfg.budget:,}); "
            "the unknown deals already used that much"
        )
    header = header_lines(path)
    deepened = [line for line in header if line.startswith("# deepened:")]
    before = int(deepened[-1].split("up to ")[1].split()[0]) if deepened else 0
    if cfg.budget < before:  # the same budget again resumes an interrupted run
        raise ConfigError(
            f"{path} was deepened to {before:,} nodes per deal already; --deepen needs at least that "
            f"(got {cfg.budget:,})"
        )
    done = read_labels(path)
    # An unknown deal stopped after budget + 1 nodes: one at or below cfg.budget has more to search.
    todo = [s for s in seeds if s in done and done[s].label == "unknown" and done[s].nodes <= cfg.budget]
    line = DEEPENED.format(budget=cfg.budget) + probe_text(cfg.probe_nodes)
    line += f", or {cfg.seconds:g} seconds a deal" if cfg.seconds else ""
    head = [h for h in header if h != line] + [line]  # earlier deepenings stay on record
    write_rows(path, head, done)
    # One deal a task: a deepened deal can take minutes, and each is written as soon as it ends, so
    # an interrupted run loses at most the deals in progress.
    tasks = [(variant.env_name, options, [s], cfg.budget, cfg.seconds, cfg.probe_nodes) for s in todo]
    for labels in solved_chunks(cfg, _solve_chunk, tasks, f"deepen {variant.env_name}", progress):
        for lb in labels:
            assert lb.seed is not None
            done[lb.seed] = lb
        write_rows(path, head, done)
    return path, {s: done[s] for s in seeds if s in done}, len(todo)


def solve_deck(cfg: SolveConfig, deck_file: str) -> tuple[Label, list[str]]:
    """Solve the deal in ``deck_file`` (card strings, first dealt first, separated by spaces,
    commas or newlines); return the label and the winning line described move by move."""
    variant = get_variant(cfg.env)
    options = rule_options(variant, cfg.env_kwargs)
    try:
        text = Path(deck_file).read_text()
    except OSError as exc:
        raise ConfigError(f"cannot read the deck file {deck_file}: {exc.strerror}") from None
    deck = text.replace(",", " ").split()
    probe = cfg.probe_nodes
    label = solve_deal(
        variant, options, deck=deck, max_nodes=cfg.budget, max_seconds=cfg.seconds, probe_nodes=probe
    )
    game = variant.make_game(**options)
    game.new_game(deck=deck)
    described = []
    for a in label.actions:
        described.append(game.describe(a))
        game.apply(a)
    return label, described


def print_json(obj: Any) -> None:
    json.dump(obj, sys.stdout, indent=2)
    print()


# ---- the command --------------------------------------------------------------------------------


def add_arguments(p: Any) -> None:
    p.add_argument("config", nargs="?", help="YAML config with the keys below; flags override it")
    p.add_argument("--env", help="environment id, e.g. Klondike-v0")
    p.add_argument("--seeds", help="START:STOP, the deals of reset(seed=START) .. STOP-1 (default 0:1000)")
    p.add_argument(
        "--deck", metavar="FILE", help="solve this one deal instead (card strings, first dealt first)"
    )
    p.add_argument("--budget", type=int, help="nodes per deal before answering unknown (default 2000000)")
    p.add_argument(
        "--probe",
        type=int,
        help="nodes of the budget spent first on a limited discrepancy search for a win "
        "(default a tenth of the budget; 0 for none)",
    )
    p.add_argument("--seconds", type=float, help="also stop a deal after this many seconds")
    add_backend_arguments(p, "deals")
    add_labels_argument(p, "written (an installed package's own are not: give --labels)")
    p.add_argument("--overwrite", action="store_true", help="label again from scratch instead of resuming")
    p.add_argument(
        "--deepen",
        action="store_true",
        help="solve again, with --budget (above the file's), the deals the label file calls unknown",
    )
    add_search_arguments(p)
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="e.g. env_kwargs.draw=3")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")


def _label(
    cfg: SolveConfig, args: Any, dive: int | None, play: str | None, nested: bool, width: int | None
) -> tuple[Path, dict[int, Label]]:
    """Run the labelling mode the flags ask for; return the label file and its labels of the seeds."""
    if dive is not None or nested or play is not None or width is not None:
        return search_mode(cfg, dive, play, not args.json, width)
    if args.deepen:
        path, labels, again = deepen_unknown(cfg, progress=not args.json)
        if not args.json:
            print(f"solved again with {cfg.budget:,} nodes: {again} unknown deal(s)")
        return path, labels
    return label_seeds(cfg, overwrite=args.overwrite, progress=not args.json)


def run(args: Any) -> int:
    keys = ("env", "seeds", "budget", "probe", "seconds", "workers", "labels", "backend", "address")
    flags = {k: getattr(args, k) for k in keys}
    cfg = load(SolveConfig, args.config, args.set, **flags)
    check_modes(args)
    dive, play = getattr(args, "dive", None), getattr(args, "play", None)
    nested, width = getattr(args, "nested", False), getattr(args, "beam", None)
    if args.deck:
        label, described = solve_deck(cfg, args.deck)
        if args.json:
            print_json(
                {
                    "label": label.label,
                    "nodes": label.nodes,
                    "seconds": label.seconds,
                    "actions": list(label.actions),
                }
            )
        else:
            print(f"{cfg.env}: {label.label} ({label.nodes:,} nodes, {label.seconds:.3f} s)")
            for i, text in enumerate(described, 1):
                print(f"{i:4d}. {text}")
        return 0
    if cfg.backend == "ray":
        refuse_workers_on_a_cluster(args.workers, cfg.address)
    # On Ray, what Ray prints goes to stderr and the Ray this command started stops before the
    # summary is printed: --json's output is JSON alone.
    ray = ray_command(cfg.address, cfg.workers if cfg.workers > 1 else None) if cfg.backend == "ray" else None
    try:
        with ray or nullcontext():
            path, labels = _label(cfg, args, dive, play, nested, width)
    except OSError as exc:
        if exc.filename is None:  # not a file's error (a lost connection, say): not the labels'
            raise
        # The folder was checked before the search (writable_labels); this is what it could not
        # tell: a label file that is a folder, a disk full, permissions changed on the way.
        raise ConfigError(f"cannot write the labels at {exc.filename}: {exc.strerror}") from None
    summary = summarize(labels.values())
    if args.json:
        print_json(
            {
                "env": cfg.env,
                "labels": str(path),
                **summary.__dict__,
                "decided": summary.decided,
                "winnable": summary.winnable,
                "ci95": list(summary.interval),
            }
        )
    else:
        print(format_summary(cfg.env, summary))
        print(f"labels: {path}")
    return 0
