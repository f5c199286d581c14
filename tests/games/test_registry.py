"""Checks every registered variant gets for free: the Gymnasium contract and the rules contract."""

from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import patience_gym
from patience_gym.core.cards import NAME, ordered_pack
from patience_gym.env import PatienceEnv
from patience_gym.games import VARIANTS, get_variant
from patience_gym.testing import check_rollout


def test_every_variant_is_registered_with_a_step_limit(env_name: str) -> None:
    spec = gym.spec(f"patience_gym/{env_name}")
    assert spec.max_episode_steps == get_variant(env_name).max_episode_steps > 0


def test_make_without_prior_import_works() -> None:
    env = gym.make("patience_gym:patience_gym/Nestor-v0")
    env.reset(seed=0)


def test_check_env(env_name: str) -> None:
    env = gym.make(f"patience_gym/{env_name}")
    check_env(env.unwrapped, skip_render_check=True)


def _rollout(env: gym.Env, seed: int, n: int) -> list[tuple[bytes, float, bool, bool]]:
    obs, info = env.reset(seed=seed)
    out = [(obs.tobytes(), 0.0, False, False)]
    rng = np.random.default_rng(seed)
    for _ in range(n):
        mask = info["action_mask"]
        if not mask.any():
            break
        a = int(rng.choice(np.flatnonzero(mask)))
        obs, r, term, trunc, info = env.step(a)
        out.append((obs.tobytes(), float(r), term, trunc))
        if term or trunc:
            break
    return out


def test_seed_determinism(env_name: str) -> None:
    a = _rollout(gym.make(f"patience_gym/{env_name}"), 7, 200)
    b = _rollout(gym.make(f"patience_gym/{env_name}"), 7, 200)
    assert a == b
    c = _rollout(gym.make(f"patience_gym/{env_name}"), 8, 200)
    assert a[0] != c[0], "different seeds should deal different games"


def test_pickle_round_trip(env_name: str) -> None:
    env = gym.make(f"patience_gym/{env_name}")
    env.reset(seed=3)
    mask = env.unwrapped.action_masks()
    env.step(int(np.flatnonzero(mask)[0]))
    clone = pickle.loads(pickle.dumps(env))
    assert clone.unwrapped.game.state_key() == env.unwrapped.game.state_key()
    rng = np.random.default_rng(0)
    for _ in range(30):
        mask = env.unwrapped.action_masks()
        if not mask.any():
            break
        a = int(rng.choice(np.flatnonzero(mask)))
        o1, r1, t1, u1, _ = env.step(a)
        o2, r2, t2, u2, _ = clone.step(a)
        assert np.array_equal(o1, o2) and (r1, t1, u1) == (r2, t2, u2)


@pytest.mark.parametrize("seed", range(10))
def test_random_rollouts_keep_every_invariant(env_name: str, seed: int) -> None:
    game = get_variant(env_name).make_game()
    check_rollout(game, np.random.default_rng(seed))


def test_masks_agree_between_env_and_info(env_name: str) -> None:
    env = gym.make(f"patience_gym/{env_name}")
    _, info = env.reset(seed=1)
    mask = env.unwrapped.action_masks()
    assert mask.dtype == bool and info["action_mask"].dtype == np.int8
    assert np.array_equal(mask, info["action_mask"].astype(bool))
    assert env.action_space.sample(mask=info["action_mask"]) in set(np.flatnonzero(mask).tolist())


def test_illegal_action_is_refused_without_raising(env_name: str) -> None:
    env = gym.make(f"patience_gym/{env_name}")
    obs, info = env.reset(seed=2)
    illegal = np.flatnonzero(info["action_mask"] == 0)
    assert illegal.size, "a fresh deal should leave some action illegal"
    key = env.unwrapped.game.state_key()
    obs2, reward, term, trunc, info2 = env.step(int(illegal[0]))
    assert info2["illegal_action"] and reward < 0
    assert not term and not trunc
    assert env.unwrapped.game.state_key() == key and np.array_equal(obs, obs2)


def test_full_episode_rewards_sum_to_fraction_on_foundations(env_name: str) -> None:
    env = gym.make(f"patience_gym/{env_name}")
    _, info = env.reset(seed=4)
    start = info["foundation_cards"]
    total, rng = 0.0, np.random.default_rng(4)
    while True:
        a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, r, term, trunc, info = env.step(a)
        total += r
        if term or trunc:
            break
    game = env.unwrapped.game
    assert total == pytest.approx((game.foundation_cards - start) / (game.win_cards - start))
    if term:
        assert info["won"] or not info["action_mask"].any()


def test_win_reward_mode(env_name: str) -> None:
    env = gym.make(f"patience_gym/{env_name}", reward="win")
    _, info = env.reset(seed=4)
    rng = np.random.default_rng(4)
    rewards = []
    while True:
        _, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        rewards.append(r)
        if term or trunc:
            break
    assert sum(rewards) == (1.0 if info["won"] else 0.0)


def test_ansi_render_and_describe(env_name: str) -> None:
    env = gym.make(f"patience_gym/{env_name}", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and len(text.splitlines()) >= 2
    for a in range(env.action_space.n):
        assert env.unwrapped.describe_action(a)


def test_unknown_option_is_refused_with_the_allowed_ones(env_name: str) -> None:
    variant = get_variant(env_name)
    allowed = ", ".join(sorted(variant.game.OPTIONS)) or "none"
    # Python's own words for an unknown keyword: what TorchRL's GymEnv looks for before it drops
    # the frameskip it passes (and retries without it)
    with pytest.raises(TypeError, match="unexpected keyword argument 'frameskip'") as refused:
        gym.make(f"patience_gym/{env_name}", frameskip=1)
    said = str(refused.value)
    assert "has no option 'frameskip'" in said and f"its options are: {allowed}" in said
    with pytest.raises(TypeError, match="unexpected keyword arguments 'a', 'b'"):
        gym.make(f"patience_gym/{env_name}", a=1, b=2)
    for name, opt in variant.game.OPTIONS.items():
        with pytest.raises(ValueError, match=name):
            gym.make(f"patience_gym/{env_name}", **{name: "not-a-valid-value"})
        assert opt.doc


def test_bad_reward_mode_and_render_mode_are_refused(env_name: str) -> None:
    with pytest.raises(ValueError, match="reward"):
        gym.make(f"patience_gym/{env_name}", reward="points")
    with pytest.warns(UserWarning, match="render_modes"), pytest.raises(ValueError, match="render_mode"):
        gym.make(f"patience_gym/{env_name}", render_mode="vector")
    # gym.make answers "human" with its HumanRendering wrapper over "rgb_array"; the env itself
    # draws no window
    with pytest.raises(ValueError, match="render_mode"):
        PatienceEnv(env_name, render_mode="human")


def test_malformed_decks_are_refused(env_name: str) -> None:
    env = gym.make(f"patience_gym/{env_name}")
    n_packs = get_variant(env_name).game.n_packs
    good = [NAME[c] for c in ordered_pack(n_packs)]
    env.reset(options={"deck": good})
    with pytest.raises(ValueError, match="must hold"):
        env.reset(options={"deck": good[:-1]})
    with pytest.raises(ValueError, match="not a card"):
        env.reset(options={"deck": ["XX", *good[1:]]})
    with pytest.raises(ValueError, match="wrong counts"):
        env.reset(options={"deck": [good[1], *good[1:]]})
    with pytest.raises(ValueError, match="list of"):
        env.reset(options={"deck": " ".join(good)})
    with pytest.raises(ValueError, match="only one is 'deck'"):
        env.reset(options={"dek": good})


def test_variant_table_is_the_registry() -> None:
    ids = {v.env_id for v in VARIANTS}
    registered = {k for k in gym.registry if k.startswith("patience_gym/")}
    assert ids == registered
    with pytest.raises(ValueError, match="registered:"):
        get_variant("Spider-v0")


def test_rules_core_never_imports_gymnasium() -> None:
    import subprocess
    import sys

    # importing patience_gym.games imports the package __init__, which registers with gymnasium;
    # load the core modules by path instead so that the check is about the core alone.
    code = (
        "import importlib.util, sys, pathlib, types\n"
        "root = pathlib.Path('patience_gym')\n"
        "pkg = types.ModuleType('patience_gym'); pkg.__path__ = [str(root)]\n"
        "sys.modules['patience_gym'] = pkg\n"
        "import patience_gym.games, patience_gym.testing\n"
        "assert 'gymnasium' not in sys.modules, 'the rules core imported gymnasium'\n"
    )
    import pathlib

    cwd = pathlib.Path(patience_gym.__file__).parent.parent
    subprocess.run([sys.executable, "-c", code], check=True, cwd=cwd)
