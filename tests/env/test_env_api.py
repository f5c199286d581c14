"""The environment's contract at its edges: what ``step``, ``reset``, ``describe_action`` and the
constructor accept, what they refuse and how, and what a caller may do with what they return."""

from __future__ import annotations

import pickle
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import InvalidAction, ResetNeeded

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.env import ActionOutsideSpace, PatienceEnv
from patience_gym.games import VARIANTS, get_variant
from patience_gym.native import native_games

STOCK = 15  # Klondike's "stock -> talon": legal on every fresh deal


def klondike(**kwargs: Any) -> PatienceEnv:
    env = PatienceEnv("Klondike-v0", **kwargs)
    env.reset(seed=0)
    return env


# ---- actions -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [15.5, 15.0, np.float64(15.0), np.float32(15), "15", None, True, np.bool_(True), [15], (15,)],
    ids=repr,
)
def test_step_refuses_anything_but_an_integer_naming_the_action_space(action: object) -> None:
    env = klondike()
    key = env.state_key()
    with pytest.raises(TypeError, match=r"Discrete\(58\)"):
        env.step(action)
    assert env.state_key() == key, "a refused action must not be truncated to a move"


@pytest.mark.parametrize("action", [np.array([15]), np.array([[15]]), np.array([15, 16])], ids=repr)
def test_step_refuses_integer_arrays_of_another_shape(action: np.ndarray) -> None:
    env = klondike()
    with pytest.raises(ValueError, match=r"Discrete\(58\)"):
        env.step(action)


@pytest.mark.parametrize(
    "action",
    [15, np.int64(15), np.int32(15), np.uint8(15), np.array(15), np.array(15, dtype=np.int16)],
    ids=repr,
)
def test_step_takes_every_integer_form_alike(action: object) -> None:
    env, ref = klondike(), klondike()
    got = env.step(action)
    want = ref.step(STOCK)
    assert np.array_equal(got[0], want[0]) and got[1:4] == want[1:4]
    assert not got[4]["illegal_action"] and env.state_key() == ref.state_key()


@pytest.mark.parametrize("action", [-1, 58, 999, np.int64(-58), np.int32(58), np.array(999), 10**12, 2**70])
def test_an_id_outside_the_action_space_raises_saying_what_is_allowed(action: object) -> None:
    env = klondike()
    key = env.state_key()
    with pytest.raises(ActionOutsideSpace, match=r"outside the action space Discrete\(58\): ids are 0\.\.57"):
        env.step(action)
    assert env.state_key() == key
    assert issubclass(ActionOutsideSpace, InvalidAction) and issubclass(ActionOutsideSpace, ValueError)


@pytest.mark.parametrize("engine", ["python", "native"])
def test_both_engines_refuse_an_id_outside_the_space_live_over_or_before_reset(engine: str) -> None:
    if engine == "native" and "Nestor" not in native_games():
        pytest.skip("the native engine is not built")
    env = PatienceEnv("Nestor-v0", reserve="open", engine=engine)
    with pytest.raises(ActionOutsideSpace, match="action 999 is outside"):
        env.step(999)
    _, info = env.reset(seed=0)
    n = env.action_space.n
    with pytest.raises(ActionOutsideSpace, match=rf"action {n} is outside"):
        env.step(n)
    rng = np.random.default_rng(0)
    while info["action_mask"].any():
        _, _, _, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    with pytest.raises(ActionOutsideSpace, match="action -1 is outside"):
        env.step(-1)  # a finished game refuses it too: the id is wrong in any position


def test_an_in_space_illegal_action_keeps_the_penalty(env_name: str) -> None:
    env = PatienceEnv(env_name)
    obs, info = env.reset(seed=0)
    key = env.state_key()
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs2, reward, term, trunc, info2 = env.step(illegal)
    assert info2["illegal_action"] and reward == pytest.approx(-0.01) and not (term or trunc)
    assert env.state_key() == key and np.array_equal(obs, obs2)


CONTAINS_CASES = [
    15, 0, 57, -1, 58, 10**12, True, False, 15.0, np.float64(15), None, "15",
    np.int64(15), np.int32(15), np.int16(57), np.int8(-1), np.int64(58),
    np.uint8(15), np.uint16(15), np.uint32(15), np.uint32(58), np.uint64(15), np.uint64(0), np.bool_(True),
    np.array(15), np.array(15, dtype=np.int8), np.array(15, dtype=np.uint8), np.array(15, dtype=np.uint64),
    np.array(-1), np.array(58), np.array(15.0), np.array([15]),
]  # fmt: skip


@pytest.mark.parametrize("action", CONTAINS_CASES, ids=repr)
def test_step_takes_what_action_space_contains_takes(action: object) -> None:
    """The env's yes or no matches ``Discrete.contains`` for every kind of value, with one
    deliberate difference: a Python bool, which ``contains`` counts as an int, is refused."""
    env = klondike()
    contained = env.action_space.contains(action)
    try:
        env.step(action)
        taken = True
    except (TypeError, ValueError):
        taken = False
    if isinstance(action, bool):
        assert contained and not taken
    else:
        assert taken == contained, (
            f"step {'took' if taken else 'refused'} {action!r}, contains says {contained}"
        )


@pytest.mark.parametrize("action", [np.uint64(15), np.array(15, dtype=np.uint64)], ids=repr)
def test_an_unsigned_id_that_does_not_cast_to_int64_is_refused(action: object) -> None:
    env = klondike()
    with pytest.raises(TypeError, match=r"Discrete\(58\) whose type casts to int64.*uint64"):
        env.step(action)
    with pytest.raises(TypeError, match="uint64"):
        env.describe_action(action)  # type: ignore[arg-type]


def test_describe_action_refuses_ids_outside_the_table(env_name: str) -> None:
    env = PatienceEnv(env_name)
    env.reset(seed=0)
    n = env.action_space.n
    assert env.describe_action(n - 1) and env.describe_action(np.int64(0))
    for bad in (-1, n, n + 5):
        with pytest.raises(
            ActionOutsideSpace, match=rf"outside the action space Discrete\({n}\): ids are 0\.\.{n - 1}"
        ):
            env.describe_action(bad)
    with pytest.raises(TypeError, match="Discrete"):
        env.describe_action(1.0)  # type: ignore[arg-type]


# ---- observations are the caller's ---------------------------------------------------------------


def test_writing_into_a_returned_observation_changes_nothing_later(env_name: str) -> None:
    env = PatienceEnv(env_name)
    obs, info = env.reset(seed=0)
    kept = obs.copy()
    obs[:] = 0.5  # the caller scribbles on what reset gave it
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    again = env.step(illegal)[0]
    assert np.array_equal(again, kept), "reset returned the env's own buffer"
    legal = int(np.flatnonzero(info["action_mask"])[0])
    obs, *_ = env.step(legal)
    kept = obs.copy()
    obs[:] = 0.25
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    assert np.array_equal(env.step(illegal)[0], kept), "step returned the env's own buffer"


def test_a_finished_game_returns_a_fresh_observation_too() -> None:
    env = PatienceEnv("Nestor-v0", reserve="open")  # the reserve needs no turning: a game ends fast
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    while info["action_mask"].any():
        obs, _, term, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    kept = obs.copy()
    obs[:] = 0.5
    after, reward, term, _, _ = env.step(0)
    assert term and reward == 0.0 and np.array_equal(after, kept)


# ---- reset ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("call", ["step", "render", "describe_action", "state_key"])
def test_calls_before_reset_ask_for_reset(call: str) -> None:
    env = PatienceEnv("Klondike-v0", render_mode="ansi")
    args = {"step": (STOCK,), "describe_action": (STOCK,)}.get(call, ())
    with pytest.raises(ResetNeeded, match="reset"):
        getattr(env, call)(*args)
    env.reset(seed=0)
    getattr(env, call)(*args)


@pytest.mark.parametrize("options", [[("deck", [])], "deck", 3, ("deck",)], ids=repr)
def test_reset_options_must_be_a_mapping(options: object) -> None:
    env = PatienceEnv("Klondike-v0")
    with pytest.raises(TypeError, match="mapping"):
        env.reset(options=options)  # type: ignore[arg-type]


def test_reset_options_take_any_mapping() -> None:
    from types import MappingProxyType

    env = PatienceEnv("Klondike-v0")
    env.reset(seed=0)
    deck = env.game.deck()
    obs, _ = env.reset(options=MappingProxyType({"deck": deck}))
    assert env.game.deck() == deck and obs.shape == env.observation_space.shape


# ---- construction --------------------------------------------------------------------------------


def test_make_refuses_a_variant_naming_another_game() -> None:
    with pytest.raises(ValueError, match=r"patience_gym/Nestor-v0"):
        gym.make("patience_gym/Klondike-v0", variant="Nestor-v0")
    with pytest.raises(ValueError, match=r"patience_gym/StLouis-v0"):
        gym.make("patience_gym/Louis-v0", variant="StLouis-v0")
    env = gym.make("patience_gym/Klondike-v0", variant="Klondike-v0")  # its own name is fine
    assert env.unwrapped.variant.env_name == "Klondike-v0"
    assert pickle.loads(pickle.dumps(env)).spec.id == "patience_gym/Klondike-v0"
    assert PatienceEnv("Nestor-v0").variant.env_name == "Nestor-v0"  # direct construction names it


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -np.inf, "-0.01", None, True, [0.1]], ids=repr)
def test_illegal_reward_must_be_a_finite_number(value: object) -> None:
    with pytest.raises((TypeError, ValueError), match="illegal_reward"):
        gym.make("patience_gym/Klondike-v0", illegal_reward=value)


def test_illegal_reward_takes_any_real_number() -> None:
    env = klondike(illegal_reward=np.float32(-0.5))
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    assert env.step(illegal)[1] == -0.5
    assert klondike(illegal_reward=-1).step(illegal)[1] == -1.0


def test_numpy_option_values_count_as_their_python_value() -> None:
    env = gym.make(
        "patience_gym/Klondike-v0",
        draw=np.int64(3),
        passes=np.int64(2),
        partial_moves=np.bool_(True),
        stock=np.str_("known"),
        worrying_back=np.bool_(True),
    )
    game = env.unwrapped.game
    assert game.options == dict(draw=3, passes=2, partial_moves=True, stock="known", worrying_back=True)
    assert [type(v) for v in game.options.values()] == [int, int, bool, str, bool]
    louis = gym.make("patience_gym/Louis-v0", deal=np.str_("dick"), recall=np.bool_(True)).unwrapped.game
    assert louis.options == {"deal": "dick", "recall": True} and type(louis.options["deal"]) is str
    assert type(louis.options["recall"]) is bool


@pytest.mark.parametrize(
    ("value", "kind"), [(3.0, "float"), (np.float64(3.0), "float"), (True, "bool"), ("3", "str")], ids=repr
)
def test_a_refused_option_value_says_what_is_wrong_with_it(value: object, kind: str) -> None:
    # draw=3.0 == 3: a message listing 3 as allowed must say why 3.0 is not
    with pytest.raises(ValueError, match=rf"draw=.*\(a {kind}, not int\) is not allowed; choose one of 1, 3"):
        gym.make("patience_gym/Klondike-v0", draw=value)


# ---- info ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["python", "native"])
def test_info_holds_numpy_scalars_and_the_mask_in_the_type_asked_for(env_name: str, engine: str) -> None:
    # Readers that take info[key].dtype (TorchRL's default_info_dict_reader) need NumPy values,
    # on reset, on a legal step and on an illegal one, and the mask as bool for TorchRL's
    # MaskedCategorical (mask_dtype="bool") or int8 for Discrete.sample (the default).
    if engine == "native" and get_variant(env_name).game.name not in native_games():
        pytest.skip("no native port")
    for mask_dtype, want in [("int8", np.int8), ("bool", np.bool_)]:
        env = PatienceEnv(env_name, engine=engine, mask_dtype=mask_dtype)
        _, info = env.reset(seed=1)
        legal = int(np.flatnonzero(info["action_mask"])[0])
        illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
        for step in [None, illegal, legal]:
            step_info = info if step is None else env.step(step)[4]
            assert step_info["action_mask"].dtype == want
            assert np.array_equal(step_info["action_mask"].astype(bool), env.action_masks())
            for key, value in step_info.items():
                assert isinstance(value, np.generic | np.ndarray) or type(value) is str, (key, value)
            assert step_info["won"].dtype == np.bool_ and step_info["foundation_cards"].dtype == np.int64
    with pytest.raises(ValueError, match="mask_dtype='uint8' is not allowed; choose one of 'int8', 'bool'"):
        gym.make(f"patience_gym/{env_name}", mask_dtype="uint8")


# ---- state_key -----------------------------------------------------------------------------------


def test_state_key_tells_positions_apart(env_name: str) -> None:
    env = PatienceEnv(env_name)
    _, info = env.reset(seed=5)
    key = env.state_key()
    assert hash(key) == hash(env.state_key()) and key == env.game.state_key()
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert env.state_key() != key, "every legal move changes the position"
    twin = PatienceEnv(env_name)
    twin.reset(seed=5)
    assert twin.state_key() == key


def test_every_variant_refuses_a_variant_swap(env_name: str) -> None:
    # the closest swap: another id of the same game (Louis / St. Louis) where there is one
    game = get_variant(env_name).game
    others = [v.env_name for v in VARIANTS if v.env_name != env_name]
    other = next(
        (o for o in others if get_variant(o).game is game),
        "Nestor-v0" if env_name != "Nestor-v0" else "Klondike-v0",
    )
    with pytest.raises(ValueError, match="another game"):
        gym.make(f"patience_gym/{env_name}", variant=other)
    assert get_variant(env_name).env_id == gym.make(f"patience_gym/{env_name}").unwrapped.variant.env_id
