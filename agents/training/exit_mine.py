"""Expert iteration, the net's own mistakes (issue 46): in each game of a DAgger round that the net
lost, the decision that lost it, and what the teacher advised there.

A DAgger round (:func:`patience_gym.agents.training.exit.label_game` with a ``player``) records the
teacher's advice at every decision of the net's games, and the net learns them all alike; but the
net's games are lost by one or two moves each, and those are a few in a thousand of the decisions
(docs/exit.md). :func:`mine` finds them: for a lost game it bisects the net's moves with the solver
on the real deal (every card seen: this is the trainer's question after the game, never the
player's) for the first move after which the deal is no longer won
(:func:`patience_gym.agents.common.losing.losing_move`), reads the teacher's advice recorded at
that decision and solves the real deal after the advice instead. Where the advice keeps the deal
won (``advice_label`` ``won``), the decision is one the net must learn and the teacher could teach:
``scripts/exit_train.py --decisive-weight W`` weighs these decisions ``W`` times the others.

The records go to ``<folder>/decisive.jsonl``, one line a lost game, written as they come; the same
call resumes (games already there are skipped).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from patience_gym.env import PatienceEnv

from ..common.losing import deck_of, label_after, losing_move
from .exit import GameRecord, make_env, read_games, read_run

__all__ = ["DECISIVE", "Decisive", "decisive_rows", "find_decisive", "mine", "read_decisive", "summary"]

#: The file of a labelling folder that holds its lost games' decisive decisions.
DECISIVE = "decisive.jsonl"


@dataclass
class Decisive:
    """A lost game's decisive decision: the deal's ``seed``; ``step``, the index of the move after
    which the real deal is no longer won (-1: none, the deal not won at the deal or still won at
    the end at this budget), with the solver's ``label`` after it; the move ``played`` there (in
    words, ``move``); the teacher's ``advice`` (-1 where the position had one legal move, so no
    advice was recorded), and ``advice_label``, the real deal's label after the advice instead (""
    where the advice was the move played)."""

    seed: int
    step: int
    label: str
    played: int = -1
    move: str = ""
    advice: int = -1
    advice_label: str = ""


def find_decisive(core: PatienceEnv, game: GameRecord, budget: int) -> Decisive:
    """The decisive decision of ``game`` (lost, its moves played on ``core``'s variant), solved at
    ``budget`` nodes a question (half in the probe)."""
    core.reset(seed=game.seed)
    start = label_after(core, deck_of(core), [], budget, budget // 2)
    if start != "won":  # lost at the deal (or not decided at this budget): no move lost it
        return Decisive(game.seed, -1, f"{start} at the deal")
    n, label = losing_move(core, game.actions, budget)
    if n < 0:
        return Decisive(game.seed, -1, label)
    step = n - 1
    core.reset(seed=game.seed)
    for a in game.actions[:step]:
        core.step(a)
    out = Decisive(game.seed, step, label, game.actions[step], core.describe_action(game.actions[step]))
    recorded = [(moves, shares) for t, moves, shares in game.decisions if t == step]
    if recorded:
        moves, shares = recorded[0]
        out.advice = int(moves[int(np.argmax(shares))])
        if out.advice != out.played:
            line = [*game.actions[:step], out.advice]
            out.advice_label = label_after(core, deck_of(core), line, budget, budget // 2)
    return out


def read_decisive(folder: Path | str) -> list[Decisive]:
    """The decisive decisions mined in ``folder`` so far (none where it has no ``decisive.jsonl``)."""
    path = Path(folder) / DECISIVE
    if not path.is_file():
        return []
    return [Decisive(**json.loads(line)) for line in path.read_text().splitlines() if line.strip()]


def mine(folder: Path | str, budget: int = 200_000, report: Callable[[str], None] = print) -> list[Decisive]:
    """Find the decisive decision of every lost game in the labelling ``folder`` not mined yet,
    appending each to ``folder/decisive.jsonl`` as it is found; all of the folder's records."""
    folder = Path(folder)
    run = read_run(folder)
    done = {d.seed for d in read_decisive(folder)}
    core: PatienceEnv = make_env(run.env, run.options).unwrapped  # type: ignore[assignment]
    lost = [g for g in read_games(folder) if not g.won and g.seed not in done]
    with (folder / DECISIVE).open("a") as out:
        for i, game in enumerate(lost, 1):
            found = find_decisive(core, game, budget)
            out.write(json.dumps(asdict(found)) + "\n")
            out.flush()
            advice = found.advice_label or "the same"
            where = f"move {found.step} ({found.move or 'none found'}), {found.label}"
            report(f"{i}/{len(lost)} seed {found.seed}: {where}; advised {found.advice}: {advice}")
    return read_decisive(folder)


def decisive_rows(games: Iterator[GameRecord] | list[GameRecord], found: list[Decisive]) -> list[int]:
    """The rows, among the decisions :func:`~patience_gym.agents.training.exit.replay` makes of
    ``games`` (every recorded decision, in order), of the decisive decisions whose advice keeps the
    real deal won. Call with the games as replayed (no decision left out)."""
    keep = {(d.seed, d.step) for d in found if d.advice_label == "won"}
    rows, offset = [], 0
    for g in games:
        rows += [offset + i for i, (t, _, _) in enumerate(g.decisions) if (g.seed, t) in keep]
        offset += len(g.decisions)
    return rows


def summary(found: list[Decisive]) -> dict[str, Any]:
    """Counts of the mined records: games, a losing move found, the advice differs and keeps the
    deal won, the advice was the move played."""
    return {
        "lost_games": len(found),
        "losing_move_found": sum(d.step >= 0 for d in found),
        "advice_keeps_it_won": sum(d.advice_label == "won" for d in found),
        "advice_was_played": sum(d.step >= 0 and d.advice == d.played for d in found),
    }
