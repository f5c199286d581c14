"""The afterstate net: a network that scores the position each legal move leads to (issue 46).

It plays alone, no search: at a decision it looks one move ahead, as greedy does, and plays the
move whose position it scores best. What it scores is what the player would see: a move that
turns a card up is tried in the game's *shadow* (:mod:`agents.policies.shadow`, the deal with its
unseen cards dealt again in a fixed order), so the card it shows is never read; any other move is
tried on a clone of the game, whose observation shows nothing the player has not seen.

It learns from the solver (:mod:`patience_gym.agents.training.afterstate`): at decisions of
training deals where some moves keep the deal won (every card seen) and others lose it, a softmax
over the decision's positions is trained towards the moves that keep it won. That is learning
from search, not reward-only RL. A saved net (:func:`save_afterstate`) is played by
``exit:<model file>``, or ``exit:<variant>`` where the package ships one (``agents/data/exit/``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from patience_gym.core.game import Game
from patience_gym.env import PatienceEnv
from patience_gym.native import reference

from .base import try_move
from .shadow import Shadow

__all__ = [
    "KIND",
    "AfterstateConfig",
    "AfterstateNet",
    "AfterstatePolicy",
    "afterstates",
    "is_afterstate",
    "load_afterstate",
    "save_afterstate",
]

#: What a saved file says it holds (``exit:`` tells the two kinds of net apart by it).
KIND = "afterstate"


@dataclass(frozen=True)
class AfterstateConfig:
    """The net's shape, kept with the model so that it loads as it was trained."""

    env: str
    options: dict[str, Any]
    obs_size: int
    hidden: int = 512


class AfterstateNet(nn.Module):
    """An MLP from a position's observation to one score (higher: the move to it is better)."""

    def __init__(self, cfg: AfterstateConfig) -> None:
        super().__init__()
        self.cfg = cfg
        h = cfg.hidden
        self.body = nn.Sequential(
            nn.Linear(cfg.obs_size, h), nn.ReLU(), nn.Linear(h, h // 2), nn.ReLU(), nn.Linear(h // 2, 1)
        )

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Scores (...,) of observations (..., obs_size)."""
        return self.body(obs)[..., 0]  # type: ignore[no-any-return]


def save_afterstate(path: Path | str, net: AfterstateNet, extra: dict[str, Any] | None = None) -> None:
    """The net's kind, config and weights (and ``extra``) in one file."""
    torch.save(
        {"kind": KIND, "config": asdict(net.cfg), "state_dict": net.state_dict(), **(extra or {})}, str(path)
    )


def _blob(path: Path | str) -> dict[str, Any]:
    blob: dict[str, Any] = torch.load(str(path), map_location="cpu", weights_only=True)
    return blob


def is_afterstate(path: Path | str) -> bool:
    """Whether the model file at ``path`` holds an afterstate net."""
    return _blob(path).get("kind") == KIND


def load_afterstate(path: Path | str) -> tuple[AfterstateNet, dict[str, Any]]:
    """The net saved at ``path`` and everything saved with it."""
    blob = _blob(path)
    if blob.get("kind") != KIND:
        raise ValueError(f"{path}: not an afterstate net (its kind is {blob.get('kind')!r})")
    net = AfterstateNet(AfterstateConfig(**blob["config"]))
    net.load_state_dict(blob["state_dict"])
    net.eval()
    return net, blob


def afterstates(
    game: Game[Any], shadow: Callable[[], Game[Any]], mask: np.ndarray
) -> tuple[list[int], np.ndarray, list[object]]:
    """Every legal move of ``game`` (the Python rules core; ascending ids), the observation of
    the position it leads to as the player would see it (module docstring: a move that turns a card
    up is tried in ``shadow()``), and the real successor's state key (for the cycle guard)."""
    unseen = len(game.unseen_positions())
    actions = np.flatnonzero(mask).tolist()
    obs, keys = [], []
    for a in actions:
        trial, _, after = try_move(game, shadow, a, unseen)  # greedy's rule of what may be read
        keys.append(trial.state_key())
        obs.append(after.observation())
    return actions, np.asarray(obs, dtype=np.float32), keys


class AfterstatePolicy:
    """An :class:`AfterstateNet` playing the move to the position it scores best.

    A cycle guard, greedy's: the positions met this episode are counted, and the move is the best
    scored of those leading to the positions met least. Call it at every step of the episode (the
    shadow replays the moves it played)."""

    def __init__(self, net: AfterstateNet, name: str = "exit") -> None:
        self.net, self.name = net, name
        self.shadow = Shadow()
        self.history: list[int] = []
        self.visits: dict[object, int] = {}

    @staticmethod
    def load(path: Path | str, name: str | None = None) -> AfterstatePolicy:
        net, _ = load_afterstate(path)
        return AfterstatePolicy(net, name or f"exit({Path(path).name})")

    def reset(self, seed: int) -> None:
        self.shadow.reset()
        self.history, self.visits = [], {}

    def scores(self, game: Game[Any], mask: np.ndarray) -> tuple[list[int], np.ndarray, list[object]]:
        """The legal moves, the net's score of each one's position, and those positions' keys."""
        actions, obs, keys = afterstates(game, lambda: self.shadow.of(game, self.history), mask)
        with torch.no_grad():
            scores = self.net(torch.as_tensor(obs)).numpy()
        return actions, scores, keys

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int:
        game = reference(env.game)
        here = game.state_key()
        self.visits[here] = self.visits.get(here, 0) + 1
        mask = env.action_masks()
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            action = int(legal[0])
        else:
            actions, scores, keys = self.scores(game, mask)
            best = min(
                range(len(actions)), key=lambda i: (self.visits.get(keys[i], 0), -scores[i], actions[i])
            )
            action = actions[best]
        self.history.append(action)
        return action
