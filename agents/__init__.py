"""Baseline agents for patience-gym: random, greedy and (with the ``train`` extra) PPO, with the
evaluation, training and solving code behind the ``patience-gym`` command.

The package is laid out in rooms, each importing only the rooms below it (a test holds to it:
tests/project/test_import_graph.py): :mod:`agents.common` (config files, extras, backends, wrappers),
:mod:`agents.policies`, :mod:`agents.registry` (the one place a spec string becomes a policy),
:mod:`agents.training` and :mod:`agents.evaluation`, :mod:`agents.solving`, and :mod:`agents.cli` on top.
"""
