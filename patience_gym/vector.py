"""Batched environments on the native engine: a Gymnasium ``VectorEnv`` and a stable-baselines3 ``VecEnv``.

``gym.make_vec("patience_gym/Klondike-v0", num_envs=N, vectorization_mode="vector_entry_point")``
returns a :class:`PatienceVectorEnv`: N games of one variant stepped together in one native call
(the GIL released), each exactly as ``gym.make(id)`` steps it (rewards, illegal-action penalty,
``info``, step limit). It follows Gymnasium 1.x ``NEXT_STEP`` autoreset: a sub-env that ended on one
step is dealt again on the next, whatever its action, returning the new deal with reward 0.

Deals: ``reset(seed=s)`` gives sub-env ``i`` its own numpy Generator seeded ``s + i`` (as
``SyncVectorEnv`` seeds its envs) and each deal is ``rng.permutation`` of the ordered pack(s), as
``Game.new_game`` shuffles; so sub-env ``i`` deals, episode after episode, the same games as
``gym.make(id)`` reset with ``seed=s + i`` once and then without a seed.

:class:`PatienceSB3VecEnv` is the same engine behind stable-baselines3's ``VecEnv`` API (its
``SAME_STEP`` reset, ``info["terminal_observation"]``, ``env_method("action_masks")``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from patience_gym.core.cards import N_KINDS, parse_pack
from patience_gym.env import REWARD_MODES, ActionOutsideSpace, PatienceEnv, VariantSpec, deck_option
from patience_gym.move_features import BatchFeatures, with_features
from patience_gym.native import EXTRA_TEXTS, RowTwins, _module, encode_options
from patience_gym.winnable import random_deals_only

__all__ = ["NativeBatch", "PatienceSB3VecEnv", "PatienceVectorEnv"]  # noqa: F822 (PatienceSB3VecEnv: module __getattr__)


class NativeBatch:
    """N native games with their output buffers and one numpy Generator each (shared plumbing).

    The buffers are written in place by every native call: ``obs`` (N, size) float32, ``mask``
    (N, n) bool, ``reward`` float64, ``terminated``/``truncated``/``won``/``illegal`` bool,
    ``found`` and ``extras`` int64.
    """

    # The keywords of PatienceEnv, in its order, passed on to the env that checks them (a scan
    # for repeated code pairs the two signatures): a batch takes what one environment takes.
    def __init__(
        self,
        num_envs: int,
        variant: str,
        max_episode_steps: int | None = None,
        reward: str = "foundation",
        illegal_reward: float = -0.01,
        engine: str | None = None,
        **options: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r} must be a whole number >= 1")
        if engine not in (None, "native"):
            raise ValueError(
                f"engine={engine!r}: the batched environment runs on the native engine only; for the "
                "Python engine use gym.make_vec(..., vectorization_mode='sync')"
            )
        random_deals_only(options)  # the C++ batch shuffles its own packs
        # One single env checks everything the way gym.make does (variant, reward, illegal_reward,
        # mask_dtype, options, and that the variant has a native port) and lends its spaces and layout.
        self.template = PatienceEnv(
            variant, reward=reward, illegal_reward=illegal_reward, engine="native", **options
        )
        game = self.template.game
        self.num_envs = n = int(num_envs)
        self.n_actions = game.n_actions
        self.layout = game.layout
        self.max_episode_steps = max_episode_steps
        if max_episode_steps is not None and (isinstance(max_episode_steps, bool) or max_episode_steps < 1):
            raise ValueError(f"max_episode_steps={max_episode_steps!r} must be >= 1 or None")
        py_name = type(game).PYTHON.__name__  # type: ignore[attr-defined]
        # What builds the C++ batch, kept for a copy (pickle, deepcopy) to build its own.
        self.build_args = (py_name, encode_options(game.OPTIONS, game.options), n, REWARD_MODES.index(reward))
        self.features: BatchFeatures | None = None  # enable_move_features()
        self.engine = self._build()
        self.extra_names: list[str] = list(self.engine.extra_names)
        self.extra_texts = EXTRA_TEXTS.get(py_name, {})
        self.pack_size = self.engine.pack_size
        self.obs: np.ndarray = np.zeros((n, self.layout.size), dtype=np.float32)
        self.mask: np.ndarray = np.zeros((n, self.n_actions), dtype=bool)
        self.reward: np.ndarray = np.zeros(n, dtype=np.float64)
        self.terminated: np.ndarray = np.zeros(n, dtype=bool)
        self.truncated: np.ndarray = np.zeros(n, dtype=bool)
        self.won: np.ndarray = np.zeros(n, dtype=bool)
        self.illegal: np.ndarray = np.zeros(n, dtype=bool)
        self.found: np.ndarray = np.zeros(n, dtype=np.int64)
        self.extras: np.ndarray = np.zeros((n, len(self.extra_names)), dtype=np.int64)
        self.out = self._outputs()
        self.packs: np.ndarray = np.zeros((n, self.pack_size), dtype=np.int32)
        self._ordered = (np.arange(self.pack_size) % N_KINDS).astype(np.int32)
        self._all_rows: np.ndarray = np.ones(n, dtype=bool)
        self.rngs: list[np.random.Generator] = [seeding.np_random(None)[0] for _ in range(n)]
        self.dealt = False
        # Native steps so far, and the count at each row's last deal: a row's steps since its deal
        # (what the step limit counts) are the difference, which a copy replays (see _replay).
        self.steps = 0
        self.dealt_at: np.ndarray = np.zeros(n, dtype=np.int64)
        self.twins: RowTwins | None = None  # render()'s Python twins, made before the first reset

    def _build(self) -> Any:
        """A new C++ batch of this one's variant, options, size, rewards and step limit.

        It records each game's moves since its deal (``record``), what a copy replays: a push of
        one int per move, within the noise of the batched step rate (benchmarks/bench_native.py),
        and 4 bytes per move of the current episode."""
        limit = self.max_episode_steps
        engine = _module().BatchedGames(
            *self.build_args, self.template.illegal_reward, 0 if limit is None else int(limit)
        )
        engine.record(True)
        if self.features is not None:
            self.features.attach(engine)
        return engine

    def enable_move_features(self) -> None:
        """Keep each row's move features (:mod:`patience_gym.move_features`) in ``features.block``,
        rewritten by every reset and step. Before the first reset."""
        assert not self.dealt, "enable the move features before the first reset"
        self.features = BatchFeatures(self.template.game, self.num_envs)
        self.features.attach(self.engine)

    def _outputs(self) -> Any:
        """The native view of the output buffers (the numpy arrays above, written in place)."""
        outputs = (self.obs, self.mask, self.reward, self.terminated, self.truncated, self.won)
        return _module().Outputs(*outputs, self.illegal, self.found, self.extras)

    def __getstate__(self) -> dict[str, Any]:
        """Everything but the C++ objects, plus each row's moves since its deal: pickle and
        deepcopy rebuild the batch from them (:meth:`__setstate__`), as a native game is rebuilt
        from its pack and moves. The games' positions, the steps each row has taken since its deal,
        the Generators and the last outputs come back as they were; the generator of
        ``sample_legal`` (C++'s own) starts afresh."""
        state = self.__dict__.copy()
        for name in ("engine", "out", "twins"):
            del state[name]
        state["rendered"] = self.twins is not None
        state["moves"] = [self.engine.history(i)[1] for i in range(self.num_envs)] if self.dealt else None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        moves, rendered = state.pop("moves"), state.pop("rendered")
        self.__dict__.update(state)
        self.engine = self._build()
        self.out = self._outputs()
        if moves is not None:
            self._replay(moves)
        self.twins = RowTwins(self.template.game, self.engine) if rendered else None

    def _replay(self, moves: list[list[int]]) -> None:
        """Bring the new C++ batch to the saved positions: row ``i`` dealt its pack, then given its
        moves, so that it has taken exactly ``steps - dealt_at[i]`` steps since its deal.

        Every row takes every step: a row is dealt (again) on the step that leaves it the right
        number, then takes its moves, then ids outside the space, which count as steps and change
        nothing. Without a step limit the count matters to nothing and the moves alone are played."""
        n = self.num_envs
        if self.max_episode_steps is None:
            elapsed = np.array([len(m) for m in moves], dtype=np.int64)
        else:
            elapsed = self.steps - self.dealt_at
        total = int(elapsed.max())
        start = total - elapsed  # the step that deals row i (0: the first reset)
        plan = np.full((n, total), -1, dtype=np.int64)  # plan[:, s - 1]: the actions of step s
        for i, row in enumerate(moves):
            plan[i, start[i] : start[i] + len(row)] = row
        last = [buf.copy() for buf in self._buffers()]  # the last outputs, as the original had them
        self.engine.reset(self.packs, np.ones(n, dtype=bool), self.out)
        for s in range(1, total + 1):
            self.engine.step(np.ascontiguousarray(plan[:, s - 1]), self.packs, start == s, self.out)
        for buf, saved in zip(self._buffers(), last, strict=True):
            buf[...] = saved

    def _buffers(self) -> tuple[np.ndarray, ...]:
        return (self.obs, self.mask, self.reward, self.terminated, self.truncated, self.won, self.illegal,
                self.found, self.extras)  # fmt: skip

    def seed(self, seed: int | Sequence[int | None] | None) -> None:
        """Sub-env ``i`` gets ``seed + i`` (an int), ``seed[i]`` (a list), or stays as it is (None)."""
        if seed is None:
            return
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seeds: list[int | None] = [int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)  # type: ignore[arg-type]  # a bool was refused above as an int
            if len(seeds) != self.num_envs:
                raise ValueError(f"seed must be an int or a list of {self.num_envs} seeds, got {len(seeds)}")
        for i, s in enumerate(seeds):
            if s is not None:
                self.rngs[i] = seeding.np_random(s)[0]

    def shuffle(self, rows: np.ndarray) -> None:
        """Fill the packs of ``rows`` (bool mask) as ``Game.new_game`` shuffles: a permutation of the
        ordered pack(s) (card ``i % 52`` at position ``i``) from each row's Generator."""
        # rng.permutation(n) is rng.shuffle(np.arange(n)): shuffling the ordered pack in place
        # draws the same numbers and gives the same pack, without two temporary arrays.
        for i in np.flatnonzero(rows).tolist():
            row = self.packs[i]
            row[:] = self._ordered
            self.rngs[i].shuffle(row)
            self.dealt_at[i] = self.steps  # only the rows dealt: nothing per step for the others

    def reset_rows(self, rows: np.ndarray, decks: dict[int, object] | None = None) -> None:
        """Deal ``rows`` (bool mask) again: shuffled packs, or the packs ``decks`` gives by row
        (card strings, as ``reset(options={"deck": ...})`` takes them; no draw from the row's
        Generator, as a single env dealing a given deck draws none)."""
        game = self.template.game
        # Every pack is checked before any row is dealt: a malformed one changes nothing.
        given = {i: parse_pack(deck, game.n_packs, game.name) for i, deck in (decks or {}).items()}
        self.shuffle(rows & ~np.isin(np.arange(self.num_envs), list(given)))
        for i, pack in given.items():
            self.packs[i], self.dealt_at[i] = pack, self.steps
        self.engine.reset(self.packs, rows, self.out)
        self.dealt = True
        if self.features is not None:
            self.features.update(self.engine, rows)

    def step(self, actions: np.ndarray, rows: np.ndarray) -> None:
        self.steps += 1
        self.shuffle(rows)
        self.engine.step(actions, self.packs, rows, self.out)
        if self.features is not None:
            self.features.update(self.engine, self._all_rows)

    def actions(self, actions: Any) -> np.ndarray:
        """``actions`` as N int64 ids of the action space, each refused as ``PatienceEnv.step``
        refuses one: an array of another shape (``ValueError``), of a type that is not integer or
        does not cast to ``int64`` (``TypeError``: floats, bools, ``np.uint64``), or holding an id
        outside ``0..n-1`` (:class:`~patience_gym.env.ActionOutsideSpace`, naming the sub-env)."""
        arr = np.asarray(actions)
        kind = arr.dtype.kind
        if kind != "i" and (kind != "u" or not np.can_cast(arr.dtype, np.int64)):
            raise TypeError(
                f"actions must be {self.num_envs} integer ids (an integer array whose type casts to int64, "
                f"as action_space.contains requires), got dtype {arr.dtype}"
            )
        if arr.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {arr.shape}")
        acts = np.ascontiguousarray(arr, dtype=np.int64)
        # One pass over the batch for both bounds: read as unsigned, a negative id is huge.
        if np.maximum.reduce(acts.view(np.uint64)) >= self.n_actions:
            raise self._outside(acts)
        return acts

    def _outside(self, acts: np.ndarray) -> ActionOutsideSpace:
        """The error for a batch holding ids outside the space: the first such sub-env, its id and
        the ids allowed (as PatienceEnv words it for one env)."""
        wrong = np.flatnonzero((acts < 0) | (acts >= self.n_actions))
        i = int(wrong[0])
        more = f" (and {wrong.size - 1} more sub-envs)" if wrong.size > 1 else ""
        return ActionOutsideSpace(
            f"action {int(acts[i])} of sub-env {i} is outside the action space "
            f"{self.template.action_space}: ids are 0..{self.n_actions - 1}{more}"
        )

    def info_rows(self) -> dict[str, np.ndarray]:
        """Per-key arrays of what PatienceEnv's ``info`` holds, for every sub-env (copies)."""
        info: dict[str, np.ndarray] = {
            "won": self.won.copy(),
            "foundation_cards": self.found.copy(),
            "action_mask": self.mask.astype(self.template.mask_type),
            "illegal_action": self.illegal.copy(),
        }
        for k, name in enumerate(self.extra_names):
            texts = self.extra_texts.get(name)
            column = self.extras[:, k]
            info[name] = np.array([texts[v] for v in column], dtype=object) if texts else column.copy()
        return info

    def render(self, mode: str) -> tuple[Any, ...]:
        """Each row's table drawn by its Python twin, as ``PatienceEnv.render`` draws one game:
        the ``ansi`` text, or the ``rgb_array`` picture (``H x W x 3`` ``uint8``)."""
        assert self.twins is not None, "render() needs RowTwins made before the first reset"
        games = [self.twins.game(i, self.packs[i]) for i in range(self.num_envs)]
        if mode == "ansi":
            return tuple(game.render() for game in games)
        # Imported on first use, as the single env does: stepping never loads Pillow.
        from patience_gym.render.picture import picture
        from patience_gym.render.views import table_view

        return tuple(picture(table_view(game)) for game in games)


class PatienceVectorEnv(VariantSpec, VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """N games of one variant in one native batch, as a Gymnasium 1.x ``VectorEnv`` (see the module).

    Arguments are those of ``gym.make(id, ...)`` (``reward``, ``illegal_reward``, rule options),
    plus ``num_envs``, ``max_episode_steps`` (the registered limit by default; ``None``: none) and
    ``copy``: ``True`` (default) returns fresh arrays from ``reset``/``step``; ``False`` returns the
    observation buffer itself, rewritten in place by the next call: read it, never write into it
    (the engine updates only the values that change from one step to the next).

    ``render_mode``: ``render()`` returns a tuple of N frames, one per sub-env, as Gymnasium's
    ``SyncVectorEnv`` does (and as ``gymnasium.wrappers.vector.RecordVideo`` expects, tiling
    them or keeping the first with ``record_first_only``): each sub-env's table as text
    (``"ansi"``) or as an ``H x W x 3`` ``uint8`` picture (``"rgb_array"``), the frame
    ``gym.make(id, render_mode=...)`` renders for that game. ``step`` takes N ids of the single
    action space, refused as a single env refuses one (``ActionOutsideSpace`` names the sub-env).
    ``copy.deepcopy`` and pickling give an independent batch that steps on exactly as this one
    (the generator of :meth:`sample_legal_actions` excepted: it starts afresh).

    ``move_features=True``: each observation is followed by its move features, ``n_actions * K``
    float32 in [-1, 1] computed natively after every step (:mod:`patience_gym.move_features`;
    always fresh arrays, whatever ``copy``).

    ``info`` holds, batched, what a single env's holds: ``won``, ``foundation_cards``,
    ``action_mask`` (N, n) ``int8`` (``bool`` with ``mask_dtype="bool"``), ``illegal_action`` and
    the variant's extras, each with its ``_key`` mask (all True: every sub-env reports every key).
    ``action_masks()``: (N, n) bool. ``gym.make_vec`` refuses a ``variant`` naming another game than
    its id, as ``gym.make`` does.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (gymnasium's)
        "render_modes": ["ansi", "rgb_array"],
        "render_fps": PatienceEnv.metadata["render_fps"],
        "autoreset_mode": AutoresetMode.NEXT_STEP,
    }
    batch: NativeBatch
    maker = "gym.make_vec"

    def __init__(
        self,
        num_envs: int,
        variant: str,
        max_episode_steps: int | None = None,
        render_mode: str | None = None,
        reward: str = "foundation",
        illegal_reward: float = -0.01,
        engine: str | None = None,
        copy: bool = True,
        move_features: bool = False,
        **options: Any,
    ) -> None:
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(
                f"render_mode={render_mode!r} is not supported by the batched env; "
                "use None, 'ansi' or 'rgb_array'"
            )
        self.batch = NativeBatch(
            num_envs, variant, max_episode_steps, reward, illegal_reward, engine, **options
        )
        self.variant = self.batch.template.variant
        self.num_envs = self.batch.num_envs
        self.render_mode = render_mode
        self.batch.twins = RowTwins(self.batch.template.game, self.batch.engine) if render_mode else None
        self.copy = copy
        self.single_observation_space = self.batch.template.observation_space
        if move_features:
            self.batch.enable_move_features()
            self.single_observation_space = with_features(self.single_observation_space, self.batch.n_actions)
        self.single_action_space = self.batch.template.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, self.batch.n_actions))
        self.layout = self.batch.layout
        self._autoreset = np.zeros(self.num_envs, dtype=bool)
        self._ones = np.ones(self.num_envs, dtype=bool)

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if options:
            raise ValueError(f"reset options {sorted(options)} are not supported by the batched env")
        self.batch.seed(seed)
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            self.batch.engine.seed_sampler(int(seed) % 2**64)
        self.batch.reset_rows(self._ones)
        self._autoreset[:] = False
        return self._observations(), self._info()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self.batch.dealt:
            from gymnasium.error import ResetNeeded

            raise ResetNeeded("call reset() before step()")
        acts = self.batch.actions(actions)
        self.batch.step(acts, self._autoreset)
        b = self.batch
        np.logical_or(b.terminated, b.truncated, out=self._autoreset)
        return self._observations(), b.reward.copy(), b.terminated.copy(), b.truncated.copy(), self._info()

    def sample_legal_actions(self) -> np.ndarray:
        """A uniformly random legal action per sub-env (0 where none), drawn natively in one call
        (random rollouts, benchmarks). Its generator is seeded by ``reset(seed=int)``."""
        out = np.zeros(self.num_envs, dtype=np.int64)
        self.batch.engine.sample_legal(self.batch.mask, out)
        return out

    def action_masks(self) -> np.ndarray:
        """The legal actions of every sub-env, (N, n) bool (all False for a finished game)."""
        out: np.ndarray = self.batch.mask.copy()
        return out

    def render(self) -> tuple[Any, ...] | None:  # type: ignore[override, unused-ignore]
        return self.batch.render(self.render_mode) if self.render_mode is not None else None

    @property
    def bytes_per_game(self) -> int:
        """Memory per game: the native game and bookkeeping plus its rows of the output buffers
        (and, not counted here, 4 bytes per move of its current episode, recorded for copies)."""
        b = self.batch
        rows = b.obs[0].nbytes + b.mask[0].nbytes + b.packs[0].nbytes + b.extras[0].nbytes + 8 * 2 + 4
        return int(b.engine.bytes_per_game) + int(rows)

    def _observations(self) -> np.ndarray:
        if self.batch.features is not None:
            return self.batch.features.observations(self.batch.obs)
        return self.batch.obs.copy() if self.copy else self.batch.obs

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {}
        for key, value in self.batch.info_rows().items():
            info[key] = value
            info["_" + key] = self._ones.copy()
        return info


def __getattr__(name: str) -> Any:
    # stable-baselines3 (the train extra) pulls in torch: import it only when the sb3 VecEnv is
    # asked for, so gym.make_vec stays light.
    if name == "PatienceSB3VecEnv":
        return _sb3_vec_env_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_SB3_CLASS: type | None = None


def _sb3_vec_env_class() -> type:
    global _SB3_CLASS
    if _SB3_CLASS is None:
        from stable_baselines3.common.vec_env.base_vec_env import VecEnv

        _SB3_CLASS = type("PatienceSB3VecEnv", (_SB3VecEnvMixin, VecEnv), {"__module__": __name__})
        _SB3_CLASS.__doc__ = _SB3VecEnvMixin.__doc__
    return _SB3_CLASS


if TYPE_CHECKING:  # type-checked as the sb3 VecEnv it is mixed into at run time
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv as _VecEnvBase
else:
    _VecEnvBase = object


class _SB3VecEnvMixin(_VecEnvBase):
    """The native batch as a stable-baselines3 ``VecEnv`` (``vec_env: native`` in a PPO config).

    ``PatienceSB3VecEnv("Klondike-v0", n_envs=64, **env_kwargs)``; ``seed(s)`` then ``reset()``
    deals sub-env ``i`` from seed ``s + i`` as ``DummyVecEnv`` over ``gym.make`` envs would.
    Rewards are float32, ``dones`` = terminated or truncated, and each ``info`` holds
    ``terminal_observation`` and ``TimeLimit.truncated`` at an episode's end, as sb3 expects.
    ``env_method("action_masks")`` (what sb3-contrib's ``get_action_masks`` calls) returns
    the masks of the sub-envs. Wrap it in ``VecMonitor`` for episode statistics.
    ``move_features=True`` appends each sub-env's move features (:mod:`patience_gym.move_features`)
    to its observations, the reset and terminal ones included: what
    :class:`patience_gym.agents.policies.move_policy.MovePolicy` reads.
    """

    def __init__(
        self,
        env_id: str,
        n_envs: int = 1,
        max_episode_steps: int | None = -1,
        move_features: bool = False,
        **env_kwargs: Any,
    ):
        from patience_gym.games import get_variant

        variant = get_variant(env_id)
        if max_episode_steps == -1:  # the registered limit, as gym.make applies it
            max_episode_steps = variant.max_episode_steps
        self.render_mode = None
        self.batch = NativeBatch(n_envs, variant.env_name, max_episode_steps, **env_kwargs)
        space = self.batch.template.observation_space
        if move_features:
            self.batch.enable_move_features()
            space = with_features(space, self.batch.n_actions)
        super().__init__(n_envs, space, self.batch.template.action_space)
        self._actions = np.zeros(n_envs, dtype=np.int64)
        self._all = np.ones(n_envs, dtype=bool)
        self._none = np.zeros(n_envs, dtype=bool)

    def reset(self) -> np.ndarray:
        # set_options(): a row's {"deck": [...]} deals that pack, as DummyVecEnv passes each env
        # its options; anything else is refused as PatienceEnv.reset refuses it.
        decks = {i: deck for i, opts in enumerate(self._options) if (deck := deck_option(opts)) is not None}
        self.batch.seed(self._seeds)
        self._reset_seeds()
        self._reset_options()
        self.batch.reset_rows(self._all, decks)
        infos = self._infos()
        self.reset_infos = infos
        return self._observations()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = self.batch.actions(np.asarray(actions).reshape(self.num_envs))

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        b = self.batch
        b.step(self._actions, self._none)
        dones = b.terminated | b.truncated
        rewards = b.reward.astype(np.float32)
        infos = self._infos()
        if dones.any():
            for i in np.flatnonzero(dones).tolist():
                infos[i]["terminal_observation"] = self._observations(i)
                infos[i]["TimeLimit.truncated"] = bool(b.truncated[i] and not b.terminated[i])
            b.reset_rows(dones)  # sb3 resets at once; the new deal's observation is returned
            rows = np.flatnonzero(dones)
            for i, info in zip(rows.tolist(), self._infos(rows), strict=True):
                self.reset_infos[i] = info
        return self._observations(), rewards, dones, infos

    def _observations(self, row: Any = slice(None)) -> np.ndarray:
        """The observations (of one ``row``, default all): a copy, the move features appended
        when they are on."""
        b = self.batch
        if b.features is not None:
            return b.features.observations(b.obs[row], row)
        out: np.ndarray = b.obs[row].copy()
        return out

    def close(self) -> None:
        pass

    def action_masks(self) -> np.ndarray:
        out: np.ndarray = self.batch.mask.copy()
        return out

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name == "render_mode":
            return [None for _ in self._indices(indices)]
        if attr_name == "action_masks":
            return [lambda i=i: self.batch.mask[i].copy() for i in self._indices(indices)]
        value = getattr(self.batch.template, attr_name)  # AttributeError for unknown names
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"the native batch has no settable attribute {attr_name!r}")

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> Any:
        """``action_masks``: the masks of the rows asked for as one (rows, n) bool array (a copy),
        a sequence of one mask per sub-env that ``np.stack`` (sb3-contrib's ``get_action_masks``,
        once per step) takes as is, without a copy per sub-env."""
        rows = self._indices(indices)
        if method_name == "action_masks":
            return self.batch.mask.copy() if indices is None else self.batch.mask[rows]
        if method_name == "render" and self.render_mode is None:
            return [None for _ in rows]
        raise AttributeError(f"the native batch has no method {method_name!r} for env_method")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def _infos(self, rows: np.ndarray | None = None) -> list[dict[str, Any]]:
        """Each sub-env's ``info`` (of ``rows``, default all), as ``PatienceEnv`` reports one: built
        column by column (one ``tolist`` per key, a dict display per row: no numpy scalar per key
        and row), once per step."""
        b = self.batch
        at: Any = slice(None) if rows is None else rows
        masks = list(b.mask[at].astype(b.template.mask_type))  # rows of one fresh array
        infos = [
            {"won": won, "foundation_cards": found, "action_mask": mask, "illegal_action": illegal}
            for won, found, mask, illegal in zip(
                b.won[at].tolist(), b.found[at].tolist(), masks, b.illegal[at].tolist(), strict=True
            )
        ]
        for k, name in enumerate(b.extra_names):
            texts = b.extra_texts.get(name)
            for info, v in zip(infos, b.extras[at, k].tolist(), strict=True):
                info[name] = texts[v] if texts else v
        return infos
