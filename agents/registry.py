"""The policy specs: the one place where a spec string (``greedy``, ``planner:samples=4``,
``ppo:runs/ppo/nestor``) becomes a policy. The command line, the evaluator, the solver's ``--play``
and imitation's teacher all read it.

Each spec is a row of :data:`SPECS`: a name, the module and factory that build it, whether it takes
settings after a colon, and how help and error messages show it. The rows *name* their modules and
import them only when a policy of theirs is built, so this module sits on the policies without
importing any of them (a spec needing an extra, ``ppo`` or ``rllib``, costs nothing until used).

::

    from patience_gym.agents.registry import make_policy

    policy = make_policy("rollout:16")
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from .policies.base import Policy

#: Whether a spec takes settings after ``name:``: never, optionally, or always (a path).
Settings = Literal["none", "optional", "required"]


@dataclass(frozen=True)
class PolicySpec:
    """One policy a spec string can name."""

    name: str
    module: str
    """The module that builds it, relative to this package (imported only when it does)."""
    factory: str
    """The module's callable: called with no argument (``settings="none"``), else with the text
    after ``name:`` (``None`` for a bare ``name`` whose settings are optional)."""
    settings: Settings
    usage: str | Callable[[], str]
    """The spec as error messages show it, or a function of the module giving it."""
    help: str

    def build(self, settings: str | None) -> Policy:
        """The policy of this spec with ``settings`` (the text after the colon, or ``None``)."""
        factory = getattr(import_module(self.module, __package__), self.factory)
        policy: Policy = factory() if self.settings == "none" else factory(settings)
        return policy

    def shown(self) -> str:
        """How error messages show this spec."""
        return self.usage if isinstance(self.usage, str) else self.usage()


def _planner_usage() -> str:
    from .policies.planner import spec_help  # the planner's settings, with their defaults

    return spec_help()


def _macro_usage() -> str:
    from .policies.macro import spec_help

    return spec_help()


def _safe_usage() -> str:
    from .policies.safe import spec_help

    return spec_help()


def _uct_usage() -> str:
    from .policies.uct import spec_help

    return spec_help()


SPECS: tuple[PolicySpec, ...] = (
    PolicySpec("random", ".policies.base", "RandomPolicy", "none", "random", "uniform over the legal moves"),
    PolicySpec(
        "greedy",
        ".policies.base",
        "GreedyPolicy",
        "none",
        "greedy",
        "one-step look-ahead on the variant's heuristic, with a cycle guard",
    ),
    PolicySpec(
        "planner",
        ".policies.planner",
        "make_planner",
        "optional",
        _planner_usage,
        "the determinized solver planner (agents.policies.planner); any subset of its settings",
    ),
    PolicySpec(
        "macro",
        ".policies.macro",
        "make_macro",
        "optional",
        _macro_usage,
        "a bandit over macro moves, decided where a card is shown or won (agents.policies.macro)",
    ),
    PolicySpec(
        "safe",
        ".policies.safe",
        "make_safe",
        "optional",
        _safe_usage,
        "greedy's move unless the solver finds the deal lost after it (a teacher: agents.policies.safe)",
    ),
    PolicySpec(
        "uct",
        ".policies.uct",
        "make_uct",
        "optional",
        _uct_usage,
        "tree search over what the player has seen, on sampled deals (agents.policies.uct)",
    ),
    PolicySpec(
        "exit",
        ".policies.exit",
        "make_exit",
        "required",
        "exit:<variant or model file>",
        "the expert-iteration network alone, learnt from the planner's play (agents.policies.exit)",
    ),
    PolicySpec(
        "planner+net",
        ".policies.exit",
        "make_planner_net",
        "required",
        "planner+net:<variant or model file>[,planner settings]",
        "the planner with the expert-iteration network's move where no sampled deal is won",
    ),
    PolicySpec(
        "macro+net",
        ".policies.exit",
        "make_macro_net",
        "required",
        "macro+net:<variant or model file>[,macro settings][,keep=K]",
        "the macro planner with its candidates ranked by the expert-iteration network's policy",
    ),
    PolicySpec(
        "rollout",
        ".policies.rollout",
        "make_rollout_policy",
        "optional",
        "rollout[:N]",
        "the best move by N rollouts of a native base policy on sampled deals (default 16)",
    ),
    PolicySpec(
        "turnbull",
        ".policies.turnbull",
        "make_turnbull",
        "none",
        "turnbull",
        "Klondike only: Bill Turnbull's published move-priority list, a blind rule player",
    ),
    PolicySpec(
        "ppo",
        ".policies.ppo",
        "PPOPolicy",
        "required",
        "ppo:<model path>",
        "a saved MaskablePPO model or its run folder (the train extra), played as its card says: a shipped "
        "model as its results row, any other by its most likely moves",
    ),
    PolicySpec(
        "ppo-sample",
        ".policies.ppo",
        "sampled_ppo",
        "required",
        "ppo-sample:<model path>",
        "the same model drawing each move from its masked distribution, seeded by the deal",
    ),
    PolicySpec(
        "ppo-argmax",
        ".policies.ppo",
        "argmax_ppo",
        "required",
        "ppo-argmax:<model path>",
        "the same model playing its most likely move, whatever its card says",
    ),
    PolicySpec(
        "rllib",
        ".policies.rllib",
        "RLlibPolicy",
        "required",
        "rllib:<checkpoint>",
        "an RLlib run folder or checkpoint (the scale extra)",
    ),
)

#: The specs by name.
BY_NAME: dict[str, PolicySpec] = {s.name: s for s in SPECS}
#: The specs that take no settings: a bare name is the whole spec.
BUILTIN: tuple[str, ...] = tuple(s.name for s in SPECS if s.settings == "none")


def make_policy(spec: str) -> Policy:
    """The policy of ``spec``: ``random``, ``greedy``,
    ``planner[:samples=8,budget=20000,retry=8,probe=0,progress=0,known=0,rollouts=0,order=0]`` (the
    determinized solver planner of :mod:`agents.policies.planner`; any subset of its settings),
    ``macro[:samples=100,...]`` (a bandit over macro moves: :mod:`agents.policies.macro`),
    ``uct[:iterations=1000,samples=32,...]`` (tree search over what the player has seen:
    :mod:`agents.policies.uct`), ``exit:<variant or model file>`` and ``planner+net:<variant or
    model file>[,planner settings]`` (the expert-iteration network alone, and as the planner's
    fallback: :mod:`agents.policies.exit`), ``rollout[:N]`` (the best move by N rollouts of a native base
    policy on sampled deals: :class:`agents.policies.rollout.RolloutPolicy`), ``ppo:<path to a
    saved MaskablePPO model>`` (played as its card says), ``ppo-sample:<path>`` and
    ``ppo-argmax:<path>`` (the same model drawing its moves, or playing its most likely ones) or
    ``rllib:<RLlib run folder or checkpoint>``."""
    name, colon, settings = spec.partition(":")
    row = BY_NAME.get(name)
    if row is not None and (row.settings == "optional" or (row.settings == "none") != bool(colon)):
        return row.build(settings if colon else None)
    raise ValueError(f"unknown policy {spec!r}; use one of {spec_help()}")


def spec_help(*, detailed: bool = True) -> str:
    """Every spec as error messages show it: ``random, greedy, planner[...], uct[...], rollout[:N],
    ppo:<model path>, ppo-sample:<model path>, ppo-argmax:<model path> or rllib:<checkpoint>``.
    With ``detailed=False``
    (help lines) a spec whose usage comes from its module is shown as ``name[:settings]``, and no
    module is imported."""
    shown = [s.shown() if detailed or isinstance(s.usage, str) else f"{s.name}[:settings]" for s in SPECS]
    return f"{', '.join(shown[:-1])} or {shown[-1]}"


def spec_table() -> str:
    """One clause per spec, ``name: what it plays``, for a command's description."""
    return "; ".join(f"{s.name}: {s.help}" for s in SPECS)
