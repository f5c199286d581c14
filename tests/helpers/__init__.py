"""What the tests share, in one place: no test module imports another (tests/project/
test_tests_layout.py holds to it), so what two of them use lives here.

- the checkout: its paths, the files git tracks, ``scripts/gen_native.py`` and the variants it
  finds a native port for (``PORTED``);
- playing games: to the end, at random, every option set of a variant, a scenario's deal;
- the solver: replaying won lines, native games and their keys, the plain search's verdicts, a win
  another search finds where the depth-first search does not;
- the agents: hidden-card swaps, a tiny cloning run, the ``patience-gym`` command stopped by Ctrl-C;
  the mark of Ray's tests (``RAY``, ``needs_ray``).

The rule scenarios' decks live beside this module: :mod:`tests.helpers.babette` and
:mod:`tests.helpers.the_kings`.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.core.game import Game
from patience_gym.games import VARIANTS, Variant, get_variant
from patience_gym.native import NativeGame, make_game
from patience_gym.testing import act, check_position, check_rollout, scenario_game

G = TypeVar("G", bound=Game[Any])
T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

#: The marks of a test that needs Ray (the scale extra): ``ray``, which scripts/test_ray.sh selects
#: to run in a venv of its own with RLlib's gymnasium pin (tests/conftest.py also marks every test
#: that uses a Ray fixture), and a skip where Ray is not installed.
RAY = [
    pytest.mark.ray,
    pytest.mark.skipif(
        importlib.util.find_spec("ray") is None, reason="Ray is not installed (the scale extra)"
    ),
]


def needs_ray(test: F) -> F:
    """A test of Ray's: marked as :data:`RAY` says."""
    for mark in RAY:
        test = mark(test)
    return test


# ---- the checkout -------------------------------------------------------------------------------

#: The checkout's root, where README.md, configs/, docs/, results/ and scripts/ are.
ROOT = Path(__file__).resolve().parents[2]
#: Fixed deals' won lines and the golden playthroughs (scripts/playthroughs.py writes them).
DATA = ROOT / "tests" / "data"
#: The solver's stored label files (package data: patience_gym.agents.common.data.shipped_labels).
LABELS = ROOT / "agents" / "data" / "labels"
#: The tiny PPO config most training tests start from.
TINY = str(ROOT / "configs" / "ppo" / "tiny.yaml")


def tracked_texts(suffixes: set[str]) -> dict[str, str]:
    """The text of every file git tracks whose name ends in one of ``suffixes``, by its path in the
    checkout (a file deleted and not yet committed is left out). Outside a git checkout the test
    asking is skipped."""
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")
    paths = {name: ROOT / name for name in tracked if Path(name).suffix in suffixes}
    return {name: path.read_text(errors="replace") for name, path in paths.items() if path.is_file()}


def script(name: str, module: str | None = None) -> ModuleType:
    """``scripts/<name>.py`` (a file, not a package) loaded as the module ``module`` (default
    ``name``), registered in ``sys.modules`` as dataclasses need."""
    loader = importlib.machinery.SourceFileLoader(module or name, str(ROOT / "scripts" / f"{name}.py"))
    loaded = ModuleType(loader.name)
    loaded.__file__ = loader.path
    sys.modules[loader.name] = loaded
    loader.exec_module(loaded)
    return loaded


#: ``scripts/gen_native.py``: which games are ported, and their generated headers.
gen_native = script("gen_native")  # the generator of the native engine's headers

#: The variants whose game has a native port (``src/native/<module>.cpp``, the rule of
#: ``gen_native.ported_games``), in ``VARIANTS`` order. The tests of what runs on the native engine
#: alone (the solver and its labels, the rollouts, the planner, the batched environment) take
#: these; a game that is Python alone gets every other test. All nine shipped games are ported.
PORTED: tuple[Variant, ...] = tuple(v for v in VARIANTS if v.game in gen_native.ported_games())

# ---- playing games ------------------------------------------------------------------------------


def scenario_deal(cls: type[G], deck: list[str], **options: Any) -> G:
    """A rules scenario's game (:func:`patience_gym.testing.scenario_game`: in lockstep with its
    native twin on the native run) dealt from ``deck``."""
    game = scenario_game(cls, **options)
    game.new_game(deck=deck)
    return game


def pile_read_back(held: np.ndarray, top: np.ndarray, lower: np.ndarray) -> list[int]:
    """A pile, bottom first, rebuilt from its three rows (patience_gym.core.pile_rows)."""
    pile = [-1] * round(held.sum() * 2)
    for c in np.flatnonzero(held):
        for v in (top[c], lower[c]) if held[c] == 1.0 else (top[c],):
            pile[len(pile) - 1 - round(8 * v / (1 - v))] = int(c)  # v = d / (d + 8)
    return pile


def check_scenario_rollout(cls: type[Game[Any]], seed: int, max_steps: int, **options: Any) -> None:
    """Random games of a rules scenario's game (in lockstep with its native twin on the native
    run) keep the game contract (:func:`patience_gym.testing.check_rollout`)."""
    check_rollout(scenario_game(cls, **options), np.random.default_rng(seed), max_steps=max_steps)


def check_the_talons_order_is_seen(a: Game[Any], b: Game[Any], talon_a: str, talon_b: str) -> None:
    """``a`` and ``b`` are dealt alike but for the order of the first cards their packs turn: the
    observations agree while those cards are hidden; three turns later each render shows its talon
    (``talon_a``, ``talon_b``: the top three, bottom first) and the observations differ."""
    assert np.array_equal(a.observation(), b.observation()), "still in the pack: hidden"
    for g in (a, b):
        for _ in range(3):
            act(g, "pack -> talon")
    assert f"talon (3): {talon_a}" in a.render() and f"talon (3): {talon_b}" in b.render()
    assert not np.array_equal(a.observation(), b.observation())


def check_action_table(cls: type[Game[Any]], size: int) -> None:
    """``cls``'s action table holds ``size`` moves, each with a readable text of its own, and a
    game dealt from seed 0 passes the position checks."""
    game = scenario_game(cls)
    texts = [m.text for m in game.moves]
    assert len(texts) == len(set(texts)) == size
    game.new_game(np.random.default_rng(0))
    check_position(game)


def replay_the_recorded_win(name: str, env_id: str, engine: str) -> tuple[dict[str, Any], float]:
    """Replay ``tests/data/<name>`` (a deck and the text of each move) through ``env_id``: every
    move legal and played before the game is won, the episode ending at the last move and not cut
    short. Gives the last ``info`` and the total reward."""
    record = json.loads((DATA / name).read_text())
    env = gym.make(f"patience_gym/{env_id}", engine=engine)
    env.reset(options={"deck": record["deck"].split()})
    total = 0.0
    for i, text in enumerate(record["moves"]):
        game = env.unwrapped.game  # type: ignore[attr-defined]
        assert not game.won
        a = act(game.clone(), text)  # finds the action id, checks it is legal
        _, r, term, trunc, info = env.step(a)
        total += float(r)
        assert term == (i == len(record["moves"]) - 1) and not trunc
    return info, total


def play_to_the_end(env_id: str, engine: str, pick: int) -> tuple[Any, dict[str, Any]]:
    """Play ``env_id`` from seed 0, always taking the legal id at index ``pick`` of the legal ids
    (0 the lowest, -1 the highest), until the game ends, which must come before the step limit.
    Gives the game and the last ``info``."""
    env = gym.make(f"patience_gym/{env_id}", engine=engine)
    _, info = env.reset(seed=0)
    game = env.unwrapped.game  # type: ignore[attr-defined]
    term = False
    while not term:
        _, _, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[pick]))
        assert not trunc
    return game, info


def play_at_random(game: Any, rng: np.random.Generator, steps: int) -> list[int]:
    """Up to ``steps`` random legal moves of ``game`` from where it stands (fewer if it is won or
    stuck); the actions taken."""
    taken = []
    for _ in range(steps):
        mask = game.legal_mask()
        if game.won or not mask.any():
            break
        a = int(rng.choice(np.flatnonzero(mask)))
        game.apply(a)
        taken.append(a)
    return taken


def step_at_random(env: Any, info: dict[str, Any], rng: np.random.Generator, steps: int) -> Any:
    """Up to ``steps`` random legal steps of ``env`` (a gym env; ``info``: the last one it gave),
    fewer if the episode ends; the last observation (``None`` if no step was taken)."""
    obs = None
    for _ in range(steps):
        legal = np.flatnonzero(info["action_mask"])
        if not len(legal):
            break
        obs, _, terminated, truncated, info = env.step(int(rng.choice(legal)))
        if terminated or truncated:
            break
    return obs


def option_sets(variant: Variant) -> list[dict[str, Any]]:
    """The options of every run of ``variant`` that checks each option: none (the variant as
    registered), then each other allowed value of each option it leaves open, one at a time."""
    runs: list[dict[str, Any]] = [{}]
    for name, opt in variant.game.OPTIONS.items():
        fixed = variant.options.get(name, opt.default)
        runs += [{name: c} for c in opt.choices or () if c != fixed and name not in variant.options]
    return runs


def options_id(variant: Variant, options: dict[str, Any]) -> str:
    """A test id naming the variant and the options it runs with: ``Klondike-v0[draw=3]``."""
    return variant.env_name + "".join(f"[{k}={val}]" for k, val in options.items())


# ---- the solver ---------------------------------------------------------------------------------


def replay_wins(env_id: str, seed: int, actions: tuple[int, ...], **options: Any) -> bool:
    """Reset with ``seed``, step every action (each must be legal) and report whether the env says won."""
    env = gym.make(f"patience_gym/{env_id}", max_episode_steps=len(actions) + 10, **options)
    _, info = env.reset(seed=seed)
    terminated = False
    for i, a in enumerate(actions):
        assert not terminated, f"{env_id} seed {seed}: the game ended before action {i}"
        assert info["action_mask"][a], f"{env_id} seed {seed}: action {i} ({a}) is illegal"
        _, _, terminated, truncated, info = env.step(a)
        assert not truncated
    return bool(terminated and info["won"])


def plain_verdicts(variant: Any, options: Any, seeds: Any, budget: int) -> dict[int, str]:
    """The verdicts of the exact defaults (hooks off: whole-state keys, no safe move, no ordering)."""
    from patience_gym.native import _module
    from patience_gym.solver import solve_deal

    _module().solver_hooks(False)
    try:
        return {s: solve_deal(variant, options, seed=s, max_nodes=budget).label for s in seeds}
    finally:
        _module().solver_hooks(True)


def native_game(
    env_id: str,
    options: dict[str, Any] | None = None,
    *,
    seed: int | None = None,
    deck: list[str] | None = None,
) -> NativeGame:
    """A native game of ``env_id`` dealt from ``seed`` or from ``deck`` (the solver's hooks live on it)."""
    game = make_game(get_variant(env_id), "native", **(options or {}))
    assert isinstance(game, NativeGame)
    game.new_game(np.random.default_rng(seed) if seed is not None else None, deck)
    return game


def canonical_key(game: NativeGame) -> bytes:
    """The key the solver files ``game``'s position under (its hooks' canonical form)."""
    return bytes(game._c.canonical_key())


def state_key(game: NativeGame) -> bytes:
    """``game``'s whole position, as the exact defaults key it."""
    return bytes(game._c.state_key())


def check_a_win_the_search_misses(env_id: str, seed: int, budget: int, search: Callable[..., Any]) -> None:
    """The depth-first search leaves ``seed`` unknown within ``budget`` nodes; ``search()`` wins
    it, with a line that replays to a win, and finds the same line again (it is deterministic).
    ``search(variant, seed=seed)`` is that other search, ready to run."""
    from patience_gym.solver import solve_deal

    variant = get_variant(env_id)
    assert solve_deal(variant, seed=seed, max_nodes=budget).label == "unknown"
    label = search(variant, seed=seed)
    assert label.label == "won" and label.nodes > 0
    assert replay_wins(env_id, seed, label.actions)
    assert search(variant, seed=seed).actions == label.actions  # deterministic


# ---- the agents ---------------------------------------------------------------------------------


def hidden_rotated(pack: list[str], hidden: list[int]) -> list[str]:
    """``pack`` with the cards at the ``hidden`` positions rotated by one place: a deal the player
    cannot tell from ``pack`` until one of them turns up."""
    other = list(pack)
    for p, q in zip(hidden, np.roll(hidden, 1).tolist(), strict=True):
        other[p] = pack[q]
    assert other != pack
    return other


def features_agree_until_seen(
    env: gym.Env[np.ndarray, Any], name: str, read: Callable[[np.ndarray], tuple[bytes, np.ndarray]]
) -> int:
    """Play each of seeds 0-3 and the same deal with the later half of its unseen cards moved round
    (Nestor: its reserve), the same random legal moves on both, reading from each observation what
    the player sees and the features (``read``): the features must agree until what the player
    sees tells the deals apart. Gives the number of positions compared."""
    from patience_gym.core.cards import card_name
    from patience_gym.determinize import unseen_positions
    from patience_gym.games.nestor import rectified_deal

    game = env.unwrapped.game  # type: ignore[attr-defined]
    compared = 0
    for seed in range(4):
        env.reset(seed=seed)
        pack, hidden = game.deck(), unseen_positions(env)
        hidden = hidden[len(hidden) // 2 :]
        if name == "Nestor-v0":  # its deal moves cards: the deal as laid out, reserve last
            cols, reserve = rectified_deal(list(game.initial_pack))
            pack = [card_name(col[r]) for r in range(6) for col in cols] + [card_name(c) for c in reserve]
            hidden = [48, 49, 50, 51]
        traces = []
        for cards in (pack, hidden_rotated(pack, hidden)):
            obs, info = env.reset(options={"deck": cards})
            trace = [read(obs)]
            while len(trace) <= 200 and info["action_mask"].any():
                rng = np.random.default_rng(len(trace))  # the same choices on both deals
                obs, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
                trace.append(read(obs))
                if term or trunc:
                    break
            traces.append(trace)
        for (seen_a, f_a), (seen_b, f_b) in zip(*traces, strict=False):
            if seen_a != seen_b:
                break  # a hidden card has turned up: the player may now tell the deals apart
            assert np.array_equal(f_a, f_b), f"{name} seed {seed}: features differ with nothing seen"
            compared += 1
    return compared


#: A tiny run that clones greedy on 12 games and then takes 64 PPO steps (the imitation and move
#: feature tests both train it).
CLONING_RUN = [
    "imitation={teacher: greedy, episodes: 12, epochs: 15, batch_size: 64}",
    "total_timesteps=64",
    "ppo.n_steps=32",
    "ppo.batch_size=32",
    "eval_freq=32",
    "eval_episodes=4",
    "checkpoint_freq=0",
]


def agreement_share(lines: list[str]) -> float:
    """The share (%) of the teacher's decisions the cloned policy takes, from train's report."""
    agreement = [ln for ln in lines if "agrees with it on" in ln]
    assert agreement, lines
    return float(agreement[-1].split("agrees with it on ")[1].split("%")[0])


def interrupted_after(chunks: Callable[..., Iterator[T]], n: int) -> Callable[..., Iterator[T]]:
    """``chunks`` (a generator function such as ``solved_chunks``) that yields its first ``n``
    items and then raises ``KeyboardInterrupt``, as Ctrl-C would in the middle of a run."""

    def stopping(*args: Any, **kwargs: Any) -> Iterator[T]:
        for i, item in enumerate(chunks(*args, **kwargs)):
            yield item
            if i == n - 1:
                raise KeyboardInterrupt

    return stopping


def ctrl_c(
    args: list[str], until: Callable[[subprocess.Popen[str]], T], timeout: float
) -> tuple[int, T, str, str]:
    """Run ``patience-gym *args`` (as ``python -m patience_gym.agents.cli``) in a session of its own, wait
    with ``until(process)``, then interrupt its whole process group as Ctrl-C does. Gives the exit
    status, what ``until`` gave, and the output and errors; killed if not stopped by ``timeout``."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "patience_gym.agents.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        start_new_session=True,
        # A suite started in the background (`cmd &`) ignores SIGINT, and a child inherits that,
        # so Python would install no KeyboardInterrupt handler: give the child the default back.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        waited = until(proc)
        os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C does: to the whole process group
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    return proc.returncode, waited, out, err


def check_won_lines_avoid_dead_positions(
    env_name: str, options: dict[str, Any], file: str, least: int
) -> None:
    """Every won line of the label file ``file`` (``agents/data/labels/``), replayed on the native
    game of ``env_name`` with ``options``, wins without passing a position the solver's
    ``dead()`` calls lost (a dead position must be lost, and these lines win); at least ``least``
    lines, so that the check cannot pass on an empty file."""
    from patience_gym.agents.solving.labels import read_labels
    from patience_gym.solver import _dealt

    variant = get_variant(env_name)
    won = {s: lb for s, lb in read_labels(LABELS / file).items() if lb.label == "won"}
    assert len(won) > least
    for seed, lb in won.items():
        game = _dealt(variant, options, seed, None)
        for a in lb.actions:
            assert not game._c.dead(), f"{file} seed {seed}: a won line meets a dead position"
            game.apply(int(a))
        assert game.won


def dead_against_reference(
    games: dict[int, Any], reference: Callable[[Any], bool], steps: int, rng: np.random.Generator
) -> dict[bool, int]:
    """Play each game of ``games`` (by seed) at random for up to ``steps`` moves, asserting at every
    position that the native ``dead()`` says what ``reference`` (a Python rewrite of its
    definition) says; how often each answer was met."""
    seen = {True: 0, False: 0}
    for seed, game in games.items():
        for _ in range(steps):
            expected = reference(game)
            assert game._c.dead() == expected, f"seed {seed}: {game.render()}"
            seen[expected] += 1
            legal = np.flatnonzero(game.legal_mask())
            if legal.size == 0:
                break
            game.apply(int(rng.choice(legal)))
    return seen


def hidden_twin(env: gym.Env[Any, Any], seed: int) -> tuple[list[str], list[str]]:
    """The deal of ``seed`` and a twin that differs from it only in hidden cards: the later half of
    the positions unseen at the start dealt again at random (so the deals look alike for longer).
    Nestor's deal moves cards, so its pair is the deal as laid out, its reserve's last 4 permuted."""
    from patience_gym.core.cards import card_name
    from patience_gym.determinize import unseen_positions
    from patience_gym.games.nestor import rectified_deal

    core = env.unwrapped
    env.reset(seed=seed)
    pack, hidden = core.game.deck(), unseen_positions(env)  # type: ignore[attr-defined]
    hidden = hidden[len(hidden) // 2 :]
    if core.variant.env_name == "Nestor-v0":  # type: ignore[attr-defined]
        cols, reserve = rectified_deal(list(core.game.initial_pack))  # type: ignore[attr-defined]
        pack = [card_name(col[r]) for r in range(6) for col in cols] + [card_name(c) for c in reserve]
        hidden = [48, 49, 50, 51]
    other = list(pack)
    for p, q in zip(hidden, np.random.default_rng(seed).permutation(hidden).tolist(), strict=True):
        other[p] = pack[q]
    return pack, other


def choice_trace(
    env: gym.Env[Any, Any], policy: Any, seed: int, deck: list[str], steps: int
) -> list[tuple[bytes, int, bool]]:
    """``policy`` (reset with ``seed``) playing ``deck`` for at most ``steps`` moves: at each move
    the observation it saw, its choice, and whether the choice was forced (one legal move)."""
    obs, info = env.reset(seed=seed, options={"deck": deck})
    policy.reset(seed)
    trace: list[tuple[bytes, int, bool]] = []
    for _ in range(steps):
        if not info["action_mask"].any():
            break
        forced = int(info["action_mask"].sum()) == 1
        a = policy(env.unwrapped, obs)
        assert info["action_mask"][a], f"seed {seed}: illegal action {a}"
        trace.append((obs.tobytes(), a, forced))
        obs, _, term, trunc, info = env.step(a)
        assert not info["illegal_action"]
        if term or trunc:
            break
    return trace


def same_choices_until_told_apart(traces: list[list[tuple[bytes, int, bool]]], what: str) -> int:
    """Two :func:`choice_trace` runs on deals that differ only in hidden cards: assert the same
    choices while the observations agree; the number of those that were not forced."""
    chosen = 0
    for (obs_a, a, forced), (obs_b, b, _) in zip(*traces, strict=False):
        if obs_a != obs_b:
            break  # a hidden card has turned up: the player may now tell the deals apart
        assert a == b, f"{what}: a choice differs with nothing seen"
        chosen += not forced
    return chosen


def check_blind_to_hidden_cards(env: gym.Env[Any, Any], make: Callable[[], Any], steps: int) -> None:
    """A fresh policy from ``make`` on deals 0-2 and on their :func:`hidden_twin`: the same choices
    until an observation tells the deals apart, and at least 5 of them real choices (not forced)."""
    chosen = 0
    for seed in range(3):
        traces = [choice_trace(env, make(), seed, deck, steps) for deck in hidden_twin(env, seed)]
        chosen += same_choices_until_told_apart(
            traces, f"{env.unwrapped.spec.id if env.unwrapped.spec else env} seed {seed}"
        )
    assert chosen >= 5, "too few real choices (not forced) before the deals could be told apart"


def greedy_start(env: gym.Env[Any, Any], seed: int, moves: int) -> tuple[np.ndarray, list[int]]:
    """Deal ``seed`` on ``env`` and play greedy's first ``moves`` moves: the observation then and
    the actions played (a position a little into the game, for the planners' tests)."""
    from patience_gym.agents.policies.base import GreedyPolicy

    obs, _ = env.reset(seed=seed)
    greedy, played = GreedyPolicy(), []
    greedy.reset(seed)
    for _ in range(moves):
        played.append(greedy(env.unwrapped, obs))  # type: ignore[arg-type]
        obs, *_ = env.step(played[-1])
    return obs, played
