"""lonelybot's planner on this project's Klondike deals: the deals in its layout, and its results read back.

lonelybot (github.com/vuonghy2442/lonelybot, MIT) is the open program behind the best published
Klondike draw 3 figure. ``benchmarks/lonelybot/build.sh`` builds its planner (``do_hop``) offline;
this script writes the deals it plays and summarises what it printed::

    python benchmarks/lonelybot_deals.py deals --seeds 0:1000 > deals.txt
    hopbench 3 3000 1000 < deals.txt > hop.txt   # draw 3, 3,000 deals a candidate, 1,000 visits
    python benchmarks/lonelybot_deals.py summary hop.txt [--against results/macro/klondike-draw3-known]

``deals``: one line a deal, ``seed`` then its 52 cards as lonelybot numbers them (``rank * 4 +
suit``, rank 0 the ace, suits hearts, diamonds, clubs, spades), the seven piles first (pile i from
its bottom card to its face-up one), then the stock in the order it is turned: the deal that
``reset(seed=seed)`` gives Klondike-v0. ``summary``: the wins with their 95% Wilson interval, the
seconds a game, and with ``--against`` (a folder of ``scripts/eval_chunks.py`` chunks, its
``summary.json``, or another hopbench run) the deals won by each side only.

lonelybot's rules are Klondike draw 3 with unlimited passes and partial moves, the stock's order
known, and foundation cards allowed back onto the piles (``stock="known", worrying_back=True``
here; docs/planner.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import gymnasium as gym

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.agents.evaluation.evaluate import wilson
from patience_gym.agents.solving.chunks import parse_seeds
from patience_gym.core.cards import SUITS
from patience_gym.native import reference

#: lonelybot's suit numbers (formatter.rs: hearts, diamonds, clubs, spades; 0 and 1 red)
LONELYBOT_SUIT = {"H": 0, "D": 1, "C": 2, "S": 3}
N_PILES = 7


def lonelybot_card(card: int) -> int:
    """This project's card id (rank ``card % 13``, suit ``SUITS[card // 13]``) as lonelybot's."""
    return (card % 13) * 4 + LONELYBOT_SUIT[SUITS[card // 13]]


def piles_and_stock(pack: list[int]) -> tuple[list[list[int]], list[int]]:
    """Klondike's deal of ``pack`` (games/klondike.py ``deal``): each pile bottom card first, and
    the stock in the order it is turned."""
    piles: list[list[int]] = [[] for _ in range(N_PILES)]
    it = iter(pack)
    for row in range(N_PILES):
        for i in range(row, N_PILES):
            piles[i].append(next(it))
    return piles, list(it)


def deal_line(env: gym.Env, seed: int) -> list[int]:
    """The deal of ``seed`` in lonelybot's layout (module docstring)."""
    env.reset(seed=seed)
    piles, stock = piles_and_stock(list(reference(env.unwrapped.game).initial_pack))  # type: ignore[attr-defined]
    return [lonelybot_card(c) for pile in piles for c in pile] + [lonelybot_card(c) for c in stock]


def read_results(path: Path) -> dict[int, tuple[bool, float]]:
    """hopbench's lines ``seed won seconds decisions [visits]``: each seed's (won, seconds)."""
    out = {}
    for n, line in enumerate(path.read_text().splitlines(), 1):
        parts = line.split()
        if len(parts) not in (4, 5) or parts[1] not in ("0", "1"):
            raise ValueError(f"{path}:{n}: not a hopbench line (seed won seconds decisions visits): {line!r}")
        out[int(parts[0])] = (parts[1] == "1", float(parts[2]))
    return out


def won_seeds(path: Path) -> set[int]:
    """The seeds won in a folder of ``scripts/eval_chunks.py`` chunks, its summary.json, or another
    run of hopbench."""
    if path.is_file():
        try:
            return set(json.loads(path.read_text())["won_seeds"])
        except (json.JSONDecodeError, KeyError, TypeError):
            pass  # not a summary: another run of hopbench, or nothing readable
        return {seed for seed, (won, _) in read_results(path).items() if won}
    won = set()
    for chunk in sorted(path.glob("[0-9]*.json")):
        data = json.loads(chunk.read_text())
        start = int(data["seed"])
        won |= {start + e["index"] for e in data["result"]["episodes"] if e["won"]}
    if not won and not any(path.glob("[0-9]*.json")):
        raise ValueError(f"{path} holds no chunks (scripts/eval_chunks.py) and is no summary.json")
    return won


def summary(results: dict[int, tuple[bool, float]], against: set[int] | None) -> str:
    """The lines ``summary`` prints."""
    n = len(results)
    wins = sum(w for w, _ in results.values())
    low, high = wilson(wins, n)
    seconds = sum(s for _, s in results.values()) / max(n, 1)
    rate = f"{wins}/{n} = {wins / max(n, 1):.1%} [{low:.1%}, {high:.1%}]"
    lines = [f"lonelybot: {rate}, {seconds:.2f} s a game"]
    if against is not None:
        ours = {s for s in results if s in against}
        theirs = {s for s, (w, _) in results.items() if w}
        lines.append(
            f"the other policy on the same {n} deals: {len(ours)}; won by lonelybot only"
            f" {len(theirs - ours)}, by the other only {len(ours - theirs)}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    deals = sub.add_parser("deals", help="write the deals, one a line")
    deals.add_argument("--seeds", default="0:1000", help="seed range START:STOP (default 0:1000)")
    read = sub.add_parser("summary", help="summarise hopbench's output")
    read.add_argument("results", type=Path, help="hopbench's output")
    read.add_argument("--against", type=Path, help="chunks, summary.json or hopbench run")
    args = parser.parse_args(argv)
    try:
        if args.command == "deals":
            env = gym.make("patience_gym/Klondike-v0", draw=3, passes=None, partial_moves=True)
            for seed in parse_seeds(args.seeds):
                print(seed, *deal_line(env, seed))
            return 0
        if not args.results.is_file():
            raise ValueError(f"no file {args.results}")
        against = won_seeds(args.against) if args.against else None
        print(summary(read_results(args.results), against))
    except ValueError as e:
        print(f"lonelybot_deals.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
