"""A determinized Monte-Carlo planner: solve deals the player cannot tell from the real one.

At each decision with a choice, the planner deals the hidden cards again at random
(:func:`patience_gym.determinize.consistent_deck`: the real deck with its unseen cards shuffled
among their places), asks the perfect-information solver (:func:`patience_gym.solver.solve_line`)
to win each such deal from the current position, and takes the first move the winning lines vote
for most (ties: the lowest action id). This is hindsight optimisation, the determinized planning
of Bjarnason, Fern and Tadepalli (2009) in its simplest form. When no sample is won within the
node budget, it plays the greedy baseline's move (:class:`agents.policies.base.GreedyPolicy`).

Plans are reused: the winning lines that agreed with the move taken are followed while they still
win. After a card turns up, a line's sampled deal may have guessed it wrong; the deal is then
repaired (:func:`patience_gym.determinize.repaired_deck`: the cards now seen put in place, the
other guesses kept) and the rest of the line replayed on it: a line that still wins is kept,
so the solver runs again only when no line survives. After a round in which no sample was won,
the planner plays greedy moves until a card it had not seen turns up or ``retry`` decisions have
passed (the same question asked again would mostly get the same answer).

With ``progress=1`` those greedy moves become *progress* moves: among the moves greedy's cycle
guard allows (those to the positions visited least), each is played on ``samples`` consistent deals
and solved from there with an equal share of the budget; the move whose searches reach the most
foundation cards on average is played (a won sample counting every card, and its line kept as a
plan), ties going to greedy's choice. This is hindsight optimisation with the foundation count
as the value of a search that ran out of budget: it looks further than greedy's one step where
the sampled deals are too hard to win within the budget.

What it reads: the legal moves, the actions it took since ``reset``, and consistent decks, which
hold the real cards only where the player has seen them; the greedy fallback reads what a player
sees. Its choices therefore never depend on a hidden card (tests/agents/policies/test_planner.py
plays two deals that differ only in hidden cards). Its randomness is seeded with the episode's seed.

With ``rollouts=N`` they become *rollout* moves instead: among the same allowed moves, each is
played on N consistent deals (the same N for every move) and the game rolled out from there by a
fast base policy in the native engine (:func:`patience_gym.solver.rollout_values`,
``src/native/rollout.hpp``: one legal action at a time, never back to a position met, the most
foundation cards won, then the solver's move priority); the move whose rollouts end with the most
foundation cards in all is played, ties going to greedy's choice. The base policy plays single
actions and looks one move ahead, so unlike a search on a sampled deal it cannot time the stock on
the sample's guessed order. On Light and Shade, where the solver wins almost no sampled deal, the
rollouts put far more cards on the foundations than greedy; on one-pass Klondike their values
are too noisy to pick better moves than the base policy itself (docs/planner.md).

With ``order=1`` the fallback's choice (and the ties of progress and rollout moves) is that base
policy's first move instead of greedy's: the most foundation cards won, then the variant's move
priority, then the lowest id (:func:`patience_gym.solver.ordering_pick`), read on the deal as the
shadow deals the unseen cards, so it never depends on where they really lie. On one-pass Klondike
this one-move rule is a stronger blind policy than greedy's heuristic (docs/planner.md).

When no card is unseen (The Kings from the deal on; St. Louis, Louis, Babette, The Congress and Anna
once the pack is out), every consistent deal is the real one: the planner then solves it once, with
``known`` nodes (default the budget, which plays exactly as ``samples`` identical solves would; a
probe gets the same share of them as of the budget). A larger ``known`` spends on the one real
deal what a decision with hidden cards spends on its samples, and more.

Spec: ``planner`` or
``planner:samples=8,budget=20000,retry=8,probe=0,progress=0,known=0,rollouts=0,order=0`` (any subset
of the settings). ``probe=N`` spends the first N nodes of each solve on the solver's limited
discrepancy search (docs/solver.md), which finds wins near the move ordering's first choices far
sooner than the depth-first search; the planner only wants wins, so ``probe=budget`` suits it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from patience_gym.determinize import agrees, consistent_deck, repaired_deck, unseen_positions
from patience_gym.env import PatienceEnv
from patience_gym.native import make_game
from patience_gym.solver import ordering_pick, solve_line

from .base import GreedyPolicy, Trial, greedy_pick
from .features import rollout_totals
from .shadow import SHADOW_SEED

__all__ = ["ROW_SETTINGS", "SETTINGS", "PlannerPolicy", "parse_planner_spec"]

#: The settings a spec may give, with their defaults and meaning.
SETTINGS: dict[str, tuple[int, str]] = {
    "samples": (8, "consistent deals solved at each decision that needs a new plan"),
    "budget": (20_000, "solver node budget per deal"),
    "retry": (8, "greedy moves after a round with no deal won (a card turning up ends the wait)"),
    "probe": (0, "nodes of each budget spent first on the solver's probe for a win (0 to budget)"),
    "progress": (0, "1: where no sample is won, the move whose searches reach most foundation cards"),
    "known": (0, "nodes for the one solve made when no card is unseen (0: the budget; probe scaled alike)"),
    "rollouts": (0, "N: where no sample is won, the move whose rollouts on N sampled deals end best"),
    "order": (0, "1: the fallback's choice is the solver's move ordering's first, not greedy's heuristic's"),
}

#: The settings of each variant's results row (results/results.md), where the planner is strong:
#: what labels those variants for expert iteration (agents.training.exit) and plays planner+net.
ROW_SETTINGS: dict[str, str] = {
    "Nestor-v0": "samples=4,budget=5000",
    "Babette-v0": "samples=4,budget=5000,probe=4500,known=200000",
    "Congress-v0": "samples=4,budget=5000,probe=4500,known=200000",
    "TheKings-v0": "samples=4,budget=5000,probe=4500,known=200000",
    "Louis-v0": "samples=4,budget=5000,probe=4500,known=200000",
    "Anna-v0": "samples=4,budget=5000,probe=4500,known=200000",
    "StLouis-v0": "samples=4,budget=5000,probe=4500,known=1000000",
}


@dataclass
class _Plan:
    deck: list[str]  # a deal consistent with what was seen when the line was checked
    line: list[int]  # the actions that win it from the current position


class PlannerPolicy:
    """Determinized Monte-Carlo planning with the solver (see the module docstring)."""

    name = "planner"

    def __init__(
        self,
        samples: int = 8,
        budget: int = 20_000,
        retry: int = 8,
        probe: int = 0,
        progress: int = 0,
        known: int = 0,
        rollouts: int = 0,
        order: int = 0,
    ) -> None:
        for key, value in (("samples", samples), ("budget", budget), ("retry", retry)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"planner: {key} must be a whole number >= 1, got {value!r}")
        if isinstance(probe, bool) or not isinstance(probe, int) or not 0 <= probe <= budget:
            raise ValueError(
                f"planner: probe must be a whole number from 0 to the budget ({budget}), got {probe!r}"
            )
        if progress not in (0, 1) or isinstance(progress, bool):
            raise ValueError(f"planner: progress must be 0 or 1, got {progress!r}")
        self.samples, self.budget, self.retry, self.probe = samples, budget, retry, probe
        if isinstance(known, bool) or not isinstance(known, int) or known < 0:
            raise ValueError(f"planner: known must be a whole number >= 0 (0: the budget), got {known!r}")
        if isinstance(rollouts, bool) or not isinstance(rollouts, int) or rollouts < 0:
            raise ValueError(f"planner: rollouts must be a whole number >= 0 (0: none), got {rollouts!r}")
        if progress and rollouts:
            raise ValueError("planner: progress=1 and rollouts=N are two fallbacks; give one of them")
        if order not in (0, 1) or isinstance(order, bool):
            raise ValueError(f"planner: order must be 0 or 1, got {order!r}")
        self.progress, self.known, self.rollouts, self.order = progress, known, rollouts, order
        extra = (f",probe={probe}" if probe else "") + (",progress=1" if progress else "")
        extra += (f",known={known}" if known else "") + (f",rollouts={rollouts}" if rollouts else "")
        extra += ",order=1" if order else ""
        self.name = f"planner(samples={samples},budget={budget},retry={retry}{extra})"
        self.greedy = GreedyPolicy()
        self.fallback_policy: Any = None
        """Another policy (``policy(env, obs) -> action``) whose move is played where no sampled
        deal is won, instead of greedy's (``planner+net``: :mod:`agents.policies.exit`)."""
        self.reset(0)

    def reset(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.greedy.reset(seed)
        self.actions: list[int] = []  # taken since the deal
        self.plans: list[_Plan] = []
        self.wait = 0  # greedy moves still to play after a round without a win
        self.unseen = -1  # unseen cards when that round was played
        self.stats = Counter[str]()  # decisions by how they were made (for measuring)
        self._how: str | None = None  # how the advice not yet committed was made
        if self.fallback_policy is not None:
            self.fallback_policy.reset(seed)
        self._obs = np.zeros(0, np.float32)  # the observation of the decision being advised
        self._shares: dict[int, float] = {}  # the last advice's vote (vote_shares)
        self.how = ""  # how the last advice was made: forced, plan, solved or a fallback's name

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int:
        action = self.advise(env, obs)
        self.commit(env, action)
        return action

    def advise(self, env: PatienceEnv, obs: np.ndarray) -> int:
        """The move the planner would play now, not yet played: :meth:`commit` must follow with
        the move that is played (the advice, or another policy's move, as DAgger plays)."""
        self._obs = obs  # what a fallback policy reads
        legal: list[int] = [int(a) for a in np.flatnonzero(env.action_masks())]
        if len(legal) == 1:
            action, how = legal[0], "forced"
        else:
            action, how = self._choose(env, legal)
        self.stats[how] += 1
        self._how = how
        self.how, self._shares = how, self._vote_shares(action, how)
        return action

    def vote_shares(self) -> dict[int, float]:
        """The last advice's vote over the legal moves, as shares that sum to 1 (ascending ids):
        where sampled deals were won (``plan``, ``solved``), each move's share of the winning lines
        that start with it; where none was (a fallback) or one move was legal, 1 for the move
        advised. What expert iteration learns as the policy target (:mod:`agents.training.exit`)."""
        return dict(self._shares)

    def _vote_shares(self, action: int, how: str) -> dict[int, float]:
        if how in ("plan", "solved") and self.plans:
            votes = Counter(p.line[0] for p in self.plans)
            total = sum(votes.values())
            return {a: votes[a] / total for a in sorted(votes)}
        return {action: 1.0}

    def commit(self, env: PatienceEnv, action: int) -> None:
        """``action`` is played in the current position (before the env steps): plans that do not
        start with it are dropped, and greedy (the fallback) learns it."""
        if self._how not in ("greedy", "progress", "rollout", "order"):
            # greedy counts visits (its cycle guard) and replays moves (its shadow); after its own
            # call (trials included) it learns any move itself
            self.greedy.follow(env, action)
        follow = getattr(self.fallback_policy, "follow", None)
        if follow is not None and self._how != "net":  # a net counting every step learns it too
            follow(env, action)
        self._how = None
        self.actions.append(action)
        self.plans = [_Plan(p.deck, p.line[1:]) for p in self.plans if p.line and p.line[0] == action]

    def _choose(self, env: PatienceEnv, legal: list[int]) -> tuple[int, str]:
        self.plans = [p for p in self.plans if self._still_wins(env, p, legal)]
        if self.plans:
            return self._vote(), "plan"
        unseen = len(unseen_positions(env))
        if self.wait > 0 and unseen == self.unseen:
            self.wait -= 1
            return self._fallback(env, unseen)
        variant, options = env.variant, env.game.options
        budget, probe = self.budget, self.probe
        if not unseen and self.known:  # every sample would be the real deal: one solve, more nodes
            budget, probe = self.known, self.probe * self.known // self.budget
        for _ in range(self.samples if unseen else 1):
            deck = consistent_deck(env, self.rng)
            label = solve_line(variant, options, deck, self.actions, max_nodes=budget, probe_nodes=probe)
            if label.label == "won" and label.actions:
                self.plans.append(_Plan(deck, list(label.actions)))
        if self.plans:
            return self._vote(), "solved"
        self.wait, self.unseen = self.retry, unseen
        return self._fallback(env, unseen)

    def _fallback(self, env: PatienceEnv, unseen: int) -> tuple[int, str]:
        """Greedy's move, or with ``progress=1`` the progress move, with ``rollouts=N`` the rollout
        move, with ``order=1`` the ordering's move (module docstring); with a ``fallback_policy``,
        its move."""
        if self.fallback_policy is not None:
            return int(self.fallback_policy(env, self._obs)), "net"
        if not (self.progress or self.rollouts or self.order):
            return self.greedy(env, np.zeros(0)), "greedy"
        how = "rollout" if self.rollouts else "progress" if self.progress else "order"
        trials = self.greedy.trials(env)
        fewest = min(t.visits for t in trials)
        allowed = [t for t in trials if t.visits == fewest]
        if len(allowed) == 1 or how == "order":
            return self._pick(env, allowed), how
        if self.rollouts:
            return self._rollout_move(env, unseen, allowed), how
        variant, options = env.variant, env.game.options
        decks = [consistent_deck(env, self.rng) for _ in range(self.samples if unseen else 1)]
        nodes = max(1, self.budget // len(allowed))
        score: dict[int, int] = {}
        for t in allowed:
            score[t.action] = 0
            for deck in decks:
                label = solve_line(variant, options, deck, [*self.actions, t.action], max_nodes=nodes)
                if label.label == "won":
                    score[t.action] += env.game.win_cards
                    self.plans.append(_Plan(deck, [t.action, *label.actions]))
                else:
                    score[t.action] += label.best_cards
        top = max(score.values())
        best = self._pick(env, [t for t in allowed if score[t.action] == top])  # ties: the fallback's rule
        self.plans = [p for p in self.plans if p.line[0] == best]
        return best, "progress"

    def _rollout_move(self, env: PatienceEnv, unseen: int, allowed: list[Trial]) -> int:
        """The move whose rollouts end with the most foundation cards in all, each move rolled out
        on the same ``rollouts`` consistent deals (one when nothing is unseen); ties: :meth:`_pick`."""
        moves = [t.action for t in allowed]
        total = rollout_totals(env, self.actions, moves, self.rollouts if unseen else 1, self.rng)
        top = int(total.max())
        return self._pick(env, [t for t, v in zip(allowed, total.tolist(), strict=True) if v == top])

    def _pick(self, env: PatienceEnv, allowed: list[Trial]) -> int:
        """Greedy's choice among ``allowed``, or with ``order=1`` the solver's ordering's
        (:func:`patience_gym.solver.ordering_pick`), on the deal with the unseen cards dealt as the
        shadow deals them (a fixed guess: the choice never depends on where they really lie)."""
        if not self.order or len(allowed) == 1:
            return greedy_pick(allowed)
        deck = consistent_deck(env, np.random.default_rng(SHADOW_SEED))
        return ordering_pick(env.variant, env.game.options, deck, self.actions, [t.action for t in allowed])

    def _vote(self) -> int:
        """The first move most winning lines take (ties: the lowest id)."""
        votes = Counter(p.line[0] for p in self.plans)
        return min(votes, key=lambda a: (-votes[a], a))

    def _still_wins(self, env: PatienceEnv, plan: _Plan, legal: list[int]) -> bool:
        """The plan's deal still looks like the real one, or, repaired, is still won by its line."""
        if not plan.line or plan.line[0] not in legal:
            return False
        if agrees(env, plan.deck):
            return True  # nothing seen contradicts it: the line still plays as planned
        plan.deck = repaired_deck(env, plan.deck, self.rng)
        return _wins(env, plan.deck, self.actions, plan.line)


def _wins(env: PatienceEnv, deck: list[str], actions: Sequence[int], line: Sequence[int]) -> bool:
    """``line`` wins the deal ``deck`` after ``actions`` (replayed on a native game of its own)."""
    game = make_game(env.variant, "native", **env.game.options)
    game.new_game(None, deck)
    for a in (*actions, *line):
        if not game.is_legal(a):
            return False
        game.apply(a)
    return game.won


def parse_planner_spec(settings: str) -> dict[str, int]:
    """``samples=8,budget=20000`` (the part of ``planner:...`` after the colon) as keyword
    arguments; an unknown name or a value that is not a whole number >= 1 raises ``ValueError``."""
    out: dict[str, int] = {}
    allowed = ", ".join(f"{k} (default {d}: {doc})" for k, (d, doc) in SETTINGS.items())
    for part in filter(None, (p.strip() for p in settings.split(","))):
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or key not in SETTINGS:
            raise ValueError(f"planner setting {part!r} not understood; use name=value with: {allowed}")
        if key in out:
            raise ValueError(f"planner setting {key} is given twice")
        least = 0 if key in ("probe", "progress", "known", "rollouts", "order") else 1
        try:
            number = int(value.strip().replace("_", ""))
        except ValueError:
            raise ValueError(
                f"planner setting {key}={value.strip()!r} must be a whole number >= {least}"
            ) from None
        if number < least:
            raise ValueError(f"planner setting {key}={number} must be a whole number >= {least}")
        out[key] = number
    return out


def spec_help() -> str:
    """The planner's spec with every setting at its default, as error messages show it."""
    return "planner[:" + ",".join(f"{k}={d}" for k, (d, _) in SETTINGS.items()) + "]"


def make_planner(settings: str | None = None) -> PlannerPolicy:
    """The planner of a spec's settings (``""`` or ``None`` for the defaults)."""
    kwargs: dict[str, Any] = parse_planner_spec(settings or "")
    return PlannerPolicy(**kwargs)
