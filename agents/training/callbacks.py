"""Training callbacks: the periodic evaluation, reported as it goes and kept as a CSV.

Imports sb3-contrib at the top: only :mod:`agents.training.sb3` imports this module, once training starts.
"""

from __future__ import annotations

import csv
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
from stable_baselines3.common.callbacks import BaseCallback

#: The periodic evaluations, one row each, for learning curves.
CSV_NAME = "evaluations.csv"
CSV_FIELDS = ("steps", "win_rate", "mean_foundation_cards", "mean_reward", "mean_length")


@dataclass(frozen=True)
class Evaluation:
    """One periodic evaluation: after ``steps`` training steps, on the same deals every time."""

    steps: int
    win_rate: float
    mean_foundation_cards: float
    mean_reward: float
    mean_length: float

    def line(self) -> str:
        return (
            f"eval at {self.steps:,} steps: win rate {100 * self.win_rate:.1f}%, "
            f"{self.mean_foundation_cards:.1f} cards on the foundations, mean reward {self.mean_reward:.3f}"
        )

    def row(self) -> dict[str, str]:
        return {
            "steps": str(self.steps),
            "win_rate": f"{self.win_rate:.6g}",
            "mean_foundation_cards": f"{self.mean_foundation_cards:.6g}",
            "mean_reward": f"{self.mean_reward:.6g}",
            "mean_length": f"{self.mean_length:.6g}",
        }


def read_evaluations(path: Path, upto: int | None = None) -> list[Evaluation]:
    """The rows of an ``evaluations.csv`` (those at or before ``upto`` steps)."""
    if not path.is_file():
        return []
    with path.open(newline="") as f:
        rows = [
            Evaluation(
                int(r["steps"]),
                float(r["win_rate"]),
                float(r["mean_foundation_cards"]),
                float(r["mean_reward"]),
                float(r["mean_length"]),
            )
            for r in csv.DictReader(f)
        ]
    return [e for e in rows if upto is None or e.steps <= upto]


def write_evaluations(path: Path, evaluations: list[Evaluation]) -> None:
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        writer.writeheader()
        writer.writerows(e.row() for e in evaluations)


class ReportingEvalCallback(MaskableEvalCallback):
    """sb3-contrib's masked evaluation (best model, ``evaluations.npz``) that also counts the cards
    on the foundations, reports each evaluation through ``report`` and appends it to ``csv_path``.

    ``history`` holds the evaluations so far (those of the run resumed from, first).
    """

    def __init__(
        self,
        *args: Any,
        csv_path: Path,
        report: Callable[[str], None],
        history: list[Evaluation] | None = None,
        first: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.first = first  # also evaluate on the first step (the model as training starts)
        self.csv_path, self.report = csv_path, report
        self.history: list[Evaluation] = list(history or [])
        self._cards: list[int] = []
        write_evaluations(csv_path, self.history)

    def _init_callback(self) -> None:
        # With vec_env: native the training env is the batched engine (in a VecMonitor) and the
        # evaluation env one Python-stepped game per episode, by design; stable-baselines3 warns
        # whenever the two types differ, which here says nothing the user can act on.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Training and eval env are not of the same type")
            super()._init_callback()

    def _log_success_callback(self, locals_: dict[str, Any], globals_: dict[str, Any]) -> None:
        super()._log_success_callback(locals_, globals_)
        if locals_["done"]:
            self._cards.append(int(locals_["info"].get("foundation_cards", 0)))

    def _on_step(self) -> bool:
        due = self.eval_freq > 0 and (
            self.n_calls % self.eval_freq == 0 or (self.first and self.n_calls == 1)
        )
        if due:
            self._cards = []
        if self.first and self.n_calls == 1 and self.eval_freq > 1:
            # MaskableEvalCallback evaluates when n_calls % eval_freq == 0: make this call one.
            self.n_calls, saved = self.eval_freq, self.n_calls
            go_on = bool(super()._on_step())
            self.n_calls = saved
        else:
            go_on = bool(super()._on_step())
        if due:
            self._record()
        return go_on

    def evaluate_now(self) -> None:
        """Evaluate the model as it is now (training's end, or Ctrl-C), unless the last
        evaluation was at this very step: the run's last point, and a candidate for
        ``best_model.zip``."""
        self.num_timesteps = int(self.model.num_timesteps)
        if self.history and self.history[-1].steps == self.num_timesteps:
            return
        self._cards = []
        # MaskableEvalCallback evaluates when n_calls % eval_freq == 0: make this call one.
        self.n_calls, saved = self.eval_freq, self.n_calls
        try:
            super()._on_step()
        finally:
            self.n_calls = saved
        self._record()

    def _record(self) -> None:
        results, lengths = self.evaluations_results[-1], self.evaluations_length[-1]
        wins = self._is_success_buffer
        ev = Evaluation(
            steps=int(self.num_timesteps),
            win_rate=float(np.mean(wins)) if wins else 0.0,
            mean_foundation_cards=float(np.mean(self._cards)) if self._cards else 0.0,
            mean_reward=float(np.mean(results)),
            mean_length=float(np.mean(lengths)),
        )
        self.history.append(ev)
        with self.csv_path.open("a", newline="") as f:
            csv.DictWriter(f, fieldnames=CSV_FIELDS).writerow(ev.row())
        self.report(ev.line())


class BatchedEvalCallback(BaseCallback):
    """The periodic evaluation on the batched native engine (``vec_env: native``): the same
    ``episodes`` deals from ``first_seed`` every ``every`` calls, all played at once
    (:func:`agents.policies.ppo.play_batched`, one masked forward pass per step for the whole set),
    so that a validation set of a thousand deals costs seconds. Writes what
    :class:`ReportingEvalCallback` writes: ``evaluations.csv``, ``evaluations.npz`` (sb3's format,
    one result per deal) and ``best_model.zip`` (the best mean reward so far, ties kept).

    ``first``: also evaluate before the first step (the model as training starts: the untrained
    network, or the checkpoint resumed from when the history does not hold it yet).
    """

    def __init__(
        self,
        env_id: str,
        env_kwargs: dict[str, Any],
        *,
        reward: str,
        first_seed: int,
        episodes: int,
        every: int,
        out: Path,
        report: Callable[[str], None],
        history: list[Evaluation] | None = None,
        first: bool = True,
    ) -> None:
        super().__init__()
        self.env_id, self.env_kwargs, self.reward_kind = env_id, dict(env_kwargs), reward
        self.seeds = list(range(first_seed, first_seed + episodes))
        self.every, self.out, self.report, self.first = max(1, every), out, report, first
        self.csv_path = out / CSV_NAME
        self.history: list[Evaluation] = list(history or [])
        self.best_mean_reward = max((e.mean_reward for e in self.history), default=-np.inf)
        self._npz: dict[str, list[Any]] = {"timesteps": [], "results": [], "ep_lengths": [], "successes": []}
        write_evaluations(self.csv_path, self.history)

    def restore(self, path: Path, upto: int) -> None:
        """Carry an earlier run's ``evaluations.npz`` rows (up to ``upto`` steps) into this one."""
        if not path.is_file():
            return
        data = np.load(path)
        keep = data["timesteps"] <= upto
        for key in self._npz:
            if key in data:
                self._npz[key] = data[key][keep].tolist()

    def _on_training_start(self) -> None:
        if self.first and not any(e.steps == self.num_timesteps for e in self.history):
            self._evaluate()

    def _on_step(self) -> bool:
        if self.n_calls % self.every == 0:
            self._evaluate()
        return True

    def evaluate_now(self) -> None:
        """Evaluate the model as it is now (training's end, or Ctrl-C), unless the last
        evaluation was at this very step."""
        self.num_timesteps = int(self.model.num_timesteps)
        if not (self.history and self.history[-1].steps == self.num_timesteps):
            self._evaluate()

    def _evaluate(self) -> None:
        from ..policies.ppo import play_batched

        play = play_batched(
            self.model, self.env_id, self.seeds, env_kwargs=self.env_kwargs, reward=self.reward_kind
        )
        ev = Evaluation(
            steps=int(self.num_timesteps),
            win_rate=play.win_rate,
            mean_foundation_cards=float(play.foundation_cards.mean()),
            mean_reward=float(play.reward.mean()),
            mean_length=float(play.length.mean()),
        )
        self.history.append(ev)
        with self.csv_path.open("a", newline="") as f:
            csv.DictWriter(f, fieldnames=CSV_FIELDS).writerow(ev.row())
        for key, values in (
            ("timesteps", ev.steps), ("results", play.reward.tolist()),
            ("ep_lengths", play.length.tolist()), ("successes", play.won.tolist()),
        ):  # fmt: skip
            self._npz[key].append(values)
        arrays: dict[str, Any] = {k: np.array(v) for k, v in self._npz.items()}
        np.savez(self.out / "evaluations.npz", **arrays)
        self.logger.record("eval/win_rate", ev.win_rate)
        self.logger.record("eval/mean_foundation_cards", ev.mean_foundation_cards)
        self.logger.record("eval/mean_reward", ev.mean_reward)
        if ev.mean_reward > self.best_mean_reward:
            self.best_mean_reward = ev.mean_reward
            self.model.save(self.out / "best_model.zip")
        self.report(ev.line())
