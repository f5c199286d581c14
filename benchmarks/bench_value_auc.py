"""How well an expert-iteration net's value tells won games' positions from lost ones, beside the
count of foundation cards: the AUC of each on the labelled games of a folder the net did not learn.

::

    python benchmarks/bench_value_auc.py --net NET --folder results/exit/Klondike-v0/macro-draw3 \\
        --seeds 2001100:2001220

Every ``--every``-th position of each game whose seed is in ``--seeds`` is replayed under the
folder's options; the label is the game's outcome, or with ``--target verdicts`` the solver's
verdict of the position on its real deal (the folder's ``verdicts.jsonl``,
``scripts/exit_verdicts.py``). ``--decisions-only`` scores the recorded decisions' positions alone:
on a folder of ``scripts/exit_positions.py`` each game's one judged position, its outcome the
verdict. One line per stretch of the game (moves from
its start), each with the positions, the net's AUC and the count's (docs/exit.md, "The net inside
the macro planner's bandit", Klondike draw 3).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch
from common import run_script  # benchmarks/common.py (the scripts' folder is on sys.path)

from patience_gym.agents.policies.exit_net import PolicyValueNet, load_net
from patience_gym.agents.solving.chunks import parse_seeds
from patience_gym.agents.training.exit import make_env, read_games, read_run
from patience_gym.agents.training.exit_verdicts import read_verdicts, verdict_targets

STRETCHES = ((0, 50), (50, 150), (150, 300), (300, 1_000_000))


def auc(scores: np.ndarray, won: np.ndarray) -> float:
    """The chance that a won position scores above a lost one (ties count half)."""
    order = np.argsort(scores, kind="stable")
    ranks = np.empty(len(scores))
    i = 0
    while i < len(scores):  # tied scores share their mean rank
        j = i
        while j + 1 < len(scores) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    n_won = int(won.sum())
    n_lost = len(won) - n_won
    return float((ranks[won].sum() - n_won * (n_won + 1) / 2) / (n_won * n_lost))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--net", required=True, help="an expert-iteration net file (scripts/exit_train.py)")
    p.add_argument("--folder", type=Path, required=True, help="a labelling folder (run.json and chunks)")
    p.add_argument("--seeds", required=True, help="the games a:b to score (not those the net learnt)")
    p.add_argument("--every", type=int, default=5, help="score every N-th position of a game")
    p.add_argument(
        "--decisions-only",
        action="store_true",
        help="score only the positions of the recorded decisions (a positions folder's judged ones: "
        "scripts/exit_positions.py)",
    )
    p.add_argument(
        "--target",
        choices=("outcome", "verdicts"),
        default="outcome",
        help="what a won position is: in a won game, or won on its real deal (the folder's verdicts)",
    )
    args = p.parse_args()
    if args.every < 1:
        raise ValueError(f"--every must be at least 1, got {args.every}")
    if not Path(args.net).is_file():
        raise ValueError(f"--net {args.net}: no such file")
    if not (args.folder / "run.json").is_file():
        raise ValueError(f"--folder {args.folder}: not a labelling folder (no run.json)")
    net, _ = load_net(args.net)
    if not isinstance(net, PolicyValueNet):
        raise ValueError("the net reads cards: only the mlp encoder's value is scored here")
    run = read_run(args.folder)
    verdicts = read_verdicts(args.folder) if args.target == "verdicts" else {}
    seeds = set(parse_seeds(args.seeds))
    value, cards, won, step = [], [], [], []
    games = 0
    for game in read_games(args.folder):
        if game.seed not in seeds or (args.target == "verdicts" and game.seed not in verdicts):
            continue
        games += 1
        env = make_env(run.env, run.options)
        obs, _ = env.reset(seed=game.seed)
        recorded = {t for t, _, _ in game.decisions}
        for t, action in enumerate(game.actions):
            if (t in recorded) if args.decisions_only else t % args.every == 0:
                with torch.no_grad():
                    v = net.value(net.board(torch.as_tensor(obs, dtype=torch.float32)[None]))
                value.append(float(v[0, 0]))
                cards.append(env.unwrapped.game.foundation_cards)  # type: ignore[attr-defined]
                won.append(game.won if not verdicts else verdict_targets(verdicts[game.seed], [t])[0] > 0)
                step.append(t)
            obs, *_ = env.step(action)
    if not won:
        raise ValueError(f"no labelled game of {args.folder} (with a verdict if asked) is in {args.seeds}")
    v_, c_, w_, s_ = np.array(value), np.array(cards), np.array(won, dtype=bool), np.array(step)
    what = "won on their real deal" if verdicts else "in won games"
    print(f"{len(w_)} positions of {games} games; {w_.mean():.1%} of them {what}")
    for lo, hi in STRETCHES:
        m = (s_ >= lo) & (s_ < hi)
        if m.any() and 0 < w_[m].mean() < 1:
            net_auc, cards_auc = auc(v_[m], w_[m]), auc(c_[m], w_[m])
            print(
                f"moves {lo}-{hi - 1}: {m.sum()} positions, "
                f"AUC net {net_auc:.3f}, foundation cards {cards_auc:.3f}"
            )


if __name__ == "__main__":
    run_script(main, __file__)
