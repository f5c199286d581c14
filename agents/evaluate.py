"""Play policies on fixed deals and report win rates with Wilson intervals.

Episode ``i`` of an evaluation with seed ``s`` is dealt by ``env.reset(seed=s + i)``, so every
policy plays exactly the same deals, whatever it does; the policy's own randomness is seeded
with the same number.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np

import patience_gym  # noqa: F401  (registers the ids)
from agents.policies import make_policy
from patience_gym.env import PatienceEnv
from patience_gym.games import get_variant


def wilson(wins: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Episode:
    index: int
    won: bool
    foundation_cards: int
    length: int
    truncated: bool


@dataclass
class Result:
    env: str
    policy: str
    env_kwargs: dict[str, Any]
    seed: int
    games: int = 0
    wins: int = 0
    mean_foundation_cards: float = 0.0
    mean_length: float = 0.0
    truncated: int = 0
    seconds: float = 0.0
    episodes: list[Episode] = field(default_factory=list, repr=False)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    def summary(self) -> dict[str, Any]:
        lo, hi = self.interval
        d = {k: v for k, v in asdict(self).items() if k != "episodes"}
        d.update(win_rate=self.win_rate, ci95=[lo, hi], games_per_second=self.games_per_second)
        return d


def play_episodes(
    env_name: str, policy_spec: str, indices: Sequence[int], seed: int, env_kwargs: dict[str, Any]
) -> list[Episode]:
    """Play the episodes ``indices`` (deal ``seed + i``) in this process."""
    env = gym.make(f"patience_gym/{env_name}", **env_kwargs)
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    policy = make_policy(policy_spec)
    out = []
    for i in indices:
        obs, info = env.reset(seed=seed + i)
        policy.reset(seed + i)
        length, trunc = 0, False
        term = not info["action_mask"].any()  # a deal with no legal move is lost at once
        while not (term or trunc):
            obs, _, term, trunc, info = env.step(policy(core, obs))
            length += 1
        out.append(Episode(i, bool(info["won"]), int(info["foundation_cards"]), length, bool(trunc)))
    env.close()
    return out


def _chunks(n: int, size: int) -> Iterator[list[int]]:
    for start in range(0, n, size):
        yield list(range(start, min(n, start + size)))


def evaluate(
    env_name: str,
    policy: str,
    episodes: int = 100,
    seed: int = 0,
    workers: int = 1,
    env_kwargs: dict[str, Any] | None = None,
    progress: bool = False,
) -> Result:
    """Play ``policy`` on ``episodes`` deals and summarise. ``workers > 1`` uses processes."""
    variant = get_variant(env_name)
    env_kwargs = dict(env_kwargs or {})
    make_policy(policy)  # fail fast on a bad spec, before starting workers
    gym.make(variant.env_id, **env_kwargs).close()  # and on bad options
    if episodes < 1:
        raise ValueError(f"episodes must be >= 1, got {episodes}")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    result = Result(variant.env_name, policy, env_kwargs, seed)
    chunk = max(1, min(50, episodes // (4 * workers) or 1))
    bar = _progress(episodes, f"{variant.env_name} {policy}", progress)
    start = time.perf_counter()
    eps: list[Episode] = []
    if workers == 1:
        for idx in _chunks(episodes, chunk):
            eps += play_episodes(variant.env_name, policy, idx, seed, env_kwargs)
            bar(len(idx), eps)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = [
                pool.submit(play_episodes, variant.env_name, policy, idx, seed, env_kwargs)
                for idx in _chunks(episodes, chunk)
            ]
            for fut in futures:
                got = fut.result()
                eps += got
                bar(len(got), eps)
    bar(0, eps, close=True)
    result.seconds = time.perf_counter() - start
    eps.sort(key=lambda e: e.index)
    result.episodes = eps
    result.games = len(eps)
    result.wins = sum(e.won for e in eps)
    result.truncated = sum(e.truncated for e in eps)
    result.mean_foundation_cards = float(np.mean([e.foundation_cards for e in eps]))
    result.mean_length = float(np.mean([e.length for e in eps]))
    return result


def _progress(total: int, desc: str, enabled: bool):  # type: ignore[no-untyped-def]
    """A tqdm bar on stderr showing the running win rate; a no-op when disabled."""
    if not enabled:
        return lambda n, eps, close=False: None
    from tqdm import tqdm

    bar = tqdm(total=total, desc=desc, unit="game", leave=False, disable=None)

    def update(n: int, eps: list[Episode], close: bool = False) -> None:
        if close:
            bar.close()
            return
        bar.update(n)
        bar.set_postfix(win=f"{sum(e.won for e in eps) / max(1, len(eps)):.3f}")

    return update


def format_table(results: Sequence[Result]) -> str:
    """One row per policy: games, wins, win rate with 95% Wilson interval, means, speed."""
    head = f"{'env':<18}{'policy':<22}{'games':>7}{'wins':>7}  {'win rate [95% CI]':<26}{'cards':>7}{'length':>8}{'games/s':>9}"
    lines = [head, "-" * len(head)]
    for r in results:
        lo, hi = r.interval
        rate = f"{100 * r.win_rate:5.1f}% [{100 * lo:4.1f}, {100 * hi:4.1f}]"
        lines.append(
            f"{r.env:<18}{r.policy[:21]:<22}{r.games:>7}{r.wins:>7}  {rate:<26}"
            f"{r.mean_foundation_cards:>7.1f}{r.mean_length:>8.1f}{r.games_per_second:>9.1f}"
        )
    return "\n".join(lines)


def to_json(results: Sequence[Result]) -> str:
    return json.dumps([r.summary() for r in results], indent=2)


def default_workers() -> int:
    return max(1, (os.cpu_count() or 1))
