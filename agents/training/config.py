"""The training config (``configs/ppo/*.yaml``): its schema and every check a type cannot express.

Importing this module needs neither torch nor stable-baselines3; the ``ppo`` keys are checked
against ``MaskablePPO``'s signature, so :func:`check_config` needs sb3-contrib.
"""

from __future__ import annotations

import difflib
import inspect
from dataclasses import dataclass, field
from typing import Any, Literal

from ..common.config import ConfigError, load

#: Deal seeds below this are reserved for evaluation (``patience-gym evaluate``, the results table).
HELD_OUT_SEEDS = 500_000

#: ``ppo`` keys that the config sets through its own fields (or that make no sense in a config).
PPO_RESERVED = ("policy", "env", "policy_kwargs", "tensorboard_log", "seed", "verbose", "_init_setup_model")

ACTIVATIONS = ("relu", "tanh", "elu", "leaky_relu", "gelu", "silu")

#: Allowed ranges of numeric ``ppo`` values: (low, high, low included). sb3 checks few of these
#: and a value out of range trains without complaint (``gamma=1.5`` diverges quietly).
PPO_RANGES: dict[str, tuple[float, float, bool]] = {
    "gamma": (0.0, 1.0, True),
    "gae_lambda": (0.0, 1.0, True),
    "learning_rate": (0.0, float("inf"), False),
    "clip_range": (0.0, float("inf"), False),
    "clip_range_vf": (0.0, float("inf"), False),
    "n_steps": (1, float("inf"), True),
    "batch_size": (1, float("inf"), True),
    "n_epochs": (1, float("inf"), True),
    "ent_coef": (0.0, float("inf"), True),
    "vf_coef": (0.0, float("inf"), True),
    "max_grad_norm": (0.0, float("inf"), False),
    "target_kl": (0.0, float("inf"), False),
    "stats_window_size": (1, float("inf"), True),
}

#: ``ppo`` keys whose default is ``None`` (so the default's type says nothing): their type.
_NONE_DEFAULT_TYPES: dict[str, type] = {"target_kl": float, "clip_range_vf": float}


@dataclass
class TrainConfig:
    """``configs/ppo/*.yaml``: one MaskablePPO training run. Keys follow rl-zoo3 where it has one.

    Timestep counts (``total_timesteps``, ``eval_freq``, ``checkpoint_freq``) are environment steps
    summed over all ``n_envs`` environments, as sb3 counts ``num_timesteps``.
    """

    env: str
    """Registered variant, ``Nestor-v0`` or ``patience_gym/Nestor-v0``."""
    total_timesteps: int
    """Environment steps to train for (in total, also when resuming)."""
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    """The variant's rule options, e.g. ``{draw: 3}`` for Klondike."""
    reward: Literal["foundation", "win"] = "foundation"
    """``foundation``: +fraction of the winning cards per card played up; ``win``: 1 on a win."""
    revisit_penalty: float = 0.0
    """Training only: subtracted from the reward of a step that returns to a position already seen
    in the episode, against the back-and-forth cycles a deterministic policy can fall into (moving
    a card between two piles until the step limit). The periodic evaluation is never shaped."""
    n_envs: int = 8
    """Parallel environments feeding each rollout."""
    vec_env: Literal["dummy", "subproc", "native"] = "dummy"
    """``native`` steps all ``n_envs`` games in one native call (:mod:`patience_gym.vector`; the
    fastest, as ``configs/ppo/fast.yaml`` trains; no move features or revisit shaping there);
    ``dummy`` steps one Python env after another in this process; ``subproc`` uses one process per
    env."""
    seed: int = 0
    """Seeds torch, numpy and the policy's sampling (not the deals: see ``train_deal_seed``)."""
    ppo: dict[str, Any] = field(default_factory=dict)
    """``MaskablePPO`` keyword arguments (``n_steps``, ``batch_size``, ``n_epochs``, ``gamma``,
    ``gae_lambda``, ``learning_rate``, ``clip_range``, ``ent_coef``, ``vf_coef``, ``max_grad_norm``,
    ``target_kl``, ``device``, ...). ``learning_rate`` and ``clip_range`` also take rl-zoo3's
    ``lin_<value>`` for a linear decay to 0."""
    imitation: dict[str, Any] = field(default_factory=dict)
    """Warm start by behaviour cloning of a teacher before PPO (:mod:`agents.training.imitation`):
    ``{teacher: greedy, episodes: 300, epochs: 20, batch_size: 256, learning_rate: 1.0e-3,
    value: true, dagger: 0, dagger_episodes: 100, dagger_epochs: 3}`` (``dagger``: rounds in which
    the policy plays and the teacher advises, then the policy is trained again on all the advice);
    empty (the default): PPO starts from scratch."""
    move_features: bool = False
    """Append what each move does to the observation (:mod:`agents.policies.features`: legal, cards
    gained, heuristic change, visits of the position it leads to this episode, ...), so that the
    policy can see where a move leads and avoid cycles as greedy does. ``ppo:<model>`` rebuilds
    them when it plays."""
    rollout_features: int = 0
    """With ``move_features`` and ``policy: move_scorer``: roll every legal move out this many times
    on deals consistent with what the player has seen, and add three columns per move (the
    rollouts' average foundation cards, its gap to the best move's, the rollout choice;
    :mod:`agents.policies.features`). 0 (the default): no rollouts. The look-ahead is the base policy's,
    computed in the native engine, not learnt; ``rollout:N`` plays its choice alone."""
    policy: Literal["mlp", "move_policy", "move_scorer"] = "mlp"
    """``mlp``: sb3's flat MLP over the observation, one output per action. ``move_policy`` (needs
    ``vec_env: native``): every legal move scored by one network shared by all moves, from an
    encoding of the board and the move's features computed in the batched engine (what it gains,
    uncovers, opens, where from and to; :mod:`agents.policies.move_policy`), a masked softmax
    over the scores, the value read from the board alone. ``move_scorer``
    (needs ``move_features``): each action's logit adds a small MLP shared by all actions scoring
    that move's features (:mod:`agents.policies.move_scorer`)."""
    policy_kwargs: dict[str, Any] = field(default_factory=dict)
    """``MaskableActorCriticPolicy`` arguments, e.g. ``{net_arch: [256, 256], activation_fn: relu}``
    (``activation_fn`` by name: relu, tanh, elu, leaky_relu, gelu, silu); with ``policy:
    move_scorer`` also ``scorer_arch``, the move scorer's hidden layers (default ``[64, 64]``)."""
    eval_freq: int = 20_000
    """Evaluate with masks every this many steps (0: never, and no best model)."""
    eval_episodes: int = 200
    """Deals per periodic evaluation (always the same ones)."""
    eval_deal_seed: int = 500_000
    """First seed of the periodic evaluation's deals."""
    train_deal_seed: int = 1_000_000
    """First seed of the training deals."""
    checkpoint_freq: int = 50_000
    """Save ``checkpoints/ppo_<steps>_steps.zip`` every this many steps (0: never)."""
    output_dir: str = "runs/ppo/run"
    """Where models, the resolved config and the logs go."""
    resume: str | None = None
    """A saved model (``checkpoints/ppo_<n>_steps.zip``) to continue from up to ``total_timesteps``;
    its saved hyper-parameters are used, the ``ppo`` and ``policy_kwargs`` keys are not."""
    progress_bar: bool = True
    """Show sb3's progress bar (tqdm + rich)."""
    torch_threads: int | None = 1
    """``torch.set_num_threads``; small MLPs gain nothing from more threads. ``null``: torch's default."""
    verbose: int = 0
    """sb3's verbosity: 0 quiet, 1 prints the rollout/train statistics."""

    def __post_init__(self) -> None:
        check_config(self)


def deal_span(first: int, count: int) -> str:
    """How a model card names a run's validation deals: ``"500000..500999"``."""
    return f"{first}..{first + count - 1}"


def deal_range(span: str) -> range:
    """The seeds a :func:`deal_span` names."""
    first, last = (int(x) for x in span.split(".."))
    return range(first, last + 1)


def check_config(cfg: TrainConfig) -> None:
    """The checks a type cannot express; each error names the key and what is allowed."""
    check_env_options(cfg.env, cfg.env_kwargs)
    _check_counts(cfg)
    _check_deal_seeds(cfg)
    check_ppo_kwargs(cfg.ppo)
    check_policy_kwargs(cfg.policy_kwargs)
    _check_policy(cfg)
    if cfg.imitation:
        from .imitation import check_imitation

        try:
            check_imitation(cfg.imitation)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None


def check_env_options(env: str, env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """The variant's rule options in effect (defaults filled in); an error names what is allowed."""
    from patience_gym.games import get_variant

    try:
        variant = get_variant(env)
    except ValueError as exc:
        raise ConfigError(f"key 'env': {exc}") from None
    try:
        return dict(variant.make_game(**env_kwargs).options)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"key 'env_kwargs': {exc}") from None


def _check_counts(cfg: TrainConfig) -> None:
    minimum = {
        "total_timesteps": 1,
        "n_envs": 1,
        "eval_episodes": 1,
        "eval_freq": 0,
        "checkpoint_freq": 0,
        "seed": 0,
        "verbose": 0,
    }
    for key, low in minimum.items():
        value = getattr(cfg, key)
        if value < low:
            extra = " (0 disables it)" if key.endswith("_freq") else ""
            raise ConfigError(f"key {key!r} must be >= {low}{extra}, got {value}")
    if cfg.revisit_penalty < 0:
        raise ConfigError(f"key 'revisit_penalty' must be >= 0, got {cfg.revisit_penalty}")
    if cfg.vec_env == "native" and cfg.revisit_penalty:
        raise ConfigError(
            "keys 'vec_env' and 'revisit_penalty': the native batch steps every game in C++, where the "
            "revisit shaping (a Python wrapper) cannot run; use vec_env: dummy or revisit_penalty: 0"
        )
    if cfg.torch_threads is not None and cfg.torch_threads < 1:
        raise ConfigError(f"key 'torch_threads' must be >= 1 or null, got {cfg.torch_threads}")


def _check_policy(cfg: TrainConfig) -> None:
    if cfg.policy == "move_scorer" and not cfg.move_features:
        raise ConfigError(
            "keys 'policy' and 'move_features': policy move_scorer scores each move from its features; "
            "set move_features: true (or policy: mlp)"
        )
    if cfg.rollout_features and cfg.policy != "move_scorer":
        raise ConfigError(
            "keys 'rollout_features' and 'policy': the rollout features are read by policy move_scorer "
            "(with move_features: true); set policy: move_scorer or rollout_features: 0"
        )
    if "feature_rollouts" in cfg.policy_kwargs:
        raise ConfigError("key 'policy_kwargs.feature_rollouts' is set from the key 'rollout_features'")
    if "scorer_arch" in cfg.policy_kwargs and cfg.policy not in ("move_scorer", "move_policy"):
        raise ConfigError(
            "key 'policy_kwargs.scorer_arch' is a setting of policy: move_policy or move_scorer only"
        )
    if cfg.policy == "move_policy" and cfg.vec_env != "native":
        raise ConfigError(
            "keys 'policy' and 'vec_env': policy move_policy reads the move features the batched engine "
            "computes; set vec_env: native"
        )
    if cfg.vec_env == "native" and cfg.move_features:
        raise ConfigError(
            "keys 'vec_env' and 'move_features': the native batch steps every game in C++, where the "
            "move features (a Python wrapper) cannot be computed; use vec_env: dummy or move_features: false"
        )


def _check_deal_seeds(cfg: TrainConfig) -> None:
    for key in ("eval_deal_seed", "train_deal_seed"):
        if getattr(cfg, key) < HELD_OUT_SEEDS:
            raise ConfigError(
                f"key {key!r} must be >= {HELD_OUT_SEEDS:,}: seeds below are the held-out evaluation deals"
            )
    if cfg.eval_deal_seed + cfg.eval_episodes > cfg.train_deal_seed:
        raise ConfigError(
            "keys 'train_deal_seed' and 'eval_deal_seed': the training deals (train_deal_seed and up) "
            f"must start above the periodic evaluation's ({cfg.eval_deal_seed} .. "
            f"{cfg.eval_deal_seed + cfg.eval_episodes - 1})"
        )


def ppo_parameters() -> dict[str, inspect.Parameter]:
    """``MaskablePPO.__init__``'s keyword arguments that a config's ``ppo`` mapping may set."""
    from sb3_contrib import MaskablePPO

    params = inspect.signature(MaskablePPO.__init__).parameters
    return {k: p for k, p in params.items() if k != "self" and k not in PPO_RESERVED}


def check_ppo_kwargs(ppo: dict[str, Any]) -> None:
    """Names from MaskablePPO's signature; values of the default's type (or a ``lin_`` schedule)
    and, for the numeric ones, within :data:`PPO_RANGES`."""
    allowed = ppo_parameters()
    for key, value in ppo.items():
        if key in PPO_RESERVED:
            raise ConfigError(f"key 'ppo.{key}' is set elsewhere: use the top-level key, not ppo.{key}")
        if key not in allowed:
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(
                f"key 'ppo.{key}' is not a MaskablePPO argument{hint}; allowed: {', '.join(allowed)}"
            )
        if key in ("learning_rate", "clip_range") and isinstance(value, str):
            value = schedule(key, value).start
        elif value is not None:
            _check_ppo_type(key, value, allowed[key].default)
        _check_range(f"ppo.{key}", value, PPO_RANGES.get(key))


def _check_ppo_type(key: str, value: Any, default: Any) -> None:
    want = _NONE_DEFAULT_TYPES.get(key)
    if want is None:
        if default is None or default is inspect.Parameter.empty:
            return
        want = type(default)
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    if want is float:
        ok = numeric
    else:  # a bool is an int to Python, not to a config
        ok = isinstance(value, want) and (want is bool or not isinstance(value, bool))
    if not ok:
        raise ConfigError(f"key 'ppo.{key}' must be {want.__name__}, got {value!r}")


def _check_range(key: str, value: Any, bounds: tuple[float, float, bool] | None) -> None:
    if bounds is None or value is None:
        return
    low, high, low_included = bounds
    if value > high or value < low or (value == low and not low_included):
        if high == float("inf"):
            want = f">= {low:g}" if low_included else f"> {low:g}"
        else:
            want = f"between {low:g} and {high:g}" if low_included else f"> {low:g} and <= {high:g}"
        raise ConfigError(f"key {key!r} must be {want}, got {value!r}")


def check_policy_kwargs(kwargs: dict[str, Any]) -> None:
    """``net_arch`` as a list of layer sizes (or ``{pi: [...], vf: [...]}``), ``activation_fn`` by name."""
    act = kwargs.get("activation_fn")
    if act is not None and act not in ACTIVATIONS:
        raise ConfigError(
            f"key 'policy_kwargs.activation_fn': {act!r} is not allowed; "
            f"choose one of {', '.join(ACTIVATIONS)}"
        )
    scorer = kwargs.get("scorer_arch")
    if "scorer_arch" in kwargs and not (
        isinstance(scorer, list)
        and all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in scorer)
    ):
        raise ConfigError(
            "key 'policy_kwargs.scorer_arch' must be a list of layer sizes >= 1 (e.g. [64, 64]), "
            f"got {scorer!r}"
        )
    if "net_arch" not in kwargs:
        return
    arch = kwargs["net_arch"]
    layers = list(arch.items()) if isinstance(arch, dict) else [("", arch)]
    if isinstance(arch, dict) and set(arch) != {"pi", "vf"}:
        layers = [("", None)]
    for part, sizes in layers:
        ok = isinstance(sizes, list) and all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in sizes
        )
        if not ok:
            where = f"policy_kwargs.net_arch{'.' + part if part else ''}"
            raise ConfigError(
                f"key {where!r} must be a list of layer sizes >= 1 (e.g. [256, 256]) or "
                f"{{pi: [...], vf: [...]}}, got {arch!r}"
            )


@dataclass(frozen=True)
class Linear:
    """A picklable linear schedule (sb3 passes the remaining progress, 1 -> 0)."""

    start: float

    def __call__(self, progress_remaining: float) -> float:
        return progress_remaining * self.start


def schedule(key: str, value: str) -> Linear:
    """rl-zoo3's ``lin_<x>``: decay linearly from x to 0 over training."""
    try:
        if not value.startswith("lin_"):
            raise ValueError
        return Linear(float(value[4:]))
    except ValueError:
        raise ConfigError(f"key 'ppo.{key}' must be a number or 'lin_<number>', got {value!r}") from None


def load_config(path: str | None, overrides: list[str] | None = None) -> TrainConfig:
    """The config file with ``key=value`` overrides applied, fully checked."""
    where = str(path) if path else "command line"
    try:
        return load(TrainConfig, path, overrides)
    except ConfigError as exc:
        msg = str(exc)
        raise ConfigError(msg if msg.startswith(where) else f"{where}: {msg}") from None
