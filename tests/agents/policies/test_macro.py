"""The macro planner (patience_gym.agents.policies.macro, src/native/macro.hpp): blind to hidden cards, legal
on every variant, its candidates end where a card is shown or won, its sure wins are wins, its
settings refused with what is allowed, and it wins deals greedy loses."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.agents.policies.base import GreedyPolicy
from patience_gym.agents.policies.macro import MacroPolicy, make_macro
from patience_gym.agents.registry import make_policy
from patience_gym.core.cards import RANK, RED, parse_card
from patience_gym.determinize import hidden_frame, known_unshown_positions, unseen_positions
from patience_gym.env import PatienceEnv
from patience_gym.native import NativeGame, make_game, native_available
from patience_gym.solver import lost_table, macro_decide, solve_deal, value_net
from tests.helpers import PORTED, check_blind_to_hidden_cards, choice_trace, greedy_start

pytestmark = pytest.mark.skipif(not native_available(), reason="the macro planner runs in the native engine")

SMALL = "samples=10,batch=5,nodes=300,known=5000"  # cheap: the tests check behaviour, not strength
KLONDIKE3: dict[str, Any] = {"draw": 3, "passes": None, "partial_moves": True}


def _decide(env: gym.Env[Any, Any], actions: list[int], **settings: Any) -> Any:
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    frame, unseen = hidden_frame(env)
    kwargs: dict[str, Any] = dict(
        samples=10, batch=5, solve_nodes=300, exploration=1.0, cards=0.0, region=500, known_nodes=5000, seed=3
    )
    kwargs.update(settings)
    return macro_decide(core.variant, core.game.options, frame, unseen, actions, **kwargs)


@pytest.mark.parametrize(
    ("env_name", "kwargs"), [("Klondike-v0", {"passes": None}), ("Anna-v0", {}), ("Congress-v0", {})]
)
def test_choices_do_not_depend_on_hidden_cards(env_name: str, kwargs: dict[str, Any]) -> None:
    """Two deals that differ only in cards unseen at the start: the same seed gives the same
    choices until an observation tells the deals apart."""
    env = gym.make(f"patience_gym/{env_name}", **kwargs)
    check_blind_to_hidden_cards(env, lambda: make_macro(SMALL), 120)


@pytest.mark.parametrize("variant", PORTED, ids=lambda v: v.env_name)
def test_macro_takes_legal_actions_only(variant: Any) -> None:
    policy = make_macro("samples=4,batch=2,nodes=100,known=2000,region=200")
    trace = choice_trace(gym.make(variant.env_id), policy, 5, None, 60)  # type: ignore[arg-type]
    assert trace and policy.actions == [a for _, a, _ in trace]


def _after(env: gym.Env[Any, Any], line: tuple[int, ...], actions: list[int], deck: list[str]) -> NativeGame:
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    game = make_game(core.variant, "native", **core.game.options)
    assert isinstance(game, NativeGame)
    game.new_game(None, deck)
    for a in [*actions, *line]:
        game.apply(a)
    return game


def test_every_candidate_ends_where_a_card_is_shown_or_won() -> None:
    """Klondike draw 3 after greedy's first moves: each candidate's line, played on the real deal,
    shows nothing new and wins nothing before its last action, and its last action shows a card
    the player had not seen, wins one, or cannot be undone."""
    env = gym.make("patience_gym/Klondike-v0", **KLONDIKE3)
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    _, played = greedy_start(env, 4, 6)
    found = _decide(env, played)
    assert len(found.lines) >= 2 and 0 <= found.chosen < len(found.lines)
    deck = core.game.deck()
    hidden_before = len(unseen_positions(env))
    for line in found.lines:
        game = _after(env, line[:-1], played, deck)
        assert len(game.reference().unseen_positions()) == hidden_before, (
            f"{line}: a card shown before its end"
        )
        assert game.foundation_cards == core.game.foundation_cards
        end = _after(env, line, played, deck)
        shown = len(end.reference().unseen_positions()) < hidden_before
        won = end.foundation_cards > game.foundation_cards
        undone = False
        for a in np.flatnonzero(end.legal_mask()):
            back = _after(env, (*line, int(a)), played, deck)
            undone = undone or back.state_key() == game.state_key()
        assert shown or won or not undone, f"{line}: its last move shows nothing, wins nothing, can be undone"


def test_a_card_put_up_is_quiet_only_where_a_move_brings_it_back() -> None:
    """Klondike's worrying_back (foundation cards may come back): putting a card up can be undone,
    so it may lie inside a candidate's quiet line; under the book's rule it always ends one."""
    for worrying, expected in ((True, True), (False, False)):
        env = gym.make("patience_gym/Klondike-v0", **KLONDIKE3, worrying_back=worrying)
        core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
        found = _decide(env, greedy_start(env, 7, 6)[1])
        puts_up = [line for line in found.lines if any(core.game.moves[a].dst == -1 for a in line[:-1])]
        assert bool(puts_up) is expected, (worrying, found.lines)


def test_the_chosen_candidate_was_judged_on_the_most_deals() -> None:
    env = gym.make("patience_gym/Klondike-v0", **KLONDIKE3)
    env.reset(seed=7)
    found = _decide(env, [], samples=20, batch=5)
    assert len(found.lines) > 1
    assert found.plays[found.chosen] == max(found.plays) >= 20
    assert all(0 <= w <= p for w, p in zip(found.wins, found.plays, strict=True))


def test_racing_judges_the_candidates_left_on_the_same_deals() -> None:
    """race > 0: every candidate meets the same deals, batch by batch, until it drops out (at two
    batches at the earliest); the chosen one met the most; where every difference counts as a tie
    (tie=1), all drop out at two batches and the best valued is chosen."""
    env = gym.make("patience_gym/Klondike-v0", **KLONDIKE3)
    env.reset(seed=7)
    found = _decide(env, [], samples=40, batch=5, race=2.0, tie=0.0, cards=0.2)
    assert len(found.lines) > 1
    assert found.plays[found.chosen] == max(found.plays)
    assert all(p % 5 == 0 and 10 <= p <= 40 for p in found.plays)
    tied = _decide(env, [], samples=40, batch=5, race=2.0, tie=1.0, cards=0.2)
    assert set(tied.plays) == {10}
    assert tied.chosen == int(np.argmax(tied.values))
    ucb = _decide(env, [], samples=40, batch=5, cards=0.2)
    assert set(ucb.plays) != {10}


def test_without_the_all_won_rule_the_choice_meets_every_sample() -> None:
    """allwon=0: the chosen candidate is judged on exactly `samples` deals, however many it won."""
    env = gym.make("patience_gym/Klondike-v0", **KLONDIKE3)
    env.reset(seed=7)
    found = _decide(env, [], samples=20, batch=5, all_won=False)
    assert found.plays[found.chosen] == 20


def test_the_dominances_are_blind_to_hidden_cards_and_change_only_what_they_prune() -> None:
    """dom=1: the solver's proven dominances in the capped searches. They read no hidden card
    (two deals differing in unseen cards get the same choices until they are told apart), and
    where a variant's rules prune nothing (Nestor; Klondike without partial moves) the decisions
    are exactly those of dom=0; with partial moves they search differently."""
    env = gym.make("patience_gym/Klondike-v0", **KLONDIKE3)
    check_blind_to_hidden_cards(env, lambda: make_macro(SMALL + ",dom=1"), 80)
    assert make_macro("dom=1").name.endswith(",dom=1)") and "dom" not in make_macro("dom=0").name
    for name, kwargs in (("Nestor-v0", {}), ("Klondike-v0", {"draw": 3, "passes": None})):
        env = gym.make(f"patience_gym/{name}", **kwargs)
        env.reset(seed=5)
        plain, pruned = _decide(env, [], cards=0.2), _decide(env, [], cards=0.2, dominances=True)
        assert (plain.lines, plain.plays, plain.wins, plain.chosen) == (
            pruned.lines,
            pruned.plays,
            pruned.wins,
            pruned.chosen,
        ), name
    env = gym.make("patience_gym/Klondike-v0", **KLONDIKE3)
    env.reset(seed=7)
    plain, pruned = (
        _decide(env, [], samples=30, cards=0.2),
        _decide(env, [], samples=30, cards=0.2, dominances=True),
    )
    assert plain.lines == pruned.lines  # the same candidates: the quiet region does not prune
    assert (plain.plays, plain.wins, plain.nodes) != (pruned.plays, pruned.wins, pruned.nodes)


def test_one_candidate_per_event_keeps_the_shortest_line_to_each() -> None:
    """dedup=1: the candidates' events (last actions) are the same set as without it, each once,
    by the shortest of the lines that end with it (Klondike with the stock known, where quiet moves
    between piles multiply the lines before one event)."""
    env = gym.make("patience_gym/Klondike-v0", **KLONDIKE3, stock="known")
    obs, _ = env.reset(seed=2)
    greedy = make_policy("greedy")
    greedy.reset(2)
    actions: list[int] = []
    for _ in range(30):
        action = greedy(env.unwrapped, obs)
        actions.append(action)
        obs, *_ = env.step(action)
    every, one = _decide(env, actions), _decide(env, actions, one_per_event=True)
    assert len(every.lines) > len(one.lines) > 1
    events = [line[-1] for line in one.lines]
    assert len(set(events)) == len(events) and set(events) == {line[-1] for line in every.lines}
    for line in one.lines:
        assert len(line) == min(len(other) for other in every.lines if other[-1] == line[-1])
    assert make_macro("dedup=1").name.endswith(",dedup=1)")


def test_a_games_solves_keep_the_positions_they_proved_lost() -> None:
    """Once nothing is hidden (St. Louis after its deal), the real deal is solved at each decision;
    with a table the positions a solve proved lost are kept, and the next solve, skipping them,
    proves more (the policy keeps one table a game)."""
    env = gym.make("patience_gym/StLouis-v0")
    obs, _ = env.reset(seed=1)
    greedy = make_policy("greedy")
    greedy.reset(1)
    actions: list[int] = []
    while hidden_frame(env)[1]:
        action = greedy(env.unwrapped, obs)
        actions.append(action)
        obs, *_ = env.step(action)
    table = lost_table()
    first = _decide(env, actions, known_nodes=3000, table=table)
    assert not first.plan and len(table) > 0  # not won within 3,000 nodes: it proved some lost
    size = len(table)
    _decide(env, actions, known_nodes=3000, table=table)
    assert len(table) > size
    policy = make_macro(SMALL + ",lost=1")
    assert policy.keep_lost and policy.name.endswith(",lost=1)") and not make_macro(SMALL).keep_lost
    policy.reset(4)
    assert len(policy.table) == 0


def test_retry_waits_that_many_decisions_before_solving_the_real_deal_again() -> None:
    """St. Louis once its deal is out, with a solve of the real deal too small to win it: with
    ``retry=2`` each failed solve is followed by two decisions that judge the candidates without it
    (one capped search a candidate, no more nodes), then a solve again; without it every decision
    solves."""
    for retry in (2, 0):
        env = gym.make("patience_gym/StLouis-v0")
        obs, _ = env.reset(seed=1)
        policy = make_macro(f"samples=4,batch=2,nodes=100,known=20000,retry={retry}")
        policy.reset(1)
        hows: list[str] = []
        for _ in range(60):
            decisions, before = policy.decisions, dict(policy.stats)
            hidden = bool(hidden_frame(env)[1])
            obs, _, term, trunc, _ = env.step(policy(env.unwrapped, obs))  # type: ignore[arg-type]
            if policy.decisions > decisions and not hidden:
                how = next(k for k in policy.stats if policy.stats[k] != before.get(k, 0))
                assert policy.last is not None
                searches = len(policy.last.lines) * 110 + 10  # one capped search of 100 a candidate
                assert how != "retry" or policy.last.nodes <= searches, policy.last.nodes
                hows.append(how)
            if term or trunc or "solved" in hows:
                break
        assert len(hows) >= 6 and "solved" not in hows[:6], hows
        expected = [("retry" if k % 3 else "solve") for k in range(6)] if retry else ["solve"] * 6
        assert [h if h == "retry" else "solve" for h in hows[:6]] == expected, hows


def test_greedy_told_late_counts_what_it_would_have_counted_following_every_move() -> None:
    """The macro planner tells greedy of its moves only when it needs greedy's choice: greedy then
    holds the same visits and history as one that followed every move as it was played, and after
    a move of its own is told only of what came next."""
    env = gym.make("patience_gym/Klondike-v0", draw=3, passes=None)
    obs, _ = env.reset(seed=4)
    twin = gym.make("patience_gym/Klondike-v0", draw=3, passes=None)
    twin.reset(seed=4)
    policy, follower = make_macro("samples=4,batch=2,nodes=100,known=2000"), GreedyPolicy()
    policy.reset(4)
    follower.reset(4)
    for step in range(40):
        if step == 20:  # greedy's own move, as where the search has no candidate
            policy._tell_greedy(env.unwrapped)  # type: ignore[arg-type]
            assert (policy.greedy.visits, policy.greedy.history) == (follower.visits, follower.history)
            action = policy.greedy(env.unwrapped, obs)  # type: ignore[arg-type]
            policy.actions.append(action)
            policy.told = len(policy.actions)
            assert follower(twin.unwrapped, obs) == action  # type: ignore[arg-type]
        else:
            action = policy(env.unwrapped, obs)  # type: ignore[arg-type]
            follower.follow(twin.unwrapped, action)  # type: ignore[arg-type]
        obs, _, term, trunc, _ = env.step(action)
        twin.step(action)
        assert not (term or trunc)
    assert policy.told == 21 and len(policy.greedy.history) == 20  # nothing told since its move
    policy._tell_greedy(env.unwrapped)  # type: ignore[arg-type]
    assert (policy.greedy.visits, policy.greedy.history) == (follower.visits, follower.history)
    assert len(follower.history) == 40


def test_nothing_hidden_solves_the_real_deal_and_follows_its_line() -> None:
    """The Kings deals every card face up: the decision is the real deal's winning line."""
    env = gym.make("patience_gym/TheKings-v0")
    env.reset(seed=1)
    assert not unseen_positions(env)
    label = solve_deal(env.unwrapped.variant, {}, seed=1, max_nodes=200_000, probe_nodes=100_000)  # type: ignore[attr-defined]
    found = _decide(env, [], known_nodes=200_000)
    assert label.label == "won"
    assert found.plan and found.plays == tuple(0 for _ in found.lines)
    policy = make_macro("known=200000")
    obs, info = env.reset(seed=1)
    policy.reset(1)
    while not info["won"]:
        obs, _, term, trunc, info = env.step(policy(env.unwrapped, obs))  # type: ignore[arg-type]
        assert not (term and not info["won"]) and not trunc
    assert policy.stats["plan"] > 0


def _sure_win_position(rng: np.random.Generator, draw: int) -> Any:
    """A Klondike game (Python rules) in a random position of the kind Klondike's sure_win()
    names (src/native/klondike.cpp): every pile a face-up alternating run, at most one card in
    the stock and talon. Built backwards from four full foundations: a foundation's top card goes
    onto the end of a pile it fits (one rank below, the other colour), onto an empty pile, or (once)
    into the stock or talon."""
    game = make_game(next(v for v in PORTED if v.env_name == "Klondike-v0"), "python", draw=draw, passes=None)
    game.new_game(np.random.default_rng(0))
    found = [list(range(s * 13, s * 13 + 13)) for s in range(4)]
    piles: list[list[int]] = [[] for _ in range(7)]
    waste: list[int] = []
    for _ in range(int(rng.integers(10, 52))):
        suit = int(rng.choice([s for s in range(4) if found[s]]))
        c = found[suit][-1]
        fits = [
            i for i, p in enumerate(piles) if not p or (RANK[p[-1]] == RANK[c] + 1 and RED[p[-1]] != RED[c])
        ]
        if not waste and (not fits or rng.random() < 0.05):
            waste.append(found[suit].pop())
        elif fits:
            piles[int(rng.choice(fits))].append(found[suit].pop())
    game.piles, game.down, game.foundations, game.passes_used = piles, [0] * 7, found, 2
    game.stock, game.talon = (waste, []) if rng.random() < 0.5 else ([], waste)
    return game


@pytest.mark.parametrize("draw", [1, 3])
def test_a_klondike_sure_win_is_won(draw: int) -> None:
    """The proof of Klondike's sure_win(), played: in 200 random positions of that kind, putting
    up the card it names (the lowest rank not up), or turning the stock when that card is in it,
    wins every time."""
    rng = np.random.default_rng(draw)
    for _ in range(200):
        game = _sure_win_position(rng, draw)
        for _ in range(60):
            if game.foundation_cards == 52:
                break
            mask = game.legal_mask()
            ups = [a for a in np.flatnonzero(mask) if "foundation" in game.describe(int(a))]
            assert ups or mask[game.moves.index(next(m for m in game.moves if m.kind.name == "STOCK"))], (
                "no card can go up and the stock cannot turn"
            )
            if ups:
                game.apply(int(min(ups, key=lambda a: RANK[_card_moved(game, int(a))])))
            else:
                game.apply(next(i for i, m in enumerate(game.moves) if m.kind.name == "STOCK"))
        assert game.foundation_cards == 52


def _card_moved(game: Any, action: int) -> int:
    """The card a foundation move of ``game`` puts up."""
    text = game.describe(action)
    return int(parse_card(text.split()[0]))


def test_the_solver_with_its_probe_judges_the_sampled_deals_blind_to_hidden_cards() -> None:
    """probe > 0: each sampled deal is judged by the solver (its probe first), as the older planner
    solves: the same candidates, judged differently, and still no hidden card read."""
    env = gym.make("patience_gym/Congress-v0")
    check_blind_to_hidden_cards(env, lambda: make_macro(SMALL + ",probe=200"), 60)
    assert make_macro("probe=200").name.endswith(",probe=200)") and "probe" not in make_macro().name
    env.reset(seed=3)
    lazy = _decide(env, [], cards=0.2, samples=20)
    solved = _decide(env, [], cards=0.2, samples=20, probe_nodes=200)
    assert lazy.lines == solved.lines and len(lazy.lines) > 1
    assert (lazy.plays, lazy.wins, lazy.nodes) != (solved.plays, solved.wins, solved.nodes)


def test_with_first_a_silent_decision_plays_the_orderings_first() -> None:
    """Babette seed 8, capped searches of 50 positions: no candidate wins one sampled deal, and the
    most sampled (the second) is played; with ``silent_first`` the ordering's first is, and the
    bandit's judgements are the same."""
    env = gym.make("patience_gym/Babette-v0")
    env.reset(seed=8)
    plain = _decide(env, [], solve_nodes=50, cards=0.2)
    first = _decide(env, [], solve_nodes=50, cards=0.2, silent_first=True)
    assert len(plain.lines) > 1 and sum(plain.wins) == 0
    assert plain.chosen == int(np.argmax(plain.plays)) != 0
    assert first.chosen == 0 and (first.plays, first.values) == (plain.plays, plain.values)
    won = _decide(env, [], solve_nodes=200, cards=0.2, silent_first=True)  # a deal won: the bandit's pick
    assert sum(won.wins) > 0 and won.chosen == int(np.argmax(won.plays))
    assert make_macro("first=1").first and "first" not in make_macro().name


def test_deepen_starts_again_with_searches_four_times_as_large() -> None:
    """Babette seed 8: searches of 50 positions win no sampled deal; with ``deepen=1`` the bandit
    starts again on the same deals with searches of 200, and its judgements are exactly those of
    a decision made with 200 from the start, at the cost of the first try's nodes."""
    env = gym.make("patience_gym/Babette-v0")
    env.reset(seed=8)
    deepened = _decide(env, [], solve_nodes=50, cards=0.2, deepen=1)
    large = _decide(env, [], solve_nodes=200, cards=0.2)
    assert sum(_decide(env, [], solve_nodes=50, cards=0.2).wins) == 0 < sum(large.wins)
    assert (deepened.plays, deepened.wins, deepened.values, deepened.chosen) == (
        large.plays,
        large.wins,
        large.values,
        large.chosen,
    )
    assert deepened.nodes > large.nodes
    assert make_macro("deepen=2").deepen == 2 and make_macro("deepen=2").name.endswith(",deepen=2)")


def test_skip_plays_the_same_candidate_without_the_batch_that_cannot_change_it() -> None:
    """The Congress seed 3, ``samples=10,batch=5``: every candidate is judged on one batch, then the
    best valued on a second that only brings it to ``samples``; with ``skip_decided`` that batch is
    not dealt: the same candidate, each judged on one batch, five searches fewer. Where a second
    batch could still matter (``silent_first`` with no deal won) it is dealt as before."""
    env = gym.make("patience_gym/Congress-v0")
    env.reset(seed=3)
    kwargs: dict[str, Any] = dict(cards=0.2, probe_nodes=200)
    plain, skipped = _decide(env, [], **kwargs), _decide(env, [], skip_decided=True, **kwargs)
    assert len(plain.lines) > 1 and plain.plays[plain.chosen] == 10 and sum(plain.wins) == 0
    assert skipped.chosen == plain.chosen and skipped.plays == (5,) * len(plain.lines)
    others = [i for i in range(len(plain.lines)) if i != plain.chosen]  # the same deals: the same values
    assert [skipped.values[i] for i in others] == [plain.values[i] for i in others]
    assert skipped.nodes < plain.nodes
    first = _decide(env, [], silent_first=True, skip_decided=True, **kwargs)
    assert first.plays == plain.plays and first.chosen == 0
    assert make_macro("skip=1").skip and "skip" not in make_macro().name


def test_rollout_scores_a_deal_not_won_by_the_better_of_search_and_rollout() -> None:
    """Babette seed 8, searches of 50 positions, every candidate judged on the same ten deals
    (racing, no ties): with ``rollout`` each deal not won by its search is scored by the better of
    its foundation share and a rollout's to the end, so no value falls, and rollouts win deals the
    small searches do not."""
    env = gym.make("patience_gym/Babette-v0")
    env.reset(seed=8)
    kwargs: dict[str, Any] = dict(solve_nodes=50, cards=0.2, race=2.0, tie=0.0)
    plain, rolled = _decide(env, [], **kwargs), _decide(env, [], rollout=True, **kwargs)
    assert plain.plays == rolled.plays == (10,) * len(plain.lines)
    assert all(r >= p for r, p in zip(rolled.values, plain.values, strict=True))
    assert sum(plain.wins) == 0 < sum(rolled.wins)
    assert make_macro("roll=1").roll and "roll" not in make_macro().name


def test_dig_counts_the_face_down_cards_a_search_not_won_turned_up() -> None:
    """Klondike draw 3 seed 2, every candidate judged on the same ten deals (no candidate dropped):
    with ``dig`` a capped search not won also counts the face-down cards it turned up, so the
    values change and the deals and wins stay. With ``cards=0`` (only wins count) or on a variant
    with no face-down cards (Babette) it changes nothing."""
    env = gym.make("patience_gym/Klondike-v0", **KLONDIKE3)
    env.reset(seed=2)
    kwargs: dict[str, Any] = dict(solve_nodes=300, race=1e9, tie=0.0)
    plain, dug = _decide(env, [], cards=1.0, **kwargs), _decide(env, [], cards=1.0, dig=1.0, **kwargs)
    assert plain.plays == dug.plays == (10,) * len(plain.lines) and plain.wins == dug.wins
    assert sum(plain.wins) < sum(plain.plays)  # some searches not won: there dig counts
    assert plain.values != dug.values and all(0 <= v <= n for v, n in zip(dug.values, dug.plays, strict=True))
    wins_only = _decide(env, [], cards=0.0, **kwargs), _decide(env, [], cards=0.0, dig=2.0, **kwargs)
    assert (wins_only[0].values, wins_only[0].chosen) == (wins_only[1].values, wins_only[1].chosen)
    babette = gym.make("patience_gym/Babette-v0")
    babette.reset(seed=8)
    kwargs.update(solve_nodes=50, cards=1.0)
    assert _decide(babette, [], **kwargs).values == _decide(babette, [], dig=1.0, **kwargs).values
    assert make_macro("dig=0.5").dig == 0.5 and "dig" not in make_macro().name


def test_beam_judges_the_sampled_deals_by_the_layered_beam_search() -> None:
    """One-pass Klondike seed 6 after its first 22 moves (the lazy searches' picks), every candidate
    judged on the same ten deals: with ``beam`` each deal is judged by the layered beam search of
    that width within the same nodes, the same candidates, and it wins sampled deals where the
    depth-first capped search wins none. Blind to hidden cards; refused where the variant has no
    beam layers."""
    env = gym.make("patience_gym/Klondike-v0")
    env.reset(seed=6)
    kwargs: dict[str, Any] = dict(solve_nodes=5000, cards=0.0, race=1e9, tie=0.0)
    actions: list[int] = []
    while len(actions) < 22:
        found = _decide(env, actions, **kwargs)
        for a in found.lines[found.chosen][: 22 - len(actions)]:
            env.step(a)
            actions.append(a)
    lazy, beamed = _decide(env, actions, **kwargs), _decide(env, actions, beam=30, **kwargs)
    assert lazy.lines == beamed.lines and len(lazy.lines) > 1
    assert lazy.plays == beamed.plays == (10,) * len(lazy.lines)
    assert sum(lazy.wins) == 0 < sum(beamed.wins)
    one_pass = gym.make("patience_gym/Klondike-v0")
    check_blind_to_hidden_cards(one_pass, lambda: make_macro(SMALL + ",beam=10"), 60)
    assert make_macro("beam=30").beam == 30 and "beam" not in make_macro().name
    nestor = gym.make("patience_gym/Nestor-v0")
    nestor.reset(seed=0)
    with pytest.raises(ValueError, match="beam > 0 needs a game whose play advances through the pack"):
        _decide(nestor, [], beam=30)


def test_shown_searches_a_known_stock_with_the_candidates_of_a_hidden_one() -> None:
    """``shown=1`` (Klondike, stock known): the candidates are those the same position gives with
    the stock hidden (a turn that shows a stock card ends one), the policy stays blind to the
    face-down pile cards, and it is refused where no card is known unseen."""
    known = gym.make("patience_gym/Klondike-v0", **KLONDIKE3, stock="known")
    hidden = gym.make("patience_gym/Klondike-v0", **KLONDIKE3)
    _, played = greedy_start(known, 5, 4)
    assert greedy_start(hidden, 5, 4)[1] == played
    core: PatienceEnv = known.unwrapped  # type: ignore[assignment]
    frame, unseen = hidden_frame(known)
    stock = known_unshown_positions(known)
    assert stock and not set(stock) & set(unseen) and not known_unshown_positions(hidden)
    options = {**core.game.options, "stock": "hidden"}
    kwargs: dict[str, Any] = dict(
        samples=10, batch=5, solve_nodes=300, exploration=1.0, cards=0.0, region=500, known_nodes=5000, seed=3
    )
    everything = sorted([*unseen, *stock])
    found = macro_decide(core.variant, options, frame, everything, played, fixed=stock, **kwargs)
    assert set(found.lines) == set(_decide(hidden, played).lines)
    assert set(found.lines) != set(_decide(known, played).lines)  # there, turns to any talon card are quiet
    check_blind_to_hidden_cards(known, lambda: make_macro(SMALL + ",shown=1"), 120)
    obs, _ = greedy_start(hidden, 5, 4)
    with pytest.raises(ValueError, match="shown=1 is for Klondike with stock='known'"):
        make_macro("shown=1")(hidden.unwrapped, obs)  # type: ignore[arg-type]


def test_fixed_positions_are_dealt_as_the_frame_holds_them() -> None:
    """Every unseen position fixed: no deal is sampled, the real deal is solved and its line wins
    it (a position fixed must be among the unseen)."""
    env = gym.make("patience_gym/Klondike-v0", **KLONDIKE3, stock="known")
    env.reset(seed=1)
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    deck, unseen = core.game.initial_pack, unseen_positions(env)
    assert solve_deal(core.variant, core.game.options, seed=1, max_nodes=200_000).label == "won"
    found = _decide(env, [], known_nodes=200_000)
    assert not found.plan  # the pile cards are hidden: sampled, no plan
    frame = list(deck)
    fixed = _decide_fixed(env, frame, unseen, unseen)
    assert fixed.plan and fixed.plays == tuple(0 for _ in fixed.lines)
    game = _after(env, tuple(fixed.plan), [], core.game.deck())
    assert game.won
    with pytest.raises(ValueError, match="fixed position is not among the unseen"):
        _decide_fixed(env, frame, unseen, [max(set(range(52)) - set(unseen))])


def _decide_fixed(env: gym.Env[Any, Any], frame: list[int], unseen: list[int], fixed: list[int]) -> Any:
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    return macro_decide(
        core.variant, core.game.options, frame, unseen, [], samples=10, batch=5, solve_nodes=300,
        exploration=1.0, cards=0.0, region=500, known_nodes=200_000, seed=3, fixed=fixed,
    )  # fmt: skip


def test_settings_are_checked() -> None:
    assert isinstance(make_policy("macro"), MacroPolicy)
    policy = make_macro("samples=5,nodes=1_000,c=0.5,cards=0.2")
    assert (policy.samples, policy.nodes, policy.c, policy.cards) == (5, 1000, 0.5, 0.2)
    for bad, words in [
        ("samples=0", "samples must be a whole number >= 1"),
        ("nodes=x", "must be a whole number"),
        ("c=-1", "c must be a number >= 0"),
        ("cards=2", "cards must be at most 1"),
        ("race=-1", "race must be a number >= 0"),
        ("allwon=2", "allwon must be 0 or 1"),
        ("dom=2", "dom must be 0 or 1"),
        ("nodes=100,probe=100", "probe must be a whole number from 0 to nodes - 1"),
        ("deepen=9", "deepen must be a whole number from 0 to 8"),
        ("first=2", "first must be 0 or 1"),
        ("roll=3", "roll must be 0 or 1"),
        ("shown=2", "shown must be 0 or 1"),
        ("retry=-1", "retry must be a whole number >= 0"),
        ("beam=-1", "beam must be a whole number >= 0"),
        ("beam=10,probe=5", "give one of them"),
        ("race=2,first=1", "not on racing"),
        ("depth=3", "not understood"),
        ("samples=2,samples=3", "given twice"),
    ]:
        with pytest.raises(ValueError, match=words):
            make_macro(bad)


def test_it_wins_klondike_deals_that_greedy_loses() -> None:
    """Klondike draw 3 (unlimited passes, partial moves), seeds 0-5: greedy wins none of them;
    the macro planner at small settings wins at least one."""
    env = gym.make("patience_gym/Klondike-v0", **KLONDIKE3)
    wins = {"greedy": 0, "macro": 0}
    policies = (("greedy", make_policy("greedy")), ("macro", make_macro("samples=20,batch=5,nodes=1000")))
    for name, policy in policies:
        for seed in range(6):
            obs, info = env.reset(seed=seed)
            policy.reset(seed)
            term = trunc = False
            while not (term or trunc):
                obs, _, term, trunc, info = env.step(policy(env.unwrapped, obs))  # type: ignore[arg-type]
            wins[name] += bool(info["won"])
    assert wins["macro"] > wins["greedy"]


def test_an_evaluation_counts_each_episodes_nodes_and_seconds() -> None:
    """The macro planner's solver nodes and time per game reach the evaluation's result (the rows'
    cost columns); a policy that counts no nodes shows 0."""
    from patience_gym.agents.evaluation.evaluate import evaluate

    kw = dict(env_kwargs=KLONDIKE3, episodes=2, seed=3)
    macro = evaluate("Klondike-v0", "macro:samples=10,batch=5,nodes=300", **kw)  # type: ignore[arg-type]
    greedy = evaluate("Klondike-v0", "greedy", **kw)  # type: ignore[arg-type]
    assert all(e.nodes > 0 and e.seconds > 0 for e in macro.episodes)
    assert macro.nodes_per_game == sum(e.nodes for e in macro.episodes) / 2
    assert greedy.nodes_per_game == 0 and greedy.seconds_per_game > 0
    assert macro.summary()["nodes_per_game"] == macro.nodes_per_game


def test_a_prior_ranks_the_candidates_and_keep_judges_only_the_first() -> None:
    """The Congress, seed 0 (three candidates, the stock hidden): weight on the last candidate's first
    move puts it first, the others after it in the solver's order; with ``keep=1`` only it is judged
    (a decision with one candidate)."""
    env = gym.make("patience_gym/Congress-v0")
    env.reset(seed=0)
    plain = _decide(env, [], solve_nodes=50)
    n = env.unwrapped.game.n_actions  # type: ignore[attr-defined]
    assert len(plain.lines) > 2
    favourite = plain.lines[-1][0]
    prior = [1.0 if a == favourite else 0.0 for a in range(n)]
    ranked = _decide(env, [], solve_nodes=50, prior=prior)
    assert ranked.lines[0][0] == favourite
    others = [line for line in plain.lines if line[0] != favourite]
    assert [line for line in ranked.lines if line[0] != favourite] == others
    kept = _decide(env, [], solve_nodes=50, prior=prior, keep=1)
    assert (
        len(kept.lines) == 1 and kept.chosen == 0 and kept.lines[0][0] == favourite and sum(kept.plays) == 0
    )
    bads: list[tuple[dict[str, Any], str]] = [
        ({"prior": [1.0]}, "one weight per action id"),
        ({"prior": prior, "keep": -1}, "keep"),
    ]
    for bad, words in bads:
        with pytest.raises(ValueError, match=words):
            _decide(env, [], solve_nodes=50, **bad)


def test_a_value_net_scores_each_sampled_deal_not_won() -> None:
    """A value net of one layer, all weights 0 and bias 1: every deal a capped search does not win
    scores ``cards`` times its probability, 1 / (1 + e^-1); a won deal 1."""
    env = gym.make("patience_gym/Congress-v0")
    env.reset(seed=0)
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    n = core.observation_space.shape[0]  # type: ignore[index]
    net = value_net()
    net.add(np.zeros(n, dtype=np.float32), np.ones(1, dtype=np.float32), n, 1)
    assert len(net) == 1 and net(core.game._c) == pytest.approx(1 / (1 + np.exp(-1)))  # type: ignore[attr-defined]
    found = _decide(env, [], solve_nodes=200, cards=0.5, value_net=net)
    assert sum(found.plays) > 0
    for plays, wins, value in zip(found.plays, found.wins, found.values, strict=True):
        assert value == pytest.approx(wins + (plays - wins) * 0.5 / (1 + np.exp(-1)))
    wrong = value_net()
    wrong.add(np.zeros(3, dtype=np.float32), np.ones(1, dtype=np.float32), 3, 1)
    with pytest.raises(ValueError, match="observation"):
        _decide(env, [], solve_nodes=200, value_net=wrong)
    with pytest.raises(ValueError, match="in x out weights"):
        wrong.add(np.zeros(2, dtype=np.float32), np.ones(1, dtype=np.float32), 3, 1)
