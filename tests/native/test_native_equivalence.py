"""The native engine plays every ported variant exactly as the Python rules core does.

Registry-driven: every ported variant (``tests.helpers.PORTED``) and option set (the defaults,
each other allowed value of each option, and all of them changed at once) is stepped in lockstep
on both engines through ``PatienceEnv``, comparing at every step the mask, the observation (bit
for bit), reward, flags, ``info``, the ``ansi`` text and the description of every legal move
(the native game's texts are its Python twin's: they agree when every move C++ played replays
in Python). Random legal moves, with an occasional out-of-mask id so the illegal-action path is compared too.
A game that is Python alone is not played here; a ported one the build lacks is skipped, naming
where to add it (src/native/PORTING.md), and fails test_the_native_engine_is_built_and_the_default.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401
import patience_gym.playthrough as playthrough_module
from patience_gym.core.game import Game, IllegalMove, Option
from patience_gym.env import ActionOutsideSpace, PatienceEnv
from patience_gym.games import VARIANTS, Variant
from patience_gym.native import (
    ENGINES,
    NativeGame,
    check_engine,
    make_game,
    native_available,
    native_games,
    reference,
)
from patience_gym.testing import check_position
from tests.helpers import DATA, PORTED

GOLDEN = DATA / "playthroughs"

# Games per option set and the step cap per game: enough to reach every kind of move (passes,
# partial moves, wins are rare under random play but foundations and flips are not) while the
# whole file stays within about a minute per variant on two cores.
GAMES = 40
STEPS = 300
ILLEGAL_EVERY = 17  # roughly one step in this many tries an id outside the mask


def _alternatives(opt: Option[Any]) -> list[Any]:
    """Values of one option other than its default: every choice, or for an open range, None and
    default + 2 where the option's own check accepts them."""
    if opt.choices is not None:
        return [c for c in opt.choices if not (type(c) is type(opt.default) and c == opt.default)]
    candidates: list[Any] = [None]
    if isinstance(opt.default, int) and not isinstance(opt.default, bool):
        candidates.append(opt.default + 2)
    assert opt.check is not None
    return [v for v in candidates if v != opt.default and opt.check(v) is None]


def option_sets(variant: Variant) -> list[dict[str, Any]]:
    """The defaults, one option changed at a time, and every rule option changed (the last values);
    where some options change only what is shown (``Option.view_only``: Klondike's stock), that
    last set again with those changed too."""
    free = {name: opt for name, opt in variant.game.OPTIONS.items() if name not in variant.options}
    sets: list[dict[str, Any]] = [{}]
    for name, opt in free.items():
        sets += [{name: v} for v in _alternatives(opt)]
    last = {name: _alternatives(opt)[-1] for name, opt in free.items() if _alternatives(opt)}
    combined = {name: v for name, v in last.items() if not free[name].view_only}
    if len(combined) > 1:
        sets.append(combined)
    if len(last) > len(combined) and combined:
        sets.append(last)
    return sets


def _label(options: dict[str, Any]) -> str:
    return ",".join(f"{k}={v!r}" for k, v in options.items()) or "defaults"


CASES = [pytest.param(v, opts, id=f"{v.env_name}[{_label(opts)}]") for v in PORTED for opts in option_sets(v)]


@pytest.fixture(params=[v.env_name for v in PORTED])
def env_name(request: pytest.FixtureRequest) -> str:
    """A ported variant's name (tests/conftest.py's fixture of the same name takes every variant)."""
    name: str = request.param
    return name


def require_native(variant: Variant) -> None:
    if not native_available():
        pytest.fail("the native engine is not built (pip install -e . with a C++17 compiler and CMake)")
    if variant.game.__name__ not in native_games():
        pytest.skip(
            f"{variant.game.__name__} has no native port yet: add src/native/<game>.cpp, which "
            "registers itself (src/native/PORTING.md)"
        )


def test_the_native_engine_is_built() -> None:
    assert native_available(), (
        "patience_gym._native is missing: reinstall with a C++17 compiler (scripts/setup.sh)"
    )
    assert "Klondike" in native_games()


# ---- lockstep ------------------------------------------------------------------------------------


def _same_info(a: dict[str, Any], b: dict[str, Any], where: str) -> None:
    assert a.keys() == b.keys(), f"{where}: info keys {sorted(a)} != {sorted(b)}"
    for key in a:
        x, y = a[key], b[key]
        if isinstance(x, np.ndarray):
            assert isinstance(y, np.ndarray) and x.dtype == y.dtype and np.array_equal(x, y), (
                f"{where}: info[{key}]"
            )
        else:
            assert type(x) is type(y) and x == y, f"{where}: info[{key!r}] {x!r} != {y!r}"


def _lockstep(variant: Variant, options: dict[str, Any], seed: int) -> Iterator[int]:
    """Play one game on both engines; yield after each compared step (for counting)."""
    envs = [
        PatienceEnv(variant.env_name, render_mode="ansi", engine=e, **options) for e in ("python", "native")
    ]
    py, na = envs
    rng = np.random.default_rng(10_000 + seed)
    (o1, i1), (o2, i2) = py.reset(seed=seed), na.reset(seed=seed)
    for t in range(min(STEPS, variant.max_episode_steps)):
        where = f"{variant.env_name} {options} seed={seed} step {t}"
        assert o1.dtype == o2.dtype and np.array_equal(o1, o2), (
            f"{where}: observations differ at {np.flatnonzero(o1 != o2).tolist()}\n{py.render()}"
        )
        _same_info(i1, i2, where)
        text = py.render()
        assert text == na.render(), f"{where}: render differs\npython:\n{text}\nnative:\n{na.render()}"
        legal = np.flatnonzero(i1["action_mask"])
        for a in legal.tolist():
            assert py.describe_action(a) == na.describe_action(a), f"{where}: describe({a})"
        if legal.size == 0:
            break
        if t % ILLEGAL_EVERY == ILLEGAL_EVERY - 1:
            a = int(rng.integers(0, py.game.n_actions))  # an id of the space, likely illegal
        else:
            a = int(rng.choice(legal))
        (o1, r1, d1, u1, i1), (o2, r2, d2, u2, i2) = py.step(a), na.step(a)
        assert (r1, d1, u1) == (r2, d2, u2) and type(r1) is type(r2), (
            f"{where}: step({a}) {(r1, d1, u1)} != {(r2, d2, u2)}"
        )
        yield t
        if d1:
            break


@pytest.mark.parametrize(("variant", "options"), CASES)
def test_random_games_in_lockstep(variant: Variant, options: dict[str, Any]) -> None:
    require_native(variant)
    steps = 0
    for seed in range(GAMES):
        steps += sum(1 for _ in _lockstep(variant, options, seed))
    assert steps >= GAMES  # every game made moves: the comparison ran


@pytest.mark.parametrize(("variant", "options"), CASES)
def test_native_games_keep_the_game_contract(variant: Variant, options: dict[str, Any]) -> None:
    """patience_gym.testing.check_position on the native game: conservation, every masked-in move
    accepted and changing the state (on a clone), every other one refused with nothing changed."""
    require_native(variant)
    game = make_game(variant, "native", **options)
    rng = np.random.default_rng(7)
    for _ in range(2):
        game.new_game(rng)
        for _ in range(60):
            mask = check_position(game)
            if game.won or not mask.any():
                break
            game.apply(int(rng.choice(np.flatnonzero(mask))))
        # The Python twin replayed from the native game's history is the same position.
        twin = reference(game)
        assert twin.render() == game.render() and np.array_equal(twin.observation(), game.observation())


def test_the_same_seed_deals_the_same_game_on_both_engines(env_name: str) -> None:
    variant = next(v for v in VARIANTS if v.env_name == env_name)
    require_native(variant)
    py, na = (PatienceEnv(env_name, engine=e) for e in ENGINES[::-1])
    for seed in (0, 1, 12345):
        py.reset(seed=seed)
        na.reset(seed=seed)
        assert py.game.deck() == na.game.deck()


def test_golden_playthroughs_on_the_native_engine(env_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The golden files of tests/data/playthroughs, replayed on the native engine."""
    variant = next(v for v in VARIANTS if v.env_name == env_name)
    require_native(variant)
    # playthrough() builds its game through Variant.make_game: point that at the native engine.
    monkeypatch.setattr(Variant, "make_game", lambda self, **o: make_game(self, "native", **o))
    got = playthrough_module.playthrough(env_name)
    want = (GOLDEN / f"{env_name}.txt").read_text()
    for i, (w, g) in enumerate(zip(want.splitlines(), got.splitlines(), strict=False)):
        assert w == g, f"{env_name}.txt line {i + 1}: golden {w!r}, native {g!r}"
    assert got == want


# ---- clones and the Python twin ------------------------------------------------------------------


def test_a_native_clone_is_independent_and_keeps_its_own_twin() -> None:
    variant = VARIANTS[0]
    require_native(variant)
    game = make_game(variant, "native")
    game.new_game(np.random.default_rng(3))
    assert isinstance(game, NativeGame) and game.name == "Klondike"
    key, text = game.state_key(), game.render()
    trial = game.clone()
    trial.apply(int(np.flatnonzero(trial.legal_mask())[0]))
    assert trial.state_key() != key and game.state_key() == key and game.render() == text
    assert reference(trial).render() == trial.render() and reference(game).render() == text


# ---- bad input, refused alike ----------------------------------------------------------------------


def _outcome(fn: Any) -> tuple[str, str]:
    try:
        fn()
    except Exception as exc:  # the type and the message are what is compared
        return type(exc).__name__, str(exc)
    return "ok", ""


def _both(variant: Variant, call: Any, **kwargs: Any) -> None:
    py = _outcome(lambda: call(PatienceEnv(variant.env_name, engine="python", **kwargs)))
    na = _outcome(lambda: call(PatienceEnv(variant.env_name, engine="native", **kwargs)))
    assert py == na


BAD_DECKS: list[Any] = [
    "KH QC",
    ["KH"] * 52,
    ["ZZ"] + ["AC"] * 51,
    [],
    52,
]


@pytest.mark.parametrize("deck", BAD_DECKS)
def test_a_bad_deck_is_refused_alike(env_name: str, deck: Any) -> None:
    variant = next(v for v in VARIANTS if v.env_name == env_name)
    require_native(variant)
    _both(variant, lambda env: env.reset(options={"deck": deck}))


def test_a_deck_with_a_card_twice_is_refused_alike(env_name: str) -> None:
    variant = next(v for v in VARIANTS if v.env_name == env_name)
    require_native(variant)
    env = PatienceEnv(env_name)
    env.reset(seed=0)
    deck = env.game.deck()
    deck[0] = deck[1]
    _both(variant, lambda e: e.reset(options={"deck": deck}))


BAD_ACTIONS: list[Any] = [1.0, "1", None, True, np.array([1, 2]), np.float32(2)]


@pytest.mark.parametrize("action", BAD_ACTIONS, ids=repr)
def test_a_bad_action_type_is_refused_alike(env_name: str, action: Any) -> None:
    variant = next(v for v in VARIANTS if v.env_name == env_name)
    require_native(variant)

    def call(env: PatienceEnv) -> None:
        env.reset(seed=0)
        env.step(action)

    _both(variant, call)


def test_out_of_range_ids_are_illegal_moves_alike(env_name: str) -> None:
    variant = next(v for v in VARIANTS if v.env_name == env_name)
    require_native(variant)
    for a in (-1, 10**6):
        out = []
        for engine in ENGINES:
            env = PatienceEnv(env_name, engine=engine)
            env.reset(seed=0)
            with pytest.raises(ActionOutsideSpace) as outside:  # the env refuses it (issue 37)
                env.step(a)
            out.append(str(outside.value))
            game: Game[Any] = env.game
            with pytest.raises(IllegalMove) as err:
                game.apply(a)
            out.append(str(err.value))
        assert out[:2] == out[2:]


def _bad_values(variant: Variant) -> list[tuple[str, Any]]:
    bad: list[tuple[str, Any]] = [("no_such_option", 1)]
    for name in variant.game.OPTIONS:
        bad += [(name, v) for v in ("nonsense", 0, -3, 2.5, [1], True)]
    return bad


def test_bad_options_are_refused_alike(env_name: str) -> None:
    variant = next(v for v in VARIANTS if v.env_name == env_name)
    require_native(variant)
    for name, value in _bad_values(variant):
        outs = [
            _outcome(lambda e=e, kw={name: value}: PatienceEnv(variant.env_name, engine=e, **kw))
            for e in ENGINES
        ]
        assert outs[0] == outs[1], f"{name}={value!r}: {outs}"


def test_an_unknown_engine_is_refused_naming_the_engines() -> None:
    with pytest.raises(ValueError, match=r"engine='cpp' is not allowed; choose one of 'native', 'python'"):
        gym.make("patience_gym/Klondike-v0", engine="cpp")
    with pytest.raises(ValueError, match="engine="):
        check_engine("Native", VARIANTS[0])


@pytest.mark.parametrize("variant", [v for v in VARIANTS], ids=lambda v: v.env_name)
def test_a_variant_without_a_native_port_is_refused_clearly(variant: Variant) -> None:
    if not native_available() or variant.game.__name__ in native_games():
        pytest.skip(f"{variant.env_name} is ported (or nothing is built)")
    with pytest.raises(ValueError, match=f"{variant.env_name} has no native engine yet"):
        gym.make(variant.env_id, engine="native")


# ---- the compiled module refuses misuse instead of crashing ----------------------------------------


def test_the_compiled_module_refuses_misuse() -> None:
    if not native_available():
        pytest.fail("the native engine is not built")
    from patience_gym import _native  # type: ignore[attr-defined]

    # Options come validated by Python, by name: C++ refuses only names that are not the game's.
    for options in ({"draw": 1, "passes": 1}, {"draw": 1, "passes": 1, "partial_moves": 0, "undo": 1}, {}):
        with pytest.raises(RuntimeError, match="takes the options"):
            _native.Game.make("Klondike", options)
    with pytest.raises(ValueError, match="no native engine for Chess"):
        _native.Game.make("Chess", {})
    g = _native.Game.make("Klondike", dict(draw=1, passes=1, partial_moves=0, stock=0, worrying_back=0))
    for pack in ([], list(range(51)), [0] * 52, [*range(51), 52], [*range(51), -1]):
        with pytest.raises(ValueError):
            g.deal(pack)
    g.deal(list(range(52)))
    for a in (-1, 58, 2**40):
        with pytest.raises((IndexError, ValueError, TypeError, OverflowError)):
            g.is_legal(a)
    illegal = int(np.flatnonzero(~_mask(g))[0])
    with pytest.raises(ValueError, match="is not legal now"):
        g.apply(illegal)
    with pytest.raises(ValueError):
        g.observe(np.zeros(10, dtype=np.float32))
    with pytest.raises(TypeError):
        g.observe(np.zeros(690, dtype=np.float64))
    with pytest.raises(ValueError):
        g.legal_mask(np.zeros(3, dtype=bool))


def _mask(g: Any) -> np.ndarray:
    m = np.zeros(g.n_actions, dtype=bool)
    g.legal_mask(m)
    return m


def test_the_native_engine_is_built_and_the_default() -> None:
    """CI builds the extension (scripts/setup.sh); a checkout without it would fall back to the
    Python engine, which this test refuses to let pass unnoticed."""
    import os

    from patience_gym.native import DEFAULT_ENGINE, native_available, native_games

    if os.environ.get("PATIENCE_GYM_NO_NATIVE") == "1":
        pytest.skip("PATIENCE_GYM_NO_NATIVE=1: the native engine was left out on purpose")
    assert native_available(), "patience_gym._native is not built: pip install -e . with a C++ compiler"
    assert DEFAULT_ENGINE == "native"
    assert native_games() == {v.game.__name__ for v in PORTED}, "the build plays exactly the ported games"


@pytest.mark.parametrize("variant", PORTED, ids=lambda v: v.env_name)
def test_greedy_plays_the_same_game_on_both_engines(variant: Variant) -> None:
    """Greedy's choices, its cycle guard included, do not depend on the engine: on the native
    engine it must count the visits of the position under the key it looks successors up by, or
    the guard never fires and the play differs wherever two moves score alike."""
    from patience_gym.agents.policies.base import GreedyPolicy

    require_native(variant)
    for seed in range(10):  # the guard decides some of The Congress's and The Kings's seeds 0-9
        moves: dict[str, list[int]] = {}
        for engine in ENGINES:
            env = PatienceEnv(variant.env_name, engine=engine)
            obs, _ = env.reset(seed=seed)
            policy = GreedyPolicy()
            policy.reset(seed)
            played: list[int] = []
            done = False
            while not done and len(played) < 400:
                played.append(policy(env, obs))
                obs, _, term, trunc, _ = env.step(played[-1])
                done = term or trunc
            moves[engine] = played
        assert moves["python"] == moves["native"], f"seed {seed}: greedy's play differs between the engines"
