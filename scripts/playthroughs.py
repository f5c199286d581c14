"""Regenerate the golden playthroughs in tests/data/playthroughs/ (see patience_gym.playthrough)."""

import argparse
from pathlib import Path

from patience_gym.games import VARIANTS
from patience_gym.playthrough import playthrough

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "playthroughs"

if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__).parse_args()  # --help, and no stray arguments
    OUT.mkdir(parents=True, exist_ok=True)
    for v in VARIANTS:
        path = OUT / f"{v.env_name}.txt"
        path.write_text(playthrough(v.env_name))
        print(f"wrote {path.relative_to(OUT.parent.parent.parent)}")
