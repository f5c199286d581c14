"""PPO's move-scoring policy (config ``policy: move_scorer``): each legal move scored from what it does.

The observation it reads is :class:`agents.policies.features.MoveFeatures`'s: the variant's
observation followed by ``K`` numbers per action. The logit of action ``a`` is::

    state_head(latent)[a] + move_scorer(features[a])

where ``latent`` is the usual MLP over the observation part (``net_arch``), ``state_head`` one
linear layer (a flat policy's output layer) and ``move_scorer`` a small MLP (``scorer_arch``)
shared by every action. The value is read from the state latent alone. Greedy is one such
policy (a large score for greedy's choice, or about ``-C * visits + heuristic change``), so
behaviour cloning can reach greedy's decisions, its cycle guard included, and PPO refines them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from torch import nn

from .features import features_per_action

#: ``policy_kwargs.scorer_arch`` when the config gives none.
SCORER_ARCH = (64, 64)


class StateAndMoves(nn.Module):
    """sb3's MLP over the observation part (the board); the actor's latent carries the move
    features along, the critic's is the board's alone. Shared with :mod:`agents.policies.move_policy`."""

    def __init__(
        self,
        state_size: int,
        net_arch: Any,
        activation_fn: type[nn.Module],
        device: torch.device | str,
    ) -> None:
        super().__init__()
        self.state_size = state_size
        self.mlp = MlpExtractor(state_size, net_arch=net_arch, activation_fn=activation_fn, device=device)
        self.state_latent = self.mlp.latent_dim_pi
        self.latent_dim_pi = self.state_latent  # the flat head sb3 builds first (then replaced) reads it
        self.latent_dim_vf = self.mlp.latent_dim_vf

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        state = self.mlp.forward_actor(features[:, : self.state_size])
        return torch.cat([state, features[:, self.state_size :]], dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.mlp.forward_critic(features[:, : self.state_size])
        return out


class MoveHead(nn.Module):
    """The logits: a linear head on the state latent plus the shared scorer of each move's features."""

    def __init__(
        self, state_latent: int, n_actions: int, arch: list[int], activation_fn: type[nn.Module], k: int
    ) -> None:
        super().__init__()
        self.state_latent, self.n_actions, self.k = state_latent, n_actions, k
        self.state_head = nn.Linear(state_latent, n_actions)
        layers: list[nn.Module] = []
        width = k
        for size in arch:
            layers += [nn.Linear(width, size), activation_fn()]
            width = size
        layers.append(nn.Linear(width, 1))
        self.scorer = nn.Sequential(*layers)

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        moves = latent[:, self.state_latent :].reshape(-1, self.n_actions, self.k)
        scores: torch.Tensor = self.scorer(moves).squeeze(-1)
        state: torch.Tensor = self.state_head(latent[:, : self.state_latent])
        return state + scores


class BoardAndMovesPolicy(MaskableActorCriticPolicy):
    """The machinery both move-reading policies share (:class:`MoveScorerPolicy` here,
    :class:`agents.policies.move_policy.MovePolicy`): an observation that is the board followed by
    ``move_k`` numbers per action, sb3's MLP over the board (:class:`StateAndMoves`), and an
    ``action_net`` that reads the board's latent and the moves' numbers. A subclass sets
    ``move_k`` before calling this constructor and gives :meth:`_action_head` and
    :meth:`_init_action_head`; :meth:`_check_board` may refuse an observation that lacks the
    features."""

    move_k: int
    #: the name a config gives the policy (``policy: ...``), for messages
    config_name = "move_scorer"
    #: the scorer's hidden layers when the config gives none (``policy_kwargs.scorer_arch``)
    default_scorer_arch: tuple[int, ...] = SCORER_ARCH

    def __init__(self, *args: Any, scorer_arch: Sequence[int] | None = None, **kwargs: Any) -> None:
        # args: sb3's observation space, action space and learning-rate schedule (and what follows)
        arch = self.default_scorer_arch if scorer_arch is None else scorer_arch
        self.scorer_arch = [int(n) for n in arch]
        super().__init__(*args, **kwargs)

    @property
    def n_actions(self) -> int:
        assert isinstance(self.action_space, spaces.Discrete)
        return int(self.action_space.n)

    def _check_board(self, board_size: int) -> None:
        """Raise ``ValueError`` when the observation cannot hold the move features."""
        if board_size < 1:
            raise ValueError(
                f"policy {self.config_name} needs the move features (move_features: true): the "
                f"observation has {self.features_dim} numbers, fewer than {self.n_actions} actions x "
                f"{self.move_k} features"
            )

    def _action_head(self, state_latent: int) -> nn.Module:
        raise NotImplementedError

    def _init_action_head(self) -> None:
        raise NotImplementedError

    def _build_mlp_extractor(self) -> None:
        board_size = self.features_dim - self.n_actions * self.move_k
        self._check_board(board_size)
        # sb3 types the attribute as its MlpExtractor; this one answers the same calls
        self.mlp_extractor = StateAndMoves(  # type: ignore[assignment]
            board_size, self.net_arch, self.activation_fn, self.device
        )

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)  # builds a flat action_net, replaced here by the subclass' head
        extractor = self.mlp_extractor
        assert isinstance(extractor, StateAndMoves)
        self.action_net = self._action_head(extractor.state_latent)
        if self.ortho_init:
            self._init_action_head()
        self.optimizer = self.optimizer_class(
            self.parameters(),
            lr=lr_schedule(1),  # type: ignore[call-arg]  # as sb3's _build does
            **self.optimizer_kwargs,
        )


class MoveScorerPolicy(BoardAndMovesPolicy):
    """``MaskableActorCriticPolicy`` whose action logits score each move from its features."""

    def __init__(self, *args: Any, feature_rollouts: int = 0, **kwargs: Any) -> None:
        self.feature_rollouts = int(feature_rollouts)
        self.move_k = features_per_action(self.feature_rollouts)
        super().__init__(*args, **kwargs)

    def _action_head(self, state_latent: int) -> nn.Module:
        return MoveHead(state_latent, self.n_actions, self.scorer_arch, self.activation_fn, self.move_k)

    def _init_action_head(self) -> None:
        head = self.action_net
        assert isinstance(head, MoveHead)
        head.state_head.apply(partial(self.init_weights, gain=0.01))
        head.scorer.apply(partial(self.init_weights, gain=float(np.sqrt(2))))

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["scorer_arch"] = self.scorer_arch
        data["feature_rollouts"] = self.feature_rollouts
        return data
