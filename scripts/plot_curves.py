"""Learning curves: win rate and cards on the foundations against training steps, per variant.

Reads each run's ``evaluations.csv`` (written by ``patience-gym train``: one row per periodic
evaluation on the same held-out-from-training deals) and draws one PNG with two panels per
variant. Needs matplotlib (the ``plots`` extra).

    python scripts/plot_curves.py                         # runs/ppo/*/ -> docs/images/learning_curves.png
    python scripts/plot_curves.py --runs runs/ppo/nestor runs/ppo/babette --out curves.png
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agents.training.callbacks import read_evaluations

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", nargs="*", help="run folders (default: every runs/ppo/*/ with evaluations.csv)")
    p.add_argument("--out", default=str(ROOT / "docs" / "images" / "learning_curves.png"))
    args = p.parse_args(argv)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_curves.py: needs matplotlib: pip install -e '.[plots]'", file=sys.stderr)
        return 2
    runs = [Path(r) for r in args.runs] if args.runs else sorted((ROOT / "runs" / "ppo").glob("*"))
    curves = {
        r.name: read_evaluations(r / "evaluations.csv") for r in runs if (r / "evaluations.csv").is_file()
    }
    curves = {k: v for k, v in curves.items() if v}
    if not curves:
        print("plot_curves.py: no evaluations.csv in the runs given", file=sys.stderr)
        return 2
    fig, axes = plt.subplots(len(curves), 2, figsize=(9, 2.2 * len(curves)), squeeze=False)
    for row, (name, evs) in zip(axes, curves.items(), strict=True):
        steps = [e.steps for e in evs]
        row[0].plot(steps, [100 * e.win_rate for e in evs], marker="o")
        row[0].set_ylabel(f"{name}\nwin rate %")
        row[1].plot(steps, [e.mean_foundation_cards for e in evs], marker="o", color="tab:green")
        row[1].set_ylabel("cards on foundations")
    for ax in axes[-1]:
        ax.set_xlabel("training steps")
    fig.suptitle("MaskablePPO periodic evaluation (a run that clones a teacher first: step 8 is the clone)")
    fig.tight_layout(rect=(0, 0, 1, 0.985))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=80)
    print(f"written {out} ({len(curves)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
