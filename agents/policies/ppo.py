"""A trained ``MaskablePPO`` model as a policy (``make_policy("ppo:<path>")``).

::

    import gymnasium as gym
    import patience_gym  # registers the ids
    from sb3_contrib import MaskablePPO
    from patience_gym.agents.policies.move_policy import is_move_policy, observe_with_features
    from patience_gym.agents.policies.ppo import shipped_model

    model = MaskablePPO.load(shipped_model("Anna-v0"), device="cpu")
    # A shipped model reads one of two inputs, as its card's "policy" says. The flat network
    # (policy: mlp) reads the observation alone; the per-move policy (policy: move_policy) reads it
    # with every legal move's one-move features appended (the result of playing the move once on a
    # copy of the game: patience_gym/move_features.py), which the native engine computes. No shipped
    # model reads rollout features (agents/policies/features.py): those are the ppo_rollouts clones'.
    env = gym.make("patience_gym/Anna-v0")
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        seen = observe_with_features(env, obs) if is_move_policy(model) else obs
        action, _ = model.predict(seen, action_masks=info["action_mask"].astype(bool), deterministic=True)
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    print("won" if info["won"] else f"{info['foundation_cards']} cards on the foundations")

``make_policy("ppo:Anna-v0")`` (:class:`PPOPolicy`) does the same, for either kind of model, and
plays a shipped model as its results row does: as its card's ``play`` says, its most likely moves
(``argmax``, as above) or moves drawn from its distribution (``sample``), whichever won more of the
validation deals. ``ppo-argmax:<model>`` and ``ppo-sample:<model>`` play one way whatever the card.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from patience_gym.env import PatienceEnv

from .features import MoveFeaturizer, feature_size

#: The learner behind every ``ppo`` model here (the results table names it in each row).
LEARNER = "sb3-contrib MaskablePPO"
#: The ways of playing a model: its most likely legal move, or one drawn from its distribution.
PLAYS = ("argmax", "sample")


def shipped_models() -> Path:
    """The folder of the reward-only PPO models the package ships (``agents/data/models/``):
    ``<Variant>-v0.zip`` and its ``.json`` card (config, learner, steps, wall time, commit)."""
    from ..common.data import package_data

    return package_data("data", "models")


def shipped_model(name: str) -> Path | None:
    """The shipped model a name means (``nestor``, ``Nestor``, ``Nestor-v0``,
    ``patience_gym/Nestor-v0``), or None when the name is no variant or none is shipped for it."""
    from patience_gym.games import VARIANTS

    def plain(text: str) -> str:
        return text.removeprefix("patience_gym/").removesuffix("-v0").replace("_", "").lower()

    for variant in VARIANTS:
        if plain(variant.env_name) == plain(name):
            path = shipped_models() / f"{variant.env_name}.zip"
            return path if path.is_file() else None
    return None


def model_card(path: Path) -> dict[str, Any] | None:
    """The card beside a model file (``Nestor-v0.json`` beside ``Nestor-v0.zip``, as
    scripts/ship_model.py writes it for a shipped model), or None where there is none."""
    card_path = path.with_suffix(".json")
    if not card_path.is_file():
        return None
    card: dict[str, Any] = json.loads(card_path.read_text())
    return card


def card_play(path: Path) -> str:
    """How ``ppo:<model>`` plays the model at ``path``: its card's ``play`` (``"argmax"`` or
    ``"sample"``: how its results row plays it), or ``"argmax"`` for a model without a card (a
    training run's)."""
    card = model_card(path)
    play = (card or {}).get("play", "argmax")
    if play not in PLAYS:
        raise ValueError(f"{path.with_suffix('.json')}: play={play!r} is not one of {', '.join(PLAYS)}")
    return str(play)


def resolve_model_path(path: str | Path) -> Path:
    """A model file; a training folder (its ``final_model.zip``: the model a run ends with is the
    one scored; else ``best_model.zip``); or a variant's name for the model the package ships."""
    p = Path(path)
    if p.is_dir():
        for name in ("final_model.zip", "best_model.zip"):
            if (p / name).is_file():
                return p / name
        raise ValueError(f"ppo:{path}: the folder holds neither final_model.zip nor best_model.zip")
    if not p.is_file() and p.with_suffix(".zip").is_file():
        p = p.with_suffix(".zip")
    if not p.is_file():
        shipped = shipped_model(str(path))
        if shipped is not None:
            return shipped
        names = sorted(m.stem for m in shipped_models().glob("*.zip")) if shipped_models().is_dir() else []
        raise ValueError(
            f"ppo:{path}: no such model file, and no shipped model of that name "
            f"(shipped: {', '.join(names) or 'none'})"
        )
    return p


#: Module paths of this package's networks as older saves name them (the package's folder is
#: ``agents/``, installed as ``patience_gym.agents``; an early save names ``agents.move_scorer``).
_OLD_MODULES = ("agents.move_scorer", "agents.policies.move_scorer", "agents.policies.move_policy")


def _saved_policy_class(path: str) -> tuple[str, str] | None:
    """The (module, class) the model file's pickled ``policy_class`` names, read without
    unpickling it; None where the file holds none."""
    import base64
    import json
    import pickletools
    import zipfile

    with zipfile.ZipFile(path) as zf:
        data = json.loads(zf.read("data"))
    serialized = data.get("policy_class", {}).get(":serialized:")
    if not isinstance(serialized, str):
        return None
    strings: list[str] = []
    for op, arg, _ in pickletools.genops(base64.b64decode(serialized)):
        if op.name == "GLOBAL" and isinstance(arg, str):  # protocols 0-3: "module name"
            module, _, name = arg.partition(" ")
            return module, name
        if op.name == "STACK_GLOBAL" and len(strings) >= 2:  # protocol 4+: the two strings before it
            return strings[-2], strings[-1]
        if isinstance(arg, str):
            strings.append(arg)
    return None


@lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> Any:
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)  # one small forward pass per move: threads only add overhead
    saved = _saved_policy_class(path)
    if saved is None or saved[0] not in _OLD_MODULES:
        return MaskablePPO.load(path, device="cpu")
    # A model saved under an older module path of this package names its network by that path
    # (another top-level "agents" package may even be installed): hand SB3 the class itself.
    from .move_policy import MovePolicy
    from .move_scorer import MoveScorerPolicy

    classes: dict[str, type] = {"MovePolicy": MovePolicy, "MoveScorerPolicy": MoveScorerPolicy}
    if saved[1] not in classes:
        raise ValueError(f"ppo:{path}: the model names an unknown network {saved[0]}.{saved[1]}")
    return MaskablePPO.load(path, device="cpu", custom_objects={"policy_class": classes[saved[1]]})


def sampled_action(
    model: Any, obs: np.ndarray, masks: np.ndarray, rngs: Sequence[np.random.Generator]
) -> np.ndarray:
    """One action per row of ``obs`` drawn from the model's masked distribution, row ``i`` with
    ``rngs[i]`` (a generator per game, seeded by its deal: the same deal draws the same moves
    whether it is played alone or in a batch). A row without a legal action (a deal that leaves
    none, whose next step ends the game whatever it plays) gets action 0, as the argmax does."""
    import torch

    obs_t, _ = model.policy.obs_to_tensor(obs)
    with torch.no_grad():
        dist = model.policy.get_distribution(obs_t, action_masks=masks)
    probs = dist.distribution.probs.cpu().numpy().astype(np.float64).reshape(len(rngs), -1)
    probs *= np.asarray(masks, dtype=bool).reshape(probs.shape)  # an illegal action is never drawn
    cumulative = np.cumsum(probs, axis=1)
    total = cumulative[:, -1]
    point = np.array([rng.random() for rng in rngs]) * total
    # the first action whose cumulative share passes the point: always one with a share of its own
    drawn = (cumulative <= point[:, None]).sum(axis=1)
    last_legal = probs.shape[1] - 1 - np.argmax(probs[:, ::-1] > 0, axis=1)
    # a deal lost as dealt (an all-zero mask: any step ends it) plays 0
    return np.where(total > 0, np.minimum(drawn, last_legal), 0)


class PPOPolicy:
    """Plays the model's most likely legal action (masked, deterministic; ``sample=False``, the spec
    ``ppo-argmax:<path>``), or a legal action drawn from the model's masked distribution, the policy
    PPO trains, with a generator seeded by the deal's seed (the same deal is played the same way
    every time; ``sample=True``, ``ppo-sample:<path>``). ``sample=None`` (``ppo:<path>``) plays as
    the model's card says (:func:`card_play`): a shipped model as its results row, any other model
    by its most likely moves. A deterministic policy that meets a position again moves the same
    way again, so where moves can undo each other it can go to and fro until the step limit;
    sampling leaves such a loop (docs/training.md measures both ways of playing per variant).

    The model is loaded once per process (cached by path and modification time), however many
    times the policy is built. A model trained with ``move_features`` (its observations longer
    than the env's by ``n_actions * K``) gets the same features, computed here as the training
    wrapper computed them: visits are counted from each :meth:`reset`, so the policy must play
    every move of the episode.
    """

    def __init__(self, path: str | Path, *, sample: bool | None = None) -> None:
        from ..common.extras import require

        spec = {None: "ppo", False: "ppo-argmax", True: "ppo-sample"}[sample]
        require("train", f"policy '{spec}:{path}'")  # one line naming the extra, not an ImportError
        self.path = resolve_model_path(path)
        self.name = f"{spec}:{path}"
        self.sample = card_play(self.path) == "sample" if sample is None else sample
        self.model = _load(str(self.path.resolve()), self.path.stat().st_mtime)
        self.featurizer: MoveFeaturizer | None = None
        self.rng = np.random.default_rng(0)

    def reset(self, seed: int) -> None:
        """The move features' visit counts start afresh; a sampling policy's generator is seeded
        with the deal's seed."""
        if self.featurizer is not None:
            self.featurizer.reset()
        self.rng = np.random.default_rng(seed)

    def _act(self, obs: np.ndarray, mask: np.ndarray) -> int:
        if self.sample:
            return int(sampled_action(self.model, obs, mask[None], [self.rng])[0])
        action, _ = self.model.predict(obs, action_masks=mask, deterministic=True)
        return int(action)

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int:
        from .move_policy import is_move_policy, observe_with_features

        if is_move_policy(self.model):  # the batched engine's move features, for this one game
            return self._act(observe_with_features(env, obs), env.action_masks())
        trained_actions = getattr(self.model.action_space, "n", None)
        trained = self.model.observation_space.shape
        n = env.game.n_actions
        rollouts = int(getattr(self.model.policy, "feature_rollouts", 0))
        featured = obs.ndim == 1 and trained == (obs.shape[0] + feature_size(n, rollouts),)
        if (obs.shape != trained and not featured) or n != trained_actions:
            raise ValueError(
                f"{self.name} was trained on observations {trained} and {trained_actions} actions; this "
                f"env has {obs.shape} (with move features {(obs.shape[0] + feature_size(n, rollouts),)}) "
                f"and {n}"
            )
        if featured:
            if self.featurizer is None:
                self.featurizer = MoveFeaturizer(rollouts)
            obs = np.concatenate([obs, self.featurizer(env)])
        action = self._act(obs, env.action_masks())
        if self.featurizer is not None:
            self.featurizer.played(action)
        return action


def sampled_ppo(path: str) -> PPOPolicy:
    """The spec ``ppo-sample:<path>``: :class:`PPOPolicy` drawing its moves."""
    return PPOPolicy(path, sample=True)


def argmax_ppo(path: str) -> PPOPolicy:
    """The spec ``ppo-argmax:<path>``: :class:`PPOPolicy` playing its most likely moves."""
    return PPOPolicy(path, sample=False)


@dataclass(frozen=True)
class BatchedPlay:
    """One game per deal, played by a model on the batched native engine: per-deal results, in
    the order of the seeds."""

    seeds: list[int]
    won: np.ndarray
    foundation_cards: np.ndarray
    length: np.ndarray
    reward: np.ndarray

    @property
    def win_rate(self) -> float:
        return float(self.won.mean()) if len(self.seeds) else 0.0


def play_batched(
    model: Any,
    env_id: str,
    seeds: Sequence[int],
    *,
    env_kwargs: dict[str, Any] | None = None,
    reward: str = "foundation",
    sample: bool = False,
) -> BatchedPlay:
    """Play deal ``reset(seed=s)`` for every ``s`` in ``seeds`` once, all at once on the batched
    native engine (:class:`patience_gym.vector.PatienceVectorEnv`), a step one masked forward pass.

    Sub-env ``i`` deals seed ``seeds[i]`` as ``gym.make(id).reset(seed=seeds[i])`` does, so the
    model wins here exactly the deals it wins through ``patience-gym evaluate --policy
    ppo:<model>`` (or, ``sample=True``, ``ppo-sample:<model>``: each game draws with a generator
    seeded by its seed); tests compare them. A model trained with move features (Python wrapper)
    is refused; a ``move_policy`` model gets the batch's move features."""
    from patience_gym.games import get_variant
    from patience_gym.vector import PatienceVectorEnv

    from .move_policy import is_move_policy

    variant = get_variant(env_id)
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise ValueError("play_batched needs at least one seed")
    venv = PatienceVectorEnv(
        len(seeds), variant.env_name, max_episode_steps=variant.max_episode_steps, reward=reward,
        move_features=is_move_policy(model), **(env_kwargs or {}),
    )  # fmt: skip
    if model.observation_space.shape != venv.single_observation_space.shape:
        raise ValueError(
            f"the model reads observations {model.observation_space.shape}; {variant.env_id} gives "
            f"{venv.single_observation_space.shape} (a move-feature model plays through ppo:<path>)"
        )
    n = len(seeds)
    rngs = [np.random.default_rng(s) for s in seeds]
    obs, info = venv.reset(seed=list(seeds))
    done = np.zeros(n, dtype=bool)
    won = np.zeros(n, dtype=bool)
    cards = np.zeros(n, dtype=np.int64)
    length = np.zeros(n, dtype=np.int64)
    total = np.zeros(n, dtype=np.float64)
    while not done.all():
        masks = venv.action_masks()
        masks[done] = True  # finished rows restart on this step whatever they play
        if sample:
            actions = sampled_action(model, obs, masks, rngs)
        else:
            actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        obs, rewards, terminated, truncated, info = venv.step(actions)
        live = ~done
        length[live] += 1
        total[live] += rewards[live]
        ended = live & (terminated | truncated)
        won[ended] = info["won"][ended]
        cards[ended] = info["foundation_cards"][ended]
        done |= ended
    venv.close()
    return BatchedPlay(seeds, won, cards, length, total)
