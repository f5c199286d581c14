"""PPO's per-move scoring policy (issue 35): every legal move scored by one shared network.

The observation it reads is the batched env's with ``move_features=True``
(:class:`patience_gym.vector.PatienceSB3VecEnv`): the variant's observation, then ``K`` numbers per
action computed by the native engine (:mod:`patience_gym.move_features`, whose table documents
the columns). With ``e`` the board embedding (sb3's MLP over the observation part, ``net_arch``)::

    logits[a] = scorer(concat(e, features[a]))      one scorer (scorer_arch) for every action
    value     = linear(e_value)                      the value reads the board alone

and sb3-contrib masks the logits (a masked softmax). The scorer's first layer is applied as two
matrices, ``W_e e + W_f features[a]``, the board part once per observation: one batched matmul
per layer, no loop over actions, and only the legal moves are scored (the others are masked
whatever their logit; column ``legal`` tells them). Since the scorer sees a move only through its
features, two actions with equal features score alike, whichever their ids: what is learnt of one
move carries over to every move that looks the same.

Playing a saved model through one env (``PPOPolicy``): :func:`is_move_policy` tells such a model,
:func:`observe_with_features` appends the features to one env's observation. Through the batched
env (``play_batched``): build ``PatienceVectorEnv(..., move_features=True)``, whose observations
carry the features already.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import torch
from torch import nn

from patience_gym.move_features import feature_names, move_features, n_features

from .move_scorer import BoardAndMovesPolicy

__all__ = ["SCORER_ARCH", "MovePolicy", "MoveScorer", "is_move_policy", "observe_with_features"]

#: ``scorer_arch`` when none is given: the shared scorer's hidden layers.
SCORER_ARCH = (64,)
#: The feature column that says an action is legal (patience_gym.move_features): 1 or 0.
LEGAL = 0


class MoveScorer(nn.Module):
    """The logits: ``scorer(concat(e, features[a]))`` for every action ``a``, one scorer for all."""

    def __init__(
        self, embedding: int, n_actions: int, k: int, arch: list[int], activation_fn: type[nn.Module]
    ) -> None:
        super().__init__()
        self.embedding, self.n_actions, self.k = embedding, n_actions, k
        width = arch[0] if arch else 1
        # the first layer on concat(e, f) is W_e e + W_f f + b: the board part once per observation
        self.board = nn.Linear(embedding, width)
        self.move = nn.Linear(k, width, bias=False)
        layers: list[nn.Module] = []
        for size in arch[1:]:
            layers += [activation_fn(), nn.Linear(width, size)]
            width = size
        if arch:
            layers += [activation_fn(), nn.Linear(width, 1)]
        self.rest = nn.Sequential(*layers)

    def score(self, embedding: torch.Tensor, moves: torch.Tensor) -> torch.Tensor:
        """The scores (B, A) of moves (B, A, K) on boards embedded as (B, E).

        Only the legal moves are scored (column ``legal`` set): a few per position where the table
        has dozens of ids, and the mask drops the others whatever their logit. They get 0."""
        rows, cols = (moves[..., LEGAL] > 0).nonzero(as_tuple=True)
        hidden = self.board(embedding)[rows] + self.move(moves[rows, cols])
        scores: torch.Tensor = self.rest(hidden).squeeze(-1)
        return embedding.new_zeros(moves.shape[:2]).index_put((rows, cols), scores)

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        moves = latent[:, self.embedding :].reshape(-1, self.n_actions, self.k)
        return self.score(latent[:, : self.embedding], moves)


class MovePolicy(BoardAndMovesPolicy):
    """``MaskableActorCriticPolicy`` whose logits score each move by one shared network.

    Keywords beyond sb3's: ``scorer_arch``, the scorer's hidden layers (default
    :data:`SCORER_ARCH`); ``move_k``, the features per action (default: the engine's ``K``), kept
    with the model so that it loads as it was trained."""

    default_scorer_arch = SCORER_ARCH

    def __init__(self, *args: Any, move_k: int | None = None, **kwargs: Any) -> None:
        self.move_k = int(move_k) if move_k is not None else n_features()
        assert feature_names()[LEGAL] == "legal", "the scorer reads column LEGAL as the legal flag"
        super().__init__(*args, **kwargs)

    def _check_board(self, board_size: int) -> None:
        # the features' bounds are [-1, 1] (patience_gym.move_features.with_features), the board's [0, 1]
        low = getattr(self.observation_space, "low", np.zeros(1))
        if board_size < 1 or not (low[board_size:] == -1).all():
            raise ValueError(
                f"MovePolicy needs the move features (move_features=True): the observation has "
                f"{self.features_dim} numbers, fewer than {self.n_actions} actions x {self.move_k} features"
            )

    def _action_head(self, state_latent: int) -> nn.Module:
        return MoveScorer(state_latent, self.n_actions, self.move_k, self.scorer_arch, self.activation_fn)

    def _init_action_head(self) -> None:
        self.action_net.apply(partial(self.init_weights, gain=float(np.sqrt(2))))
        last = [m for m in self.action_net.modules() if isinstance(m, nn.Linear)][-1]
        last.apply(partial(self.init_weights, gain=0.01))  # as sb3 starts its action_net

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["scorer_arch"] = self.scorer_arch
        data["move_k"] = self.move_k
        return data


def is_move_policy(model: Any) -> bool:
    """Whether ``model`` (a ``MaskablePPO``, or its policy) is a :class:`MovePolicy`: it reads the
    observation with the move features appended."""
    return isinstance(getattr(model, "policy", model), MovePolicy)


def observe_with_features(env: Any, obs: np.ndarray) -> np.ndarray:
    """``obs``, one env's observation, with the move features of its current position appended:
    what a :class:`MovePolicy` reads. ``env``: a ``PatienceEnv`` on the native engine (wrapped or
    not), at the position ``obs`` shows; the same numbers as the batched env's row."""
    return np.concatenate([obs, move_features(env).ravel()])
