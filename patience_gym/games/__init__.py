"""The variant table: one row per registered environment id.

Adding a game is a module in this folder declaring a :class:`~patience_gym.core.game.Game`
subclass, plus one row here; registration, the CLI, the benchmark and the registry-driven tests
all read this table (docs/adding-a-game.md). A variant declared elsewhere (a user's own game)
joins the lookup through :func:`add_variant`, which ``patience_gym.register`` calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from patience_gym.core.game import Game
from patience_gym.games.anna import Anna
from patience_gym.games.babette import Babette
from patience_gym.games.congress import Congress
from patience_gym.games.klondike import Klondike
from patience_gym.games.light_and_shade import LightAndShade
from patience_gym.games.louis import Louis
from patience_gym.games.nestor import Nestor
from patience_gym.games.the_kings import TheKings


@dataclass(frozen=True)
class Variant:
    """A registered environment: ``patience_gym/<env_name>``, its game and its fixed options."""

    env_name: str
    game: type[Game[Any]]
    options: dict[str, Any] = field(default_factory=dict)
    summary: str = ""

    @property
    def env_id(self) -> str:
        return f"patience_gym/{self.env_name}"

    @property
    def max_episode_steps(self) -> int:
        return self.game.default_max_steps

    def make_game(self, **options: Any) -> Game[Any]:
        return self.game(**{**self.options, **options})


VARIANTS: tuple[Variant, ...] = (  # in the order of docs/rules.md
    Variant("Klondike-v0", Klondike, summary="Klondike, one pack, draw 1, one pass (Cadogan)"),
    Variant("Nestor-v0", Nestor, summary="Nestor, one pack, pair equal ranks (Cadogan)"),
    Variant(
        "Babette-v0", Babette, summary="Babette, two packs, aces up and kings down, two re-deals (Cadogan)"
    ),
    Variant("Louis-v0", Louis, summary='The "Louis" Patience, two packs, two re-deals (Cadogan)'),
    Variant("StLouis-v0", Louis, {"deal": "dick"}, summary="St. Louis, two packs, two re-deals (Dick)"),
    Variant("Anna-v0", Anna, summary="Anna, two packs, knaves down in suit to K, two re-deals (Cadogan)"),
    Variant(
        "LightAndShade-v0", LightAndShade, summary="Light and Shade, two packs, alternate-colour foundations"
    ),
    Variant("Congress-v0", Congress, summary="The Congress, two packs, helps and rivers (Cadogan)"),
    Variant(
        "TheKings-v0", TheKings, summary="The Kings, two packs, eight aces up regardless of suit (Cadogan)"
    ),
)

BY_NAME: dict[str, Variant] = {v.env_name: v for v in VARIANTS}


def add_variant(variant: Variant) -> None:
    """Make ``variant`` known to :func:`get_variant` (``VARIANTS``, the project's own, is unchanged).

    Adding the same row again does nothing; another variant under a name already taken raises.
    """
    known = BY_NAME.get(variant.env_name)
    if known is not None and known != variant:
        raise ValueError(f"{variant.env_name} is already the variant of {known.game.__name__}")
    BY_NAME[variant.env_name] = variant


def get_variant(name: str) -> Variant:
    """Look a variant up by ``Klondike-v0`` or ``patience_gym/Klondike-v0``."""
    key = name.removeprefix("patience_gym/")
    try:
        return BY_NAME[key]
    except KeyError:
        known = ", ".join(BY_NAME)
        raise ValueError(f"unknown environment {name!r}; registered: {known}") from None
