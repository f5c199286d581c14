"""Training: sb3-contrib MaskablePPO (:mod:`~agents.training.sb3`, configured by
:mod:`~agents.training.config`, its envs in :mod:`~agents.training.envs`, warm-started by
:mod:`~agents.training.imitation`, reporting through :mod:`~agents.training.callbacks`) and RLlib
PPO on Ray (:mod:`~agents.training.rllib`, :mod:`~agents.training.rllib_config`)."""
