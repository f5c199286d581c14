"""A structured board encoder for the expert-iteration net (issue 46): one token per card.

The MLP of :class:`~patience_gym.agents.policies.exit_net.PolicyValueNet` reads the observation as
one flat vector, so what it learns of a card in packet b it must learn again for packet c, and a
question about several cards at once ("where do the rest of this suit lie?", which decides Louis'
choice of foundation) is a function it has to build from thousands of unrelated inputs.

:class:`CardNet` reads the same observation as 52 tokens, one per card of the pack: each card's
token gathers every number the observation holds about that card (its place one-hot, its depth,
both copies in a two-pack game: :func:`card_columns` finds them in the named segments of the env's
layout), plus a learnt embedding of the card's identity; the numbers that belong to no card (the
foundations' heights, the pack's size, ...) are added to every token. A transformer lets the
cards attend to each other; the board is their mean. Each legal move is scored by the per-move
scorer's inputs (its features, its action id) together with what it reads, by attention, from the
card tokens::

    q_a       = W_f features[a] + v_a + W_e board
    logits[a] = scorer(q_a + attention(q_a, cards))     for the legal moves a (the others: -inf)
    value     = head(board)                            [won logit, foundation share]

It is a drop-in for the MLP: the same ``forward(obs, moves)``, trained by
:func:`patience_gym.agents.training.exit_train.train`, played by
:class:`~patience_gym.agents.policies.exit_net.ExitPolicy` and ``play_many``; ``NetConfig.encoder``
says which net a saved model is.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

__all__ = ["CARDS", "LEGAL", "CardNet", "card_columns"]

#: The cards of one pack: a token each (a two-pack game's two copies share their card's token).
CARDS = 52
#: The move features' column that says an action is legal (``exit_net.LEGAL``, which imports this
#: module: a test keeps the two equal).
LEGAL = 0


def _card_major(start: int, shape: tuple[int, ...]) -> np.ndarray:
    """Columns of a segment whose first axis is the card (52) or the copy (104: slot 2 * card + k)."""
    rest = int(np.prod(shape[1:])) if len(shape) > 1 else 1
    flat = start + np.arange(shape[0] * rest).reshape(shape[0], rest)
    return flat.reshape(CARDS, -1)


def _place_major(start: int, shape: tuple[int, ...]) -> np.ndarray:
    """Columns of a segment whose last axis is the card: (..., 52), one column a card per place."""
    flat = start + np.arange(int(np.prod(shape))).reshape(-1, CARDS)
    return np.ascontiguousarray(flat.T)


def card_columns(layout: Any) -> tuple[np.ndarray, np.ndarray]:
    """(per_card, shared): ``per_card`` (52, F) the observation's columns that describe each card
    (every segment with an axis of 52 cards or 104 copies), ``shared`` (G,) the rest.

    ``layout``: the env's :class:`patience_gym.core.game.ObsLayout`. A segment is card-major when
    its first axis is 52 or 104 (Nestor's ``card_place (52, 14)``, The Kings' ``card_place (104,
    9)``), place-major when its last axis is 52 (Louis' ``packet_top (12, 52)``, Babette's ``garden
    (13, 8, 52)``); every other segment is shared."""
    per_card: list[np.ndarray] = []
    shared: list[np.ndarray] = []
    for seg in layout.segments:
        shape = tuple(seg.shape)
        if shape[0] in (CARDS, 2 * CARDS):
            per_card.append(_card_major(seg.start, shape))
        elif shape[-1] == CARDS:
            per_card.append(_place_major(seg.start, shape))
        else:
            shared.append(np.arange(seg.start, seg.stop))
    if not per_card:
        raise ValueError("card_columns: no segment of the observation has an axis of 52 cards or 104 copies")
    cards = np.concatenate(per_card, axis=1).astype(np.int64)
    rest = np.concatenate(shared).astype(np.int64) if shared else np.zeros(0, np.int64)
    return cards, rest


class CardNet(nn.Module):
    """Card tokens, a transformer, attention from each legal move (module docstring).

    ``cfg``: a :class:`~patience_gym.agents.policies.exit_net.NetConfig` with ``encoder="cards"``;
    its ``hidden`` is the tokens' width, ``layers`` and ``heads`` the transformer's."""

    cards_idx: torch.Tensor
    shared_idx: torch.Tensor

    def __init__(self, cfg: Any, layout: Any) -> None:
        super().__init__()
        self.cfg = cfg
        d = cfg.hidden
        cards, shared = card_columns(layout)
        self.register_buffer("cards_idx", torch.as_tensor(cards), persistent=False)
        self.register_buffer("shared_idx", torch.as_tensor(shared), persistent=False)
        self.card_in = nn.Linear(cards.shape[1], d)
        self.identity = nn.Embedding(CARDS, d)
        self.shared_in = nn.Linear(max(1, len(shared)), d)
        layer = nn.TransformerEncoderLayer(d, cfg.heads, 2 * d, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, cfg.layers, enable_nested_tensor=False)
        self.board_part = nn.Linear(d, d)
        self.move_part = nn.Linear(cfg.k, d, bias=False)
        self.action_part = nn.Embedding(cfg.n_actions, d)
        self.key, self.val = nn.Linear(d, d, bias=False), nn.Linear(d, d, bias=False)
        width = cfg.scorer[0] if cfg.scorer else d
        self.scorer = nn.Sequential(nn.Linear(d, width), nn.ReLU(), nn.Linear(width, 1))
        self.value = nn.Sequential(nn.Linear(d, 64), nn.ReLU(), nn.Linear(64, 2))

    def tokens(self, obs: torch.Tensor) -> torch.Tensor:
        """(B, 52, d): each card's numbers, its identity and the shared numbers, through the encoder."""
        per_card = obs[:, self.cards_idx]  # (B, 52, F)
        shared = obs[:, self.shared_idx] if self.shared_idx.numel() else obs[:, :1] * 0
        t = self.card_in(per_card) + self.identity.weight[None] + self.shared_in(shared)[:, None]
        out: torch.Tensor = self.encoder(t)
        return out

    def forward(self, obs: torch.Tensor, moves: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (B, A), ``-inf`` where a move is not legal, and the value (B, 2)."""
        h = self.tokens(obs)
        board = h.mean(1)
        legal = moves[..., LEGAL] > 0
        rows, cols = legal.nonzero(as_tuple=True)
        q = self.board_part(board)[rows] + self.move_part(moves[rows, cols]) + self.action_part(cols)
        keys, vals = self.key(h)[rows], self.val(h)[rows]  # (M, 52, d)
        weights = torch.softmax((keys @ q[:, :, None]).squeeze(-1) / q.shape[-1] ** 0.5, dim=-1)
        read = (weights[:, :, None] * vals).sum(1)
        scores = self.scorer(q + read).squeeze(-1)
        logits = torch.full(legal.shape, float("-inf"), dtype=scores.dtype).index_put((rows, cols), scores)
        return logits, self.value(board)
