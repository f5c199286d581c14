"""The solver's verdict on every position of a labelling folder's games, resumably (issue 46): the
value target that a game's outcome is not (:mod:`patience_gym.agents.training.exit_verdicts`).

::

    nice -n 5 python scripts/exit_verdicts.py --folder results/exit/Klondike-v0/macro-draw3 \\
        --budget 2000000 --workers 2

Each game of the folder not yet in its ``verdicts.jsonl`` is judged (a won game at once, a lost one
by bisection with the solver on its real deal, ``--budget`` nodes a position) and appended as it
comes; the same command continues a stopped run. ``--games N`` judges only the folder's first N
games (seed order). A line every ``--every`` games shows the progress.
"""

from __future__ import annotations

import argparse
import sys
import time
from multiprocessing import get_context
from pathlib import Path

from patience_gym.agents.training.exit import GameRecord, read_games, read_run
from patience_gym.agents.training.exit_verdicts import Verdict, game_verdict, read_verdicts, write_verdict


def _judge(job: tuple[str, dict[str, object], GameRecord, int]) -> Verdict:
    return game_verdict(*job)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--folder", type=Path, required=True, help="a labelling folder (run.json and chunks)")
    p.add_argument(
        "--budget", type=int, default=2_000_000, help="solver nodes a position (half in its probe)"
    )
    p.add_argument("--workers", type=int, default=1, help="processes solving games at once")
    p.add_argument("--games", type=int, help="judge only the folder's first N games")
    p.add_argument("--every", type=int, default=50, help="a progress line every N games")
    args = p.parse_args(argv)
    for name in ("budget", "workers", "games", "every"):
        value = getattr(args, name)
        if value is not None and value < 1:
            p.error(f"--{name} must be at least 1, got {value}")
    if not (args.folder / "run.json").is_file():
        p.error(f"--folder {args.folder}: not a labelling folder (no run.json)")
    run = read_run(args.folder)
    try:
        done = read_verdicts(args.folder)
    except ValueError as exc:
        p.error(str(exc))
    if done and next(iter(done.values())).budget != args.budget:
        p.error(
            f"{args.folder} has verdicts at --budget {next(iter(done.values())).budget}; "
            "continue with that budget, or delete its verdicts.jsonl to redo them at another"
        )
    games = list(read_games(args.folder))[: args.games]
    todo = [g for g in games if g.seed not in done]
    print(f"{len(games)} games, {len(games) - len(todo)} judged before, {len(todo)} to judge", flush=True)
    start, lost, solves = time.time(), 0, 0
    jobs = [(run.env, run.options, g, args.budget) for g in todo]
    # one worker: no child process (a fork under a process that runs threads, torch's or Ray's,
    # can hang); more: fresh interpreters ("spawn"), not forks
    pool = get_context("spawn").Pool(args.workers) if args.workers > 1 else None
    judged = pool.imap(_judge, jobs) if pool is not None else map(_judge, jobs)
    try:
        for i, verdict in enumerate(judged, 1):
            write_verdict(args.folder, verdict)
            lost += verdict.first_not_won is not None
            solves += verdict.solves
            if i % args.every == 0 or i == len(jobs):
                print(
                    f"{i}/{len(jobs)} games judged: {lost} not won all through, {solves} solves, "
                    f"{time.time() - start:.0f} s",
                    flush=True,
                )
    finally:
        if pool is not None:
            pool.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
