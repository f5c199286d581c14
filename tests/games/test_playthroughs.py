"""Every variant replays its golden playthrough exactly (regenerate: python scripts/playthroughs.py)."""

from __future__ import annotations

from patience_gym.playthrough import playthrough
from tests.helpers import DATA

GOLDEN = DATA / "playthroughs"


def test_golden_playthrough(env_name: str) -> None:
    path = GOLDEN / f"{env_name}.txt"
    assert path.exists(), f"no golden playthrough for {env_name}: run python scripts/playthroughs.py"
    want = path.read_text().splitlines()
    got = playthrough(env_name).splitlines()
    for i, (w, g) in enumerate(zip(want, got, strict=False)):
        assert w == g, (
            f"{path.name} line {i + 1} differs:\n  golden: {w}\n  now:    {g}\n"
            "If the change is intended, regenerate with: python scripts/playthroughs.py"
        )
    assert len(want) == len(got)
