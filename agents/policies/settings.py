"""A search policy's settings in its spec (``macro:samples=30,nodes=3000``): read, checked and
shown in one place for every policy that takes ``name=value`` settings (``macro``, ``uct``)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

__all__ = ["parse_settings", "settings_usage"]


def parse_settings(
    policy: str, text: str | None, settings: Mapping[str, tuple[float, str]], floats: Collection[str]
) -> dict[str, Any]:
    """The keyword arguments of ``text`` (``"a=1,b=2"``; ``""`` or ``None`` for none): each name one
    of ``settings``, a number for those in ``floats``, else a whole number (``_`` allowed). An unknown
    name, a name given twice or a value of the wrong kind raises ``ValueError`` saying what is
    allowed."""
    kwargs: dict[str, Any] = {}
    allowed = ", ".join(f"{k} (default {d:g}: {doc})" for k, (d, doc) in settings.items())
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        key, eq, value = (s.strip() for s in part.partition("="))
        if not eq or key not in settings:
            raise ValueError(f"{policy} setting {part!r} not understood; use name=value with: {allowed}")
        if key in kwargs:
            raise ValueError(f"{policy} setting {key} is given twice")
        try:
            kwargs[key] = float(value) if key in floats else int(value.replace("_", ""))
        except ValueError:
            kind = "a number" if key in floats else "a whole number"
            raise ValueError(f"{policy} setting {key}={value!r} must be {kind}") from None
    return kwargs


def settings_usage(policy: str, settings: Mapping[str, tuple[float, str]]) -> str:
    """The spec with every setting at its default, as error messages show it."""
    return f"{policy}[:" + ",".join(f"{k}={d:g}" for k, (d, _) in settings.items()) + "]"
