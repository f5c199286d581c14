"""Winnability with every card seen: the native engine's perfect-information solver.

A deal is **won** when a player who could see every card (hidden ones included) can win it, with
a winning line of actions that replays through ``gym.make``; **lost** when the search proved no
line wins (every position reachable from the deal was searched); **unknown** when the node or
time budget ran out first. ``src/native/solver.hpp`` documents the search (depth-first, a
transposition table on canonical positions, move ordering, only provably safe pruning) and each
variant's ``canonical_key`` / ``safe_move`` override documents why it is safe.

The deal of seed ``s`` is the one ``env.reset(seed=s)`` deals: a pack shuffled by
``numpy.random.default_rng(s)`` (Gymnasium's ``np_random(s)`` is the same generator).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from patience_gym.games import Variant
from patience_gym.native import NativeGame, _module, make_game

__all__ = [
    "VERDICTS",
    "Label",
    "MacroDecision",
    "beam",
    "dive",
    "has_beam_layers",
    "lost_table",
    "macro_decide",
    "ordering_pick",
    "rollout_values",
    "seen_hash",
    "solve_deal",
    "solve_line",
    "uct_search",
    "value_net",
]

#: What the solver can answer about a deal.
VERDICTS = ("won", "lost", "unknown")


@dataclass(frozen=True)
class Label:
    """The solver's answer for one deal."""

    seed: int | None  #: the reset seed that dealt it (None for a user's deck)
    label: str  #: "won", "lost" or "unknown"
    nodes: int  #: positions generated
    seconds: float
    actions: tuple[int, ...] = field(default=())  #: a winning line when won
    #: the most foundation cards on a position the search entered (0 where not known, as for
    #: labels read from a file), and the actions to the first such: a planner's best guess when
    #: the budget ran out before a win
    best_cards: int = 0
    best_line: tuple[int, ...] = field(default=())

    @property
    def length(self) -> int:
        return len(self.actions)


#: The native LostTable (src/native/solver.hpp): positions of one deal proven lost, kept between
#: solves of it. Opaque here: made by :func:`lost_table`, passed back to the solves.
LostTable = Any


def _check_positive(value: object, what: str) -> None:
    """Refuse anything but a whole number > 0 (a bool is not one) for the budget named ``what``."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{what} must be a positive integer, got {value!r}")


def _check_probe(probe_nodes: int, max_nodes: int) -> None:
    if isinstance(probe_nodes, bool) or not isinstance(probe_nodes, int) or not 0 <= probe_nodes <= max_nodes:
        raise ValueError(
            f"the probe's nodes must be an integer from 0 to the budget {max_nodes}, got {probe_nodes!r}"
        )


# solve_deal, dive, nested_rollout and beam take the same arguments first (the variant, its
# options, then a seed or a deck, by keyword), so that a caller asks each search alike: their
# signatures repeat by design (a scan for repeated code pairs them), each search's body is its own.
def solve_deal(
    variant: Variant,
    options: Mapping[str, Any] | None = None,
    *,
    seed: int | None = None,
    deck: object = None,
    max_nodes: int = 2_000_000,
    max_seconds: float | None = None,
    probe_nodes: int = 0,
    dominances: bool = True,
    table: LostTable | None = None,
) -> Label:
    """Solve the deal of ``seed`` (as ``reset(seed=seed)`` deals it) or the user's ``deck``.

    ``probe_nodes``: the first nodes of ``max_nodes`` go to a limited discrepancy search, which
    finds wins that lie close to the move ordering's first choices (docs/solver.md); it never
    answers lost, and the exhaustive search has the rest of the budget. ``dominances``: the
    proven dominances (docs/solver.md; False: the search before them, for comparison).
    ``table``: a :func:`lost_table` of this deal, so that a later solve of it (a larger budget)
    skips what this one proved lost.
    """
    _check_positive(max_nodes, "the node budget")
    if max_seconds is not None and not max_seconds > 0:
        raise ValueError(f"the time budget must be a positive number of seconds, got {max_seconds!r}")
    _check_probe(probe_nodes, max_nodes)
    game = _dealt(variant, options, seed, deck)
    verdict, actions, nodes, _positions, seconds, best, best_line = _module().solve(
        game._c, max_nodes, max_seconds or 0.0, probe_nodes, dominances, table
    )
    return Label(seed, verdict, int(nodes), float(seconds), _ints(actions), int(best), _ints(best_line))


def lost_table() -> LostTable:
    """An empty table of positions proven lost, to share between solves of one deal (and the
    positions reached from it) with the same solver settings: each solve skips what an earlier
    one proved lost and adds what it proves (``len(table)``: how many are kept)."""
    return _module().LostTable()


def value_net() -> Any:
    """An empty native ``ValueNet`` (macro.hpp): ``add(weights, biases, inputs, outputs)`` appends a
    layer; ``net(game)`` is the probability of its first output on the game's observation."""
    return _module().ValueNet()


def _dealt(variant: Variant, options: Mapping[str, Any] | None, seed: int | None, deck: object) -> NativeGame:
    """A native game of ``variant`` dealt from ``seed`` (as ``reset(seed=seed)`` deals) or ``deck``."""
    if (seed is None) == (deck is None):
        raise ValueError("give exactly one of seed= or deck=")
    game = make_game(variant, "native", **dict(options or {}))
    assert isinstance(game, NativeGame)
    game.new_game(np.random.default_rng(seed) if seed is not None else None, deck)
    return game


def solve_line(
    variant: Variant,
    options: Mapping[str, Any] | None,
    deck: object,
    actions: Sequence[int] = (),
    *,
    max_nodes: int = 100_000,
    probe_nodes: int = 0,
    dominances: bool = False,
) -> Label:
    """Solve the position reached by dealing ``deck`` and playing ``actions`` (each must be legal).

    The planner's question on a sampled deal: can the game still be won from here, and how? The
    label's ``actions`` continue from the position (``actions`` themselves not included).
    ``probe_nodes`` and ``dominances`` as for :func:`solve_deal`; the dominances are off by default
    here, so that the planner's rows (agents/policies/planner.py) stay what they were measured as.
    """
    _check_positive(max_nodes, "the node budget")
    _check_probe(probe_nodes, max_nodes)
    game = _replayed(variant, options, deck, actions)
    result = _module().solve(game, max_nodes, 0.0, probe_nodes, dominances)
    verdict, line, nodes, _positions, seconds, best, best_line = result
    return Label(None, verdict, int(nodes), float(seconds), _ints(line), int(best), _ints(best_line))


def rollout_values(
    variant: Variant,
    options: Mapping[str, Any] | None,
    deck: object,
    actions: Sequence[int],
    moves: Sequence[int],
    max_steps: int,
) -> list[int]:
    """Each of ``moves`` played in the position reached by dealing ``deck`` and playing ``actions``,
    then the rollout base policy for at most ``max_steps - 1`` more actions
    (``src/native/rollout.hpp``: single legal actions only, never back to a position met, most
    foundation cards won, then the variant's move priority): the foundation cards each ends with.

    The planner's value of a move on a sampled deal (``rollouts=N``, agents/policies/planner.py).
    """
    if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
        raise ValueError(f"max_steps must be a whole number >= 1, got {max_steps!r}")
    game = _replayed(variant, options, deck, actions)
    return [int(v) for v in _module().rollouts(game, [int(m) for m in moves], max_steps)]


@dataclass(frozen=True)
class UctResult:
    """What :func:`uct_search` found at the root: each legal action (ascending), the walks through
    it and their mean value; the tree's information states, and the rollouts' macro moves (or the
    solver's nodes, with ``leaf_nodes``)."""

    actions: tuple[int, ...]
    visits: tuple[int, ...]
    values: tuple[float, ...]
    nodes: int
    work: int


def uct_search(
    variant: Variant,
    options: Mapping[str, Any] | None,
    decks: Sequence[object],
    actions: Sequence[int],
    *,
    iterations: int,
    rollout_moves: int,
    max_depth: int,
    exploration: float,
    visited: Sequence[int] = (),
    leaf_nodes: int = 0,
    discount: float = 1.0,
) -> UctResult:
    """Information-set UCT (``src/native/uct.hpp``) from the position reached by playing
    ``actions`` on each of ``decks`` (deals the player cannot tell apart: see
    :func:`patience_gym.determinize.consistent_deck`), never moving back to a position whose
    :func:`seen_hash` is in ``visited``. The ``uct`` policy's search (agents/policies/uct.py)."""
    if not decks:
        raise ValueError("uct_search needs at least one deck")
    games = [_replayed(variant, options, deck, actions) for deck in decks]
    found = _module().uct_search(
        games,
        iterations,
        rollout_moves,
        max_depth,
        exploration,
        [int(v) for v in visited],
        leaf_nodes,
        discount,
    )
    acts, visits, values, nodes, work = found
    return UctResult(_ints(acts), _ints(visits), tuple(float(v) for v in values), int(nodes), int(work))


@dataclass(frozen=True)
class MacroDecision:
    """What :func:`macro_decide` found: each candidate (a line of quiet actions, then the one that
    shows a card or wins one), the sampled deals it was judged on, how many it won and its summed
    value; the index of the chosen one (-1: none); when nothing is hidden and the real deal was
    won, its whole winning line (``plan``); the solver's nodes, the quiet region's positions and
    the deals dealt."""

    lines: tuple[tuple[int, ...], ...]
    plays: tuple[int, ...]
    wins: tuple[int, ...]
    values: tuple[float, ...]
    chosen: int
    plan: tuple[int, ...]
    nodes: int
    region: int
    deals: int


def macro_decide(
    variant: Variant,
    options: Mapping[str, Any] | None,
    frame: Sequence[int],
    unseen: Sequence[int],
    actions: Sequence[int],
    *,
    samples: int,
    batch: int,
    solve_nodes: int,
    exploration: float,
    cards: float,
    region: int,
    known_nodes: int,
    max_nodes: int = 0,
    max_seconds: float = 0.0,
    seed: int = 0,
    race: float = 0.0,
    tie: float = 0.03,
    all_won: bool = True,
    dominances: bool = False,
    table: LostTable | None = None,
    one_per_event: bool = False,
    probe_nodes: int = 0,
    deepen: int = 0,
    silent_first: bool = False,
    rollout: bool = False,
    fixed: Sequence[int] = (),
    dig: float = 0.0,
    beam: int = 0,
    prior: Sequence[float] = (),
    keep: int = 0,
    value_net: Any = None,
    skip_decided: bool = False,
) -> MacroDecision:
    """The macro planner's decision (``src/native/macro.hpp``) in the position reached by dealing
    ``frame`` and playing ``actions``, the cards at positions ``unseen`` hidden
    (:func:`patience_gym.determinize.hidden_frame` gives both). The ``macro`` policy's search
    (agents/policies/macro.py). ``table``: a :func:`lost_table` kept across one game's decisions,
    which the solve of the real deal (once nothing is hidden) reads and adds to. ``one_per_event``:
    one candidate per event (its last action), the shortest line to it. ``probe_nodes`` > 0: each
    sampled deal is judged by the solver with a probe of that many of its ``solve_nodes``.
    ``deepen`` > 0: when no candidate has won one deal of two batches, the bandit starts again with
    searches four times as large, at most that many times (0 to 8). ``silent_first``: when no
    candidate has won one of its deals at the moment of choosing, the ordering's first is played
    rather than the most sampled. ``rollout``: a sampled deal not won by its capped search is scored
    by the better of its foundation share and that of a rollout of the base policy to the end.
    ``fixed``: positions of ``unseen`` whose card the search knows (the frame holds it): a move that
    shows one still ends a candidate, and the sampled deals keep it where it lies. ``dig`` > 0: a
    capped search not won counts each face-down card it turned up as ``dig`` of a foundation card
    (Klondike's piles; macro.hpp). ``beam`` > 0: each sampled deal is judged by the layered beam
    search of that width (:func:`beam`) with at most ``solve_nodes`` nodes; the variant must have
    beam layers (:func:`has_beam_layers`). ``prior``: a policy's weight for every action id (empty:
    none); where cards are hidden the candidates are ranked by their line's first move's weight, and
    with ``keep`` > 0 only the first ``keep`` are judged (macro.hpp). ``value_net``: a native
    ``ValueNet`` (``patience_gym.agents.policies.exit_net.native_value_net``), or None: a sampled
    deal not won scores ``cards`` times its won probability of where the candidate's line led.
    ``skip_decided``: the batch that would bring the candidate picked to ``samples`` is not dealt
    where nothing in it could change the choice: the same moves, fewer searches (macro.hpp)."""
    proto = _prototype(variant, options)
    found = _module().macro_decide(
        proto._c, [int(c) for c in frame], [int(p) for p in unseen], [int(a) for a in actions],
        samples, batch, solve_nodes, exploration, cards, region, known_nodes, max_nodes, max_seconds, seed,
        race, tie, all_won, dominances, table, one_per_event, probe_nodes, deepen, silent_first, rollout,
        [int(p) for p in fixed], float(dig), int(beam), [float(w) for w in prior], int(keep), value_net,
        bool(skip_decided),
    )  # fmt: skip
    return _decision(found)


_PROTOTYPES: dict[tuple[str, type[Any], str], NativeGame] = {}


def _prototype(variant: Variant, options: Mapping[str, Any] | None) -> NativeGame:
    """A native game of ``variant`` with ``options``, never dealt, which the native search only
    reads; made once and kept for the next decisions (a planner asks at each of them)."""
    key = (variant.env_name, variant.game, repr(sorted((options or {}).items())))
    if key not in _PROTOTYPES:
        if len(_PROTOTYPES) >= 32:
            _PROTOTYPES.clear()
        game = make_game(variant, "native", **dict(options or {}))
        assert isinstance(game, NativeGame)
        _PROTOTYPES[key] = game
    return _PROTOTYPES[key]


def _decision(found: Any) -> MacroDecision:
    """:class:`MacroDecision` from the native ``macro_decide``'s tuple, in its order."""
    lines, plays, wins, values, chosen, plan, nodes, region, deals = found
    return MacroDecision(
        tuple(_ints(line) for line in lines),
        _ints(plays),
        _ints(wins),
        tuple(float(v) for v in values),
        int(chosen),
        _ints(plan),
        int(nodes),
        int(region),
        int(deals),
    )


def seen_hash(observation: np.ndarray) -> int:
    """A 64-bit hash of what the player sees: an observation as the env returns it (equal on every
    deal consistent with what was seen). :func:`uct_search`'s ``visited`` holds these."""
    obs = np.ascontiguousarray(observation, dtype=np.float32).reshape(-1)
    return int(_module().observation_hash(obs))


def ordering_pick(
    variant: Variant,
    options: Mapping[str, Any] | None,
    deck: object,
    actions: Sequence[int],
    moves: Sequence[int],
) -> int:
    """Of ``moves`` (legal in the position reached by dealing ``deck`` and playing ``actions``), the
    one the rollout base policy plays (``src/native/rollout.hpp``): the most foundation cards won,
    then the variant's highest move priority (the solver's ordering), then the lowest id."""
    game = _replayed(variant, options, deck, actions)
    return int(_module().ordering_pick(game, [int(m) for m in moves]))


def _replayed(
    variant: Variant, options: Mapping[str, Any] | None, deck: object, actions: Sequence[int]
) -> Any:
    """The native game (the module's object) dealt from ``deck`` with ``actions`` played."""
    game = make_game(variant, "native", **dict(options or {}))
    assert isinstance(game, NativeGame)
    game.new_game(None, deck)
    for a in actions:
        game._c.apply(int(a))  # checked: an illegal id raises instead of corrupting the game
    return game._c


def _ints(actions: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(a) for a in actions)


def dive(
    variant: Variant,
    options: Mapping[str, Any] | None = None,
    *,
    seed: int | None = None,
    deck: object = None,
    move_nodes: int = 2_000,
    max_moves: int | None = None,
) -> Label:
    """Look for a win by committing to one move at a time, with every card known.

    At each position, every legal move is tried and the solver searches on from it with
    ``move_nodes`` nodes: a search that wins ends the dive with its line; otherwise the move whose
    search reached the most foundation cards is played (ties: the lowest id), never one back to a
    position the dive has been in nor one whose search proved it lost. The dive stops when it
    wins, when no move leads anywhere new, or after ``max_moves`` moves (default the variant's
    step limit).

    It never backtracks, so it answers **won** or **unknown**, never lost. It finds wins far from
    the depth-first search's first choices, where that search commits early and cannot get back
    (docs/solver.md: St. Louis); ``nodes`` counts every node of every search.
    """
    _check_positive(move_nodes, "the nodes per move")
    start = time.perf_counter()
    g, solve = _dealt(variant, options, seed, deck)._c, _module().solve
    table = lost_table()  # every search of the dive is from this deal: each skips what others proved lost
    line: list[int] = []
    seen = {bytes(g.state_key())}
    nodes = 0
    for _ in range(max_moves or variant.max_episode_steps):
        best: tuple[int, int, Any, bytes] | None = None  # cards reached, action, position after it, its key
        for a in np.flatnonzero(g.mask()).tolist():
            child = g.clone()
            child.apply(a)
            key = bytes(child.state_key())
            if key in seen:
                continue
            verdict, won_line, spent, _positions, _s, cards, _best_line = solve(
                child, move_nodes, 0.0, 0, True, table
            )
            nodes += int(spent)
            if verdict == "won":
                actions = (*line, a, *(int(x) for x in won_line))
                return Label(seed, "won", nodes, time.perf_counter() - start, actions)
            if verdict == "lost":  # proven: nothing behind it wins, so never commit to it
                continue
            if best is None or cards > best[0]:
                best = (int(cards), a, child, key)
        if best is None:
            break
        _cards, a, g, key = best
        line.append(a)
        seen.add(key)
    return Label(seed, "unknown", nodes, time.perf_counter() - start)


def nested_rollout(
    variant: Variant,
    options: Mapping[str, Any] | None = None,
    *,
    seed: int | None = None,
    deck: object = None,
) -> Label:
    """Look for a win by a nested rollout search (level 1, Cazenave's nested Monte-Carlo search),
    with every card known.

    At each position every legal move is played and the game rolled out from it by the rollout base
    policy (``src/native/rollout.hpp``); the best line found so far (the move, then its rollout) is
    remembered, replaced only by a line that ends with more foundation cards, and its first move is
    played. The line followed therefore never ends with fewer cards than any rollout met, and a
    rollout that wins is a winning line. The whole line keeps within the variant's step limit.

    It answers **won** or **unknown**, never lost; ``nodes`` counts the rollouts' starting moves.
    """
    start = time.perf_counter()
    g, module = _dealt(variant, options, seed, deck)._c, _module()
    limit = variant.max_episode_steps
    played: list[int] = []
    best_cards, plan = int(g.foundation_cards), list[int]()
    nodes = 0
    while len(played) < limit and not g.won:
        for a in np.flatnonzero(g.mask()).tolist():
            child = g.clone()
            child.apply(a)
            cards, line = module.rollout_line(child, limit - len(played) - 1)
            nodes += 1
            if cards > best_cards:
                best_cards, plan = int(cards), [a, *(int(x) for x in line)]
        if not plan:
            break
        a = plan.pop(0)
        g.apply(a)
        played.append(a)
    if g.won:
        return Label(seed, "won", nodes, time.perf_counter() - start, tuple(played))
    return Label(seed, "unknown", nodes, time.perf_counter() - start, best_cards=best_cards)


def has_beam_layers(variant: Variant, options: Mapping[str, Any] | None = None) -> bool:
    """Whether :func:`beam` can search this variant: its play advances through the pack in one
    direction (``Game::beam_layer`` in ``src/native/core.hpp``; Light and Shade, Anna, Klondike with
    limited passes)."""
    return bool(_module().has_beam_layers(_dealt(variant, options, 0, None)._c))


def beam(
    variant: Variant,
    options: Mapping[str, Any] | None = None,
    *,
    seed: int | None = None,
    deck: object = None,
    width: int = 1_000,
    max_nodes: int = 2_000_000,
    max_seconds: float = 0.0,
) -> Label:
    """Look for a win by a layered beam search, with every card known (``src/native/beam.hpp``).

    Positions are compared only with those that have taken as many cards from the pack: layer by
    layer, every position reachable inside a layer is met once, and at most ``width`` of those
    that reach the next layer go on, the best by the variant's beam score. It answers **lost** only
    when no layer was ever cut (then the search was exhaustive), else **won** or **unknown**.
    """
    _check_positive(width, "the beam width")
    g = _dealt(variant, options, seed, deck)._c
    if not _module().has_beam_layers(g):
        raise ValueError(
            f"{variant.env_name} has no beam layers: the beam search needs a game whose play "
            "advances through the pack in one direction (Light and Shade, Anna, Klondike with limited passes)"
        )
    verdict, actions, nodes, _positions, seconds, best, _line = _module().beam_solve(
        g, width, max_nodes, max_seconds
    )
    return Label(seed, verdict, int(nodes), float(seconds), _ints(actions), best_cards=int(best))
