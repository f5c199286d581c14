"""``macro``: a planner that decides only where information arrives.

At each decision the native search (``src/native/macro.hpp``, which documents it in full) lists
the *candidates*: every line of the solver's moves that shows the player nothing new and wins no
card (the quiet region), each followed by one move that turns up a card not seen before or puts a
card on a foundation. A bandit (UCB1) then spends sampled deals on the candidates, the hidden
cards dealt again at random among their places, the same deals for every candidate: on each the
candidate's line is played and the solver searches on with a small node cap (a capped search
counts as not won). The first candidate to be judged on ``samples`` deals is played, its whole
line (its moves before the last show nothing, so there is nothing to decide between them), and
the next decision votes afresh: no sampled deal's line is ever followed. This is the method of
lonelybot (github.com/vuonghy2442/lonelybot), written anew for every variant.

When nothing is hidden any more, the real deal is solved once with ``known`` nodes and a win's
line is followed to the end (it cannot fail: there is nothing to guess); where that solve runs out
of budget, each candidate gets one capped search and the best is played, and the next decision
solves again. With ``lost=1`` the positions a solve proves lost are kept for the game (a table of
lost positions, docs/solver.md), so each later solve skips them and reaches further, and a
candidate proven lost is not searched. Where the quiet region
holds no candidate (no card can be won or shown), the greedy baseline's move is played.

What it reads: the legal moves, the actions it took since ``reset``, and the frame of
:func:`patience_gym.determinize.hidden_frame`: the deck with the hidden cards sorted into their
places, which depends on which cards are hidden, never on where they lie. Its choices therefore
never depend on a hidden card (tests/agents/policies/test_macro.py). Its randomness is seeded with
the episode's seed and the decision's number.

With ``race`` > 0 the bandit is a race instead of UCB1: the candidates left meet the same deals
batch by batch, and one drops out when the leader is ``race`` standard errors of their paired
differences ahead, or when the two are tied within ``tie`` (src/native/macro.hpp).

Spec: ``macro`` or ``macro:samples=50,batch=5,nodes=3000,c=1,cards=0.2,region=2000,known=200000,
seconds=0,learn=0,race=0,tie=0.03,allwon=1,dom=0,dedup=0,lost=0,dig=0,beam=0,skip=0`` (any subset;
the defaults are the long run's settings, docs/planner.md). With ``skip=1`` the batch that would
only bring the candidate picked to ``samples`` is not dealt where nothing in it could change the
choice: the same moves, fewer searches (with ``samples`` twice ``batch``, each candidate is judged
on one batch and the best valued is played).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from patience_gym.determinize import hidden_frame, known_unshown_positions, unseen_positions
from patience_gym.env import PatienceEnv
from patience_gym.native import Twin, reference
from patience_gym.solver import MacroDecision, lost_table, macro_decide

from .base import GreedyPolicy
from .settings import parse_settings, settings_usage

__all__ = ["FLOATS", "SETTINGS", "MacroPolicy", "make_macro", "spec_help"]

#: Each setting: its default and what it is.
SETTINGS: dict[str, tuple[float, str]] = {
    "samples": (50, "sampled deals a candidate is judged on before it is played"),
    "batch": (5, "sampled deals the bandit gives a candidate at a time"),
    "nodes": (3000, "positions of each sampled deal's capped search"),
    "c": (1.0, "UCB1's exploration constant, on values from 0 to 1"),
    "cards": (0.2, "weight of the foundation share reached by a capped search that did not win"),
    "region": (2000, "positions of the quiet region explored at most"),
    "known": (200_000, "solver nodes of the one solve of the real deal once nothing is hidden"),
    "seconds": (0.0, "seconds a decision may take at most (0: no limit; then the most sampled)"),
    "learn": (0, "1: Klondike with unlimited passes: turn the whole stock over first, to see every card"),
    "race": (0.0, "> 0: race the candidates on common deals, dropping one this many standard errors behind"),
    "tie": (0.03, "racing: a difference in value this small counts as a tie (the leader stays)"),
    "allwon": (1, "1: a candidate that won every deal of two batches is played at once; 0: no early pick"),
    "dom": (0, "1: the solver's proven dominances in the capped searches (Klondike with partial moves)"),
    "dedup": (0, "1: one candidate per event (its last move), the shortest quiet line to it"),
    "lost": (0, "1: keep the positions the real deal's solves prove lost for the game's later solves"),
    "probe": (0, "> 0: judge each sampled deal by the solver, probing this many of its nodes first"),
    "roll": (0, "1: a deal not won scores the better of its search's and a rollout's foundation share"),
    "first": (0, "1: no deal won by any candidate: play the ordering's first, not the most sampled"),
    "deepen": (0, "> 0: no deal won by any candidate: start again, searches 4 times larger, this many times"),
    "retry": (0, "the real deal's solve not won: this many decisions judge without solving it again"),
    "shown": (0, "1: Klondike with the stock known: a turn showing a stock card ends a candidate, as hidden"),
    "dig": (0.0, "> 0: a search not won also counts each face-down card it turned up as this much of a card"),
    "beam": (0, "> 0: judge each sampled deal by a layered beam search this wide, at most nodes positions"),
    "skip": (0, "1: no batch that would only bring the candidate picked to samples: the same moves, cheaper"),
}
#: The settings that take a number (the others a whole number).
FLOATS = ("c", "cards", "seconds", "race", "tie", "dig")
#: Settings a policy's name shows only when on: the runs made before they existed keep their names.
_NAMED_WHEN_ON = frozenset(
    ("dom", "dedup", "lost", "probe", "deepen", "first", "roll", "retry", "shown", "dig", "beam", "skip")
)


def _whole(value: dict[str, float], key: str, low: int, high: int | None, allowed: str) -> int:
    """The setting ``key``, a whole number from ``low`` to ``high`` (None: no limit), or
    ``ValueError`` saying what is ``allowed``."""
    v = value[key]
    if isinstance(v, bool) or not isinstance(v, int) or v < low or (high is not None and v > high):
        raise ValueError(f"macro: {key} must be {allowed}, got {v!r}")
    return v


class MacroPolicy:
    """The macro planner (see the module docstring)."""

    def __init__(self, **settings: float) -> None:
        """Any of :data:`SETTINGS` by name (the others at their defaults); a value out of range
        raises ``ValueError`` saying what is allowed."""
        unknown = sorted(set(settings) - set(SETTINGS))
        if unknown:
            raise ValueError(f"macro: no setting {unknown[0]!r}; the settings are {', '.join(SETTINGS)}")
        value = {k: settings.get(k, d) for k, (d, _) in SETTINGS.items()}
        for key in ("samples", "batch", "nodes", "region", "known"):
            v = value[key]
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"macro: {key} must be a whole number >= 1, got {v!r}")
        for key in FLOATS:
            v = value[key]
            if isinstance(v, bool) or not isinstance(v, int | float) or not v >= 0:
                raise ValueError(f"macro: {key} must be a number >= 0, got {v!r}")
        for key in ("learn", "allwon", "dom", "dedup", "lost", "first", "roll", "shown", "skip"):
            if value[key] not in (0, 1) or isinstance(value[key], bool):
                raise ValueError(f"macro: {key} must be 0 or 1, got {value[key]!r}")
        retry = _whole(value, "retry", 0, None, "a whole number >= 0")
        deepen = _whole(value, "deepen", 0, 8, "a whole number from 0 to 8")
        probe = _whole(value, "probe", 0, int(value["nodes"]) - 1, "a whole number from 0 to nodes - 1")
        beam = _whole(value, "beam", 0, None, "a whole number >= 0")
        if beam and probe:
            raise ValueError("macro: beam and probe each replace the capped search: give one of them")
        if value["race"] > 0 and (value["first"] or value["deepen"]):
            raise ValueError("macro: first and deepen act on UCB1, not on racing: give race=0 with them")
        if value["cards"] > 1:
            raise ValueError(f"macro: cards must be at most 1 (a win scores 1), got {value['cards']!r}")
        self.samples, self.batch, self.nodes = int(value["samples"]), int(value["batch"]), int(value["nodes"])
        self.region, self.known, self.learn = int(value["region"]), int(value["known"]), int(value["learn"])
        self.c, self.cards, self.seconds = float(value["c"]), float(value["cards"]), float(value["seconds"])
        self.race, self.tie, self.all_won = float(value["race"]), float(value["tie"]), bool(value["allwon"])
        self.dominances, self.dedup, self.keep_lost = (
            bool(value["dom"]),
            bool(value["dedup"]),
            bool(value["lost"]),
        )
        self.probe, self.deepen, self.first = int(probe), int(deepen), bool(value["first"])
        self.roll, self.shown, self.retry = bool(value["roll"]), bool(value["shown"]), int(retry)
        self.dig, self.beam, self.skip = float(value["dig"]), int(beam), bool(value["skip"])
        named = {k: v for k, v in value.items() if k not in _NAMED_WHEN_ON or v}
        self.name = "macro(" + ",".join(f"{k}={v:g}" for k, v in named.items()) + ")"
        self.greedy = GreedyPolicy()
        self.reset(0)

    def reset(self, seed: int) -> None:
        self.seed = int(seed)
        self.greedy.reset(seed)
        self.actions: list[int] = []  # taken since the deal
        self.told = 0  # greedy knows of the first `told` actions (_tell_greedy)
        self.replay: Twin | None = None  # the game replayed as far as greedy has been told
        self.pending: list[int] = []  # the rest of the chosen line (quiet moves, then its event)
        self.plan: list[int] = []  # nothing hidden: the real deal's winning line
        self.decisions = 0
        self.wait = 0  # retry: decisions left before the real deal is solved again
        self.stats = Counter[str]()  # decisions by how they were made
        self.spent = 0  # solver nodes spent this episode
        self.last: MacroDecision | None = None  # the latest decision's search (for diagnostics)
        self._advised: tuple[int, str] = (-1, "")  # advise()'s move and how, until commit()
        # lost=1: the positions of this deal proven lost, kept across its decisions
        self.table = lost_table() if self.keep_lost else None

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int:
        action = self.advise(env, obs)
        self.commit(env, action)
        return action

    def advise(self, env: PatienceEnv, obs: np.ndarray) -> int:
        """Its move here, without playing it (a DAgger round: :meth:`commit` says what was played);
        ``how`` says how it was chosen (``line``, ``bandit``, ``greedy``, ...)."""
        self._advised = self._choose(env, env.action_masks())
        return self._advised[0]

    def visit_shares(self) -> dict[int, float]:
        """The latest advice's target for a learner (issue 46's labels, ``targets="visits"``): where
        the bandit chose among candidates (``how`` ``bandit``), the sampled deals its best-judged
        candidate starting with each legal move met, as shares (AlphaZero's visit shares: the
        bandit gives its deals to the candidates it rates, and the one played met ``samples``);
        anywhere else (a line or plan followed, a single candidate, greedy's fallback), all on the
        move advised. A move's share is its most-judged candidate's, not the sum over them: several
        candidates (other quiet moves first) start with one move, and a sum would rate a move by
        how many lines start with it."""
        action, how = self._advised
        if how != "bandit" or self.last is None:
            return {action: 1.0}
        plays = Counter[int]()
        for line, n in zip(self.last.lines, self.last.plays, strict=True):
            plays[line[0]] = max(plays[line[0]], n)
        total = sum(plays.values())
        if not plays[action]:  # the advice was judged on no deal (the ordering's pick)
            return {action: 1.0}
        return {a: n / total for a, n in sorted(plays.items()) if n}

    @property
    def how(self) -> str:
        """How the latest advice was chosen (``""`` before the first)."""
        return self._advised[1]

    def commit(self, env: PatienceEnv, action: int) -> None:
        """``action`` is played here. Another move than the advice drops the line and the plan
        being followed, so that the next decision searches afresh from where the game is."""
        advised, how = self._advised
        self.stats[how] += 1
        self.actions.append(int(action))
        if how == "greedy":  # greedy learns the move played itself, from the position it leads to
            self.told = len(self.actions)
        if action != advised:
            self.plan.clear()
            self.pending.clear()

    def _tell_greedy(self, env: PatienceEnv) -> None:
        """Before greedy chooses: tell it of the moves played since its last choice, each in its
        position on a replay of the game (kept for the episode), as if it had followed every move.
        Greedy is rarely asked, so the moves' positions are made only then."""
        if self.told == len(self.actions):
            return
        if self.replay is None:
            game = reference(env.game)
            self.replay = Twin(type(game), game.options, game.initial_pack)
        played = self.replay.advance(self.actions[self.replay.replayed : self.told])
        for action in self.actions[self.told :]:
            self.greedy.follow_game(played, action)
            played = self.replay.advance([action])
        self.told = len(self.actions)

    def _choose(self, env: PatienceEnv, mask: np.ndarray) -> tuple[int, str]:
        for line, how in ((self.plan, "plan"), (self.pending, "line")):
            if line and mask[line[0]]:
                return line.pop(0), how
            line.clear()
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0]), "forced"
        turn = self._learning_turn(env, legal)
        if turn is not None:
            return turn, "learn"
        frame, unseen = hidden_frame(env)
        options, fixed = self._shown(env, unseen)
        self.decisions += 1
        hidden = bool(unseen or fixed)
        # retry: nothing hidden, and the real deal's solve was not won a few decisions ago
        solve = hidden or self.wait == 0
        self.wait -= 0 if solve else 1
        found = macro_decide(
            env.variant,
            options,
            frame,
            sorted([*unseen, *fixed]),
            self.actions,
            known_nodes=self.known if solve else 1,  # a solve of one node: the candidates' searches only
            seed=(self.seed * 1_000_003 + self.decisions) & (2**63 - 1),
            table=self.table,
            fixed=fixed,
            **self._search_settings(),
            **self._ranking(env, hidden),
        )
        self.spent += found.nodes
        self.last = found
        if found.plan:
            self.plan = list(found.plan[1:])
            return found.plan[0], "solved"
        if not hidden and solve and self.retry:
            self.wait = self.retry  # solved and not won: the next decisions do without
        if found.chosen < 0:
            self._tell_greedy(env)
            return self.greedy(env, np.empty(0)), "greedy"
        line = list(found.lines[found.chosen])
        self.pending = line[1:]
        if not solve:
            return line[0], "retry"
        return line[0], "bandit" if len(found.lines) > 1 else "only"

    def _ranking(self, env: PatienceEnv, hidden: bool) -> dict[str, Any]:
        """The candidates' ranking by a policy (``prior``, ``keep``: ``macro+net``,
        agents/policies/exit.py); none here."""
        return {}

    def _search_settings(self) -> dict[str, Any]:
        """The native search's settings that stay the same from decision to decision."""
        return dict(
            samples=self.samples,
            batch=self.batch,
            solve_nodes=self.nodes,
            exploration=self.c,
            cards=self.cards,
            region=self.region,
            max_seconds=self.seconds,
            race=self.race,
            tie=self.tie,
            all_won=self.all_won,
            dominances=self.dominances,
            one_per_event=self.dedup,
            probe_nodes=self.probe,
            deepen=self.deepen,
            silent_first=self.first,
            rollout=self.roll,
            dig=self.dig,
            beam=self.beam,
            skip_decided=self.skip,
        )

    def _shown(self, env: PatienceEnv, unseen: list[int]) -> tuple[dict[str, object], list[int]]:
        """The options the search's games are made with, and the positions it knows but has not
        seen turned up (``shown=1``: Klondike's known stock, searched on games that hide it so that
        a turn showing one of its cards is an event; empty otherwise)."""
        options = dict(env.game.options)
        if not self.shown:
            return options, []
        if options.get("stock") != "known":
            raise ValueError(
                f"macro: shown=1 is for Klondike with stock='known'; "
                f"{env.variant.env_name} with {options} has no card known but unseen"
            )
        return {**options, "stock": "hidden"}, known_unshown_positions(env)

    def _learning_turn(self, env: PatienceEnv, legal: np.ndarray) -> int | None:
        """With ``learn=1``, in Klondike with unlimited passes while the stock holds a card never
        seen: the stock's turn. One pass shows every stock card (three a turn in draw 3), and the
        turned-over talon keeps their order, so the rest of the game is played with the stock known,
        for about nine moves."""
        if not self.learn or env.variant.env_name != "Klondike-v0" or env.game.options["passes"] is not None:
            return None
        dealt = 28  # the piles' cards come first in the pack; the stock's after them
        if not any(p >= dealt for p in unseen_positions(env)):
            return None
        turns = [int(a) for a in legal if env.describe_action(int(a)) == "stock -> talon"]
        return turns[0] if turns else None


def make_macro(settings: str | None = None) -> MacroPolicy:
    """The policy of a spec's settings (``""`` or ``None`` for the defaults); an unknown name or a
    value out of range raises ``ValueError`` saying what is allowed."""
    return MacroPolicy(**parse_settings("macro", settings, SETTINGS, FLOATS))


def spec_help() -> str:
    """The spec with every setting at its default, as error messages show it."""
    return settings_usage("macro", SETTINGS)
