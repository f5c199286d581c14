"""Expert iteration, a value target for every position (issue 46): the solver's verdict on the real
deal, where a game's outcome is one label for all its positions.

A labelled game that was lost (:mod:`patience_gym.agents.training.exit`) was often lost by one
move: before it the real deal could still be won, and every position its outcome calls lost up to
there is a won one. :func:`game_verdict` finds that move by bisection with the solver (every card
seen, ``budget`` nodes a position, half of them in its probe; a won game needs no solve). A
position is *won* when it comes before the first position the solver does not find won; positions
from there on are taken as not won (``lost``, or ``unknown`` at the budget: a won position the budget
does not reach counts as not won, so the target is "won within the budget"). Bisection stands on
the rule that every position after a lost one is lost: the real deal's positions are won up to one
move and lost after it (a won position the solver misses can move the boundary earlier).

The verdicts of a labelling folder are kept beside its chunks in ``verdicts.jsonl``, one game a
line, appended as they come (a stopped run loses at most the game under way)::

    {"seed": 2000000, "first_not_won": 90, "label": "lost", "budget": 2000000, "solves": 11}

``first_not_won`` is ``null`` where every position is won (a won game). :func:`verdict_targets`
turns a line into each position's target; ``scripts/exit_verdicts.py`` writes the file and
``scripts/exit_train.py --value-target verdicts`` trains on it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from patience_gym.env import PatienceEnv

from ..common.losing import deck_of, first_not_won, label_after
from .exit import GameRecord, make_env

__all__ = ["VERDICTS_FILE", "Verdict", "game_verdict", "read_verdicts", "verdict_targets", "write_verdict"]

#: The verdicts' file in a labelling folder.
VERDICTS_FILE = "verdicts.jsonl"


@dataclass(frozen=True)
class Verdict:
    """Where a labelled game's real deal stops being won (module docstring)."""

    seed: int
    first_not_won: int | None  #: the first n whose position (after n moves) is not found won
    label: str  #: that position's label ("lost" or "unknown"); "won" where every position is won
    budget: int  #: solver nodes a position
    solves: int  #: solves it took


def game_verdict(env_id: str, options: dict[str, object], game: GameRecord, budget: int) -> Verdict:
    """The verdict of ``game`` (a record of a folder labelled under ``env_id`` and ``options``)."""
    if game.won:
        return Verdict(game.seed, None, "won", budget, 0)
    env = make_env(env_id, dict(options))
    env.reset(seed=game.seed)
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    deck = deck_of(core)
    env.close()  # type: ignore[no-untyped-call, unused-ignore]
    labels: dict[int, str] = {}

    def label(n: int) -> str:
        if n not in labels:
            labels[n] = label_after(core, deck, list(game.actions[:n]), budget, budget // 2)
        return labels[n]

    if label(0) != "won":
        return Verdict(game.seed, 0, label(0), budget, len(labels))
    n = first_not_won(label, len(game.actions))
    if n < 0:  # lost on the step limit with the deal still won
        return Verdict(game.seed, None, "won", budget, len(labels))
    return Verdict(game.seed, n, label(n), budget, len(labels))


def verdict_targets(verdict: Verdict, steps: Iterable[int]) -> list[float]:
    """Each position's target (1.0 won, 0.0 not found won) at ``steps`` (moves played before it)."""
    end = verdict.first_not_won
    return [1.0 if end is None or t < end else 0.0 for t in steps]


def read_verdicts(folder: Path | str) -> dict[int, Verdict]:
    """The verdicts kept in ``folder`` by seed (none where the file is missing). ``ValueError`` where
    they were found with different budgets: a folder's targets come from one budget."""
    path = Path(folder) / VERDICTS_FILE
    if not path.is_file():
        return {}
    out: dict[int, Verdict] = {}
    for line in path.read_text().splitlines():
        if line.strip():
            v = Verdict(**json.loads(line))
            out[v.seed] = v
    budgets = sorted({v.budget for v in out.values()})
    if len(budgets) > 1:
        raise ValueError(
            f"{path}: verdicts of different budgets {budgets}; keep one (delete the file to redo)"
        )
    return out


def write_verdict(folder: Path | str, verdict: Verdict) -> None:
    """Append ``verdict`` to the folder's file."""
    with (Path(folder) / VERDICTS_FILE).open("a") as f:
        f.write(json.dumps(asdict(verdict)) + "\n")
