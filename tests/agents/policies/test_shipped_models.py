"""The reward-only PPO models the package ships (agents/data/models/, scripts/ship_model.py): each
names what made it and how the table plays it (its card's ``play``, which ``ppo:<variant>``
follows; ``ppo-argmax:`` and ``ppo-sample:`` force one way), and wins on deals it never saw (seeds
300,000 up: neither the table's 0-999, nor the validation's 500,000 up, nor training's 1,000,000 up)
within noise of its row in results/results.json."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from patience_gym.agents.evaluation.evaluate import wilson
from patience_gym.agents.policies.ppo import (
    card_play,
    model_card,
    resolve_model_path,
    shipped_model,
    shipped_models,
)
from patience_gym.games import VARIANTS
from tests.helpers import PORTED, ROOT

MODELS = sorted(shipped_models().glob("*.zip"))
RESULTS = json.loads((ROOT / "results" / "results.json").read_text())
#: The three ways to name a model: as its card says, its most likely moves, drawn moves.
PPO_SPECS = ("ppo", "ppo-argmax", "ppo-sample")
#: Deals no model met: below the validation's 500,000 and outside the table's 0-999.
UNSEEN = range(300_000, 301_000)


def test_every_variant_ships_a_model() -> None:
    assert sorted(m.stem for m in MODELS) == sorted(v.env_name for v in VARIANTS)


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_a_model_card_says_what_made_it_and_the_table_row_is_that_model(model: Path) -> None:
    card = json.loads(model.with_suffix(".json").read_text())
    assert card["env"] == model.stem and card["learner"] == "sb3-contrib MaskablePPO"
    assert (ROOT / card["config"]).is_file() and card["steps"] >= 10_000_000
    assert card["train_seconds"] > 0 and card["commit"]
    row = next(r for r in RESULTS[model.stem] if r["policy"] == "ppo")
    assert row["card"] == card and row["games"] == 1000
    # played as the card says: its most likely moves, or drawn ones where they won more validation deals
    figures = card["validation_play"]
    assert figures["deals"] == card["validation"]["deals"]
    assert card["play"] == ("sample" if figures["sample"]["wins"] > figures["argmax"]["wins"] else "argmax")
    assert row["spec"] == f"{'ppo-sample' if card['play'] == 'sample' else 'ppo'}:{model.stem}"


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_ppo_variant_plays_a_shipped_model_as_its_row_does(model: Path) -> None:
    # one obvious way to the headline figure: ppo:<variant> plays as the card (and the row) says
    card = json.loads(model.with_suffix(".json").read_text())
    assert card_play(model) == card["play"] and model_card(model) == card
    table = (ROOT / "results" / "results.md").read_text().splitlines()
    row = next(line for line in table if line.startswith(f"| {model.stem} | ppo (reward only"))
    assert ("sampled moves" in row) == (card["play"] == "sample"), row


def test_ppo_plays_the_card_way_and_the_other_way_only_when_asked(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    from patience_gym.agents.evaluation.evaluate import evaluate
    from patience_gym.agents.registry import make_policy

    assert card_play(shipped_models() / "Nestor-v0.zip") == "sample"  # the row's 13.3%: drawn moves
    runs = {spec: evaluate("Nestor-v0", f"{spec}:nestor", episodes=30, seed=0) for spec in PPO_SPECS}
    games = {spec: [(e.won, e.foundation_cards, e.length) for e in r.episodes] for spec, r in runs.items()}
    assert games["ppo"] == games["ppo-sample"] and games["ppo"] != games["ppo-argmax"]
    # a model without a card (a training run's) plays its most likely moves, as before
    bare = tmp_path / "model.zip"
    shutil.copy(shipped_models() / "Nestor-v0.zip", bare)
    assert model_card(bare) is None and card_play(bare) == "argmax"
    assert not make_policy(f"ppo:{bare}").sample and make_policy(f"ppo-sample:{bare}").sample  # type: ignore[attr-defined]
    (tmp_path / "model.json").write_text(json.dumps({"play": "both"}))
    with pytest.raises(ValueError, match=r"model.json: play='both' is not one of argmax, sample"):
        make_policy(f"ppo:{bare}")


@pytest.mark.parametrize("name", ["nestor", "Nestor", "Nestor-v0", "patience_gym/Nestor-v0"])
def test_a_variant_name_means_its_shipped_model(name: str) -> None:
    assert shipped_model(name) == shipped_models() / "Nestor-v0.zip"
    assert resolve_model_path(name) == shipped_models() / "Nestor-v0.zip"


def test_a_name_that_is_no_model_lists_the_shipped_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"ppo:nestr: no such model file, and no shipped model of that name"):
        resolve_model_path("nestr")


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_a_shipped_model_wins_unseen_deals_within_noise_of_its_row(model: Path) -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from patience_gym.agents.policies.ppo import play_batched

    if model.stem not in {v.env_name for v in PORTED}:
        pytest.skip(f"{model.stem} has no native port: batched play needs it")
    sample = json.loads(model.with_suffix(".json").read_text())["play"] == "sample"
    play = play_batched(MaskablePPO.load(model, device="cpu"), model.stem, UNSEEN, sample=sample)
    lo, hi = wilson(int(play.won.sum()), len(UNSEEN))
    row = next(r for r in RESULTS[model.stem] if r["policy"] == "ppo")
    row_lo, row_hi = row["ci95"]
    assert lo <= row_hi and row_lo <= hi, f"unseen deals {play.win_rate:.3f}, row {row['win_rate']:.3f}"
