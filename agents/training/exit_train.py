"""Expert iteration, the training (issue 46): the policy-value net
(:class:`patience_gym.agents.policies.exit_net.PolicyValueNet`) learns the search's labels
(:mod:`patience_gym.agents.training.exit`).

Losses: cross-entropy of the masked softmax to the search's vote shares, binary cross-entropy of
the won logit to the game's outcome and squared error of the foundation share, the two value terms
weighted by ``value_weight``. :func:`train` resumes from a checkpoint (the net, Adam's state, the
epochs done), written after each epoch.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from ..policies.exit_net import Net, NetConfig, build_net, load_net, save_net
from .exit import Decisions

__all__ = ["TrainStats", "decision_weights", "kind_weights", "losses", "new_net", "train"]


@dataclass
class TrainStats:
    """What :func:`train` reports per epoch."""

    epochs: int = 0
    decisions_seen: int = 0
    seconds: float = 0.0
    policy_loss: list[float] = field(default_factory=list)
    value_loss: list[float] = field(default_factory=list)
    agreement: list[float] = field(default_factory=list)


def losses(
    net: Net,
    obs: torch.Tensor,
    moves: torch.Tensor,
    target: torch.Tensor,
    won: torch.Tensor,
    cards: torch.Tensor,
    weight: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(policy loss, value loss, agreement) of a batch: cross-entropy to the shares (each
    decision's weighted by ``weight``: :func:`kind_weights`), BCE on the won logit plus squared
    error on the foundation share, and the share of decisions whose most likely move has the
    largest target share (one of them, where moves share it)."""
    logits, value = net(obs, moves)
    logp = torch.log_softmax(logits, dim=1)
    per_decision = -(target * torch.where(target > 0, logp, torch.zeros_like(logp))).sum(1)
    policy = (per_decision if weight is None else per_decision * weight).mean()
    value_loss = nn.functional.binary_cross_entropy_with_logits(value[:, 0], won)
    value_loss = value_loss + nn.functional.mse_loss(torch.sigmoid(value[:, 1]), cards)
    picked = target.gather(1, logits.argmax(1, keepdim=True)).squeeze(1)
    agree = (picked >= target.max(1).values).float().mean()  # on a move of the largest share
    return policy, value_loss, agree


#: The move features' column of the move's kind (patience_gym.move_features).
KIND = 8


def kind_weights(data: Decisions, balance: float) -> np.ndarray:
    """Each decision's weight in the policy loss: ``share ** -balance``, where ``share`` is the
    fraction of the decisions whose largest-share move is of this decision's kind (a deal, a card
    to a foundation, ...), scaled to mean 1; ``balance=0``: all 1.

    Why: the decisions that lose a game are of rare kinds. On Babette 99% of the planner's
    decisions with a choice play a card to a foundation; the deals and re-deals it chooses instead
    are 1%, and a net trained on all alike almost never deals there (docs/exit.md)."""
    n = len(data)
    if balance == 0 or n == 0:
        return np.ones(n, np.float32)
    off = data.move_offsets
    top = np.array([off[i] + int(np.argmax(data.target[off[i] : off[i + 1]])) for i in range(n)])
    kind = np.round(data.move_features[top, KIND], 4)
    _, inverse, counts = np.unique(kind, return_inverse=True, return_counts=True)
    w: np.ndarray = (counts[inverse] / n) ** -balance
    out: np.ndarray = (w / w.mean()).astype(np.float32)
    return out


def decision_weights(data: Decisions, balance: float, weights: np.ndarray | None) -> np.ndarray:
    """Each decision's weight in the policy loss: :func:`kind_weights` times ``weights`` (all 1
    where ``None``), scaled to mean 1."""
    per = kind_weights(data, balance) * (1.0 if weights is None else np.asarray(weights, np.float32))
    out: np.ndarray = (per / max(1e-12, float(per.mean()))).astype(np.float32)
    return out


def train(
    net: Net,
    data: Decisions,
    *,
    epochs: int,
    balance: float = 0.0,
    batch_size: int = 256,
    lr: float = 1e-3,
    value_weight: float = 0.5,
    checkpoint: Path | str | None = None,
    seed: int = 0,
    report: Callable[[str], None] = print,
    weights: np.ndarray | None = None,
) -> TrainStats:
    """Train ``net`` on ``data`` for ``epochs`` passes; with a ``checkpoint`` that exists, resume
    from it (net, optimizer, epochs done) and write it again after each epoch. ``weights``: each
    decision's weight in the policy loss (the decisive ones up), as :func:`decision_weights` uses."""
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    stats = TrainStats()
    if checkpoint is not None and Path(checkpoint).is_file():
        loaded, blob = load_net(checkpoint)
        net.load_state_dict(loaded.state_dict())
        optimizer.load_state_dict(blob["optimizer"])
        stats = TrainStats(**blob["stats"])
        report(f"resumed from {checkpoint} after {stats.epochs} epochs")
    n = len(data)
    won = torch.as_tensor(data.won)
    cards = torch.as_tensor(data.cards)
    weight = torch.as_tensor(decision_weights(data, balance, weights))
    net.train()
    while stats.epochs < epochs:
        rng = np.random.default_rng((seed, stats.epochs))
        order = rng.permutation(n)
        start = time.perf_counter()
        totals = np.zeros(3)
        for first in range(0, n, batch_size):
            idx = order[first : first + batch_size]
            obs, moves, target = (torch.as_tensor(x) for x in data.batch(idx))
            p_loss, v_loss, agree = losses(net, obs, moves, target, won[idx], cards[idx], weight[idx])
            optimizer.zero_grad()
            loss: torch.Tensor = p_loss + value_weight * v_loss
            loss.backward()  # type: ignore[no-untyped-call, unused-ignore]
            optimizer.step()
            totals += np.array([p_loss.item(), v_loss.item(), agree.item()]) * len(idx)
        stats.epochs += 1
        stats.decisions_seen += n
        stats.seconds += time.perf_counter() - start
        p, v, a = (totals / max(1, n)).tolist()
        stats.policy_loss.append(p)
        stats.value_loss.append(v)
        stats.agreement.append(a)
        report(
            f"epoch {stats.epochs}/{epochs}: policy loss {p:.4f}, value loss {v:.4f}, "
            f"agrees with the search on {100 * a:.1f}% ({n / max(1e-9, time.perf_counter() - start):.0f} "
            f"decisions/s)"
        )
        if checkpoint is not None:
            save_net(checkpoint, net, {"optimizer": optimizer.state_dict(), "stats": asdict(stats)})
    net.eval()
    return stats


def new_net(data: Decisions, env: str, options: dict[str, Any], **shape: Any) -> Net:
    """A fresh net shaped for ``data``'s variant (``shape``: :class:`NetConfig`'s fields, its
    ``encoder`` among them)."""
    torch.manual_seed(0)
    return build_net(NetConfig(env, options, data.obs_size, data.n_actions, data.k, **shape))
