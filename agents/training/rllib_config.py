"""The RLlib training config (``configs/rllib/*.yaml``): its schema and the checks a type cannot express.

Importing this module needs no Ray; checking the ``ppo`` and ``model`` keys reads RLlib's own
signatures, so :func:`load_config` needs the ``scale`` extra.
"""

from __future__ import annotations

import dataclasses
import difflib
import inspect
from dataclasses import dataclass, field
from typing import Any, Literal

from ..common.config import ConfigError, load
from .config import HELD_OUT_SEEDS, check_env_options

#: ``ppo`` keys the config sets through its own fields.
RESERVED = ("env", "env_config", "seed", "model")


@dataclass
class RLlibConfig:
    """``configs/rllib/*.yaml``: one RLlib PPO run with action masking.

    Timestep counts are environment steps summed over every env runner, as RLlib counts
    ``num_env_steps_sampled_lifetime``. Training stops at the end of the first iteration that
    reaches ``total_timesteps``.
    """

    env: str
    """Registered variant, ``Nestor-v0`` or ``patience_gym/Nestor-v0``."""
    total_timesteps: int
    """Environment steps to train for."""
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    """The variant's rule options, e.g. ``{draw: 3}`` for Klondike."""
    reward: Literal["foundation", "win"] = "foundation"
    """``foundation``: +fraction of the winning cards per card played up; ``win``: 1 on a win."""
    revisit_penalty: float = 0.0
    """Subtracted from the reward of a step back into a position already seen in the episode."""
    num_env_runners: int = 2
    """Ray actors stepping environments (one CPU each), spread over the cluster; 0 steps them in
    the driver."""
    num_envs_per_env_runner: int = 4
    """Environments each runner steps side by side."""
    seed: int = 0
    """Seeds torch, numpy and the sampling (not the deals: see ``train_deal_seed``)."""
    train_deal_seed: int = 1_000_000
    """First seed of the training deals: sub-environment ``rank`` deals ``train_deal_seed + rank``,
    then every (number of sub-environments)-th seed, so no two share a deal."""
    ppo: dict[str, Any] = field(default_factory=dict)
    """``PPOConfig.training`` keyword arguments (``lr``, ``gamma``, ``lambda_``,
    ``train_batch_size_per_learner``, ``minibatch_size``, ``num_epochs``, ``clip_param``,
    ``entropy_coeff``, ``vf_loss_coeff``, ``grad_clip``, ...)."""
    model: dict[str, Any] = field(default_factory=dict)
    """RLlib's ``DefaultModelConfig`` keys, e.g. ``{fcnet_hiddens: [256, 256], fcnet_activation: relu}``."""
    checkpoint_freq: int = 0
    """Also save ``checkpoints/iter_<n>`` every this many training iterations (0: only the final)."""
    output_dir: str = "runs/rllib/run"
    """Where the final ``checkpoint/`` and the resolved ``config.yaml`` go."""
    address: str | None = None
    """A Ray cluster to train on (``auto``, ``ray://host:10001``); none: a local Ray started here."""
    num_cpus: int | None = None
    """CPUs of the local Ray started without an address (none: this machine's, at least one per
    env runner)."""
    progress: bool = True
    """Print one line per training iteration."""

    def __post_init__(self) -> None:
        check_env_options(self.env, self.env_kwargs)
        for key, low in (
            ("total_timesteps", 1),
            ("num_env_runners", 0),
            ("num_envs_per_env_runner", 1),
            ("seed", 0),
            ("checkpoint_freq", 0),
        ):
            if getattr(self, key) < low:
                raise ConfigError(f"key {key!r} must be >= {low}, got {getattr(self, key)}")
        if self.num_cpus is not None and self.num_cpus < 1:
            raise ConfigError(f"key 'num_cpus' must be >= 1 or null, got {self.num_cpus}")
        if self.revisit_penalty < 0:
            raise ConfigError(f"key 'revisit_penalty' must be >= 0, got {self.revisit_penalty}")
        if self.train_deal_seed < HELD_OUT_SEEDS:
            raise ConfigError(
                f"key 'train_deal_seed' must be >= {HELD_OUT_SEEDS:,}: seeds below are the held-out "
                "evaluation deals"
            )


def ppo_keys() -> list[str]:
    """What ``PPOConfig.training`` accepts (its own arguments and the generic ones it forwards)."""
    from ray.rllib.algorithms.algorithm_config import AlgorithmConfig
    from ray.rllib.algorithms.ppo import PPOConfig

    keys: list[str] = []
    for fn in (PPOConfig.training, AlgorithmConfig.training):
        for name, p in inspect.signature(fn).parameters.items():
            named = p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
            if named and name != "self" and name not in RESERVED and name not in keys:
                keys.append(name)
    return keys


def model_keys() -> list[str]:
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    return [f.name for f in dataclasses.fields(DefaultModelConfig)]


def _check_keys(section: str, given: dict[str, Any], allowed: list[str], what: str) -> None:
    for key in given:
        if key not in allowed:
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"key '{section}.{key}' is not {what}{hint}; allowed: {', '.join(allowed)}")


def load_config(path: str | None, overrides: list[str] | None = None) -> RLlibConfig:
    """The config file with ``key=value`` overrides applied, fully checked (RLlib's own key names
    included, so this needs Ray)."""
    where = str(path) if path else "command line"
    try:
        cfg = load(RLlibConfig, path, overrides)
        _check_keys("ppo", cfg.ppo, ppo_keys(), "a PPOConfig.training argument")
        _check_keys("model", cfg.model, model_keys(), "a DefaultModelConfig field")
    except ConfigError as exc:
        msg = str(exc)
        raise ConfigError(msg if msg.startswith(where) else f"{where}: {msg}") from None
    return cfg
