"""Play policies on fixed deals and report win rates with Wilson intervals.

Episode ``i`` of an evaluation with seed ``s`` is dealt by ``env.reset(seed=s + i)``, so every
policy plays the same deals, whatever it does; its own randomness is seeded with the same number.

::

    from patience_gym.agents.evaluation.evaluate import evaluate, format_table

    greedy = evaluate("Klondike-v0", "greedy", episodes=200)            # a spec string
    mine = evaluate("Klondike-v0", lambda env, obs: int(env.action_masks().argmax()), episodes=200)
    print(format_table([greedy, mine]))
"""

from __future__ import annotations

import json
import math
import pickle
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.env import PatienceEnv
from patience_gym.games import get_variant

from ..common.backends import ChunkError, ChunkFailure, map_chunks
from ..common.progress import Progress as ShownProgress
from ..policies.base import Policy
from ..registry import make_policy


class FunctionPolicy:
    """A plain function ``f(env, obs) -> action`` as a policy (named after the function)."""

    def __init__(self, fn: Callable[[PatienceEnv, np.ndarray], int]) -> None:
        self.fn = fn
        self.name: str = getattr(fn, "__qualname__", None) or type(fn).__name__

    def reset(self, seed: int) -> None:
        """A function keeps no state between episodes."""

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int:
        return int(self.fn(env, obs))


#: What :func:`evaluate` accepts as a policy.
PolicyLike = str | Policy | Callable[[PatienceEnv, np.ndarray], int]


def as_policy(policy: PolicyLike) -> Policy:
    """A spec string (see :func:`~agents.registry.make_policy`), an object with ``name``,
    ``reset(seed)`` and ``__call__(env, obs)``, or a function ``f(env, obs) -> action``."""
    if isinstance(policy, str):
        return make_policy(policy)
    if hasattr(policy, "reset") and isinstance(getattr(policy, "name", None), str) and callable(policy):
        return policy  # type: ignore[return-value]
    if callable(policy):
        return FunctionPolicy(policy)
    raise TypeError(f"a policy must be a spec string, a policy object or a function, got {policy!r}")


def wilson(wins: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At 0 or n wins the bound is exactly 0 or 1; the subtraction leaves rounding dust (6.9e-18).
    lo = 0.0 if wins == 0 else max(0.0, centre - half)
    hi = 1.0 if wins == n else min(1.0, centre + half)
    return lo, hi


@dataclass
class Episode:
    index: int
    won: bool
    foundation_cards: int
    length: int
    truncated: bool
    seconds: float = field(default=0.0, compare=False)
    """CPU seconds of the process that played it (one core's: other work does not inflate it); uncompared."""
    nodes: int = 0
    """Search nodes the policy spent on the episode, where it counts them (its ``spent`` after the
    episode: the macro planner's solver nodes); 0 otherwise."""


class Tally:
    """A count out of a total, as a fraction with its 95% Wilson interval: an evaluation's wins
    of its games (:class:`Result`), a label file's won deals (:class:`agents.solving.labels.Summary`)."""

    def tally(self) -> tuple[int, int]:
        """The count and the total."""
        raise NotImplementedError

    @property
    def fraction(self) -> float:
        """The count over the total (0 for no total)."""
        k, n = self.tally()
        return k / n if n else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The fraction's 95% Wilson interval."""
        return wilson(*self.tally())


@dataclass
class Result(Tally):
    env: str
    policy: str
    env_kwargs: dict[str, Any]
    seed: int
    options: dict[str, Any] = field(default_factory=dict)
    """The variant's rule options in effect: ``env_kwargs`` with every default filled in."""
    games: int = 0
    wins: int = 0
    mean_foundation_cards: float = 0.0
    mean_length: float = 0.0
    truncated: int = 0
    seconds: float = 0.0
    episodes: list[Episode] = field(default_factory=list, repr=False)
    winnable: Any = None
    """Set by :func:`agents.solving.labels.attach_labels` where the deals have solver labels: a
    :class:`agents.solving.labels.WinnableShare` (winnable deals in the sample, wins among them)."""

    def tally(self) -> tuple[int, int]:
        return self.wins, self.games

    @property
    def win_rate(self) -> float:
        return self.fraction

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def seconds_per_game(self) -> float:
        """The mean CPU seconds of an episode in the process that played it (one core's time)."""
        return float(np.mean([e.seconds for e in self.episodes])) if self.episodes else 0.0

    @property
    def nodes_per_game(self) -> float:
        """The mean search nodes of an episode, for policies that count them (0 otherwise)."""
        return float(np.mean([e.nodes for e in self.episodes])) if self.episodes else 0.0

    def summary(self) -> dict[str, Any]:
        lo, hi = self.interval
        d = {k: v for k, v in asdict(self).items() if k not in ("episodes", "winnable")}
        if self.winnable is not None:
            w = self.winnable
            d["winnable"] = {
                "labelled": w.labelled,
                "winnable": w.winnable,
                "wins": w.wins,
                "unknown": w.unknown,
                "share": w.share,
            }
        d.update(win_rate=self.win_rate, ci95=[lo, hi], games_per_second=self.games_per_second)
        d.update(seconds_per_game=self.seconds_per_game, nodes_per_game=self.nodes_per_game)
        return d


def play_episodes(
    env_name: str, policy: str | Policy, indices: Sequence[int], seed: int, env_kwargs: dict[str, Any]
) -> list[Episode]:
    """Play the episodes ``indices`` (deal ``seed + i``) in this process.

    An episode that raises stops the chunk with :class:`~agents.common.backends.ChunkFailure` naming the
    env, the deal's seed and the episode, whichever process or machine it ran on."""
    env = gym.make(f"patience_gym/{env_name}", **env_kwargs)
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    player = as_policy(policy)
    out = []
    for i in indices:
        try:
            out.append(play_one(env, core, player, seed + i, i))
        except Exception as exc:
            raise ChunkFailure(
                f"{env_name} deal seed {seed + i} (episode {i}): {type(exc).__name__}: {exc}"
            ) from exc
    env.close()  # type: ignore[no-untyped-call, unused-ignore]  # untyped in Gymnasium 1.2
    return out


def play_one(
    env: gym.Env[Any, Any],
    core: PatienceEnv,
    player: Policy,
    deal: int,
    index: int,
    line: list[int] | None = None,
) -> Episode:
    """Deal ``deal`` played to its end by ``player``; each action is appended to ``line`` if given."""
    t0 = time.process_time()
    obs, info = env.reset(seed=deal)
    player.reset(deal)
    length, trunc = 0, False
    term = not info["action_mask"].any()  # a deal with no legal move is lost at once
    while not (term or trunc):
        action = player(core, obs)
        if line is not None:
            line.append(int(action))
        obs, _, term, trunc, info = env.step(action)
        length += 1
    nodes = int(getattr(player, "spent", 0))
    seconds = time.process_time() - t0
    won, cards = bool(info["won"]), int(info["foundation_cards"])
    return Episode(index, won, cards, length, bool(trunc), seconds, nodes)


def _chunks(n: int, size: int) -> Iterator[list[int]]:
    for start in range(0, n, size):
        yield list(range(start, min(n, start + size)))


class EvaluationError(ValueError):
    """An episode raised: the message names its deal's seed; ``partial`` holds the result of the
    chunks of episodes that finished (``partial.games`` of them). A ``ValueError``, as the policy
    errors it mostly carries are (a model trained on another variant), so that the command line
    reports it on one line."""

    def __init__(self, message: str, partial: Result) -> None:
        super().__init__(message)
        self.partial = partial


def evaluate(
    env_name: str,
    policy: PolicyLike,
    *,
    episodes: int = 100,
    seed: int = 0,
    workers: int = 1,
    env_kwargs: dict[str, Any] | None = None,
    progress: bool = False,
    backend: str = "local",
    address: str | None = None,
) -> Result:
    """Play ``policy`` on ``episodes`` deals and summarise. ``workers > 1`` uses processes.

    ``policy`` is a spec string (``random``, ``greedy``, ``rollout:N``, ``ppo:<model>``,
    ``rllib:<checkpoint>``),
    a policy object (``name``, ``reset(seed)``, ``__call__(env, obs) -> action``) or a function
    ``f(env, obs) -> action``; an object or function is copied to each worker, so with
    ``workers > 1`` it must pickle.

    ``backend="ray"`` plays the chunks of episodes as Ray tasks (:func:`agents.common.backends.map_chunks`:
    the cluster at ``address``, or a local Ray with ``workers`` CPUs); the result is the same as
    the local backend's, episode for episode. An episode that raises ends the evaluation with
    :class:`EvaluationError`, naming its seed and keeping the episodes already played.
    """
    variant = get_variant(env_name)
    env_kwargs = dict(env_kwargs or {})
    player = as_policy(policy)  # fail fast on a bad spec, before starting workers
    check_make_kwargs(env_kwargs)
    probe = gym.make(variant.env_id, **env_kwargs)  # and on bad options
    options = dict(probe.unwrapped.game.options)  # type: ignore[attr-defined]
    probe.close()  # type: ignore[no-untyped-call, unused-ignore]  # untyped in Gymnasium 1.2
    _check_counts(episodes=episodes, seed=seed, workers=workers)
    # A spec string travels to the workers as is (each builds its own policy, PPO models load once).
    task_policy: str | Policy = policy if isinstance(policy, str) else player
    if workers > 1 and backend == "local" and not isinstance(policy, str):
        _check_picklable(player)
    result = Result(variant.env_name, player.name, env_kwargs, seed, options=options)
    # The chunking depends on the counts alone, never on the backend: the deals are the same.
    chunk = max(1, min(50, episodes // (4 * workers) or 1))
    tasks = [(variant.env_name, task_policy, idx, seed, env_kwargs) for idx in _chunks(episodes, chunk)]
    bar = _progress(episodes, f"{variant.env_name} {player.name}", progress)
    start = time.perf_counter()
    eps: list[Episode] = []
    run = map_chunks(_play_task, tasks, backend=backend, workers=workers, address=address)
    try:
        for _, got in run:
            eps += got
            bar(len(got), eps)
    except ChunkError as exc:
        _summarise(result, eps, time.perf_counter() - start)
        raise EvaluationError(
            f"{player.name} on {variant.env_name}: {exc}; {result.games} of {episodes} episodes finished",
            result,
        ) from None
    finally:
        run.close()  # interrupted between two chunks, it would keep its worker pool running
        bar(0, eps, close=True)
    return _summarise(result, eps, time.perf_counter() - start)


def _summarise(result: Result, eps: list[Episode], seconds: float) -> Result:
    result.seconds = seconds
    eps.sort(key=lambda e: e.index)
    result.episodes = eps
    result.games = len(eps)
    result.wins = sum(e.won for e in eps)
    result.truncated = sum(e.truncated for e in eps)
    if eps:
        result.mean_foundation_cards = float(np.mean([e.foundation_cards for e in eps]))
        result.mean_length = float(np.mean([e.length for e in eps]))
    return result


def check_make_kwargs(env_kwargs: dict[str, Any]) -> None:
    """Refuse a bad ``max_episode_steps`` among ``env_kwargs`` (gym.make takes it, not the game,
    and would stop on an assertion): the step limit must be a whole number >= 1 (or null)."""
    steps = env_kwargs.get("max_episode_steps")
    if steps is not None and (isinstance(steps, bool) or not isinstance(steps, int) or steps < 1):
        raise ValueError(
            f"env_kwargs.max_episode_steps is the step limit given to gym.make: a whole number >= 1, "
            f"or null for the registered one; got {steps!r}"
        )


def _check_counts(*, episodes: int, seed: int, workers: int) -> None:
    for name, value, low in (("episodes", episodes, 1), ("seed", seed, 0), ("workers", workers, 1)):
        if value < low:
            raise ValueError(f"{name} must be >= {low}, got {value}")


def _check_picklable(policy: Policy) -> None:
    try:
        pickle.dumps(policy)
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        raise ValueError(
            f"policy {policy.name!r} cannot be sent to worker processes ({exc}): "
            "use workers=1, or a module-level function or class"
        ) from None


Task = tuple[str, str | Policy, list[int], int, dict[str, Any]]


def _play_task(task: Task) -> list[Episode]:
    return play_episodes(*task)


Progress = Callable[..., None]


def _progress(total: int, desc: str, enabled: bool) -> Progress:
    """Progress over the games with the running win rate (:class:`agents.common.progress.Progress`:
    a bar on a terminal, a line a minute in a log); a no-op when disabled."""
    shown = ShownProgress(total, desc, "game", enabled=enabled)

    def update(n: int, eps: list[Episode], close: bool = False) -> None:
        if close:
            shown.close()
            return
        shown.update(n, win=f"{sum(e.won for e in eps) / max(1, len(eps)):.3f}")

    return update


def format_table(results: Sequence[Result]) -> str:
    """One row per policy: games, wins, win rate with 95% Wilson interval, means, speed, and the
    rule options it played with (and the step limit, where one was given). Policy names are shown
    in full."""
    width = max([len("policy"), *(len(r.policy) for r in results)]) + 2
    env_width = max([len("env"), *(len(r.env) for r in results)]) + 2
    head = (
        f"{'env':<{env_width}}{'policy':<{width}}{'games':>7}{'wins':>7}  {'win rate [95% CI]':<26}"
        f"{'cards':>7}{'length':>8}{'games/s':>9}{'s/game':>8}"
    )
    labelled = any(r.winnable is not None for r in results)
    head += f"  {'winnable won':<18}" if labelled else ""
    head += "  options"
    lines = [head, "-" * len(head)]
    for r in results:
        lo, hi = r.interval
        rate = f"{100 * r.win_rate:5.1f}% [{100 * lo:4.1f}, {100 * hi:4.1f}]"
        shown = {**r.options, **{k: v for k, v in r.env_kwargs.items() if k == "max_episode_steps"}}
        options = " ".join(f"{k}={v}" for k, v in shown.items()) or "-"  # a step limit given too
        share = ""
        if labelled:
            w = r.winnable
            share = f"  {f'{w.wins}/{w.winnable} ({100 * w.share:.0f}%)' if w else '-':<18}"
        lines.append(
            f"{r.env:<{env_width}}{r.policy:<{width}}{r.games:>7}{r.wins:>7}  {rate:<26}"
            f"{r.mean_foundation_cards:>7.1f}{r.mean_length:>8.1f}{r.games_per_second:>9.1f}"
            f"{r.seconds_per_game:>8.2f}{share}  {options}"
        )
    if labelled:
        w = next(r.winnable for r in results if r.winnable is not None)
        lines.append(
            f"winnable won: the policy's wins among the {w.winnable} deals of the {w.labelled} labelled that "
            f"a player seeing every card can win (patience-gym solve; {w.unknown} labelled unknown)"
        )
    return "\n".join(lines)


def to_json(results: Sequence[Result]) -> str:
    return json.dumps([r.summary() for r in results], indent=2)
