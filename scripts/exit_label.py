"""Label training deals for expert iteration (issue 46), resumably: the same command continues.

::

    nice -n 19 python scripts/exit_label.py --root /work/data/exit \\
        --env Babette-v0 --env TheKings-v0 --decisions 300000

Each variant gets a folder ``ROOT/<variant>/planner`` (:mod:`patience_gym.agents.training.exit`: ``run.json``
and gzipped JSONL chunks of ``--chunk-games`` games, default
:data:`~patience_gym.agents.training.exit.DEFAULT_CHUNK_GAMES`). One process labels every variant named,
one chunk at a time, always the variant with the fewest decisions so far (ties: the order given),
until each has ``--decisions`` or ``--chunks`` chunks; a finished chunk is never played again, so
stopping the process (Ctrl-C, a kill) loses at most the chunk under way. A line a game shows the
progress: games, decisions and decisions a CPU second of the labeller.

A DAgger round: ``--player MODEL --round R`` (a network file of :mod:`patience_gym.agents.policies.exit_net`)
plays deals from ``DAGGER_DEAL_SEED + (R - 1) * 100,000`` while the labeller advises at each of its
decisions; the folder is ``ROOT/<variant>/dagger-R``. ``--folder NAME`` names the folder instead
(another labeller's run: ``--labeller safe --folder safe``).

The labeller is ``--labeller SPEC`` (any policy spec; default the planner of the variant's results
row, :data:`patience_gym.agents.training.exit.DEFAULT_LABELLER`); a labeller without ``vote_shares``
(``macro``) gives all the share to its move. ``--option NAME=VALUE`` labels under the env's options
(``--env Klondike-v0 --option draw=3 --option passes=null``); ``run.json`` keeps them, and training
replays the games under them. ``--targets visits`` records the ``macro`` planner's visit shares
(the sampled deals each move's best-judged candidate met, as shares) as the policy target, in place of all
on its move; ``run.json`` keeps it.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from patience_gym.agents.registry import make_policy
from patience_gym.agents.training.exit import (
    CHUNK_GAMES,
    DAGGER_DEAL_SEED,
    DEFAULT_CHUNK_GAMES,
    DEFAULT_LABELLER,
    EXIT_DEAL_SEED,
    TARGETS,
    GameRecord,
    LabelRun,
    count_decisions,
    env_options,
    finished_chunks,
    label_chunk,
    make_env,
    open_run,
)


def folder_of(root: Path, env: str, round_: int, name: str | None = None) -> Path:
    """``ROOT/<variant>/<name>``; without a name ``planner`` (or ``dagger-R`` for round R)."""
    return root / env / (name or ("planner" if round_ == 0 else f"dagger-{round_}"))


def progress_line(env: str, chunk: int, games: int, before: int) -> Callable[[GameRecord], None]:
    """What to print after each game of a chunk: games, decisions, decisions a CPU second."""
    cpu, n = time.process_time(), [0, 0]

    def shown(r: GameRecord) -> None:
        n[0] += 1
        n[1] += len(r.decisions)
        rate = n[1] / max(1e-9, time.process_time() - cpu)
        print(
            f"{env} chunk {chunk}: game {n[0]}/{games} seed {r.seed} "
            f"{'won' if r.won else 'lost'} {r.cards} cards, {len(r.decisions)} decisions; "
            f"{before + n[1]:,} in all, {rate:.1f} decisions/CPU s",
            flush=True,
        )

    return shown


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--root", type=Path, required=True, help="where the variants' folders go")
    p.add_argument("--env", action="append", required=True, help="a variant (repeatable), e.g. Babette-v0")
    p.add_argument("--labeller", help="the labeller's policy spec (default: the variant's planner)")
    p.add_argument("--decisions", type=int, default=300_000, help="stop a variant at this many decisions")
    p.add_argument("--chunks", type=int, default=100_000, help="stop a variant at this many chunks")
    p.add_argument("--chunk-games", type=int, help="games a chunk file (default: DEFAULT_CHUNK_GAMES)")
    p.add_argument("--player", help="a DAgger round: the network file that plays (needs --round)")
    p.add_argument("--round", type=int, default=0, help="the DAgger round (1 up) with --player")
    p.add_argument("--folder", help="the run's folder under ROOT/<variant> (default: planner, or dagger-R)")
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an option of the env to label under (repeatable), e.g. draw=3; kept in run.json, which "
        "the training replays under",
    )
    p.add_argument(
        "--targets",
        choices=sorted(TARGETS),
        default="vote",
        help="the policy target: the labeller's vote shares (all on its move where it has none), or "
        "the macro planner's visit shares (the deals each move's best-judged candidate met)",
    )
    args = p.parse_args(argv)
    torch.set_num_threads(1)  # one core: on a shared machine more threads wait on each other (25x slower)
    if (args.player is None) != (args.round == 0):
        p.error("--player and --round go together (a DAgger round)")
    first = EXIT_DEAL_SEED if not args.round else DAGGER_DEAL_SEED + (args.round - 1) * 100_000
    runs: dict[str, tuple[LabelRun, Path]] = {}
    for env in args.env:
        spec = args.labeller or DEFAULT_LABELLER.get(env)
        if spec is None:
            p.error(
                f"no default labeller for {env}; give --labeller (defaults: {', '.join(DEFAULT_LABELLER)})"
            )
        try:
            chosen = env_options(env, args.option)
        except ValueError as exc:
            p.error(str(exc))
        options = dict(make_env(env, chosen).unwrapped.game.options)
        games = args.chunk_games or DEFAULT_CHUNK_GAMES.get(env, CHUNK_GAMES)
        if args.targets != "vote" and not hasattr(make_policy(spec), TARGETS[args.targets]):
            p.error(
                f"--targets {args.targets}: the labeller {spec} has no {TARGETS[args.targets]}() "
                "(the macro planner has)"
            )
        run = LabelRun(env, options, spec, first, games, args.player, args.targets)
        folder = folder_of(args.root, env, args.round, args.folder)
        open_run(folder, run)
        runs[env] = (run, folder)
    done = {env: count_decisions(folder)[1] for env, (_, folder) in runs.items()}
    for env, n in done.items():
        print(f"{env}: {n:,} decisions in {len(finished_chunks(runs[env][1]))} finished chunks", flush=True)
    labellers: dict[str, Any] = {}
    players: dict[str, Any] = {}
    while True:
        open_ = [
            e
            for e, (_, folder) in runs.items()
            if done[e] < args.decisions and len(finished_chunks(folder)) < args.chunks
        ]
        if not open_:
            print("every variant has its decisions", flush=True)
            return 0
        env = min(open_, key=lambda e: done[e])
        run, folder = runs[env]
        have = set(finished_chunks(folder))
        chunk = next(c for c in range(args.chunks) if c not in have)
        if env not in labellers:
            labellers[env] = make_policy(run.labeller)
            if args.player:
                from patience_gym.agents.policies.exit_net import ExitPolicy

                players[env] = ExitPolicy.load(args.player)
        start = time.time()
        shown = progress_line(env, chunk, run.chunk_games, done[env])
        records = label_chunk(run, folder, chunk, labellers[env], players.get(env), on_game=shown)
        done[env] += sum(len(r.decisions) for r in records)
        wins = sum(r.won for r in records)
        print(
            f"{env}: chunk {chunk} written ({wins}/{len(records)} won, {time.time() - start:.0f} s); "
            f"{done[env]:,} decisions",
            flush=True,
        )


if __name__ == "__main__":
    sys.exit(main())
