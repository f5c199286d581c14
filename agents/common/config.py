"""Config files: YAML mapped onto dataclasses, checked key by key.

A misspelt or unknown key, a value of the wrong type or a missing required key fails at once with
a message naming the key and what is allowed. ``key=value`` overrides (from the command line) use
dotted paths into nested mappings (``env_kwargs.draw=3``) and YAML syntax for the value.

**Defaults plus differences.** A file may start from another: ``defaults: defaults.yaml`` (a path
relative to the file) reads that file first and lays this one over it (:func:`merge`: mappings key
by key, anything else replaced), so each variant's file holds only what differs from the recipe its
kind shares (``configs/ppo/defaults.yaml``, ``configs/eval/defaults.yaml``, ...).
"""

from __future__ import annotations

import dataclasses
import difflib
import types
import typing
from pathlib import Path
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

C = TypeVar("C")


class ConfigError(ValueError):
    """A config file or override that does not fit its schema."""


def _yaml() -> Any:
    try:
        import yaml
    except ImportError:
        raise ConfigError(
            "reading YAML needs PyYAML: pip install pyyaml (the train and test extras include it)"
        ) from None
    return yaml


def _yaml_error(where: str, exc: Exception, *, lines: bool = True) -> ConfigError:
    """``file:line: problem`` for a YAML syntax error (PyYAML counts lines from 0)."""
    mark, context = getattr(exc, "problem_mark", None), getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    if not lines or mark is None:
        return ConfigError(f"{where}: malformed YAML: {problem}")
    opened = getattr(exc, "context", None)
    if context is not None and opened and context.line != mark.line:
        problem += f" ({opened} opened on line {context.line + 1})"
    return ConfigError(f"{where}:{mark.line + 1}: malformed YAML: {problem}")


def read_yaml(path: str | Path) -> dict[str, Any]:
    yaml = _yaml()
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"config file {str(p)!r} does not exist")
    try:
        data = yaml.safe_load(p.read_text()) or {}
    except yaml.YAMLError as exc:
        raise _yaml_error(str(p), exc) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{p}: cannot be read: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: the top level must be a mapping of keys to values")
    return data


#: The key by which a config file names the file it starts from (:func:`read_config`).
DEFAULTS_KEY = "defaults"


def merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``over`` laid over ``base``: a mapping in both is merged key by key, any other value of
    ``over`` (a list, a scalar, ``null``) replaces the one in ``base``. Neither is changed."""
    out = dict(base)
    for key, value in over.items():
        below = out.get(key)
        out[key] = merge(below, value) if isinstance(below, dict) and isinstance(value, dict) else value
    return out


def read_config(path: str | Path, _within: tuple[Path, ...] = ()) -> dict[str, Any]:
    """The config file at ``path`` laid over the file its ``defaults`` key names (relative to
    ``path``; that file may name its own), without the ``defaults`` key."""
    p = Path(path)
    data = read_yaml(p)
    base = data.pop(DEFAULTS_KEY, None)
    if base is None:
        return data
    if not isinstance(base, str) or not base:
        raise ConfigError(
            f"{p}: key {DEFAULTS_KEY!r} names the file this one starts from (e.g. defaults.yaml), "
            f"got {base!r}"
        )
    under = p.parent / base
    chain = (*_within, p.resolve())
    if under.resolve() in chain:
        raise ConfigError(f"{p}: the defaults files name each other in a circle ({under})")
    return merge(read_config(under, chain), data)


def parse_override(text: str) -> tuple[list[str], Any]:
    if "=" not in text:
        raise ConfigError(f"override {text!r} must look like key=value (e.g. episodes=200)")
    key, raw = text.split("=", 1)
    if not key:
        raise ConfigError(f"override {text!r} has no key")
    if not raw:
        return key.split("."), ""
    yaml = _yaml()
    try:
        return key.split("."), yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        raise _yaml_error(f"override {text!r}", exc, lines=False) from None


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    data = dict(data)
    for text in overrides:
        path, value = parse_override(text)
        node = data
        for part in path[:-1]:
            child = node.get(part)
            if child is None:
                child = node[part] = {}
            elif not isinstance(child, dict):
                raise ConfigError(f"override {text!r}: {part!r} is not a mapping")
            else:
                child = node[part] = dict(child)
            node = child
        node[path[-1]] = value
    return data


def _type_ok(value: Any, tp: Any) -> bool:
    origin = get_origin(tp)
    if tp is Any:
        return True
    if origin in (Union, types.UnionType):
        return any(_type_ok(value, t) for t in get_args(tp))
    if tp is type(None):
        return value is None
    if tp is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin is list:
        (item,) = get_args(tp) or (Any,)
        return isinstance(value, list) and all(_type_ok(v, item) for v in value)
    if origin is dict:
        return isinstance(value, dict)
    if origin is typing.Literal:
        return value in get_args(tp)
    if isinstance(tp, type):
        return isinstance(value, tp)
    return True


def _type_name(tp: Any) -> str:
    if get_origin(tp) is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in get_args(tp))
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


def build(schema: type[C], data: dict[str, Any], where: str = "config") -> C:
    """Check ``data`` against the dataclass ``schema`` and build it."""
    fields = {f.name: f for f in dataclasses.fields(schema)}  # type: ignore[arg-type]
    hints = get_type_hints(schema)
    for key in data:
        if key not in fields:
            close = difflib.get_close_matches(key, fields, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"{where}: unknown key {key!r}{hint}; allowed keys: {', '.join(fields)}")
    for name, f in fields.items():
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        if name not in data:
            if required:
                raise ConfigError(f"{where}: missing required key {name!r}")
            continue
        if not _type_ok(data[name], hints[name]):
            raise ConfigError(f"{where}: key {name!r} must be {_type_name(hints[name])}, got {data[name]!r}")
    try:
        return schema(**data)
    except ConfigError as exc:  # a schema's own checks (__post_init__) say where too
        msg = str(exc)
        raise ConfigError(msg if msg.startswith(where) else f"{where}: {msg}") from None


def load(schema: type[C], path: str | Path | None, overrides: list[str] | None = None, **flags: Any) -> C:
    """The config at ``path`` (or none), then ``flags`` that are not ``None``, then overrides."""
    data = read_config(path) if path else {}
    data.update({k: v for k, v in flags.items() if v is not None})
    data = apply_overrides(data, overrides or [])
    return build(schema, data, str(path) if path else "command line")
