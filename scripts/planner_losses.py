"""Where the planner loses deals a player seeing every card wins: the move that loses each one.

::

    python scripts/planner_losses.py --seeds 0:40
    python scripts/planner_losses.py --spec planner:samples=4,budget=5000 --seeds 0:20
    python scripts/planner_losses.py --spec macro --seeds 0:40 --candidates \
        --skip-won results/macro/klondike-draw3/summary.json

The planner plays each deal the solver's labels call won (Klondike with ``draw=3, passes=None,
partial_moves=True`` by default; ``--set name=value`` for other options, ``--env`` for another
variant). Where it loses, the real deal is solved (every card seen; ``--budget`` nodes, half in the
probe) after each prefix of its moves, by bisection, to find the first move after which it is no
longer won, and the script prints how the planner made that move: following a reused winning
line (``plan``), a fresh vote of the sampled deals (``solved``), or its greedy fallback (``greedy``).
"No longer won" at a finite budget is "lost" or "unknown"; both are printed.

``--hindsight N`` asks, at each losing decision, what hindsight optimisation could have seen there:
every legal move is solved on N deals consistent with what the player has seen (the planner's own
question, ``--sample-budget`` nodes each, all in the probe) and on the real deal, and the counts of
sampled deals won, lost and unknown after each move are printed beside the real verdict.

The ``macro`` planner works too (``--spec macro[:settings]``). ``--candidates`` prints, for the search
that chose the losing move, every candidate line with the sampled deals it was judged on, how many
it won and its mean value (``*`` marks the one played), beside the real deal's verdict after the
line: whether the deal was lost by a near tie, by a clear misjudgement, or by an early pick.
``--rejudge 3000,300000`` adds, for each candidate, its wins when every candidate meets the same
``--rejudge-deals`` sampled deals, judged by capped searches of each size: whether deeper searches
would have ordered them otherwise. ``--skip-won`` takes a ``summary.json`` of the same spec
(scripts/eval_chunks.py) and counts its won seeds as won without playing them again (the planners'
choices are seeded, so they would be).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.agents.common.config import apply_overrides
from patience_gym.agents.common.losing import deck_of, label_after, losing_move
from patience_gym.agents.policies.macro import MacroPolicy
from patience_gym.agents.policies.planner import PlannerPolicy
from patience_gym.agents.registry import make_policy
from patience_gym.agents.solving.chunks import parse_seeds
from patience_gym.agents.solving.labels import labels_for
from patience_gym.determinize import consistent_deck, hidden_frame
from patience_gym.env import PatienceEnv
from patience_gym.games import get_variant
from patience_gym.solver import MacroDecision, macro_decide

DEFAULT_SETS = ["draw=3", "passes=null", "partial_moves=true"]


def parse_sets(items: list[str]) -> dict[str, Any]:
    """``--set draw=3`` -> ``{"draw": 3}`` (values read as YAML, as ``patience-gym``'s ``--set``)."""
    return apply_overrides({}, items)


Policy = PlannerPolicy | MacroPolicy


@dataclass
class Game:
    """One game of a planner: the env at its end, the moves, how each was made (and the move in
    words), whether it won; for the macro planner, its searches (``decisions``) and, for each move,
    the index of the search that chose it (-1: none) and the moves played before that search."""

    core: PatienceEnv
    seed: int
    options: dict[str, Any]
    actions: list[int]
    hows: list[tuple[str, str]]
    won: bool
    decisions: list[MacroDecision] = field(default_factory=list)
    chosen_by: list[int] = field(default_factory=list)
    started_at: list[int] = field(default_factory=list)


def play_game(env_id: str, options: dict[str, Any], spec: str, seed: int) -> Game:
    """The policy's game on ``seed`` (a planner's or ``macro``'s, with how each move was made; any
    other policy's moves say ``move``, or the policy's own ``how``)."""
    env = gym.make(env_id, **options)
    obs, info = env.reset(seed=seed)
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    planner: Any = make_policy(spec)
    planner.reset(seed)
    game = Game(core, seed, options, [], [], False)
    done, by, start = False, -1, 0
    while not done:
        stats = getattr(planner, "stats", None)
        before = Counter(stats or {})
        searched = getattr(planner, "last", None)
        action = planner(core, obs)
        if isinstance(planner, PlannerPolicy | MacroPolicy):
            how = next(k for k in planner.stats if planner.stats[k] != before[k])
        else:
            how = getattr(planner, "how", "") or "move"
        if isinstance(planner, MacroPolicy) and planner.last is not searched and planner.last is not None:
            game.decisions.append(planner.last)
            by, start = len(game.decisions) - 1, len(game.actions)
        elif how not in ("line", "plan"):
            by, start = -1, len(game.actions)
        game.chosen_by.append(by)
        game.started_at.append(start)
        game.hows.append((how, core.describe_action(action)))
        game.actions.append(action)
        obs, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    game.won = bool(info["won"])
    return game


def play(
    env_id: str, options: dict[str, Any], spec: str, seed: int
) -> tuple[PatienceEnv, list[int], list[tuple[str, str]], bool]:
    """The planner's game on ``seed``: the env at its end, the moves, how each was made (and the
    move in words), and whether it won."""
    game = play_game(env_id, options, spec, seed)
    return game.core, game.actions, game.hows, game.won


def candidates(game: Game, move: int, budget: int, rejudge: list[int], deals: int) -> list[str]:
    """For the macro planner's search that chose move ``move`` (1-based): each candidate's sampled
    deals, wins and mean value, and the real deal's verdict after its line; with ``rejudge`` node
    caps, besides, the candidates' wins when every one meets the same ``deals`` sampled deals (at
    least: the first to finish gets twice as many), judged by capped searches of each cap."""
    index = game.chosen_by[move - 1]
    if index < 0:
        return ["    (no search of the sampled deals chose this move)"]
    found, before = game.decisions[index], game.actions[: game.started_at[move - 1]]
    again = [judged_again(game, before, cap, deals) for cap in rejudge]
    deck = deck_of(game.core)
    out = []
    for i, line in enumerate(found.lines):
        truth = label_after(game.core, deck, [*before, *line], budget, budget // 2)
        plays = found.plays[i]
        mean = found.values[i] / plays if plays else float("nan")
        mark = "*" if i == found.chosen else " "
        extra = "".join(f"; {cap} nodes: {r[line]}" for cap, r in zip(rejudge, again, strict=True))
        out.append(
            f"  {mark} {line_text(game, before, line):60s} deals {plays:4d}, won {found.wins[i]:4d},"
            f" value {mean:.3f}{extra}; the real deal: {truth}"
        )
    return out


def judged_again(game: Game, before: list[int], cap: int, deals: int) -> dict[tuple[int, ...], str]:
    """Each candidate line of the position after ``before``: "won/deals" when every candidate is
    judged on the same ``deals`` sampled deals (only wins counted) by capped searches of ``cap``."""
    _, core = replayed(game, before)
    frame, unseen = hidden_frame(core)
    found = macro_decide(
        core.variant, core.game.options, frame, unseen, before, samples=2 * deals, batch=deals,
        solve_nodes=cap, exploration=1.0, cards=0.0, region=2000, known_nodes=200_000,
        seed=game.seed, all_won=False,
    )  # fmt: skip
    return {line: f"{w}/{p}" for line, w, p in zip(found.lines, found.wins, found.plays, strict=True)}


def replayed(game: Game, before: list[int]) -> tuple[gym.Env, PatienceEnv]:
    """The env of ``game``'s deal after the moves ``before``, and its core."""
    env = gym.make(f"patience_gym/{game.core.variant.env_name}", **game.options)
    env.reset(seed=game.seed)
    for a in before:
        env.step(a)
    return env, env.unwrapped  # type: ignore[return-value]


def line_text(game: Game, before: list[int], line: tuple[int, ...]) -> str:
    """The moves of ``line``, in words, played on the real deal after ``before``."""
    env, core = replayed(game, before)
    words = []
    for a in line:
        words.append(core.describe_action(int(a)))
        env.step(int(a))
    return ", ".join(words)


def hindsight(
    env_id: str,
    options: dict[str, Any],
    seed: int,
    actions: list[int],
    n: int,
    budget: int,
    sample_budget: int,
) -> list[str]:
    """Lines that show, for each legal move after ``actions``, how many of ``n`` consistent deals
    are won, lost and unknown after it, and the real deal's verdict after it."""
    env = gym.make(env_id, **options)
    env.reset(seed=seed)
    for a in actions:
        env.step(a)
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    rng = np.random.default_rng(seed)
    decks, real = [consistent_deck(core, rng) for _ in range(n)], deck_of(core)
    out = []
    for move in (int(a) for a in np.flatnonzero(core.action_masks())):
        line = [*actions, move]
        verdicts = Counter(label_after(core, d, line, sample_budget, sample_budget) for d in decks)
        truth = label_after(core, real, line, budget, budget // 2)
        won, lost, unknown = (verdicts[v] for v in ("won", "lost", "unknown"))
        out.append(
            f"    {core.describe_action(move):28s} sampled deals won {won:3d}, lost {lost:3d},"
            f" unknown {unknown:3d}; the real deal: {truth}"
        )
    return out


def node_caps(text: str) -> list[int]:
    """``--rejudge``'s value: node caps separated by commas."""
    return [int(x) for x in text.split(",")]


def report(env_id: str, options: dict[str, Any], seed: int, args: argparse.Namespace) -> str | None:
    """Play ``seed``; if the planner loses it, print the losing move (and what ``--hindsight`` and
    ``--candidates`` ask for) and return how that move was made (None: won; "": not found)."""
    game = play_game(env_id, options, args.spec, seed)
    if game.won:
        return None
    n, label = losing_move(game.core, game.actions, args.budget)
    if n < 0:
        print(f"seed {seed}: lost, yet the real deal is still won at the end (budget too small?)")
        return ""
    how, text = game.hows[n - 1]
    print(f"seed {seed}: still won after {n - 1} moves; move {n} ({how}: {text}) leaves it {label}")
    if args.hindsight:
        before = game.actions[: n - 1]
        lines = hindsight(env_id, options, seed, before, args.hindsight, args.budget, args.sample_budget)
        print("\n".join(lines), flush=True)
    if args.candidates and game.decisions:
        print("\n".join(candidates(game, n, args.budget, args.rejudge, args.rejudge_deals)), flush=True)
    return how


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="Klondike-v0", help="variant (default Klondike-v0)")
    parser.add_argument("--set", action="append", default=None, metavar="NAME=VALUE", help="env option")
    parser.add_argument("--spec", default="planner:samples=8,budget=20000,probe=20000", help="planner spec")
    parser.add_argument("--seeds", default="0:40", help="seed range a:b (default 0:40)")
    parser.add_argument("--budget", type=int, default=2_000_000, help="solver nodes per check")
    parser.add_argument(
        "--hindsight", type=int, default=0, metavar="N", help="sampled deals per move (0: none)"
    )
    parser.add_argument("--sample-budget", type=int, default=20_000, help="solver nodes per sampled deal")
    parser.add_argument(
        "--candidates",
        action="store_true",
        help="macro: the losing search's candidates, their sampled values and the real deal's verdicts",
    )
    parser.add_argument(
        "--rejudge",
        type=node_caps,
        default=[],
        metavar="NODES[,NODES...]",
        help="with --candidates: judge them again on common deals, capped searches of these sizes",
    )
    parser.add_argument("--rejudge-deals", type=int, default=40, help="common deals for --rejudge (40)")
    parser.add_argument(
        "--skip-won", metavar="SUMMARY", help="summary.json of this spec: its won_seeds count as won"
    )
    args = parser.parse_args(argv)
    try:
        if any(cap < 1 for cap in args.rejudge):
            raise ValueError("--rejudge node caps must be whole numbers >= 1")
        for name in ("budget", "hindsight", "sample_budget", "rejudge_deals"):
            least = 0 if name == "hindsight" else 1
            if getattr(args, name) < least:
                raise ValueError(f"--{name.replace('_', '-')} must be a whole number >= {least}")
        variant = get_variant(args.env)
        default = DEFAULT_SETS if variant.env_name == "Klondike-v0" else []
        options = parse_sets(args.set if args.set is not None else default)
        variant.make_game(**options)
        seeds = parse_seeds(args.seeds)
    except (ValueError, KeyError, TypeError) as e:
        print(f"planner_losses: {e}", file=sys.stderr)
        return 2
    labels = labels_for(variant.env_name, options)  # the shipped labels, agents/data/labels/
    if not labels:
        print(
            f"planner_losses: no labels for {variant.env_name} {options} (patience-gym solve)",
            file=sys.stderr,
        )
        return 2
    skip = set(json.loads(Path(args.skip_won).read_text())["won_seeds"]) if args.skip_won else set()
    kinds: Counter[str] = Counter()
    won = 0
    for seed in seeds:
        if seed not in labels or labels[seed].label != "won":
            continue
        if seed in skip:
            won += 1
            continue
        how = report(variant.env_id, options, seed, args)
        if how is None:
            won += 1
        elif how:
            kinds[how] += 1
    lost = sum(kinds.values())
    print(f"winnable deals: planner won {won}, lost {lost}; the losing move made by: {dict(kinds)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
