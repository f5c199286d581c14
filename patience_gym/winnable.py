"""Winnable deals: the training seeds the solver won, shipped with the package (``deals="winnable"``).

``gym.make(id, deals="winnable")`` deals only seeds listed here: seeds of the training range
(1,000,000 up; never the evaluation deals 0-999 nor the 5,000-5,999 that check shipped models)
that the perfect-information solver (:mod:`patience_gym.solver`) won, and whose winning line was
replayed through ``gym.make`` and won within the registered step limit, so an agent can win every
one of them through the env. ``patience_gym/data/winnable/<EnvName>.json`` holds a variant's list
(half-open ranges of seeds) and its provenance: the seeds tried, how many the solver decided and
won, the node budget, the commit; ``scripts/winnable.py`` labels and packs them.

Only the registered rules are labelled (an option that changes only what the player is shown,
such as Klondike's ``stock``, keeps the list); other rule options, and the variants whose solver
takes too long to decide a deal, have no list, and asking for one raises ``ValueError`` naming
what is labelled.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from patience_gym.core.game import resolve_options, rules_only
from patience_gym.games import Variant

__all__ = [
    "DATA",
    "DEALS",
    "WinnableSeeds",
    "check_deals",
    "labelled",
    "random_deals_only",
    "ranges",
    "winnable_seeds",
]

#: The package folder of the lists (under ``patience_gym``).
DATA = "data/winnable"
#: The values of ``gym.make(id, deals=...)``: every deal (a shuffled pack), or winnable ones only.
DEALS = ("random", "winnable")


@dataclass(frozen=True)
class WinnableSeeds:
    """A variant's winnable training seeds (sorted) and where they come from."""

    env: str
    seeds: np.ndarray  #: int64, sorted
    provenance: dict[str, Any]  #: the file's fields but the seeds: tried, decided, won, budget ...


def ranges(seeds: list[int]) -> list[list[int]]:
    """Sorted ``seeds`` as half-open ``[start, stop)`` runs (the files' compact form)."""
    out: list[list[int]] = []
    for s in seeds:
        if out and out[-1][1] == s:
            out[-1][1] = s + 1
        else:
            out.append([s, s + 1])
    return out


def _files() -> Any:
    return resources.files("patience_gym").joinpath(DATA)


@cache
def labelled() -> tuple[str, ...]:
    """The ids (``Klondike-v0`` ...) that have a winnable list, in name order."""
    folder = _files()
    return tuple(sorted(f.name[: -len(".json")] for f in folder.iterdir() if f.name.endswith(".json")))


@cache
def _load(env: str) -> WinnableSeeds:
    data = json.loads(_files().joinpath(f"{env}.json").read_text())
    runs = data.pop("won_ranges")
    seeds = np.concatenate([np.arange(a, b, dtype=np.int64) for a, b in runs])
    return WinnableSeeds(env, seeds, data)


def check_deals(deals: Any) -> str:
    """``deals`` if it is one of :data:`DEALS`; anything else raises with what is allowed."""
    if not isinstance(deals, str) or deals not in DEALS:
        raise ValueError(f"deals={deals!r} is not allowed; choose one of {', '.join(map(repr, DEALS))}")
    return deals


def random_deals_only(options: dict[str, Any]) -> None:
    """Refuse ``deals`` other than ``"random"`` among the batched env's ``options``: its C++ batch
    shuffles its own packs."""
    if options.get("deals", "random") != "random":
        raise ValueError(
            f"deals={options['deals']!r}: the batched environment deals random packs only; for "
            "winnable deals use gym.make_vec(..., vectorization_mode='sync'), whose envs are gym.make's"
        )


def winnable_seeds(variant: Variant, options: dict[str, Any]) -> WinnableSeeds:
    """The winnable list of ``variant`` with its resolved ``options``; ``ValueError`` where there
    is none (another variant's rules, or a variant not labelled), naming what is labelled."""
    names = labelled()
    if variant.env_name not in names:
        raise ValueError(
            f"deals='winnable': {variant.env_name} has no labelled winnable seeds (docs/environments.md "
            f"says why); labelled: {', '.join(names)}"
        )
    found = _load(variant.env_name)
    declared = variant.game.OPTIONS
    # an option added since the list was made is at its default there (the rules it was made under)
    made = resolve_options(variant.game.name, declared, found.provenance["options"])
    mine, theirs = rules_only(declared, options), rules_only(declared, made)
    if mine != theirs:
        other = ", ".join(f"{k}={mine[k]!r}" for k in sorted(mine) if mine[k] != theirs.get(k))
        raise ValueError(
            f"deals='winnable' is labelled for {variant.env_name}'s registered rules only, not {other}"
        )
    return found
