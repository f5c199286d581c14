"""Baseline policies. A policy maps the live environment to an action id.

Every policy takes the unwrapped :class:`~patience_gym.env.PatienceEnv` (for the mask and, for the
greedy one, the rules core) and the observation; it must pick a legal action.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from patience_gym.core.game import Game
from patience_gym.env import PatienceEnv


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
    """One-step lookahead on the variant's heuristic (``Game.heuristic``).

    Each legal action is tried on a clone of the game and scored; the best score wins, ties go to
    the lowest action id (variants order their tables with this in mind). A cycle guard skips
    actions that lead back to a position already seen in this episode, unless every action does.
    The heuristics read only what a player can see, so the lookahead does not cheat.
    """

    name = "greedy"

    def __init__(self) -> None:
        self.seen: set[object] = set()

    def reset(self, seed: int) -> None:
        self.seen = set()

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int:
        game = env.game
        self.seen.add(game.state_key())
        best, best_score, fallback, fallback_score = -1, -np.inf, -1, -np.inf
        for a in np.flatnonzero(env.action_masks()).tolist():
            trial: Game = game.clone()
            trial.apply(a)
            score = trial.heuristic()
            if score > fallback_score:
                fallback, fallback_score = a, score
            if score > best_score and trial.state_key() not in self.seen:
                best, best_score = a, score
        return best if best >= 0 else fallback


BUILTIN = {"random": RandomPolicy, "greedy": GreedyPolicy}


def make_policy(spec: str) -> Policy:
    """``random``, ``greedy`` or ``ppo:<path to a saved MaskablePPO model>``."""
    if spec in BUILTIN:
        return BUILTIN[spec]()
    if spec.startswith("ppo:"):
        from agents.ppo import PPOPolicy  # needs the train extra (torch, sb3-contrib)

        return PPOPolicy(spec[4:])
    raise ValueError(f"unknown policy {spec!r}; use one of {', '.join(BUILTIN)} or ppo:<model path>")
