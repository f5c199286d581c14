"""The ground floor of the agents: what every room above uses and nothing here imports from them.

Config files onto dataclasses (:mod:`~agents.common.config`), the optional extras
(:mod:`~agents.common.extras`), where chunks of work run (:mod:`~agents.common.backends`),
progress on long work (:mod:`~agents.common.progress`) and the Gymnasium wrappers that deal
from explicit seeds (:mod:`~agents.common.wrappers`).
"""
