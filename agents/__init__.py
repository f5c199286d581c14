"""Baseline agents for patience-gym: random, greedy and (with the ``train`` extra) PPO,
with the evaluation and training code behind the ``patience-gym`` command."""
