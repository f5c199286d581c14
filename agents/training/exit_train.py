"""Expert iteration, the training (issue 46): the policy-value net
(:class:`agents.policies.exit_net.PolicyValueNet`) learns the search's labels
(:mod:`agents.training.exit`).

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

from agents.policies.exit_net import NetConfig, PolicyValueNet, load_net, save_net
from agents.training.exit import Decisions

__all__ = ["TrainStats", "losses", "new_net", "train"]


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
    net: PolicyValueNet,
    obs: torch.Tensor,
    moves: torch.Tensor,
    target: torch.Tensor,
    won: torch.Tensor,
    cards: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(policy loss, value loss, agreement) of a batch: cross-entropy to the shares, BCE on the won
    logit plus squared error on the foundation share, and the share of decisions whose most likely
    move has the largest target share."""
    logits, value = net(obs, moves)
    logp = torch.log_softmax(logits, dim=1)
    policy = -(target * torch.where(target > 0, logp, torch.zeros_like(logp))).sum(1).mean()
    value_loss = nn.functional.binary_cross_entropy_with_logits(value[:, 0], won)
    value_loss = value_loss + nn.functional.mse_loss(torch.sigmoid(value[:, 1]), cards)
    agree = (logits.argmax(1) == target.argmax(1)).float().mean()
    return policy, value_loss, agree


def train(
    net: PolicyValueNet,
    data: Decisions,
    *,
    epochs: int,
    batch_size: int = 256,
    lr: float = 1e-3,
    value_weight: float = 0.5,
    checkpoint: Path | str | None = None,
    seed: int = 0,
    report: Callable[[str], None] = print,
) -> TrainStats:
    """Train ``net`` on ``data`` for ``epochs`` passes; with a ``checkpoint`` that exists, resume
    from it (net, optimizer, epochs done) and write it again after each epoch."""
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
    net.train()
    while stats.epochs < epochs:
        rng = np.random.default_rng((seed, stats.epochs))
        order = rng.permutation(n)
        start = time.perf_counter()
        totals = np.zeros(3)
        for first in range(0, n, batch_size):
            idx = order[first : first + batch_size]
            obs, moves, target = (torch.as_tensor(x) for x in data.batch(idx))
            p_loss, v_loss, agree = losses(net, obs, moves, target, won[idx], cards[idx])
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


def new_net(data: Decisions, env: str, options: dict[str, Any], **shape: Any) -> PolicyValueNet:
    """A fresh net shaped for ``data``'s variant."""
    torch.manual_seed(0)
    return PolicyValueNet(NetConfig(env, options, data.obs_size, data.n_actions, data.k, **shape))
