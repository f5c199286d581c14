"""Where a lost game was lost: the first move after which the real deal (every card seen) is no
longer won, found by bisection with the solver. ``scripts/planner_losses.py`` asks it of the
planners' games, :mod:`patience_gym.agents.training.exit_mine` of the expert-iteration net's."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from patience_gym.core.cards import card_name
from patience_gym.env import PatienceEnv
from patience_gym.native import reference
from patience_gym.solver import solve_line

__all__ = ["deck_of", "first_not_won", "label_after", "losing_move"]


def deck_of(core: PatienceEnv) -> list[str]:
    """The real deal, every card (what the solver is given; no player reads it)."""
    return [card_name(c) for c in reference(core.game).initial_pack]


def label_after(core: PatienceEnv, deck: list[str], line: Sequence[int], budget: int, probe: int) -> str:
    """The solver's label for ``deck`` after ``line``, in ``core``'s variant and options."""
    return solve_line(core.variant, core.game.options, deck, line, max_nodes=budget, probe_nodes=probe).label


def losing_move(core: PatienceEnv, actions: Sequence[int], budget: int) -> tuple[int, str]:
    """The first n such that the real deal of ``core`` (dealt again, never read by a player) is no
    longer won after ``actions[:n]``, and its label (``lost`` or ``unknown`` at ``budget`` nodes,
    half of them in the solver's probe); ``(-1, "won")`` where it is won after them all. The deal is
    taken as won before the first move (a deal labelled lost has no losing move to find)."""
    deck = deck_of(core)

    def label(n: int) -> str:
        return label_after(core, deck, list(actions[:n]), budget, budget // 2)

    n = first_not_won(label, len(actions))
    return (-1, "won") if n < 0 else (n, label(n))


def first_not_won(label: Callable[[int], str], moves: int) -> int:
    """The first n in 1..``moves`` whose ``label(n)`` (the solver's, after n moves) is not "won",
    by bisection, taking the position after 0 moves as won; -1 where ``label(moves)`` is won."""
    lo, hi = 0, moves  # won after lo moves; not after hi
    if label(hi) == "won":
        return -1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if label(mid) == "won":
            lo = mid
        else:
            hi = mid
    return hi
