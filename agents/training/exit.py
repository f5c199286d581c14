"""Expert iteration, the labels (issue 46): a search plays training deals and says, at every
decision, how its vote fell over the legal moves; the deal's outcome is the value target.

A *labelling run* is a folder: ``run.json`` (variant, options, labeller's spec, first seed, games a
chunk, who played) and ``chunk-00000.jsonl.gz``, ``chunk-00001.jsonl.gz``, ...: chunk ``c`` holds
the games of seeds ``first_seed + c * chunk_games`` up to the next chunk's, one JSON line each::

    {"seed": 2000000, "actions": [12, 3, ...], "won": true, "cards": 104, "seconds": 4.1,
     "decisions": [[0, [3, 12], [0.25, 0.75]], ...], "how": "ssp..."}

``actions`` is every move played; a decision is ``[t, moves, shares]``: before move ``t`` the search
gave the legal ``moves`` these vote ``shares`` (sparse: moves with no vote left out), and ``how[i]``
says how decision ``i`` was made (the planner's ``how``'s first letter: ``p`` a plan followed, ``s``
solved now, ``g`` greedy's fallback; the ``safe`` teacher's: ``g`` greedy's move kept, ``o`` greedy's
overridden, ``l`` the deal found lost). A move with one legal choice is no decision. Observations are
not stored: :func:`replay` deals the seed again and plays the actions (130 moves: about 1 KB).

A chunk is written to a temporary name and renamed when its last game is done: a stopped run loses
only the chunk under way, and :func:`label` run again on the folder skips the finished chunks (its
settings must match ``run.json``). Deals: labelling plays seeds from :data:`EXIT_DEAL_SEED`
(2,000,000), the DAgger rounds from :data:`DAGGER_DEAL_SEED` up, 100,000 a round: above the PPO
training deals (1,000,000 up), far from the held-out seeds (0-999) and the models' check (5,000 up).
"""

from __future__ import annotations

import gzip
import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.env import PatienceEnv

from ..common.config import ConfigError, parse_override
from ..policies.planner import ROW_SETTINGS
from .exit_decisions import Collected, Decisions

__all__ = [
    "CHUNK_GAMES",
    "DAGGER_DEAL_SEED",
    "DEFAULT_CHUNK_GAMES",
    "DEFAULT_LABELLER",
    "EXIT_DEAL_SEED",
    "Decisions",
    "GameRecord",
    "LabelRun",
    "env_options",
    "finished_chunks",
    "interchangeable",
    "label",
    "label_game",
    "make_env",
    "read_games",
    "replay",
    "view_options",
]

#: The first labelling deal (seeds ``EXIT_DEAL_SEED`` up).
EXIT_DEAL_SEED = 2_000_000
#: The first deal of DAgger round 1; round ``r`` plays from ``DAGGER_DEAL_SEED + (r - 1) * 100_000``.
DAGGER_DEAL_SEED = 3_000_000
#: The labeller by variant: the planner of the variant's results row (results/results.md).
DEFAULT_LABELLER: dict[str, str] = {env: f"planner:{s}" for env, s in ROW_SETTINGS.items()}
#: Games a chunk file by variant (else :data:`CHUNK_GAMES`): a few thousand decisions a chunk.
DEFAULT_CHUNK_GAMES: dict[str, int] = {"Nestor-v0": 500}
CHUNK_GAMES = 50
RUN_FILE = "run.json"


def make_env(env_id: str, options: dict[str, Any] | None = None) -> gym.Env[np.ndarray, Any]:
    """The registered env (``Babette-v0`` or ``patience_gym/Babette-v0``) with ``options``."""
    name = env_id if "/" in env_id else f"patience_gym/{env_id}"
    return gym.make(name, **(options or {}))


def view_options(env: str, texts: list[str]) -> dict[str, Any]:
    """``NAME=VALUE`` texts as the env's view options (``Option.view_only``: the play is the same
    under every value, so labels replay alike); ``ValueError`` names the view options there are."""
    return env_options(env, texts, flag="--view", view_only=True)


def env_options(
    env: str, texts: list[str], *, flag: str = "--option", view_only: bool = False
) -> dict[str, Any]:
    """``NAME=VALUE`` texts as options of ``env`` (only its view options with ``view_only``), each
    validated as the env validates it; ``ValueError`` (naming ``flag``) lists the options there are."""
    game = make_env(env).unwrapped.game  # type: ignore[attr-defined]
    names = sorted(name for name, opt in game.OPTIONS.items() if opt.view_only or not view_only)
    kind, article = ("view option", "a") if view_only else ("option", "an")
    out: dict[str, Any] = {}
    for text in texts:
        try:
            (name, *_), value = parse_override(text)
        except ConfigError as exc:
            raise ValueError(f"{flag} {text!r}: {exc}") from None
        if name not in names:
            listed = ", ".join(names) or "none"
            raise ValueError(f"{flag} {text!r}: not {article} {kind} of {env} (its {kind}s: {listed})")
        try:
            out[name] = game.OPTIONS[name].validate(game.name, name, value)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{flag} {text!r}: {exc}") from None
    return out


@dataclass(frozen=True)
class LabelRun:
    """What a labelling folder holds (its ``run.json``)."""

    env: str
    options: dict[str, Any]
    labeller: str
    first_seed: int = EXIT_DEAL_SEED
    chunk_games: int = CHUNK_GAMES
    player: str | None = None
    """``None``: the labeller plays its own advice; else a model file the network of
    :mod:`patience_gym.agents.policies.exit_net` plays from, the labeller advising (a DAgger round)."""
    targets: str = "vote"
    """The policy target: ``vote`` the labeller's ``vote_shares()`` where it has them (else all on
    its move); ``visits`` its ``visit_shares()`` (the ``macro`` planner's bandit: the sampled deals
    each move's best-judged candidate met, as shares)."""

    def seeds(self, chunk: int) -> range:
        start = self.first_seed + chunk * self.chunk_games
        return range(start, start + self.chunk_games)


@dataclass
class GameRecord:
    """One labelled game (module docstring)."""

    seed: int
    actions: list[int] = field(default_factory=list)
    decisions: list[tuple[int, list[int], list[float]]] = field(default_factory=list)
    how: str = ""
    won: bool = False
    cards: int = 0
    seconds: float = 0.0

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @staticmethod
    def from_json(line: str) -> GameRecord:
        d = json.loads(line)
        d["decisions"] = [(int(t), list(m), list(s)) for t, m, s in d["decisions"]]
        return GameRecord(**d)


#: What a labelling run's ``targets`` may be (:class:`LabelRun`), and the labeller's method for each.
TARGETS = {"vote": "vote_shares", "visits": "visit_shares"}


def _shares_of(labeller: Any, action: int, targets: str = "vote") -> dict[int, float]:
    """The labeller's shares over the moves (its ``vote_shares()``, or ``visit_shares()`` for
    ``targets="visits"``), or all on its advice where it has no vote."""
    shares = getattr(labeller, TARGETS[targets], None)
    if shares is None and targets != "vote":
        raise ValueError(f"targets={targets!r}: the labeller has no {TARGETS[targets]}()")
    return dict(shares()) if shares is not None else {action: 1.0}


def label_game(
    env: gym.Env[np.ndarray, Any], labeller: Any, seed: int, player: Any = None, targets: str = "vote"
) -> GameRecord:
    """Deal ``seed`` and play it to the end: ``labeller`` plays (or, with a ``player``, advises at
    each decision while ``player`` plays, as a DAgger round does; the labeller must then have
    ``advise`` and ``commit``). Every decision with a choice is recorded with the labeller's shares."""
    start = time.process_time()
    obs, info = env.reset(seed=seed)
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    labeller.reset(seed)
    if player is not None:
        player.reset(seed)
    record = GameRecord(seed=seed)
    done = not core.action_masks().any()  # a deal with no legal move is lost at once
    while not done:
        legal = np.flatnonzero(core.action_masks())
        if player is None:
            advised = played = int(labeller(core, obs))
        else:
            advised = int(labeller.advise(core, obs))
            played = int(player(core, obs))
            labeller.commit(core, played)
        if len(legal) > 1:
            shares = _shares_of(labeller, advised, targets)
            moves = sorted(shares)
            record.decisions.append((len(record.actions), moves, [round(shares[a], 4) for a in moves]))
            record.how += (getattr(labeller, "how", "") or "?")[0]
        record.actions.append(played)
        obs, _, terminated, truncated, info = env.step(played)
        done = bool(terminated or truncated)
    record.won = bool(info.get("won"))
    record.cards = int(core.game.foundation_cards)
    record.seconds = round(time.process_time() - start, 3)
    return record


def chunk_path(folder: Path, chunk: int) -> Path:
    return folder / f"chunk-{chunk:05d}.jsonl.gz"


def finished_chunks(folder: Path) -> list[int]:
    """The chunks written in full, ascending."""
    return sorted(int(p.name[6:11]) for p in folder.glob("chunk-*.jsonl.gz"))


def read_run(folder: Path) -> LabelRun:
    return LabelRun(**json.loads((folder / RUN_FILE).read_text()))


def open_run(folder: Path, run: LabelRun) -> None:
    """Create ``folder`` with ``run.json``, or check that an existing one was started alike."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / RUN_FILE
    if path.exists():
        old = read_run(folder)
        if old != run:
            raise ValueError(
                f"{folder} holds a labelling run with other settings ({asdict(old)}); resume it "
                f"with those, or give another folder"
            )
        return
    path.write_text(json.dumps(asdict(run), indent=1) + "\n")


def read_games(folder: Path | str) -> Iterator[GameRecord]:
    """Every game of a labelling folder's finished chunks, in seed order."""
    folder = Path(folder)
    for chunk in finished_chunks(folder):
        with gzip.open(chunk_path(folder, chunk), "rt") as f:
            for line in f:
                yield GameRecord.from_json(line)


def count_decisions(folder: Path) -> tuple[int, int]:
    """(games, decisions) in a folder's finished chunks."""
    games = decisions = 0
    for g in read_games(folder):
        games += 1
        decisions += len(g.decisions)
    return games, decisions


def label_chunk(
    run: LabelRun,
    folder: Path,
    chunk: int,
    labeller: Any,
    player: Any = None,
    on_game: Callable[[GameRecord], None] | None = None,
) -> list[GameRecord]:
    """Play the chunk's games and write its file (atomically: a temporary name, then renamed)."""
    env = make_env(run.env, run.options)
    records = []
    for seed in run.seeds(chunk):
        records.append(label_game(env, labeller, seed, player, run.targets))
        if on_game is not None:
            on_game(records[-1])
    env.close()  # type: ignore[no-untyped-call, unused-ignore]
    path = chunk_path(folder, chunk)
    tmp = path.with_suffix(".tmp")
    with gzip.open(tmp, "wt") as f:
        for r in records:
            f.write(r.to_json() + "\n")
    os.replace(tmp, path)
    return records


def label(
    folder: Path | str,
    run: LabelRun,
    *,
    chunks: int,
    make_labeller: Callable[[], Any],
    make_player: Callable[[], Any] | None = None,
    report: Callable[[str], None] = print,
) -> int:
    """Label chunks ``0 .. chunks - 1`` of ``run`` into ``folder``, skipping those finished;
    return how many were written now."""
    folder = Path(folder)
    open_run(folder, run)
    todo = [c for c in range(chunks) if c not in set(finished_chunks(folder))]
    if not todo:
        return 0
    labeller, player = make_labeller(), make_player() if make_player is not None else None
    for chunk in todo:
        label_chunk(run, folder, chunk, labeller, player)
        report(f"{folder}: chunk {chunk} written")
    return len(todo)


def _keys(core: PatienceEnv, actions: list[int]) -> list[object]:
    """The position's key before each move of ``actions`` from the current position, and after."""
    game = core.game.clone()
    keys = [game.state_key()]
    for a in actions:
        game.apply(a)
        keys.append(game.state_key())
    return keys


def interchangeable(game: Any, actions: list[int], t: int, keys: list[object], ahead: int) -> list[int]:
    """The moves among the next ``ahead`` played after move ``t`` that could be played at ``t``
    instead (ascending): ``b``, played at ``j``, is legal at ``t`` (``game``, not changed) and ``b``
    then moves ``t .. j - 1`` reach the position after move ``j`` (``keys[i]``: before move ``i``)."""
    out = set()
    for j in range(t + 1, min(len(actions), t + 1 + ahead)):
        b = actions[j]
        if b == actions[t] or b in out or not game.is_legal(b):
            continue
        trial = game.clone()
        trial.apply(b)
        for a in actions[t:j]:
            if not trial.is_legal(a):
                break
            trial.apply(a)
        else:
            if j + 1 < len(keys) and trial.state_key() == keys[j + 1]:
                out.add(b)
    return sorted(out)


def replay(
    env_id: str,
    options: dict[str, Any],
    games: Iterator[GameRecord] | list[GameRecord],
    interchange: int = 0,
    inputs: str = "native",
    skip_lost: bool = False,
    won_at: Callable[[GameRecord, int], float] | None = None,
) -> Decisions:
    """Deal each game's seed again, play its actions, and collect every recorded decision's
    observation, legal moves' features (:func:`patience_gym.move_features.move_features`) and
    targets. ``ValueError`` where a recorded move is not legal (another variant's or options' file).

    With ``interchange=N``, a share all on one move is split evenly with the next ``N`` moves played
    that could come first and reach the same position (:func:`interchangeable`): the planner names
    one move of a solved line where several commute, which the position does not show.

    ``inputs``: the per-move features the net will read
    (:class:`~patience_gym.agents.policies.exit_net.NetInputs`), computed at every step as the net
    computes them when it plays. ``skip_lost``: leave out the decisions the labeller marked lost
    (``how`` ``l``: the ``safe`` teacher found no move won there, so its move is greedy's, whatever
    the position needs). ``won_at(game, t)``: the value target of the position before move ``t``
    in place of the game's outcome (the solver's verdicts: :mod:`.exit_verdicts`)."""
    from ..policies.exit_net import NetInputs

    features = NetInputs(inputs)
    env = make_env(env_id, options)
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    win_cards = core.game.win_cards
    out = Collected()
    n_games = 0
    for g in games:
        n_games += 1
        obs, _ = env.reset(seed=g.seed)
        features.reset()
        hows = g.how or "?" * len(g.decisions)
        by_step = {
            t: (m, s) for (t, m, s), h in zip(g.decisions, hows, strict=True) if not (skip_lost and h == "l")
        }
        keys = _keys(core, g.actions) if interchange else []
        for t, a in enumerate(g.actions):
            mask = core.action_masks()
            if not mask[a]:
                raise ValueError(f"seed {g.seed}: move {t} ({a}) is not legal in {env_id} {options}")
            feats = features(core)
            features.played(a)
            if t in by_step:
                moves, shares = by_step[t]
                share = dict(zip(moves, shares, strict=True))
                if interchange and len(moves) == 1:
                    same = [moves[0], *interchangeable(core.game, g.actions, t, keys, interchange)]
                    share = dict.fromkeys(same, 1.0 / len(same))
                won = g.won if won_at is None else won_at(g, t)
                out.add(obs, np.flatnonzero(mask), feats, share, won, g.cards / win_cards)
            obs, *_ = env.step(a)
    env.close()  # type: ignore[no-untyped-call, unused-ignore]
    k = int(features(core).shape[1])
    obs_size = int(env.observation_space.shape[0])  # type: ignore[index]
    return out.decisions(obs_size, int(core.game.n_actions), k, n_games)
