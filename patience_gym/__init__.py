"""patience-gym: classic patience (solitaire) games as Gymnasium environments.

Importing the package registers every variant of :data:`patience_gym.games.VARIANTS` as
``patience_gym/<Name>-v0``::

    import gymnasium as gym
    import patience_gym  # noqa: F401  (or use the id "patience_gym:patience_gym/Nestor-v0")

    env = gym.make("patience_gym/Klondike-v0", draw=3)

A game declared outside the package registers the same way, with :func:`register` and its own
:class:`Variant` row (docs/adding-a-game.md).
"""

from __future__ import annotations

from gymnasium.envs.registration import register as gym_register
from gymnasium.envs.registration import registry

from patience_gym.games import VARIANTS, Variant, add_variant, get_variant

__version__ = "0.1.0"


def register(variant: Variant) -> None:
    """Register ``variant`` with gymnasium as ``variant.env_id`` (``patience_gym/<env_name>``).

    Every row of :data:`VARIANTS` is registered through this at import; a variant declared
    anywhere else (a :class:`~patience_gym.core.game.Game` subclass and its own :class:`Variant`
    row) is registered by calling it, and is then made, checked and evaluated as the project's own
    are. An id already registered is left as it is.
    """
    add_variant(variant)
    if variant.env_id in registry:
        return
    gym_register(
        id=variant.env_id,
        entry_point="patience_gym.env:PatienceEnv",
        # gym.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point"): N games in one
        # native batch (patience_gym.vector; needs the variant's native engine).
        vector_entry_point="patience_gym.vector:PatienceVectorEnv",
        kwargs={"variant": variant.env_name, **variant.options},
        max_episode_steps=variant.max_episode_steps,
    )


for _variant in VARIANTS:
    register(_variant)

__all__ = ["VARIANTS", "Variant", "__version__", "get_variant", "register"]
