"""What the docs say of the reward-only ``ppo`` rows matches what their configs train (issue 48):
where a variant's config (``configs/ppo/<variant>.yaml``) trains the per-move policy, whose input
holds each legal move's result one move ahead, no sentence of the README, docs/ or configs/ calls
that model flat or free of look-ahead, whether it names the variant or speaks of the rows at large."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from patience_gym.agents.training.config import load_config
from patience_gym.games import VARIANTS
from tests.helpers import ROOT

#: A claim that a model reads only the flat observation: "a flat network", "the flat recipe",
#: "(flat)", "flat MLP" (not a curve that "has been flat").
FLAT = re.compile(r"\bflat (?:network|observation|recipe|mlp|model)s?\b|\(flat\)|\bflat, final\b", re.I)
#: A claim that a model looks nowhere ahead: "no look-ahead", "free of look-ahead", "without
#: look-ahead", "no teacher, no cloning, no look-ahead features".
NO_LOOK_AHEAD = re.compile(r"\b(?:no|free of|without|nor)\b[\w ,-]{0,30}?\blook-?ahead\b", re.I)
#: Words that speak of every reward-only row or shipped model at once.
ALL_ROWS = re.compile(
    r"`ppo` rows?|\bppo rows?\b|\"ppo\" rows|ppo \(reward only|reward-only (?:ppo|models?|rows?)|"
    r"configs/ppo/(?:<variant>|defaults)|the package ships|ships (?:each|their|a trained)",
    re.I,
)
#: Words that name the per-move policy: a sentence holding one says which model it means.
PER_MOVE_NAMED = re.compile(r"per-move|move_policy|one-move", re.I)


def per_move_variants(configs: Path) -> set[str]:
    """The variants whose reward-only config (defaults merged) trains ``policy: move_policy``."""
    found = set()
    for path in sorted(configs.glob("*.yaml")):
        if path.stem in ("defaults", "tiny"):
            continue
        cfg = load_config(str(path))
        if cfg.policy == "move_policy":
            found.add(cfg.env)
    return found


def aliases(env_name: str) -> list[str]:
    """How the docs name a variant: ``TheKings-v0``, ``TheKings``, ``The Kings`` (``St. Louis``)."""
    stem = env_name.removesuffix("-v0")
    spaced = re.sub(r"(?<!^)(?=[A-Z])", " ", stem).replace(" And ", " and ").replace("St ", "St. ")
    return sorted({env_name, stem, spaced}, key=len, reverse=True)


def sentences(text: str) -> list[str]:
    """A Markdown or YAML text's sentences: fenced code left out, comment marks dropped, each
    paragraph, list item or table row split after a full stop."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    text = re.sub(r"^\s*#+ ?", "", text, flags=re.M)  # headings and YAML comments
    out = []
    for block in re.split(r"\n\s*\n|\n(?=\s*[-|] )|\n(?=\s*\d+\. )", text):
        flat = " ".join(block.split())
        out += [s for s in re.split(r"(?<=[.!?])(?<!\bSt\.)\s+(?=[A-Z*`(\[])", flat) if s]  # St. Louis
    return out


def offending(sentence: str, per_move: set[str]) -> bool:
    """Whether ``sentence`` calls a per-move model flat or free of look-ahead: it makes the claim,
    does not name the per-move policy, and speaks of every reward-only row, or names a variant
    whose config trains the per-move policy."""
    if not per_move or PER_MOVE_NAMED.search(sentence):
        return False
    if not (FLAT.search(sentence) or NO_LOOK_AHEAD.search(sentence)):
        return False
    if ALL_ROWS.search(sentence):
        return True
    text = sentence
    for v in VARIANTS:  # "St. Louis" is no mention of Louis: other variants' names go first
        if v.env_name not in per_move:
            for name in aliases(v.env_name):
                text = text.replace(name, "#")
    return any(re.search(rf"\b{re.escape(n)}\b", text) for env in per_move for n in aliases(env))


def _texts() -> dict[str, str]:
    paths = [
        ROOT / "README.md",
        *sorted((ROOT / "docs").rglob("*.md")),
        *sorted((ROOT / "configs").rglob("*.yaml")),
    ]
    texts = {}
    for path in paths:
        text = path.read_text()
        if path.suffix == ".yaml":  # only the comments speak
            text = "\n".join(line for line in text.splitlines() if line.lstrip().startswith("#"))
        texts[path.relative_to(ROOT).as_posix()] = text
    return texts


def test_the_per_move_variants_are_read_from_the_configs_and_match_the_shipped_models() -> None:
    per_move = per_move_variants(ROOT / "configs" / "ppo")
    shipped = ROOT / "agents" / "data" / "models"
    cards = {p.stem: json.loads(p.read_text()) for p in shipped.glob("*.json")}
    assert per_move == {env for env, card in cards.items() if card.get("policy") == "move_policy"}
    assert per_move, "no config trains the per-move policy: this file's check would test nothing"


def test_no_sentence_calls_a_per_move_model_flat_or_free_of_look_ahead() -> None:
    per_move = per_move_variants(ROOT / "configs" / "ppo")
    found = [
        f"{name}: {s}" for name, text in _texts().items() for s in sentences(text) if offending(s, per_move)
    ]
    assert not found, "say which network (flat, or per-move with one-move features):\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("sentence", "per_move", "flagged"),
    [
        ("Every `ppo` row is a flat network with no look-ahead.", {"Louis-v0"}, True),
        ("The package ships each model: no teacher and no look-ahead.", {"Anna-v0"}, True),
        ("Louis ships a flat network trained from the reward alone.", {"Louis-v0"}, True),
        ("The Congress row reads no look-ahead features.", {"Congress-v0"}, True),
        # the claims are true where no config trains the per-move policy
        ("Every `ppo` row is a flat network with no look-ahead.", set(), False),
        ("Louis ships a flat network trained from the reward alone.", {"Anna-v0"}, False),
        # St. Louis is not Louis
        ("St. Louis ships a flat network.", {"Louis-v0"}, False),
        # the per-move policy named: the sentence says which model is which
        ("Louis' per-move policy won more than the flat network.", {"Louis-v0"}, False),
        ("The `ppo` rows: a flat network or the per-move policy (one-move features).", {"Louis-v0"}, False),
        # flat said of a curve, not of a network
        ("Louis' curve has been flat since 30M.", {"Louis-v0"}, False),
    ],
)
def test_the_check_flags_a_per_move_model_called_flat(
    sentence: str, per_move: set[str], flagged: bool
) -> None:
    assert offending(sentence, per_move) is flagged


def test_sentences_split_paragraphs_items_rows_and_comments() -> None:
    text = "# Title\n\nOne. Two `x` here.\n- St. Louis\n  goes on\n| a | b |\n\n```\ncode. Not. Here.\n```\n"
    assert sentences(text) == ["Title", "One.", "Two `x` here.", "- St. Louis goes on", "| a | b |"]
    assert aliases("StLouis-v0") == ["StLouis-v0", "St. Louis", "StLouis"]


def _results_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("results_script", ROOT / "scripts" / "results.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["results_script"] = module
    spec.loader.exec_module(module)
    return module


def test_the_readme_states_both_counts_of_the_table() -> None:
    """The README's learning summary gives the generous count and the strict one beside it, as
    scripts/results.py counts them from results/results.json."""
    results = _results_script()
    count = results.against_greedy(json.loads((ROOT / "results" / "results.json").read_text()))
    n = len(count.variants)
    readme = " ".join((ROOT / "README.md").read_text().split())
    point = re.search(r"at or above greedy's point estimate[^.]*? on \**(\d+) of (\d+)", readme)
    strict = re.search(r"strictly above[^.]*? on \**(\d+) of (\d+)", readme)
    assert point and strict, "the README's ppo summary gives both counts"
    assert (int(point[1]), int(point[2])) == (len(count.point), n)
    assert (int(strict[1]), int(strict[2])) == (len(count.strict), n)
    assert f"**{len(count.strict)} of {n}**" in (ROOT / "results" / "results.md").read_text()


def test_each_reward_only_row_of_the_table_names_the_inputs_its_config_trains() -> None:
    per_move = per_move_variants(ROOT / "configs" / "ppo")
    table = (ROOT / "results" / "results.md").read_text()
    rows = re.findall(r"^\| (\S+) \| (ppo \(reward only[^|]*) \|", table, flags=re.M)
    assert len(rows) >= 9
    for env, name in rows:
        inputs = "per-move, one-move features" if env in per_move else "flat observation"
        assert inputs in name, f"{env}: {name}"
