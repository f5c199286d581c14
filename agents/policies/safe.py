"""``safe``: greedy's move, unless the solver finds the game lost after it (a search teacher).

At each decision with a choice the legal moves are taken in greedy's order (its cycle guard, then
its heuristic, then the lowest id: :func:`patience_gym.agents.policies.base.greedy_order`) and the
first after which the solver wins the deal within ``budget`` nodes is played. A capped search that
runs out counts as not won. Where no move is won the deal is counted lost and greedy plays on alone.

What the solver is given: where no card is hidden (The Kings once dealt, Louis, and any deal whose
cards have all been seen) the real deal, which the player sees whole; elsewhere ``samples``
consistent deals (:func:`patience_gym.determinize.consistent_deck`: the unseen cards dealt again at
random among their places) and a move is kept when it wins one of them. Its choices therefore never
depend on a hidden card.

Why it exists: a teacher for expert iteration (docs/exit.md). The planner's labels on a variant
without hidden cards are the moves of one solved line, whichever line the solver found first (The
Kings: 270 moves a game, many of them to-and-fro); a net cannot tell from the position why that
line's move was chosen. This teacher's move is greedy's wherever greedy's does not lose the deal,
and otherwise greedy's next: a function of the position that a net can learn, and the moves where
it departs from greedy are exactly those where greedy's move would lose.

Spec: ``safe`` or ``safe:budget=200000,probe=180000,samples=1`` (any subset).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from patience_gym.determinize import consistent_deck, unseen_positions
from patience_gym.env import PatienceEnv
from patience_gym.solver import solve_line

from .base import GreedyPolicy, greedy_order
from .settings import parse_settings, settings_usage

__all__ = ["SETTINGS", "SafePolicy", "make_safe", "spec_help"]

SETTINGS: dict[str, tuple[float, str]] = {
    "budget": (200_000, "solver nodes of each check (a check that runs out counts as not won)"),
    "probe": (180_000, "nodes of each check spent first on the solver's probe for a win (0 to budget)"),
    "samples": (1, "consistent deals a move is checked on where cards are hidden (won on one: kept)"),
}


class SafePolicy:
    """Greedy, checked by the solver (module docstring)."""

    def __init__(self, budget: int = 200_000, probe: int = 180_000, samples: int = 1) -> None:
        for key, value in (("budget", budget), ("samples", samples)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"safe: {key} must be a whole number >= 1, got {value!r}")
        if isinstance(probe, bool) or not isinstance(probe, int) or not 0 <= probe <= budget:
            raise ValueError(
                f"safe: probe must be a whole number from 0 to the budget ({budget}), got {probe!r}"
            )
        self.budget, self.probe, self.samples = budget, probe, samples
        self.name = f"safe(budget={budget},probe={probe},samples={samples})"
        self.greedy = GreedyPolicy()
        self.reset(0)

    def reset(self, seed: int) -> None:
        self.greedy.reset(seed)
        self.rng = np.random.default_rng([int(seed), 0x5AFE])
        self.actions: list[int] = []
        self.lost = False  #: no move was won at some decision: greedy plays on alone
        self.how = ""  #: "greedy" (its move kept), "override" (a later one), "lost", or "" (no choice)
        self.checks = 0  #: solver calls this game
        self._pick = -1

    def _wins(self, env: PatienceEnv, decks: list[list[str]], action: int) -> bool:
        for deck in decks:
            self.checks += 1
            label = solve_line(
                env.variant, env.game.options, deck, [*self.actions, action],
                max_nodes=self.budget, probe_nodes=self.probe,
            )  # fmt: skip
            if label.label == "won":
                return True
        return False

    def advise(self, env: PatienceEnv, obs: np.ndarray) -> int:
        """Its move here, without playing it (a DAgger round: :meth:`commit` says what was played)."""
        order = greedy_order(self.greedy.trials(env))
        self._pick, self.how = order[0], ""
        if len(order) > 1 and not self.lost:
            hidden = bool(unseen_positions(env))
            decks = [consistent_deck(env, self.rng) for _ in range(self.samples if hidden else 1)]
            won = next((a for a in order if self._wins(env, decks, a)), None)
            if won is None:
                self.lost, self.how = True, "lost"
            else:
                self._pick, self.how = won, "greedy" if won == order[0] else "override"
        elif len(order) > 1:
            self.how = "lost"
        return self._pick

    def commit(self, env: PatienceEnv, action: int) -> None:
        """``action`` is played here (greedy learns it at its next call, from where it leads)."""
        self.actions.append(int(action))  # a lost deal stays lost whatever is played

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int:
        action = self.advise(env, obs)
        self.commit(env, action)
        return action

    def vote_shares(self) -> dict[int, float]:
        """All the share on its move (a labeller's target)."""
        return {self._pick: 1.0}


def make_safe(settings: str | None = None) -> SafePolicy:
    """The policy of a spec's settings (``""`` or ``None`` for the defaults)."""
    kwargs: dict[str, Any] = parse_settings("safe", settings, SETTINGS, ())
    return SafePolicy(**kwargs)


def spec_help() -> str:
    """The spec with every setting at its default, as error messages show it."""
    return settings_usage("safe", SETTINGS)
