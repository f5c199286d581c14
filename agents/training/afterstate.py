"""The afterstate net's labels and training (issue 46; the net: agents/policies/afterstate.py).

**Labels.** A behaviour policy plays training deals (seeds from :data:`AFTERSTATE_DEAL_SEED`); at
each decision with a choice the solver, every card seen, says of each legal move whether the deal
can still be won after it (``solve_line`` with ``budget`` nodes; a move it cannot decide is left
out). The decisions it *tells apart*, some moves won and some lost, are kept: the observation of
each move's position as the player would see it (:func:`agents.policies.afterstate.afterstates`),
and its verdict. Decisions where every move wins, or every move loses, teach nothing about which
move to play and are dropped. The behaviour: per game, with probability ``keep`` it plays a move
that keeps the deal won wherever some move loses it (greedy's if greedy's does, else one drawn at
random), so that its games stay where decisions matter; else greedy's moves with a random move at
each step with a probability drawn per game from ``EPSILONS``.

A *labelling run* is a folder: ``run.json`` (variant, options, budget, first seed, games a chunk)
and ``chunk-00000.npz``, ...: chunk ``c`` holds the kept decisions of seeds ``first_seed + c *
chunk_games`` up to the next chunk's (:func:`_write_chunk`: per row the observation, verdict, move,
decision, step and seed; per game every move played; the chunk's counts). A chunk is written to a
temporary name and renamed when done, so :func:`label` run again on the folder skips finished
chunks and resumes.

**Training** (:func:`train`): a softmax over each kept decision's positions, its loss the
negative log of the probability given to the moves that keep the deal won. One epoch over a few
hundred thousand decisions; more epochs fit the training decisions and lose on held-out ones.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import MISSING, asdict, dataclass, field, fields
from functools import partial
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.core.cards import card_name
from patience_gym.env import PatienceEnv
from patience_gym.native import reference
from patience_gym.solver import solve_line

from ..policies.afterstate import AfterstateConfig, AfterstateNet, afterstates
from ..policies.base import GreedyPolicy
from ..policies.shadow import Shadow

__all__ = [
    "AFTERSTATE_DEAL_SEED",
    "Behaviour",
    "Decisions",
    "LabelRun",
    "LabelledGame",
    "label",
    "label_game",
    "read_decisions",
    "train",
]

#: Labelling plays seeds from here: above the PPO training deals (1,000,000 up) and the planner's
#: labels (2,000,000 up), far from the held-out seeds (0-999) and the models' check (5,000 up).
AFTERSTATE_DEAL_SEED = 4_000_000
#: The random-move rates a game of the behaviour draws from (module docstring).
EPSILONS = (0.0, 0.1, 0.3, 1.0)


@dataclass(frozen=True)
class LabelRun:
    env: str
    options: dict[str, Any]
    budget: int
    first_seed: int
    chunk_games: int
    keep: float = 0.5
    player: str | None = None  #: a policy spec: its own moves instead of greedy's (a DAgger round)


@dataclass
class LabelledGame:
    """One game of the behaviour: each kept row's observation, verdict, move, decision number and
    step (moves played before it), every move played, and the number of decisions with a choice."""

    x: list[np.ndarray] = field(default_factory=list)
    y: list[int] = field(default_factory=list)
    action: list[int] = field(default_factory=list)
    decision: list[int] = field(default_factory=list)
    step: list[int] = field(default_factory=list)
    played: list[int] = field(default_factory=list)
    decisions: int = 0


class Behaviour:
    """Who moves in a labelled game: greedy with the ``keep`` and random-move rules (module
    docstring), or with ``player`` a policy's own moves (a DAgger round: the net plays, the solver
    says where its moves lose)."""

    def __init__(self, rng: np.random.Generator, keep: float = 0.5, player: Any = None) -> None:
        self.rng, self.keep_share, self.player = rng, keep, player
        self.greedy = GreedyPolicy()
        self.keep, self.eps = False, 0.0

    def reset(self, seed: int) -> None:
        """A new game: draws its ``keep`` and random-move rate (greedy's behaviour only)."""
        if self.player is not None:
            self.player.reset(seed)
            return
        self.greedy.reset(seed)
        self.keep = bool(self.rng.random() < self.keep_share)
        self.eps = float(self.rng.choice(EPSILONS))

    def __call__(self, core: PatienceEnv, obs: np.ndarray, verdicts: dict[int, int]) -> int:
        """The move; greedy is told of every move it did not choose."""
        if self.player is not None:
            return int(self.player(core, obs))
        won = [a for a, y in verdicts.items() if y]
        if self.keep and won and len(won) < len(verdicts):
            action = self.greedy(core, obs)  # greedy learns the move played from the next position
            return action if action in won else int(self.rng.choice(won))
        if self.rng.random() < self.eps:
            action = int(self.rng.choice(np.flatnonzero(core.action_masks())))
            self.greedy.follow(core, action)
            return action
        return self.greedy(core, obs)


def label_game(env: gym.Env[np.ndarray, Any], seed: int, budget: int, behave: Behaviour) -> LabelledGame:
    """One game of the behaviour, labelled (module docstring)."""
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    obs, _ = env.reset(seed=seed)
    behave.reset(seed)
    shadow = Shadow()
    deck = [card_name(c) for c in core.game.initial_pack]
    out = LabelledGame()
    played = out.played
    while True:
        mask = core.action_masks()
        if not mask.any():  # no legal move (The Kings can deal one such): the game is lost
            return out
        verdicts: dict[int, int] = {}
        if mask.sum() > 1:
            game = reference(core.game)
            moves, views, _ = afterstates(game, partial(shadow.of, game, played), mask)
            rows = []
            for a, view in zip(moves, views, strict=True):
                verdict = solve_line(core.variant, core.game.options, deck, [*played, a], max_nodes=budget)
                if verdict.label != "unknown":
                    verdicts[a] = int(verdict.label == "won")
                    rows.append(view)
            if 0 < sum(verdicts.values()) < len(verdicts):
                out.x += [v.astype(np.float16) for v in rows]
                out.y += list(verdicts.values())
                out.action += list(verdicts)
                out.decision += [out.decisions] * len(rows)
                out.step += [len(played)] * len(rows)
            out.decisions += 1
        action = behave(core, obs, verdicts)
        played.append(action)
        obs, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            return out


def chunk_path(folder: Path, chunk: int) -> Path:
    return folder / f"chunk-{chunk:05d}.npz"


def _open_run(folder: Path, run: LabelRun) -> None:
    """Write ``run.json``, or check that the folder's run has these settings."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "run.json"
    if path.exists():  # a setting added since the run began counts at its default
        defaults = {f.name: f.default for f in fields(LabelRun) if f.default is not MISSING}
        old = {**defaults, **json.loads(path.read_text())}
        if old != asdict(run):
            raise ValueError(
                f"{folder} holds a labelling run with other settings: {old}; give another folder"
            )
    else:
        path.write_text(json.dumps(asdict(run), indent=1) + "\n")


def label(
    folder: Path | str, run: LabelRun, games: int, say: Callable[[str], None] = print
) -> None:  # fmt: skip
    """Label ``games`` games in ``folder`` (module docstring), skipping the chunks already done."""
    folder = Path(folder)
    _open_run(folder, run)
    env = gym.make(f"patience_gym/{run.env}", **run.options)
    player = None
    if run.player is not None:
        from ..registry import make_policy  # here: the registry imports every policy

        player = make_policy(run.player)
    for chunk in range(-(-games // run.chunk_games)):
        path = chunk_path(folder, chunk)
        if path.exists():
            continue
        start, cpu = run.first_seed + chunk * run.chunk_games, time.process_time()
        n = min(run.chunk_games, games - chunk * run.chunk_games)
        behave = Behaviour(np.random.default_rng(start), run.keep, player)
        done = [label_game(env, seed, run.budget, behave) for seed in range(start, start + n)]
        _write_chunk(path, start, done, time.process_time() - cpu, int(env.observation_space.shape[0]))  # type: ignore[index]
        kept, decisions = sum(len(set(g.decision)) for g in done), sum(g.decisions for g in done)
        say(f"chunk {chunk}: seeds {start}..{start + n - 1}, {kept} of {decisions} decisions kept")


def _write_chunk(path: Path, start: int, done: list[LabelledGame], seconds: float, width: int) -> None:
    """One chunk's games (``start`` the first's seed) in one file, written whole or not at all.
    Rows: ``x`` (float16), ``y``, ``action``, ``decision`` (numbered through the chunk), ``step``,
    ``seed``; games: every move played, game ``i``'s ``played[offsets[i]:offsets[i + 1]]``."""
    before = np.cumsum([0] + [g.decisions for g in done])
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(
        tmp,
        x=np.array([v for g in done for v in g.x], dtype=np.float16).reshape(-1, width),
        y=np.array([v for g in done for v in g.y], dtype=np.int8),
        action=np.array([v for g in done for v in g.action], dtype=np.int32),
        decision=np.array([before[i] + d for i, g in enumerate(done) for d in g.decision], dtype=np.int64),
        step=np.array([v for g in done for v in g.step], dtype=np.int32),
        seed=np.array([start + i for i, g in enumerate(done) for _ in g.y], dtype=np.int64),
        played=np.array([a for g in done for a in g.played], dtype=np.int32),
        offsets=np.cumsum([0] + [len(g.played) for g in done]),
        games=len(done), decisions=int(before[-1]), seconds=seconds,
    )  # fmt: skip
    os.replace(tmp, path)


@dataclass
class Decisions:
    """Every kept decision of some chunks: rows ``x``/``y``; decision ``i`` is rows
    ``index[i, :count[i]]``; ``seed[i]`` its deal. ``games``, ``decisions`` and ``seconds``: the
    chunks' counts (all decisions with a choice) and labelling CPU time."""

    x: np.ndarray
    y: np.ndarray
    index: np.ndarray
    count: np.ndarray
    seed: np.ndarray
    games: int
    decisions: int
    seconds: float


def read_decisions(folders: Path | str | list[Path], limit: int | None = None) -> Decisions:
    """The finished chunks of ``folders`` in order, at most ``limit`` kept decisions from each
    (whole chunks)."""
    folders = [Path(f) for f in (folders if isinstance(folders, list) else [folders])]
    xs, ys, groups, seeds = [], [], [], []
    games = decisions = 0
    seconds, offset = 0.0, 0
    for folder in folders:
        paths = sorted(folder.glob("chunk-[0-9]*.npz"))
        if not paths:
            raise ValueError(f"{folder}: no finished chunk of labels")
        kept = 0
        for path in paths:
            if limit is not None and kept >= limit:
                break
            with np.load(path) as f:
                x, y, d, s = f["x"], f["y"], f["decision"], f["seed"]
                games, decisions = games + int(f["games"]), decisions + int(f["decisions"])
                seconds += float(f["seconds"])
            if not len(d):  # a chunk whose decisions all won, or all lost: counted, no rows
                continue
            starts = np.flatnonzero(np.r_[True, d[1:] != d[:-1]])
            ends = np.r_[starts[1:], len(d)]
            groups += [(offset + a, b - a) for a, b in zip(starts, ends, strict=True)]
            seeds += [int(s[a]) for a in starts]
            xs.append(x)
            ys.append(y)
            offset += len(y)
            kept += len(starts)
    if not groups:
        raise ValueError(
            f"{', '.join(map(str, folders))}: no decision the solver told apart in the chunks read"
        )
    width = max(n for _, n in groups)
    index = np.array([[a + j if j < n else -1 for j in range(width)] for a, n in groups], dtype=np.int64)
    return Decisions(
        np.concatenate(xs), np.concatenate(ys).astype(np.float32), index,
        np.array([n for _, n in groups]), np.array(seeds), games, decisions, seconds,
    )  # fmt: skip


def _listwise(net: AfterstateNet, data: Decisions, rows: np.ndarray) -> tuple[torch.Tensor, float]:
    """The loss on decisions ``rows`` and the share of them whose best scored move keeps the win."""
    index = data.index[rows]
    mask = torch.as_tensor(index >= 0)
    flat = index[index >= 0]
    scores = torch.full(index.shape, float("-inf"))
    scores[mask] = net(torch.as_tensor(data.x[flat].astype(np.float32)))
    won = torch.zeros(index.shape)
    won[mask] = torch.as_tensor(data.y[flat])
    logp = torch.log_softmax(scores, dim=1)
    loss = -torch.logsumexp(logp.masked_fill(won == 0, float("-inf")), dim=1).mean()
    hit = won.gather(1, scores.argmax(dim=1, keepdim=True)).mean().item()
    return loss, hit


def train(
    data: Decisions, env: str, options: dict[str, Any], *, epochs: int = 1, hidden: int = 512,
    batch: int = 256, seed: int = 0, say: Callable[[str], None] = print,
) -> tuple[AfterstateNet, dict[str, float]]:  # fmt: skip
    """A new net trained on ``data`` (module docstring); the decisions of one deal in twenty
    (``seed % 20 == 0``) are held out. Returns the net and the held-out share of decisions whose
    best scored move keeps the win, beside that of the training decisions."""
    torch.manual_seed(seed)
    net = AfterstateNet(AfterstateConfig(env, dict(options), int(data.x.shape[1]), hidden))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    held = data.seed % 20 == 0
    train_rows, held_rows = np.flatnonzero(~held), np.flatnonzero(held)
    stats: dict[str, float] = {}
    for epoch in range(epochs):
        net.train()
        order = np.random.default_rng(seed + epoch).permutation(train_rows)
        for i in range(0, len(order), batch):
            loss, _ = _listwise(net, data, order[i : i + batch])
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
        net.eval()
        with torch.no_grad():
            _, stats["held_out_keeps_win"] = (
                _listwise(net, data, held_rows) if len(held_rows) else (None, 0.0)
            )
            _, stats["train_keeps_win"] = _listwise(net, data, train_rows[:20_000])
        held_share, train_share = stats["held_out_keeps_win"], stats["train_keeps_win"]
        say(f"epoch {epoch + 1}: the best scored move keeps the deal won at {held_share:.3f} "
            f"of held-out decisions ({train_share:.3f} of training ones)")  # fmt: skip
    return net, stats
