"""Experiment (reverted in the next commit; docs/ppo.md): a two-ply greedy against greedy.

Greedy's choice, with ties among the least-visited moves broken by the best heuristic reachable
in two moves (scored in the shadow, as greedy scores one move), to see whether a second ply of the
same heuristic is a look-ahead worth offering PPO as a move feature.

    python scripts/two_ply_greedy.py Nestor-v0 200          # greedy, then two-ply, seeds 0-199
    python scripts/two_ply_greedy.py Congress-v0 100 --only # two-ply alone
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from agents.evaluate import evaluate
from agents.heuristics import heuristic_for
from agents.policies import GreedyPolicy, look_ahead
from patience_gym.env import PatienceEnv
from patience_gym.native import reference


class TwoPlyGreedy(GreedyPolicy):
    name = "greedy2"

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int:
        game = reference(env.game)
        self._enter(game)
        sh = self.shadow.of(game, self.history)
        trials = look_ahead(game, lambda: sh, env.action_masks(), self.visits)
        self._leads_to = {t.key: t.action for t in reversed(trials)}
        h = heuristic_for(type(game))
        least = min(t.visits for t in trials)
        best: tuple[tuple[float, float, int], int] | None = None
        for t in trials:
            if t.visits != least:
                continue
            s1 = sh.clone()
            s1.apply(t.action)
            v = t.heuristic
            for b in s1.legal_actions():
                s2 = s1.clone()
                s2.apply(b)
                v = max(v, h(s2))
            key = (-v, -t.heuristic, t.action)
            if best is None or key < best[0]:
                best = (key, t.action)
        assert best is not None
        return best[1]


def main(argv: list[str]) -> None:
    env, n = argv[0], int(argv[1])
    players: list[Any] = [TwoPlyGreedy()] if "--only" in argv else ["greedy", TwoPlyGreedy()]
    for p in players:
        r = evaluate(env, p, episodes=n)
        print(env, getattr(p, "name", p), sum(e.won for e in r.episodes), "of", n, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
