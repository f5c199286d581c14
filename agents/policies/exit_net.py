"""Expert iteration's network (issue 46): a policy-value net learnt from the search's labels.

Why a per-move scorer with a value head. The legal moves change with every position (a few of up
to 210 action ids in Babette) and a move is best told by what it does, not by its id: the scorer
reads each legal move's native features (:mod:`patience_gym.move_features`: foundation cards
gained, cards uncovered, mobility, undoes, kind, source, target) beside an embedding of the board,
so what is learnt of one move carries to every move that looks alike, and illegal moves are never
scored; a learnt vector per action id (``v_a``) adds what the features do not say (which pile,
which card). The value needs the board alone. With ``e = board(obs)``::

    logits[a] = scorer(W_e e + W_f features[a] + v_a)   for the legal moves a (the others: -inf)
    value     = head(e)                               [won logit, foundation share]

:mod:`patience_gym.agents.training.exit_train` trains it; :class:`ExitPolicy` plays a saved net (its most
likely legal move), ``exit:<variant>`` (:mod:`patience_gym.agents.policies.exit`) the net the package ships
(``agents/data/exit/<Variant>-v0.pt`` and its ``.json`` card). Only torch is needed (no
stable-baselines3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import torch
from torch import nn

from patience_gym.env import PatienceEnv

if TYPE_CHECKING:
    from .card_net import CardNet

#: Either net: both read (obs, moves) and give (masked logits, value).
Net: TypeAlias = "PolicyValueNet | CardNet"

__all__ = [
    "ENCODERS",
    "ExitPolicy",
    "NetConfig",
    "Played",
    "PolicyValueNet",
    "build_net",
    "load_net",
    "native_value_net",
    "play_many",
    "save_net",
]

#: The feature column that says an action is legal (patience_gym.move_features): 1 or 0.
LEGAL = 0
#: What the scorer reads of each move: ``native`` (:mod:`patience_gym.move_features`), or
#: ``native+greedy``, with the one-move columns PPO's per-move policy reads after them
#: (:mod:`patience_gym.agents.policies.features`: the heuristic's change, the episode's visits to
#: where the move leads, greedy's choice).
INPUTS = ("native", "native+greedy")
#: How the net reads the board: ``mlp``, the observation as one flat vector (:class:`PolicyValueNet`),
#: or ``cards``, a token per card through a transformer (:class:`~.card_net.CardNet`).
ENCODERS = ("mlp", "cards")


class NetInputs:
    """The per-move features a net of ``inputs`` reads (:data:`INPUTS`), for one game at a time.

    With ``native+greedy`` the features count the episode's visits and replay its moves (greedy's
    shadow), so call it at *every* step, one legal move or many, and :meth:`played` with each move."""

    def __init__(self, inputs: str = "native") -> None:
        if inputs not in INPUTS:
            raise ValueError(f"a net's inputs are one of {', '.join(INPUTS)}, got {inputs!r}")
        from .features import MoveFeaturizer

        self.inputs = inputs
        self.greedy = MoveFeaturizer() if inputs == "native+greedy" else None

    def reset(self) -> None:
        if self.greedy is not None:
            self.greedy.reset()

    def __call__(self, env: PatienceEnv) -> np.ndarray:
        """The (n_actions, k) features of the current position."""
        from patience_gym.move_features import move_features

        native = move_features(env)
        if self.greedy is None:
            return native
        extra = self.greedy(env).reshape(native.shape[0], -1)
        return np.concatenate([native, extra], axis=1)

    def played(self, action: int) -> None:
        if self.greedy is not None:
            self.greedy.played(action)


@dataclass(frozen=True)
class NetConfig:
    """The net's shape (kept with the model, so that it loads as it was trained)."""

    env: str
    options: dict[str, Any]
    obs_size: int
    n_actions: int
    k: int
    hidden: int = 128
    scorer: tuple[int, ...] = (64,)
    inputs: str = "native"  #: :data:`INPUTS`
    encoder: str = "mlp"  #: :data:`ENCODERS`
    layers: int = 2  #: the ``cards`` encoder's transformer layers
    heads: int = 4  #: ... and attention heads


class PolicyValueNet(nn.Module):
    """The board embedding, the shared move scorer and the value head (module docstring)."""

    def __init__(self, cfg: NetConfig) -> None:
        super().__init__()
        self.cfg = cfg
        h = cfg.hidden
        self.board = nn.Sequential(nn.Linear(cfg.obs_size, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU())
        width = cfg.scorer[0] if cfg.scorer else 1
        self.board_part = nn.Linear(h, width)  # the scorer's first layer on concat(e, f): W_e e + b
        self.move_part = nn.Linear(cfg.k, width, bias=False)  # ... + W_f f
        self.action_part = nn.Embedding(cfg.n_actions, width)  # ... + v_a: what the features miss
        layers: list[nn.Module] = []
        for size in cfg.scorer[1:]:
            layers += [nn.ReLU(), nn.Linear(width, size)]
            width = size
        self.scorer = nn.Sequential(*layers, nn.ReLU(), nn.Linear(width, 1))
        self.value = nn.Sequential(nn.Linear(h, 64), nn.ReLU(), nn.Linear(64, 2))

    def forward(self, obs: torch.Tensor, moves: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (B, A), ``-inf`` where a move is not legal, and the value (B, 2)."""
        e = self.board(obs)
        legal = moves[..., LEGAL] > 0
        rows, cols = legal.nonzero(as_tuple=True)
        hidden = self.board_part(e)[rows] + self.move_part(moves[rows, cols]) + self.action_part(cols)
        scores = self.scorer(hidden).squeeze(-1)
        logits = torch.full(legal.shape, float("-inf"), dtype=scores.dtype).index_put((rows, cols), scores)
        return logits, self.value(e)


def native_value_net(net: Net, output: int = 0) -> Any:
    """The net's value (its board embedding, then one of the value head's outputs) as the native
    engine's ``ValueNet``, which the macro planner calls on the positions its capped searches
    leave unwon (``macro+net`` with ``value=1|2``, agents/policies/exit.py). ``output``: the value
    head's won probability (0) or its foundation share at the game's end (1)."""
    from patience_gym.solver import value_net

    if not isinstance(net, PolicyValueNet):
        raise ValueError("the native planner's value net is the mlp encoder's; this net reads cards")
    value = value_net()
    layers: list[nn.Linear] = [net.board[0], net.board[2], net.value[0], net.value[2]]  # type: ignore[list-item]
    for i, layer in enumerate(layers):
        w, b = layer.weight.detach().float(), layer.bias.detach().float()
        if i == len(layers) - 1:  # one output: the won logit (0) or the foundation share's (1)
            w, b = w[output : output + 1], b[output : output + 1]
        value.add(w.contiguous().numpy().ravel(), b.contiguous().numpy(), w.shape[1], w.shape[0])
    return value


def build_net(cfg: NetConfig) -> Net:
    """A fresh net of ``cfg``'s encoder (:data:`ENCODERS`); ``ValueError`` names the encoders."""
    if cfg.encoder == "mlp":
        return PolicyValueNet(cfg)
    if cfg.encoder == "cards":
        import gymnasium as gym

        from .card_net import CardNet

        name = cfg.env if "/" in cfg.env else f"patience_gym/{cfg.env}"
        env = gym.make(name, **cfg.options)
        layout = env.unwrapped.layout  # type: ignore[attr-defined]
        env.close()  # type: ignore[no-untyped-call, unused-ignore]
        return CardNet(cfg, layout)
    raise ValueError(f"a net's encoder is one of {', '.join(ENCODERS)}, got {cfg.encoder!r}")


def save_net(path: Path | str, net: Net, extra: dict[str, Any] | None = None) -> None:
    """The net's config and weights (and ``extra``: an optimizer's state, counts) in one file."""
    cfg = {k: v.item() if isinstance(v, np.generic) else v for k, v in asdict(net.cfg).items()}
    cfg["scorer"] = [int(x) for x in net.cfg.scorer]  # plain numbers: torch.load reads weights only
    torch.save({"config": cfg, "state_dict": net.state_dict(), **(extra or {})}, str(path))


def load_net(path: Path | str) -> tuple[Net, dict[str, Any]]:
    """The net saved at ``path`` and everything saved with it."""
    blob: dict[str, Any] = torch.load(str(path), map_location="cpu", weights_only=True)
    cfg = dict(blob["config"])
    cfg["scorer"] = tuple(cfg["scorer"])
    net = build_net(NetConfig(**cfg))
    net.load_state_dict(blob["state_dict"])
    net.eval()
    return net, blob


class ExitPolicy:
    """A saved :class:`PolicyValueNet` playing its most likely legal move (no search).

    With ``revisits=True`` (the default) a cycle guard, greedy's: the positions met this episode
    are counted, and the net plays its most likely move among those leading to the positions met
    least (a move to a new position first). Without it, or with a guard that only varied the move
    at a position met again, the net walks cycles until the step limit: on The Kings the shipped
    60,000-decision net did at 36 of 50 deals (613 of its 739 moves a game back to a position met),
    which the guard ends (docs/exit.md). A position already met is told by the env's
    ``state_key()``, compared and never read; the move's successor is found on a clone of the game,
    only where the most likely move leads back to a position met."""

    def __init__(self, net: Net, name: str = "exit", revisits: bool = True) -> None:
        self.net, self.name, self.revisits = net, name, revisits
        self.visits: dict[object, int] = {}
        self.inputs = NetInputs(net.cfg.inputs)

    @staticmethod
    def load(path: Path | str, name: str | None = None) -> ExitPolicy:
        net, _ = load_net(path)
        return ExitPolicy(net, name or f"exit({Path(path).name})")

    def reset(self, seed: int) -> None:
        """Forget the positions met (the net itself keeps nothing between decisions)."""
        self.visits = {}
        self.inputs.reset()

    def scores(self, env: PatienceEnv, obs: np.ndarray) -> tuple[np.ndarray, float]:
        """The move logits (``-inf`` where illegal) and the won probability of this position
        (with greedy's inputs, call it once a step: they count the visits)."""
        if obs.shape[-1] != self.net.cfg.obs_size:
            raise ValueError(self._other_env(env, obs.shape[-1]))
        with torch.no_grad():
            logits, value = self.net(
                torch.as_tensor(obs, dtype=torch.float32)[None],
                torch.as_tensor(self.inputs(env), dtype=torch.float32)[None],
            )
        return logits[0].numpy(), float(torch.sigmoid(value[0, 0]))

    def _other_env(self, env: PatienceEnv, size: int) -> str:
        """Why this env's observation is not the net's, and the options that make it so."""
        cfg = self.net.cfg
        differ = {k: v for k, v in cfg.options.items() if env.game.options.get(k) != v}
        sets = " ".join(
            f"--set env_kwargs.{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in differ.items()
        )
        return (
            f"{self.name} reads {cfg.obs_size} observation floats ({cfg.env} with {cfg.options}); this env "
            f"gives {size}: make it with the net's options" + (f" (evaluate: {sets})" if sets else "")
        )

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int:
        logits, _ = self.scores(env, obs)
        action = self.choose(env, logits)
        self.inputs.played(action)
        return action

    def follow(self, env: PatienceEnv, action: int, scored: bool = False) -> None:
        """Another policy plays ``action`` here (the planner, whose fallback this net is): count the
        position, as a call would, and learn the move. ``scored``: :meth:`scores` read this step's
        inputs already (they count the visits: read once a step)."""
        here = env.state_key()
        self.visits[here] = self.visits.get(here, 0) + 1
        if not scored:
            self.inputs(env)
        self.inputs.played(action)

    def choose(self, env: PatienceEnv, logits: np.ndarray) -> int:
        """The move of these logits: the most likely, or, with the guard, the most likely of those
        leading to the positions met least this episode (class docstring). Counts this position as
        met once more."""
        best = int(np.argmax(logits))
        if not self.revisits:
            return best
        here = env.state_key()
        self.visits[here] = self.visits.get(here, 0) + 1
        if self._visits_after(env, best) == 0:
            return best  # a new position: nothing to guard (the usual case, one clone)
        legal = np.flatnonzero(np.isfinite(logits))
        after = np.array([self._visits_after(env, int(a)) for a in legal])
        allowed = legal[after == after.min()]
        return int(allowed[np.argmax(logits[allowed])])

    def _visits_after(self, env: PatienceEnv, action: int) -> int:
        """How often this episode met the position ``action`` leads to."""
        game = env.game.clone()
        game.apply(action)
        return self.visits.get(game.state_key(), 0)


@dataclass(frozen=True)
class Played:
    """One deal played by :func:`play_many`."""

    seed: int
    won: bool
    cards: int
    length: int


def play_many(net: Net, seeds: Sequence[int], revisits: bool = True) -> list[Played]:
    """Play each deal ``reset(seed=s)`` once with the net alone, every game at once: one forward
    pass a step for all the games still going. The same moves as :class:`ExitPolicy` one game at a
    time (a test compares them), many times faster (a forward pass for one position is mostly
    overhead)."""
    import gymnasium as gym

    cfg = net.cfg
    name = cfg.env if "/" in cfg.env else f"patience_gym/{cfg.env}"
    envs = [gym.make(name, **cfg.options) for _ in seeds]
    players = [ExitPolicy(net, revisits=revisits) for _ in seeds]
    obs = [env.reset(seed=int(s))[0] for env, s in zip(envs, seeds, strict=True)]
    cores: list[PatienceEnv] = [env.unwrapped for env in envs]  # type: ignore[misc]
    length = [0] * len(seeds)
    live = [i for i, core in enumerate(cores) if core.action_masks().any()]  # no legal move: lost
    while live:
        with torch.no_grad():
            logits, _ = net(
                torch.as_tensor(np.stack([obs[i] for i in live]), dtype=torch.float32),
                torch.as_tensor(np.stack([players[i].inputs(cores[i]) for i in live]), dtype=torch.float32),
            )
        still = []
        for row, i in enumerate(live):
            action = players[i].choose(cores[i], logits[row].numpy())
            players[i].inputs.played(action)
            obs[i], _, terminated, truncated, _ = envs[i].step(action)
            length[i] += 1
            if not (terminated or truncated):
                still.append(i)
        live = still
    out = [
        Played(int(s), bool(core.game.won), int(core.game.foundation_cards), n)
        for s, core, n in zip(seeds, cores, length, strict=True)
    ]
    for env in envs:
        env.close()  # type: ignore[no-untyped-call, unused-ignore]
    return out
