"""Milliseconds per frame of ``render_mode="rgb_array"`` for every variant.

Positions come from random legal games (the same seeds for every run). Each position is timed in
its parts: the table view (rules core to places), the layout (places to pixels) and the Pillow
drawing with the copy into a numpy array; "frame" is the sum, what ``env.render()`` costs. Card
faces and labels are drawn once and cached, so the first frames of a process cost more: a warm-up
pass over the positions runs before the timing.

    python benchmarks/bench_render.py                  # every variant, 60 positions each
    python benchmarks/bench_render.py --env Klondike-v0 --positions 200
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from common import run_script, variant_names  # benchmarks/common.py (the scripts' folder is on sys.path)

from patience_gym.core.game import Game
from patience_gym.games import get_variant
from patience_gym.render.picture import draw_frame, to_array
from patience_gym.render.view import layout
from patience_gym.render.views import table_view


def positions(name: str, n: int, seed: int = 0) -> list[Game]:
    """``n`` positions from random legal games of ``name`` (a new deal when one ends)."""
    game = get_variant(name).make_game()
    rng = np.random.default_rng(seed)
    game.new_game(rng)
    out: list[Game] = []
    while len(out) < n:
        out.append(game.clone())
        legal = game.legal_actions()
        if legal:
            game.apply(int(rng.choice(legal)))
        else:
            game.new_game(rng)
    return out


def bench(name: str, n: int) -> dict[str, float]:
    """Mean milliseconds per frame for each part, and the frame size."""
    games = positions(name, n)
    for g in games:  # warm the card and label caches
        draw_frame(layout(table_view(g)))
    t_view = t_layout = t_draw = 0.0
    shape: tuple[int, ...] = ()
    for g in games:
        t0 = time.perf_counter()
        view = table_view(g)
        t1 = time.perf_counter()
        frame = layout(view)
        t2 = time.perf_counter()
        img = to_array(draw_frame(frame))
        t3 = time.perf_counter()
        t_view, t_layout, t_draw = t_view + t1 - t0, t_layout + t2 - t1, t_draw + t3 - t2
        shape = img.shape
    k = 1000.0 / len(games)
    return {
        "view": t_view * k,
        "layout": t_layout * k,
        "draw": t_draw * k,
        "frame": (t_view + t_layout + t_draw) * k,
        "height": shape[0],
        "width": shape[1],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", action="append", help="variant (repeat); default: all")
    parser.add_argument("--positions", type=int, default=60, help="positions timed per variant")
    args = parser.parse_args()
    if args.positions < 1:
        parser.error(f"--positions must be >= 1, got {args.positions}")
    names = variant_names(args.env)
    print(f"{'variant':<18} {'frame ms':>9} {'view':>7} {'layout':>7} {'draw':>7}  size")
    for name in names:
        r = bench(name, args.positions)
        print(
            f"{name:<18} {r['frame']:9.2f} {r['view']:7.2f} {r['layout']:7.2f} {r['draw']:7.2f}"
            f"  {r['width']:.0f}x{r['height']:.0f}"
        )


if __name__ == "__main__":
    run_script(main, __file__)
