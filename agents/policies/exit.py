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

Playing a net sets torch to one thread: on a small shared machine two threads wait on each other
and one move took 25 times as long.
"""

from __future__ import annotations

from pathlib import Path

from .afterstate import AfterstatePolicy, is_afterstate
from .exit_net import ExitPolicy
from .planner import ROW_SETTINGS, PlannerPolicy, parse_planner_spec

__all__ = ["make_exit", "make_planner_net", "shipped_net", "shipped_nets"]


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


def make_planner_net(settings: str | None) -> PlannerPolicy:
    """``planner+net:<variant or model file>[,planner settings]`` (module docstring)."""
    target, _, rest = (settings or "").partition(",")
    path = _net_path("planner+net", target.strip())
    if is_afterstate(path):
        raise ValueError(
            f"planner+net:{target.strip()}: {path.name} is an afterstate net; "
            "the planner's fallback is a per-move net"
        )
    net = ExitPolicy.load(path)
    _threads()
    row = ROW_SETTINGS.get(net.net.cfg.env, "")
    settings_ = {**parse_planner_spec(row), **parse_planner_spec(rest)}
    planner = PlannerPolicy(**settings_)
    planner.fallback_policy = net
    planner.name = f"planner+net:{path.stem}({planner.name.removeprefix('planner(')}"
    return planner
