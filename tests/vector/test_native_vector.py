"""The batched native environments: Gymnasium's VectorEnv and stable-baselines3's VecEnv.

The reference is N single environments: ``SyncVectorEnv`` over ``gym.make`` (the Python engine)
must give, step for step, the same observations, rewards, flags and info as the batch, including
illegal actions, the step limit and Gymnasium 1.x NEXT_STEP autoreset.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import ResetNeeded

import patience_gym  # noqa: F401
from patience_gym.env import ActionOutsideSpace, PatienceEnv
from patience_gym.native import native_available
from patience_gym.vector import PatienceVectorEnv
from tests.helpers import PORTED

if not native_available():  # pragma: no cover
    pytest.fail("the native engine is not built (pip install -e . with a C++17 compiler)", pytrace=False)

KLONDIKE = "patience_gym/Klondike-v0"


def make_vec(env_id: str = KLONDIKE, n: int = 4, **kwargs: Any) -> gym.vector.VectorEnv:
    return gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point", **kwargs)


def random_actions(rng: np.random.Generator, masks: np.ndarray, illegal: float = 0.05) -> np.ndarray:
    """A random legal action per row, or now and then any id (likely illegal)."""
    n_actions = masks.shape[1]
    out = []
    for row in masks:
        legal = np.flatnonzero(row)
        if legal.size and rng.random() > illegal:
            out.append(int(rng.choice(legal)))
        else:
            out.append(int(rng.integers(n_actions)))
    return np.array(out)


def assert_same_step(got: tuple[Any, ...], want: tuple[Any, ...], where: str) -> None:
    names = ("obs", "reward", "terminated", "truncated")[: len(got) - 1]  # reset: obs only
    for name, g, w in zip(names, got[:-1], want[:-1], strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape, (
            f"{where}: {name} {g.dtype}{g.shape} != {w.dtype}{w.shape}"
        )
        assert np.array_equal(g, w), f"{where}: {name} differs in rows {np.flatnonzero(g != w).tolist()}"
    gi, wi = got[-1], want[-1]
    assert gi.keys() == wi.keys(), f"{where}: info keys {sorted(gi)} != {sorted(wi)}"
    for key in gi:
        w = wi[key]
        if key in ("won", "illegal_action"):  # SyncVectorEnv batches np.bool_ into object arrays
            assert w.dtype == object and all(type(v) is np.bool_ for v in w), f"{where}: info[{key!r}]"
            w = w.astype(bool)
        assert gi[key].dtype == w.dtype and np.array_equal(gi[key], w), f"{where}: info[{key!r}]"


@pytest.mark.parametrize("variant", PORTED, ids=lambda v: v.env_name)
@pytest.mark.parametrize("max_steps", [None, 25])
def test_the_batch_steps_as_n_single_python_envs(variant: Any, max_steps: int | None) -> None:
    """Same deals by seed, rewards, illegal-action penalties, step limit, autoreset and info."""
    n = 6
    kw = {} if max_steps is None else {"max_episode_steps": max_steps}
    vec = make_vec(variant.env_id, n, **kw)
    ref = gym.make_vec(variant.env_id, num_envs=n, vectorization_mode="sync", vector_kwargs={}, **kw)
    assert (
        vec.metadata["autoreset_mode"] == ref.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    )
    rng = np.random.default_rng(1)
    assert_same_step(vec.reset(seed=11), ref.reset(seed=11), "reset")
    ends = 0
    # 400 steps, then on until n episodes have ended: random games of some variants (The Kings'
    # back-and-forth between rows) run to their step limit, 1000 steps.
    for t in range(2000):
        actions = random_actions(rng, vec.action_masks())
        got, want = vec.step(actions), ref.step(actions)
        assert_same_step(got, want, f"step {t}")
        ends += int((got[2] | got[3]).sum())
        if t >= 400 and ends >= n:
            break
    assert ends >= n, "episodes ended and were dealt again during the comparison"


def test_autoreset_deals_the_next_game_on_the_following_step() -> None:
    vec = make_vec(n=3, max_episode_steps=4)
    single = PatienceEnv("Klondike-v0")
    obs, _ = vec.reset(seed=5)
    first, _ = single.reset(seed=5)
    assert np.array_equal(obs[0], first)
    for _ in range(4):
        obs, reward, term, trunc, info = vec.step(np.full(3, 15))  # stock -> talon: legal at the start
    assert trunc.all() and not term.any()
    obs, reward, term, trunc, info = vec.step(np.zeros(3, dtype=np.int64))  # actions ignored
    assert not term.any() and not trunc.any() and (reward == 0).all() and not info["illegal_action"].any()
    second, _ = single.reset()  # the env's own Generator, continued: its second deal
    assert np.array_equal(obs[0], second)
    assert np.array_equal(info["action_mask"][0], single.action_masks().astype(np.int8))


def test_observations_are_written_in_place_when_copy_is_false() -> None:
    vec = make_vec(n=5, copy=False)
    obs, _ = vec.reset(seed=0)
    assert obs.shape == (5, 690) and obs.dtype == np.float32 and obs.flags.c_contiguous
    nxt = vec.step(np.full(5, 15))[0]
    assert nxt is obs and not np.array_equal(nxt[:, 676:], np.zeros((5, 14)))
    fresh = make_vec(n=5)  # copy=True (default): each call returns its own array
    a, _ = fresh.reset(seed=0)
    b = fresh.step(np.full(5, 15))[0]
    assert not np.shares_memory(a, b) and not np.array_equal(a, b)
    assert vec.observation_space.shape == (5, 690) and vec.single_observation_space.shape == (690,)


def test_masks_match_the_info_and_are_never_empty_while_live() -> None:
    vec = make_vec(n=8)
    _, info = vec.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(200):
        masks = vec.action_masks()
        assert masks.dtype == bool and masks.shape == (8, 58)
        assert info["action_mask"].dtype == np.int8 and np.array_equal(
            masks, info["action_mask"].astype(bool)
        )
        _, _, term, _, info = vec.step(random_actions(rng, masks, illegal=0.0))
        after = vec.action_masks()
        assert after[~term].any(axis=1).all(), "a live game always has a move"
        assert not after[term].any(), "a finished game has none (until its autoreset)"


def test_the_same_seed_gives_the_same_run_and_another_seed_another() -> None:
    def run(seed: int) -> list[np.ndarray]:
        vec = make_vec(n=4)
        rng = np.random.default_rng(9)
        out = [vec.reset(seed=seed)[0]]
        for _ in range(50):
            out.append(vec.step(random_actions(rng, vec.action_masks()))[0])
        return out

    a, b, c = run(1), run(1), run(2)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not np.array_equal(a[0], c[0])


def test_a_list_of_seeds_seeds_each_env() -> None:
    vec = make_vec(n=2)
    obs, _ = vec.reset(seed=[7, 3])
    for i, s in enumerate((7, 3)):
        assert np.array_equal(obs[i], PatienceEnv("Klondike-v0").reset(seed=s)[0])


def test_ansi_render_gives_each_table() -> None:
    vec = make_vec(n=2, render_mode="ansi")
    vec.reset(seed=0)
    single = PatienceEnv("Klondike-v0", render_mode="ansi")
    single.reset(seed=1)
    texts = vec.render()
    assert len(texts) == 2 and texts[1] == single.render()


def test_memory_per_game_is_small() -> None:
    vec = make_vec(n=16)
    assert isinstance(vec.unwrapped, PatienceVectorEnv)
    per_game = vec.unwrapped.bytes_per_game
    assert 690 * 4 < per_game <= 8 * 1024, per_game


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="native engine only"):
        make_vec(engine="python")
    with pytest.raises(ValueError, match="num_envs"):
        PatienceVectorEnv(0, "Klondike-v0")
    with pytest.raises(ValueError, match="draw=2"):
        make_vec(draw=2)
    with pytest.raises(ValueError, match="reward="):
        make_vec(reward="points")
    vec = make_vec(n=3)
    with pytest.raises(ResetNeeded):
        vec.step(np.zeros(3, dtype=np.int64))
    vec.reset(seed=0)
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        vec.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(TypeError, match="integer"):
        vec.step(np.zeros(3, dtype=np.float32))
    with pytest.raises(ValueError, match="reset options"):
        vec.reset(options={"deck": []})
    # An id outside the action space is a bug in the caller's code, refused as a single env
    # refuses it (ActionOutsideSpace, issue 37), naming the sub-env; unsigned ids that do not cast
    # to int64 and bools are refused by type, whatever their values.
    for ids, where in [([-1, 0, 0], "action -1 of sub-env 0 "), ([0, 58, 10**9], "action 58 of sub-env 1 ")]:
        with pytest.raises(ActionOutsideSpace, match=f"{where}.*Discrete\\(58\\): ids are 0..57"):
            vec.step(np.array(ids))
    with pytest.raises(ActionOutsideSpace, match=r"and 1 more sub-envs"):
        vec.step(np.array([0, 58, -5]))
    for bad in (np.zeros(3, dtype=np.uint64), np.zeros(3, dtype=bool), [0.0, 1.0, 2.0], ["a", "b", "c"]):
        with pytest.raises(TypeError, match="integer"):
            vec.step(bad)
    single = PatienceEnv("Klondike-v0")
    single.reset(seed=0)
    with pytest.raises(TypeError):
        single.step(np.uint64(0))
    with pytest.raises(ActionOutsideSpace):
        single.step(58)
    # a refused batch changes nothing; in-space ids (uint8 and lists included) step as before
    _, reward, term, _, info = vec.step(np.array([57, 57, 57], dtype=np.uint8))
    assert (reward == -0.01).all() and info["illegal_action"].all() and not term.any()
    assert not vec.step([15, 15, 15])[4]["illegal_action"].any()


def test_make_vec_refuses_a_variant_naming_another_game_as_make_does() -> None:
    for maker in (gym.make, make_vec):
        with pytest.raises(ValueError, match=r"cannot take variant='Nestor-v0'.*patience_gym/Nestor-v0"):
            maker(KLONDIKE, variant="Nestor-v0")
    with pytest.raises(ValueError, match=r"use gym.make_vec\('patience_gym/StLouis-v0'\)"):
        make_vec("patience_gym/Louis-v0", variant="StLouis-v0")
    vec = make_vec(KLONDIKE, variant="Klondike-v0")  # its own name is fine
    assert (
        vec.spec is not None
        and vec.spec.id == KLONDIKE
        and vec.unwrapped.batch.template.game.name == "Klondike"
    )


def test_the_batch_gives_the_mask_in_the_type_asked_for() -> None:
    for mask_dtype, want in [("int8", np.int8), ("bool", np.bool_)]:
        vec = make_vec(n=3, mask_dtype=mask_dtype)
        _, info = vec.reset(seed=0)
        info = vec.step(np.full(3, 15))[4]
        assert info["action_mask"].dtype == want and np.array_equal(info["action_mask"], vec.action_masks())
    with pytest.raises(ValueError, match="mask_dtype='float32' is not allowed"):
        make_vec(mask_dtype="float32")


def test_the_native_batch_refuses_output_arrays_of_the_wrong_kind() -> None:
    from patience_gym import _native  # type: ignore[attr-defined]

    n = 2
    args = [
        np.zeros((n, 690), np.float32),
        np.zeros((n, 58), bool),
        np.zeros(n),
        np.zeros(n, bool),
        np.zeros(n, bool),
        np.zeros(n, bool),
        np.zeros(n, bool),
        np.zeros(n, np.int64),
        np.zeros((n, 1), np.int64),
    ]
    batch = _native.BatchedGames(
        "Klondike", dict(draw=1, passes=1, partial_moves=0, stock=0, worrying_back=0), n, 0, -0.01, 0
    )
    for k, wrong in [
        (0, np.zeros((n, 690), np.float64)),
        (1, np.zeros((n, 58), np.int8)),
        (2, np.zeros(n, np.float32)),
    ]:
        bad = list(args)
        bad[k] = wrong
        with pytest.raises(TypeError):
            _native.Outputs(*bad)
    short = list(args)
    short[0] = np.zeros((n, 600), np.float32)
    with pytest.raises(ValueError, match="obs must have shape"):
        batch.reset(np.zeros((n, 52), np.int32), np.ones(n, bool), _native.Outputs(*short))
    with pytest.raises(ValueError, match="every card"):
        batch.reset(np.zeros((n, 52), np.int32), np.ones(n, bool), _native.Outputs(*args))


# ---- stable-baselines3 ------------------------------------------------------------------------------


def test_the_sb3_vec_env_resets_at_once_and_keeps_the_terminal_observation() -> None:
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import DummyVecEnv

    from patience_gym.vector import PatienceSB3VecEnv

    n = 3
    venv = PatienceSB3VecEnv("Klondike-v0", n_envs=n, max_episode_steps=30)
    ref = DummyVecEnv([lambda: gym.make(KLONDIKE, max_episode_steps=30) for _ in range(n)])
    venv.seed(4)
    ref.seed(4)
    assert np.array_equal(venv.reset(), ref.reset())
    rng = np.random.default_rng(2)
    dones_seen = 0
    for t in range(120):
        masks = np.stack(venv.env_method("action_masks"))
        assert np.array_equal(masks, np.stack([e.unwrapped.action_masks() for e in ref.envs]))
        actions = random_actions(rng, masks)
        venv.step_async(actions)
        ref.step_async(actions)
        (o1, r1, d1, i1), (o2, r2, d2, i2) = venv.step_wait(), ref.step_wait()
        assert np.array_equal(o1, o2) and np.array_equal(r1, r2) and r1.dtype == r2.dtype, t
        assert np.array_equal(d1, d2), t
        for a, b in zip(i1, i2, strict=True):
            if "terminal_observation" in b:
                dones_seen += 1
                assert np.array_equal(a["terminal_observation"], b["terminal_observation"])
                assert a["TimeLimit.truncated"] == b["TimeLimit.truncated"]
            assert a["foundation_cards"] == b["foundation_cards"] and a["won"] == b["won"]
    assert dones_seen >= n


def test_the_sb3_vec_env_honours_set_options_as_dummy_vec_env_does() -> None:
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import DummyVecEnv

    from patience_gym.vector import PatienceSB3VecEnv

    single = gym.make(KLONDIKE)
    single.reset(seed=11)
    deck = single.unwrapped.game.deck()
    venv = PatienceSB3VecEnv("Klondike-v0", n_envs=3)
    ref = DummyVecEnv([lambda: gym.make(KLONDIKE) for _ in range(3)])
    for options in ({"deck": deck}, [{}, {"deck": deck}, {}]):
        for env in (venv, ref):
            env.seed(4)
            env.set_options(options)
        got, want = venv.reset(), ref.reset()
        assert np.array_equal(got, want), options  # the other rows drew their seeds' deals as before
        assert np.array_equal(got[1], single.reset(options={"deck": deck})[0])
        # options hold for one reset, as sb3 has them: the next deals from the seeds again
        venv.seed(4)
        ref.seed(4)
        assert np.array_equal(venv.reset(), ref.reset()) and not np.array_equal(venv.reset()[1], got[1])
    for bad, error, words in [
        ({"dek": deck}, ValueError, "unknown reset option.*'dek'.*only one is 'deck'"),
        ({"deck": deck[:-1]}, ValueError, "must hold 52 cards, got 51"),
        ({"deck": ["XX", *deck[1:]]}, ValueError, "not a card"),
        (["deck"], TypeError, "takes a mapping"),
    ]:
        for env in (venv, ref):
            env.set_options(bad)
            with pytest.raises(error, match=words):
                env.reset()


def test_maskable_ppo_trains_from_the_native_vec_env() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecMonitor

    from patience_gym.vector import PatienceSB3VecEnv

    venv = VecMonitor(PatienceSB3VecEnv("Klondike-v0", n_envs=4))
    assert is_masking_supported(venv)
    venv.seed(0)
    venv.reset()
    assert get_action_masks(venv).shape == (4, 58)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256


def test_native_sampling_picks_legal_actions_and_follows_the_seed() -> None:
    def run(seed: int) -> list[np.ndarray]:
        vec = make_vec(n=16)
        vec.reset(seed=seed)
        picks = []
        for _ in range(60):
            masks = vec.action_masks()
            actions = vec.unwrapped.sample_legal_actions()
            live = masks.any(axis=1)
            assert masks[np.arange(16)[live], actions[live]].all(), "a sampled action is legal"
            assert (actions[~live] == 0).all()
            picks.append(actions)
            vec.step(actions)
        return picks

    a, b, c = run(4), run(4), run(5)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


@pytest.mark.parametrize("variant", PORTED, ids=lambda v: v.env_name)
def test_observation_rows_rewritten_by_diff_equal_a_fresh_observation(variant: Any) -> None:
    """The engine rewrites a row by what each move changes (Game::unobserve_move/observe_move);
    every row must still equal its game observed into a zeroed array, through illegal actions,
    finished games, autoresets and (Babette) re-deals."""
    n = 8
    vec = make_vec(variant.env_id, n, copy=False)
    obs, _ = vec.reset(seed=3)
    batch = vec.unwrapped.batch  # type: ignore[attr-defined]
    rng = np.random.default_rng(0)
    for t in range(300):
        obs = vec.step(random_actions(rng, vec.action_masks()))[0]
        for i in range(n):
            fresh = np.zeros(obs.shape[1], dtype=np.float32)
            batch.engine.game(i).observe(fresh)
            assert np.array_equal(obs[i], fresh), f"step {t} row {i}: {np.flatnonzero(obs[i] != fresh)}"
