"""The one Gymnasium adapter that every variant shares."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import EnvSpec
from gymnasium.error import InvalidAction, ResetNeeded

from patience_gym.core.game import Game
from patience_gym.games import VARIANTS, Variant, get_variant
from patience_gym.native import ILLEGAL_GAIN, NativeGame, engine_for, make_game, reference
from patience_gym.winnable import check_deals, winnable_seeds

REWARD_MODES = ("foundation", "win")
#: ``mask_dtype``: the type of ``info["action_mask"]`` (int8: what ``Discrete.sample(mask=...)``
#: takes; bool: what TorchRL's ``MaskedCategorical`` and ``ActionMask`` take).
MASK_DTYPES = {"int8": np.int8, "bool": np.bool_}
_ENV_IDS = frozenset(v.env_id for v in VARIANTS)


def mask_dtype_of(mask_dtype: str) -> type[np.generic]:
    """The NumPy type ``mask_dtype`` names; anything else raises with what is allowed."""
    if not isinstance(mask_dtype, str) or mask_dtype not in MASK_DTYPES:
        allowed = ", ".join(repr(name) for name in MASK_DTYPES)
        raise ValueError(f"mask_dtype={mask_dtype!r} is not allowed; choose one of {allowed}")
    return MASK_DTYPES[mask_dtype]


def deck_option(options: Mapping[str, Any] | None) -> object:
    """The pack that ``reset(options=...)`` asks for (``None``: a shuffled one), refusing options
    that are not a mapping (``TypeError``) or hold another key than ``deck`` (``ValueError``)."""
    if options is not None and not isinstance(options, Mapping):
        raise TypeError(
            f"reset(options=...) takes a mapping such as {{'deck': [...]}}, not {type(options).__name__}"
        )
    rest = sorted(set(options or {}) - {"deck"})
    if rest:
        raise ValueError(f"unknown reset option(s) {rest}; the only one is 'deck'")
    return (options or {}).get("deck")


class VariantSpec:
    """A ``spec`` that refuses an id of another variant: ``gym.make`` and ``gym.make_vec``
    (``maker``) pass the caller's keywords over the registered ones and set the spec after
    construction, so ``variant=`` could otherwise build one game under another's id. The one place
    that sees both the id and the variant asked for (``self.variant``)."""

    variant: Variant
    maker = "gym.make"
    _spec: EnvSpec | None = None

    @property
    def spec(self) -> EnvSpec | None:
        return self._spec

    @spec.setter
    def spec(self, spec: EnvSpec | None) -> None:
        if spec is not None and spec.id != self.variant.env_id and spec.id in _ENV_IDS:
            raise ValueError(
                f"{self.maker}({spec.id!r}) cannot take variant={self.variant.env_name!r}, another game; "
                f"use {self.maker}({self.variant.env_id!r}) instead"
            )
        self._spec = spec


# info's values are NumPy scalars, which readers that take ``info[key].dtype`` need (TorchRL's
# default_info_dict_reader): np.bool_ truths and np.int64 counts. Immutable, so made once and picked
# by each step (fresh 0-d arrays, which gymnasium's SyncVectorEnv would batch into bool arrays where
# it batches np.bool_ into object arrays, cost a fifth of a native step; Python's own bool and int
# have no dtype).
_TRUTHS = (np.False_, np.True_)
_OFFSET = 64  # the made-once scalars run from -64 (Klondike's counter score starts at -52) to 255
_INTS: tuple[np.int64, ...] = tuple(np.int64(i) for i in range(-_OFFSET, 256))
_TOP = len(_INTS) - _OFFSET


def _int(n: int) -> np.int64:
    """``n`` as a NumPy scalar: a made-once one in -64..255, else a new one."""
    i = n + _OFFSET
    return _INTS[i] if 0 <= i < len(_INTS) else np.int64(n)


def numpy_info(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` as ``info`` holds a variant's extras: NumPy scalars, texts as they are."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        kind = type(value)
        if kind is int and -_OFFSET <= value < _TOP:
            out[key] = _INTS[value + _OFFSET]
        elif kind is bool:
            out[key] = _TRUTHS[value]
        elif kind is str or isinstance(value, np.generic | np.ndarray):
            out[key] = value
        else:
            out[key] = np.asarray(value)[()]
    return out


class ActionOutsideSpace(InvalidAction, ValueError):
    """An action id outside the action space (``step(999)`` on ``Discrete(58)``, a negative id).

    Such an id is a bug in the caller's code, not a move to punish: ``step`` and
    ``describe_action`` raise this instead of taking it as an illegal action. It is gymnasium's
    :class:`~gymnasium.error.InvalidAction` ("an action not contained within the action space")
    and a ``ValueError``, so either ``except`` catches it.
    """


class PatienceEnv(VariantSpec, gym.Env[np.ndarray, np.integer]):
    """A patience (solitaire) card game as a Gymnasium environment with masked discrete actions.

    ## Description
    One environment class serves every variant of ``docs/rules.md``; the registered id picks the
    game (``patience_gym/Klondike-v0``, ``patience_gym/Nestor-v0``, ...) and keyword arguments pick
    its rule options. The rules live in :mod:`patience_gym.games`, which never imports gymnasium.
    ``state_key()`` returns a hashable snapshot of the whole position (equal keys: the same
    position), for agents' cycle guards; it is built from the full state, hidden cards included, so
    use it to compare positions, never to read them.

    ## Action Space
    ``Discrete(n)`` over a fixed table per variant, documented in the variant's module. ``step``
    takes an id of the space only, as ``action_space.contains`` has it: a Python ``int``, a NumPy
    integer or a 0-d integer array whose type casts to the space's ``int64`` (so not ``np.uint64``),
    in ``0..n-1``. Anything else (a float, a bool, a string, ``None``, ``np.uint64``, an array of
    another shape) raises ``TypeError`` or ``ValueError``, and an id outside ``0..n-1`` raises
    :class:`ActionOutsideSpace` (gymnasium's ``InvalidAction``, a ``ValueError``).
    ``describe_action(a)`` reads an id in ``0..n-1`` as a move in the current position, e.g.
    ``"7H pile 3 -> foundation"``, and refuses any other id the same way. ``action_masks()``
    returns the legal actions as a ``bool`` array
    (what sb3-contrib's ``MaskablePPO`` calls); ``info["action_mask"]`` holds the same as ``int8``
    (what ``Discrete.sample(mask=...)`` takes), or as ``bool`` with ``mask_dtype="bool"`` (what
    TorchRL's ``MaskedCategorical`` takes). The mask is exactly the set of actions the engine
    accepts and is never all zero while the episode is live.

    ## Observation Space
    ``Box(0, 1, (size,), float32)``: named segments (``env.unwrapped.layout.describe()``) holding
    every card a player can see, in its place, and nothing hidden (face-down cards, the stock's
    order, Nestor's unturned reserve never appear): positions whose visible cards differ never
    share an observation. Each observation returned is a fresh array the caller may keep or write.

    ## Starting State
    A pack shuffled from the environment's ``np_random`` (``reset(seed=...)`` is deterministic;
    with ``deals="winnable"``, the deal of a listed training seed that ``np_random`` picks), or
    ``reset(options={"deck": [...]})``: 52 or 104 card strings such as ``"TD"``, first card dealt
    first. A malformed pack raises ``ValueError`` naming the problem; ``options`` other than a
    mapping raise ``TypeError``. ``step``, ``render``, ``describe_action``, ``state_key`` and
    ``played`` (the moves since the deal) before the first ``reset`` raise gymnasium's
    ``ResetNeeded``.

    ## Rewards
    ``reward="foundation"`` (default): the cards newly moved to the foundations, as a fraction of
    those still to win at reset (a won game sums to 1.0; only The Kings' deal plays cards itself).
    ``reward="win"``: 1.0 on the winning step, else 0.
    An illegal action (an id of the space that the mask excludes) leaves the state unchanged and
    earns ``illegal_reward`` (default -0.01) with ``info["illegal_action"] = True``; it never
    raises.

    ## Episode End
    ``terminated`` when the game is won or no legal action remains (lost). ``truncated`` when the
    registered step limit (``max_episode_steps``) is reached. A deal can leave no legal move at
    all (Nestor with ``reserve="open"``, for one): ``reset`` then returns an all-zero mask, and
    any step on a finished game returns ``terminated=True`` with reward 0 and the state unchanged.

    ## Arguments
    ``variant`` (set by the registration: ``gym.make`` refuses a ``variant`` naming another game
    than its id), ``engine`` (``"python"``: the rules core; ``"native"``: the same rules compiled
    from ``src/native/``, identical in every observation, reward and text; the default is
    ``"native"`` for a variant whose game has a native port and ``"python"`` for one without,
    ``patience_gym.native.engine_for``), ``render_mode`` (``None``; ``"ansi"``: the table as
    text; ``"rgb_array"``: an
    ``H x W x 3`` ``uint8`` picture of the table, the same size all episode, face-down cards drawn
    as backs), ``reward``, ``illegal_reward`` (a finite number), ``mask_dtype`` (``"int8"`` or
    ``"bool"``: the type of ``info["action_mask"]``), ``deals`` (``"random"``: every shuffle;
    ``"winnable"``: only training seeds the solver won, :mod:`patience_gym.winnable`, picked by
    ``np_random`` so ``reset(seed=...)`` picks one deterministically; ``deal_seed`` names the seed
    dealt), and the variant's rule options
    (``docs/rules.md``), e.g. ``draw=3`` for Klondike (NumPy scalars count as their Python value).
    An unknown option or a value outside the allowed ones raises with what is allowed (an unknown
    one a ``TypeError`` in Python's words, "got an unexpected keyword argument 'x'").

    ## Info
    ``won``, ``foundation_cards``, ``action_mask``, ``illegal_action``, and the variant's extras
    (Klondike: ``counter_score``), as NumPy scalars, which readers that take ``info[key].dtype``
    need (TorchRL's ``default_info_dict_reader``): counts ``np.int64``, truths (``won``,
    ``illegal_action``) ``np.bool_`` (which Gymnasium's ``SyncVectorEnv`` batches into object
    arrays: ``.astype(bool)``; the batched env's are ``bool``); the one text, Louis' ``phase``, is
    a ``str``.

    ## Version History
    * v0: first release.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}  # noqa: RUF012 (gymnasium's)

    def __init__(
        self,
        variant: str,
        render_mode: str | None = None,
        reward: str = "foundation",
        illegal_reward: float = -0.01,
        engine: str | None = None,
        mask_dtype: str = "int8",
        deals: str = "random",
        **options: Any,
    ) -> None:
        self.variant = get_variant(variant)
        self.deals = check_deals(deals)
        self.mask_dtype = mask_dtype
        self.mask_type = mask_dtype_of(mask_dtype)  # the NumPy type of info["action_mask"]
        if render_mode not in (None, *self.metadata["render_modes"]):
            modes = ", ".join(repr(m) for m in self.metadata["render_modes"])
            raise ValueError(f"render_mode={render_mode!r} is not supported; use None, {modes}")
        if reward not in REWARD_MODES:
            raise ValueError(f"reward={reward!r} is not allowed; choose one of {', '.join(REWARD_MODES)}")
        self.render_mode = render_mode
        self.reward_mode = reward
        # numbers.Real would do, but mypy does not count float as one
        real = (int, float, np.integer, np.floating)
        if isinstance(illegal_reward, (bool, np.bool_)) or not isinstance(illegal_reward, real):
            raise TypeError(f"illegal_reward={illegal_reward!r} must be a finite number such as -0.01")
        if not math.isfinite(illegal_reward):
            raise ValueError(f"illegal_reward={illegal_reward!r} must be a finite number such as -0.01")
        self.illegal_reward = float(illegal_reward)
        # engine: "python" (the rules core) or "native" (src/native/, C++); see patience_gym.native.
        # When none is named, the native one where the variant's game has a native port.
        self.engine = engine_for(self.variant, engine)
        self.game: Game[Any] = make_game(self.variant, self.engine, **options)
        self.layout = self.game.layout
        # deals="winnable": the seeds to pick from (patience_gym.winnable); deal_seed: the one dealt
        self._winnable = None if deals == "random" else winnable_seeds(self.variant, self.game.options).seeds
        self.deal_seed: int | None = None
        self._played: list[int] = []  # the Python engine's moves since the deal (played())
        self.action_space = spaces.Discrete(self.game.n_actions)
        self.observation_space = spaces.Box(0.0, 1.0, (self.layout.size,), np.float32)
        self._n_actions = self.game.n_actions
        self._mask = np.zeros(self.game.n_actions, dtype=bool)
        self._obs_size = self.layout.size
        self._has_extras = True  # set by reset: whether the variant has info extras
        self._raw_extras: dict[str, Any] = {}  # the last extras read, and as info holds them
        self._np_extras: dict[str, Any] = {}
        # The native engine steps in one call (NativeGame.step_into), writing the mask and the
        # observation into these buffers; the env hands out copies of them. The bool mask is a
        # view of the int8 one (the same bytes), so both dtypes cost one write.
        self._mask_i8: np.ndarray | None = None
        self._info_mask: np.ndarray | None = None  # the native buffer info["action_mask"] copies
        self._obs_buf: np.ndarray | None = None
        self._step_into: Callable[[int], tuple[int, bool, bool]] | None = None
        if isinstance(self.game, NativeGame):
            self._mask_i8 = np.zeros(self.game.n_actions, dtype=np.int8)
            self._obs_buf = np.zeros(self.layout.size, dtype=np.float32)
            self._bind()
        self._live = False
        self._won = False
        self._dealt = False  # step, render and describe_action need a reset first
        self._to_win = self.game.win_cards

    # ---- gymnasium API ------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        deck = deck_option(options)
        super().reset(seed=seed)
        self._played = []
        if self._winnable is not None and deck is None:
            self.deal_seed = int(self._winnable[self.np_random.integers(len(self._winnable))])
            self.game.new_game(np.random.default_rng(self.deal_seed))  # as reset(seed=deal_seed) deals
        else:
            self.deal_seed = None
            self.game.new_game(self.np_random, deck)
        # Rewards share out what is left to win: a deal that plays cards itself (The Kings)
        # still gives a won episode a total of 1.0.
        self._to_win = max(1, self.game.win_cards - self.game.foundation_cards)
        self._dealt = True
        self._has_extras = bool(self.game.extra_info())
        self._refresh(won=self.game.won)
        return self._observation(), self._info(illegal=False)

    def _bind(self) -> None:
        """Point the native game's one-call step at this env's buffers (the bool mask a view of
        the int8 one)."""
        assert self._mask_i8 is not None and self._obs_buf is not None and isinstance(self.game, NativeGame)
        self._mask = self._mask_i8.view(bool)
        self._info_mask = self._mask_i8 if self.mask_type is np.int8 else self._mask
        self.game.bind_buffers(self._mask_i8, self._obs_buf)
        self._step_into = self.game.step_into

    def __setstate__(self, state: dict[str, Any]) -> None:
        # pickle and deepcopy bring a native game back unbound (its stepper wrote into the old
        # env's buffers) and the bool mask back as a copy, no longer a view: bind them again.
        self.__dict__.update(state)
        if self._obs_buf is not None:
            self._bind()

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        # A float or a bool is refused, never truncated to a move; a plain int skips the type
        # checks. The range is checked once either way: by the native path's own bound test, else
        # below it.
        a = action if type(action) is int else self._action_id(action)
        if self._step_into is not None and self._live and 0 <= a < self._n_actions:
            # The native path: the same step as below, in one native call (mask and observation
            # written into the env's buffers) and fresh copies handed out.
            gained, won, live = self._step_into(a)
            if gained != ILLEGAL_GAIN:  # else the action is illegal: the path below answers it
                self._won = won
                self._live = live
                reward = (1.0 if won else 0.0) if self.reward_mode == "win" else gained / self._to_win
                found = self.game.foundation_cards
                info = {
                    "won": _TRUTHS[won],
                    "foundation_cards": _INTS[found + _OFFSET] if found < _TOP else np.int64(found),
                    "action_mask": self._info_mask.copy(),  # type: ignore[union-attr]
                    "illegal_action": np.False_,
                }
                if self._has_extras:
                    info.update(self._extras())
                return self._obs_buf.copy(), reward, not live, False, info  # type: ignore[union-attr]
        if not 0 <= a < self._n_actions:
            raise self._outside(a)
        if not self._live:  # the game is over (won, lost, or dealt with no move at all)
            if not self._dealt:
                raise ResetNeeded("call reset() before step()")
            return self._observation(), 0.0, True, False, self._info(illegal=False)
        if not self._mask[a]:
            return self._observation(), self.illegal_reward, False, False, self._info(illegal=True)
        outcome = self.game.apply(a)  # what changed: the reward and the end follow from it alone
        self._played.append(a)
        self._refresh(won=outcome.won)
        won_mode = self.reward_mode == "win"
        reward = (1.0 if outcome.won else 0.0) if won_mode else outcome.gained / self._to_win
        return self._observation(), reward, not self._live, False, self._info(illegal=False)

    def render(self) -> str | np.ndarray | None:  # type: ignore[override, unused-ignore]
        self._require_reset("render")
        if self.render_mode == "ansi":
            return self.game.render()
        if self.render_mode == "rgb_array":
            # Imported on first use: plain stepping never loads the drawing code or Pillow.
            from patience_gym.render.picture import picture
            from patience_gym.render.views import table_view

            return picture(table_view(reference(self.game)))  # views read the Python game
        return None

    # ---- masking and reading ------------------------------------------------------------------

    def action_masks(self) -> np.ndarray:
        """Legal actions as ``bool`` (sb3-contrib ``MaskablePPO``'s hook)."""
        mask: np.ndarray = self._mask.copy()
        return mask

    def describe_action(self, action: int) -> str:
        """The move behind ``action`` in the current position, e.g. ``"7H pile 3 -> foundation"``."""
        a = self._action_id(action)
        if not 0 <= a < self._n_actions:
            raise self._outside(a)
        self._require_reset("describe_action")
        return self.game.describe(a)

    def played(self) -> list[int]:
        """The actions applied since the deal, in order (illegal ones, which change nothing, left
        out): dealing ``game.deck()`` again and stepping these reaches the current position
        (:func:`patience_gym.search.play_deal` does it on another deal)."""
        self._require_reset("played")
        if isinstance(self.game, NativeGame):  # the native game keeps them (its step path is C++'s)
            return list(self.game._history)
        return list(self._played)

    def state_key(self) -> Hashable:
        """A hashable snapshot of the whole position: equal keys mean the same position.

        For agents' cycle guards (count visits, avoid going back); it is built from the full state,
        hidden cards included, so compare keys but never read cards out of them. A counter that
        changes nothing is not kept: Klondike without a pass limit counts passes only up to 2 (is
        the first over?), so a position the stock comes round to again has the key it had.
        """
        self._require_reset("state_key")
        return self.game.state_key()

    # ---- contract checks ----------------------------------------------------------------------

    def _action_id(self, action: Any) -> int:
        """``action`` as an int if it is an integer id of the space's type (int, NumPy integer,
        0-d integer array), as ``Discrete.contains`` takes them; the range is the caller's check.

        A bool is refused although ``Discrete.contains(True)`` holds: ``step(True)`` is a bug,
        never a move. An unsigned type that does not cast to the space's ``int64`` (``np.uint64``)
        is refused as ``contains`` refuses it, whatever its value."""
        if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
            if isinstance(action, np.unsignedinteger):
                self._check_cast(action.dtype)
            return int(action)
        if isinstance(action, np.ndarray) and action.dtype.kind in "iu":
            if action.shape == ():
                self._check_cast(action.dtype)
                return int(action)
            raise ValueError(
                f"action must be one integer of {self.action_space}, got an array of shape {action.shape}"
            )
        raise TypeError(
            f"action must be an integer of {self.action_space} (an int, a NumPy integer or a 0-d integer "
            f"array), got {action!r} of type {type(action).__name__}"
        )

    def _check_cast(self, dtype: np.dtype[Any]) -> None:
        # Only unsigned types can fail: every signed one casts to int64.
        space_dtype = self.action_space.dtype
        assert space_dtype is not None  # Discrete always has one (int64)
        if not np.can_cast(dtype, space_dtype):
            raise TypeError(
                f"action must be an integer of {self.action_space} whose type casts to "
                f"{space_dtype} (as action_space.contains requires), got one of type {dtype}"
            )

    def _outside(self, a: int) -> ActionOutsideSpace:
        """The error for an id outside the space: what is wrong and what is allowed."""
        space = self.action_space
        return ActionOutsideSpace(
            f"action {a} is outside the action space {space}: ids are 0..{self._n_actions - 1}"
        )

    def _require_reset(self, what: str) -> None:
        if not self._dealt:
            raise ResetNeeded(f"call reset() before {what}()")

    def _refresh(self, *, won: bool) -> None:
        self._won = won
        if isinstance(self.game, NativeGame):  # writes the buffers the native path reads
            self._live = self.game.refresh_into()
            return
        self._mask = np.zeros(self.game.n_actions, dtype=bool) if won else self.game.legal_mask()
        self._live = not self.game.is_over(self._mask)

    def _observation(self) -> np.ndarray:
        """A fresh observation of the position: the env keeps no reference to what it hands out,
        so a caller writing into one changes nothing the env returns later."""
        if self._obs_buf is not None:  # the native engine keeps it current in the env's buffer
            fresh: np.ndarray = self._obs_buf.copy()
            return fresh
        obs = np.zeros(self._obs_size, dtype=np.float32)
        self.game.observe(obs)
        return obs

    def _info(self, *, illegal: bool) -> dict[str, Any]:
        info: dict[str, Any] = {
            "won": _TRUTHS[self._won],
            "foundation_cards": _int(self.game.foundation_cards),
            # bool and int8 share their bytes
            "action_mask": self._mask.view(self.mask_type).copy(),
            "illegal_action": _TRUTHS[illegal],
        }
        if self._has_extras:
            info.update(self._extras())
        return info

    def _extras(self) -> dict[str, Any]:
        """The variant's info extras as NumPy values (:func:`numpy_info`), converted again only
        when they change (a few times a game): the values are immutable scalars and texts."""
        extras = self.game.extra_info()
        if extras != self._raw_extras:
            self._raw_extras, self._np_extras = extras, numpy_info(extras)
        return self._np_extras
