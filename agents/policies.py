"""Baseline policies. A policy maps the live environment to an action id.

Every policy takes the unwrapped :class:`~patience_gym.env.PatienceEnv` (for the mask and, for the
greedy one, the rules core) and the observation; it must pick a legal action.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from agents.heuristics import heuristic_for
from patience_gym.env import PatienceEnv
from patience_gym.native import reference


class Policy(Protocol):
    name: str

    def reset(self, seed: int) -> None:
        """Called before each episode with that episode's seed."""

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int: ...


class RandomPolicy:
    """Uniform over the legal actions."""

    name = "random"

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)

    def reset(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int:
        return int(self.rng.choice(np.flatnonzero(env.action_masks())))


class GreedyPolicy:
    """One-step lookahead on the variant's heuristic (:mod:`agents.heuristics`).

    Each legal action is tried on a clone of the game and scored; the best score wins, ties go to
    the lowest action id (variants order their tables with this in mind). A cycle guard counts
    the visits to each position in the episode and prefers the successor visited least, so a
    policy caught between equally scored positions walks through them all instead of bouncing
    between two. The heuristics read only what a player can see, so the lookahead does not cheat.
    """

    name = "greedy"

    def __init__(self) -> None:
        self.visits: dict[object, int] = {}

    def reset(self, seed: int) -> None:
        self.visits = {}

    def visit(self, env: PatienceEnv) -> dict[object, int]:
        """Count a visit to the current position; the counts, keyed like trial positions (on the
        Python twin: on the native engine ``env.state_key()`` is the engine's bytes, which no
        twin key would ever equal)."""
        key = reference(env.game).state_key()
        self.visits[key] = self.visits.get(key, 0) + 1
        return self.visits

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int:
        game = reference(env.game)  # the Python twin on the native engine: clones are cheap there
        heuristic = heuristic_for(type(game))
        visits = self.visit(env)
        best, best_rank = -1, (0, 0.0)
        for a in np.flatnonzero(env.action_masks()).tolist():
            trial = game.clone()
            trial.apply(a)
            rank = (visits.get(trial.state_key(), 0), -heuristic(trial))
            if best < 0 or rank < best_rank:
                best, best_rank = a, rank
        return best


BUILTIN: dict[str, type[Policy]] = {"random": RandomPolicy, "greedy": GreedyPolicy}


def make_policy(spec: str) -> Policy:
    """``random``, ``greedy``, ``planner[:samples=8,budget=20000,retry=8]`` (the determinized
    solver planner of :mod:`agents.planner`; any subset of its settings), ``ppo:<path to a saved
    MaskablePPO model>`` or ``rllib:<RLlib run folder or checkpoint>``."""
    if spec in BUILTIN:
        return BUILTIN[spec]()
    if spec == "planner" or spec.startswith("planner:"):
        from agents.planner import make_planner  # here: the planner builds on GreedyPolicy

        return make_planner(spec[len("planner:") :])
    if spec.startswith("ppo:"):
        from agents.ppo import PPOPolicy  # needs the train extra (torch, sb3-contrib)

        return PPOPolicy(spec[4:])
    if spec.startswith("rllib:"):
        from agents.rllib import RLlibPolicy  # RLlib itself is imported by the policy (scale extra)

        return RLlibPolicy(spec[6:])
    raise ValueError(
        f"unknown policy {spec!r}; use one of {', '.join(BUILTIN)}, "
        "planner[:samples=8,budget=20000,retry=8], ppo:<model path> or rllib:<checkpoint>"
    )
