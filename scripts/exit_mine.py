"""The net's own mistakes (issue 46): the decision that lost each lost game of a DAgger round.

::

    python scripts/exit_mine.py results/exit/Louis-v0/dagger-1 [--budget 200000]

For every game of the labelling folder the net lost, bisects its moves with the solver on the real
deal for the first move after which the deal is no longer won, and asks whether the teacher's advice
recorded there would have kept it won
(:mod:`patience_gym.agents.training.exit_mine`). Writes ``FOLDER/decisive.jsonl`` as it goes and
resumes; prints a summary. ``scripts/exit_train.py --decisive-weight W`` then weighs those decisions.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from patience_gym.agents.training.exit_mine import mine, summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folder", type=Path, help="a labelling folder (a DAgger round: the net's games)")
    p.add_argument("--budget", type=int, default=200_000, help="solver nodes a question (half in the probe)")
    args = p.parse_args(argv)
    if not (args.folder / "run.json").is_file():
        p.error(f"{args.folder} is not a labelling folder (no run.json)")
    if args.budget < 2:
        p.error(f"--budget is a number of solver nodes, at least 2, got {args.budget}")
    found = mine(args.folder, args.budget, report=lambda s: print(s, flush=True))
    print(json.dumps(summary(found)))
    kinds = Counter(" ".join(d.move.split()[1:]) for d in found if d.advice_label == "won")
    for kind, n in kinds.most_common(8):
        print(f"{n:5d}  {kind}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
