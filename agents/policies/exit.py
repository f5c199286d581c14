"""``exit`` and ``planner+net``: the expert-iteration network alone, and inside the planner (issue 46).

``exit:<variant>`` plays the network the package ships for the variant
(``agents/data/exit/<Variant>-v0.pt``, its card beside it as ``.json``), ``exit:<model file>``
any net :mod:`patience_gym.agents.training.exit_train` saved: its most likely legal move, no search. It learnt
from the planner's play on training deals (expert iteration), not from the reward alone. A model
file of an afterstate net (:mod:`patience_gym.agents.policies.afterstate`, learnt from the solver's
verdicts) plays the move to the position it scores best.

``planner+net:<variant or model file>[,planner settings]`` is the planner
(:class:`patience_gym.agents.policies.planner.PlannerPolicy`, by default with the settings that labelled the
variant's results row, :data:`patience_gym.agents.policies.planner.ROW_SETTINGS`) whose fallback, where no
sampled deal is won, is the net's move instead of greedy's: ``planner+net:babette,samples=2``. The
planner tells the net every move it plays (:meth:`ExitPolicy.follow`), so a net whose inputs count
every step (greedy's columns) sees the game as it would playing alone.

``macro+net:<variant or model file>[,macro settings][,keep=K]`` is the macro planner
(:class:`patience_gym.agents.policies.macro.MacroPolicy`) with the net's policy inside its bandit:
where cards are hidden, its candidates are ranked by the net's probability of their line's first
move, so the bandit samples the net's favourites first and, with ``first=1``, plays the net's first
where no sampled deal is won; with ``keep=K`` only the K best-ranked are judged at all (fewer
capped searches a decision). With ``value=1`` (or ``2``) the net's value is inside the search too:
a sampled deal whose capped search is not won scores ``cards`` times the net's won probability (or
its foundation share at the game's end) of the position the candidate's line reached on it (what
the player would see there), in place of the foundation share the search reached; ``rank=0`` then
leaves the candidates unranked (the value alone inside the search). It tells the net every move
played, as ``planner+net`` does.

Playing a net sets torch to one thread: on a small shared machine two threads wait on each other
and one move took 25 times as long.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from patience_gym.env import PatienceEnv

from .afterstate import AfterstatePolicy, is_afterstate
from .exit_net import ExitPolicy, native_value_net
from .macro import FLOATS, SETTINGS, MacroPolicy
from .planner import ROW_SETTINGS, PlannerPolicy, parse_planner_spec
from .settings import parse_settings

__all__ = ["MacroNetPolicy", "make_exit", "make_macro_net", "make_planner_net", "shipped_net", "shipped_nets"]


def shipped_nets() -> Path:
    """The folder of the nets the package ships (``agents/data/exit/``)."""
    from ..common.data import package_data

    return package_data("data", "exit")


def _plain(text: str) -> str:
    return text.removeprefix("patience_gym/").removesuffix("-v0").replace("_", "").lower()


def shipped_net(name: str) -> Path | None:
    """The shipped net a variant's name means (``babette``, ``Babette-v0``), or None."""
    folder = shipped_nets()
    for path in sorted(folder.glob("*.pt")) if folder.is_dir() else []:
        if _plain(path.stem) == _plain(name):
            return path
    return None


def _net_path(spec: str, text: str) -> Path:
    """A model file, or the shipped net of a variant; else a one-line ``ValueError``."""
    path = Path(text)
    if text and path.is_file():
        return path
    shipped = shipped_net(text) if text else None
    if shipped is not None:
        return shipped
    folder = shipped_nets()
    names = sorted(p.stem for p in folder.glob("*.pt")) if folder.is_dir() else []
    raise ValueError(
        f"{spec}:{text}: no model file and no shipped network of that name; use {spec}:<variant> "
        f"with one of {', '.join(names) or 'none'}, or {spec}:<model file>"
    )


def _threads() -> None:
    import torch

    torch.set_num_threads(1)


def make_exit(settings: str | None) -> ExitPolicy | AfterstatePolicy:
    """``exit:<variant or model file>`` (module docstring): a per-move net, or an afterstate net."""
    path = _net_path("exit", (settings or "").strip())
    _threads()
    if is_afterstate(path):
        return AfterstatePolicy.load(path, name=f"exit:{path.stem}")
    return ExitPolicy.load(path, name=f"exit:{path.stem}")


def _per_move_net(spec: str, target: str) -> tuple[Path, ExitPolicy]:
    """The per-move net of ``spec:target``; an afterstate net is refused, saying why."""
    path = _net_path(spec, target)
    if is_afterstate(path):
        raise ValueError(f"{spec}:{target}: {path.name} is an afterstate net; {spec} needs a per-move net")
    return path, ExitPolicy.load(path)


def make_planner_net(settings: str | None) -> PlannerPolicy:
    """``planner+net:<variant or model file>[,planner settings]`` (module docstring)."""
    target, _, rest = (settings or "").partition(",")
    path, net = _per_move_net("planner+net", target.strip())
    _threads()
    row = ROW_SETTINGS.get(net.net.cfg.env, "")
    settings_ = {**parse_planner_spec(row), **parse_planner_spec(rest)}
    planner = PlannerPolicy(**settings_)
    planner.fallback_policy = net
    planner.name = f"planner+net:{path.stem}({planner.name.removeprefix('planner(')}"
    return planner


class MacroNetPolicy(MacroPolicy):
    """``macro+net`` (module docstring): the macro planner whose candidates the net ranks."""

    def __init__(
        self, net: ExitPolicy, keep: int = 0, value: int = 0, rank: int = 1, **settings: Any
    ) -> None:
        if rank not in (0, 1) or isinstance(rank, bool):
            raise ValueError(f"macro+net: rank must be 0 or 1, got {rank!r}")
        if not rank and (keep or not value):
            raise ValueError(
                "macro+net: rank=0 leaves the candidates unranked, so it needs value=1 or 2 "
                f"and no keep (got value={value}, keep={keep})"
            )
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 0:
            raise ValueError(
                f"macro+net: keep must be a whole number >= 0 (0: judge every candidate), got {keep!r}"
            )
        if value not in (0, 1, 2) or isinstance(value, bool):
            raise ValueError(f"macro+net: value must be 0, 1 or 2, got {value!r}")
        self.net, self.keep, self.rank = net, keep, rank
        self.value_net = native_value_net(net.net, value - 1) if value else None
        self._scored = False  # the net read this step's inputs already (its prior was asked)
        self._obs = np.empty(0, dtype=np.float32)
        super().__init__(**settings)
        extra = "".join(f",{k}={v}" for k, v in (("keep", keep), ("value", value)) if v)
        extra += "" if rank else ",rank=0"
        self.name = f"macro+net({self.name.removeprefix('macro(').removesuffix(')')}{extra})"

    def reset(self, seed: int) -> None:
        super().reset(seed)
        self.net.reset(seed)
        self._scored = False

    def advise(self, env: PatienceEnv, obs: np.ndarray) -> int:
        self._obs = obs  # what the net reads, if the search asks it
        return super().advise(env, obs)

    def _ranking(self, env: PatienceEnv, hidden: bool) -> dict[str, Any]:
        if not hidden:
            return {}
        if not self.rank:
            return {"value_net": self.value_net}
        logits, _ = self.net.scores(env, self._obs)
        self._scored = True
        weights = np.exp(logits - logits.max())  # -inf (illegal) gives 0
        return {"prior": (weights / weights.sum()).tolist(), "keep": self.keep, "value_net": self.value_net}

    def commit(self, env: PatienceEnv, action: int) -> None:
        self.net.follow(env, action, scored=self._scored)
        self._scored = False
        super().commit(env, action)


def make_macro_net(settings: str | None) -> MacroNetPolicy:
    """``macro+net:<variant or model file>[,macro settings][,keep=K]`` (module docstring)."""
    target, _, rest = (settings or "").partition(",")
    _, net = _per_move_net("macro+net", target.strip())
    _threads()
    keep_doc = (0, "candidates judged, the net's best first (0: all)")
    value_doc = (
        0,
        "a sampled deal not won scores cards x the net's won probability (1) or end share (2) there",
    )
    rank_doc = (1, "the candidates ranked by the net's policy (0: unranked, the value alone)")
    docs = {**SETTINGS, "keep": keep_doc, "value": value_doc, "rank": rank_doc}
    values = parse_settings("macro+net", rest, docs, FLOATS)
    keep, value, rank = values.pop("keep", 0), values.pop("value", 0), values.pop("rank", 1)
    return MacroNetPolicy(net, keep=int(keep), value=int(value), rank=int(rank), **values)
