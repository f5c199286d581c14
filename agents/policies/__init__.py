"""The policies: a policy maps the live environment to a legal action id.

:mod:`~agents.policies.base` holds the protocol, random and greedy (with its heuristics in
:mod:`agents.policies.heuristics` and the blind twin of :mod:`~agents.policies.shadow`);
:mod:`~agents.policies.features` the per-move features that :mod:`~agents.policies.rollout` plays
and PPO reads; :mod:`~agents.policies.planner` the determinized solver planner; and
:mod:`~agents.policies.ppo` and :mod:`~agents.policies.rllib` play trained models. A spec string
becomes one of them in :mod:`agents.registry`, the floor above; nothing here imports training,
evaluation or solving.
"""
