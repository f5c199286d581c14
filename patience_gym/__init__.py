"""patience-gym: classic patience (solitaire) games as Gymnasium environments.

Importing the package registers every variant of :data:`patience_gym.games.VARIANTS` as
``patience_gym/<Name>-v0``::

    import gymnasium as gym
    import patience_gym  # noqa: F401  (or use the id "patience_gym:patience_gym/Nestor-v0")

    env = gym.make("patience_gym/Klondike-v0", draw=3)
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from patience_gym.games import VARIANTS, Variant, get_variant

__version__ = "0.1.0"


def _register_all() -> None:
    for variant in VARIANTS:
        if variant.env_id in registry:
            continue
        register(
            id=variant.env_id,
            entry_point="patience_gym.env:PatienceEnv",
            # gym.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point"): N games in one
            # native batch (patience_gym.vector; needs the variant's native engine).
            vector_entry_point="patience_gym.vector:PatienceVectorEnv",
            kwargs={"variant": variant.env_name, **variant.options},
            max_episode_steps=variant.max_episode_steps,
        )


_register_all()

__all__ = ["VARIANTS", "Variant", "__version__", "get_variant"]
