"""Write the native engine's generated headers from the Python games: Python is the spec.

What the C++ port of a game would otherwise copy by hand from its Python module is written here,
from the module's public surface (``OPTIONS``, ``moves`` and their ``kind``, ``layout``), into
``src/native/generated/<module>_spec.hpp``: one ``GameSpec`` value (``src/native/spec.hpp``) with

- the class name, ``n_packs`` and ``win_cards``;
- the option names in ``OPTIONS`` order, and for each option whose choices are texts, the code
  that stands for each text (options reach C++ by name, validated by Python: see
  ``patience_gym/native.py``, ``encode_options``);
- the action table: each move kind, in table order, with its first id and its count (the widest
  table of any option value: an option may append move kinds at the end of the table, as
  Klondike's ``worrying_back=True`` does, and the port gives its own ``n_actions()`` for the
  narrower ones);
- the observation: each segment, in layout order, with its offset and size (the widest layout
  of any option value: an option may append segments at the end of the layout, as Klondike's
  ``stock="known"`` does, and the port gives its own ``obs_size()`` for the narrower ones);
- where the layout has a ``card_place`` segment, its places per card (read from the segment's
  doc, which names them);
- the names of the info extras (``extra_info()``), in order.

The port reads them by Python's names at compile time (``spec.first("STOCK")``,
``spec.offset("face_down")``, ``spec.place("foundation")``, ``spec.choice("reserve", "open")``):
a name Python does not have fails the build.

Only games with a native port (``src/native/<module>.cpp``) get a header: a new game can be
Python alone, and its header comes with its port. ``tests/native/test_native_spec.py`` regenerates the
headers and fails while a committed one differs, so a change in Python that C++ does not follow
fails the tests (and usually the build: the C++ reads these names).

    python scripts/gen_native.py            # rewrite src/native/generated/
    python scripts/gen_native.py --check    # exit 1, naming the stale files, if any differs
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
NATIVE = ROOT / "src" / "native"
GENERATED = NATIVE / "generated"

sys.path.insert(0, str(ROOT))  # run from a checkout: the games are read from its sources

from patience_gym.core.game import Game  # noqa: E402
from patience_gym.games import VARIANTS  # noqa: E402


def module_stem(cls: type[Game[Any]]) -> str:
    """``klondike`` for ``patience_gym.games.klondike.Klondike``: the port's file name."""
    return cls.__module__.rsplit(".", 1)[1]


def ported_games() -> list[type[Game[Any]]]:
    """The game classes of the variant table, once each, whose C++ port exists."""
    seen: dict[type[Game[Any]], None] = {}
    for variant in VARIANTS:
        if (NATIVE / f"{module_stem(variant.game)}.cpp").exists():
            seen.setdefault(variant.game, None)
    return list(seen)


def kinds(game: Game[Any]) -> list[tuple[str, int, int]]:
    """(kind name, first id, count) of each move kind, in table order (each kind contiguous)."""
    out: list[tuple[str, int, int]] = []
    for a, move in enumerate(game.moves):
        if out and out[-1][0] == move.kind.name:
            out[-1] = (move.kind.name, out[-1][1], out[-1][2] + 1)
        elif any(k == move.kind.name for k, _, _ in out):
            raise ValueError(f"{game.name}: moves of kind {move.kind.name} are not contiguous (id {a})")
        else:
            out.append((move.kind.name, a, 1))
    return out


def places(game: Game[Any]) -> list[str]:
    """The place names of the ``card_place`` segment (its last axis), from the segment's doc,
    ``"<what>: place; place; ..."``; empty when the layout has none."""
    names = [s.name for s in game.layout.segments]
    if "card_place" not in names:
        return []
    seg = game.layout["card_place"]
    found = seg.doc.split(": ", 1)[-1].split("; ")
    if len(found) != seg.shape[-1]:
        raise ValueError(f"{game.name}: card_place names {len(found)} places in its doc for {seg.shape[-1]}")
    return found


def extras(game: Game[Any]) -> list[str]:
    """The names of the game's info extras (``extra_info()``), in order, read from a deal."""
    dealt = type(game)(**game.options)
    dealt.new_game(np.random.default_rng(0))
    return list(dealt.extra_info())


def _segments(game: Game[Any]) -> tuple[tuple[str, int, tuple[int, ...]], ...]:
    return tuple((s.name, s.start, s.shape) for s in game.layout.segments)


def _grows(narrow: Game[Any], wide: Game[Any]) -> bool:
    """``wide``'s layout is ``narrow``'s with segments appended at its end (or the same)."""
    first = _segments(narrow)
    return _segments(wide)[: len(first)] == first


def _appended(
    cls: type[Game[Any]], option: str, game: Game[Any], wide: Game[Any], other: Game[Any]
) -> Game[Any]:
    """The wider of two tables that only append move kinds to ``game``'s: ``other``'s (one option
    value may append kinds; two that append different ones cannot share a header)."""
    if kinds(other)[: len(kinds(game))] != kinds(game) or kinds(wide) not in (kinds(game), kinds(other)):
        raise ValueError(f"{cls.__name__}: {option} changes the table other than by appending move kinds")
    return other


def _c(text: str) -> str:
    """``text`` as a C++ string literal."""
    if any(ch in text for ch in '"\\\n') or not text.isascii():
        raise ValueError(f"{text!r} cannot be a plain C++ string literal")
    return f'"{text}"'


def _list(items: Sequence[str]) -> str:
    return "{" + ", ".join(items) + "}"


def header(cls: type[Game[Any]]) -> str:
    """The text of ``<module>_spec.hpp`` for the game class ``cls``: one ``GameSpec`` value
    (``src/native/spec.hpp``). One header serves every option: each other choice of each option
    is checked to give the same extras, the same table or one with move kinds appended at its
    end, and the same layout or one with segments appended at its end; the header holds the widest
    table and layout (the port knows which options give the narrower ones)."""
    game = widest = wide_table = cls()
    grown: list[str] = []  # the options that append segments
    more: list[str] = []  # the options that append move kinds
    for name, opt in cls.OPTIONS.items():
        for choice in opt.choices or ():
            other = cls(**{name: choice})
            if extras(other) != extras(game):
                raise ValueError(f"{cls.__name__}: {name}={choice!r} changes the extras")
            if kinds(other) != kinds(game):
                wide_table = _appended(cls, f"{name}={choice!r}", game, wide_table, other)
                more.append(f"{name}={choice}")
            if _grows(widest, other):
                widest = other if other.layout.size > widest.layout.size else widest
            elif not _grows(other, widest):
                raise ValueError(
                    f"{cls.__name__}: {name}={choice!r} changes the layout other than by appending segments"
                )
            if other.layout.size > game.layout.size:
                grown.append(f"{name}={choice}")
    if len({o.split("=")[0] for o in grown}) > 1:
        raise ValueError(f"{cls.__name__}: only one option may append segments ({', '.join(grown)})")
    stem = module_stem(cls)
    options = [_c(name) for name in cls.OPTIONS]
    kind_list = [f"{{{_c(k)}, {first}, {count}}}" for k, first, count in kinds(wide_table)]
    segs = [f"{{{_c(s.name)}, {s.start}, {s.size}}}" for s in widest.layout.segments]
    named = [_c(p) for p in places(game)]
    extra = [_c(name) for name in extras(game)]
    choices = [
        f"{{{_c(name)}, {_c(c)}, {k}}}"
        for name, opt in cls.OPTIONS.items()
        if opt.choices and all(isinstance(c, str) for c in opt.choices)
        for k, c in enumerate(opt.choices)
    ]
    actions = (
        f" ({len(wide_table.moves)} with {', '.join(more)}: the kinds from {len(game.moves)})" if more else ""
    )
    sizes = ", ".join(str(len(x)) for x in (options, kind_list, segs, named, choices, extra))
    floats = f"{game.layout.size} observation floats"
    if grown:
        floats += f" ({widest.layout.size} with {', '.join(grown)}: the segments from {game.layout.size})"
    return "\n".join(
        [
            f"// {stem}_spec.hpp: generated by scripts/gen_native.py from patience_gym/games/{stem}.py.",
            "// Do not edit: change the Python game and run `python scripts/gen_native.py`",
            "// (tests/native/test_native_spec.py fails while this file is stale). The fields: spec.hpp.",
            "// Every generated header has this form (repeated blocks by design: one generator).",
            "#pragma once",
            "",
            '#include "spec.hpp"',
            "",
            "namespace pg::generated {",
            "",
            f"// {len(game.moves)} actions{actions}, {floats}.",
            f"inline constexpr GameSpec<{sizes}> {stem}{{",
            f"    {_c(cls.__name__)}, {cls.n_packs}, {cls.win_cards},  // name, packs, cards that win",
            f"    // options, in {cls.__name__}.OPTIONS order",
            f"    {{{_list(options)}}},",
            "    // move kinds, in table order: name, first action id, count"
            + (" (the widest table)" if more else ""),
            f"    {{{_list(kind_list)}}},",
            "    // observation segments, in layout order: name, offset, size"
            + (" (the widest layout)" if grown else ""),
            f"    {{{_list(segs)}}},",
            "    // card_place's places per card",
            f"    {{{_list(named)}}},",
            "    // text choices: option, text, code",
            f"    {{{_list(choices)}}},",
            "    // info extras (extra_info()), in order",
            f"    {{{_list(extra)}}},",
            "};",
            "",
            "}  // namespace pg::generated",
            "",
        ]
    )


def headers() -> dict[str, str]:
    """File name -> text of every generated header."""
    return {f"{module_stem(cls)}_spec.hpp": header(cls) for cls in ported_games()}


def stale(folder: Path) -> list[str]:
    """The generated headers that are missing from ``folder``, differ, or are left over."""
    wanted = headers()
    have = {p.name for p in folder.glob("*_spec.hpp")} if folder.exists() else set()
    wrong = [name for name, text in wanted.items() if name not in have or (folder / name).read_text() != text]
    return sorted(wrong + sorted(have - set(wanted)))


def write(folder: Path) -> list[str]:
    """Write every header into ``folder`` (removing left-over ones); the names written."""
    folder.mkdir(parents=True, exist_ok=True)
    wanted = headers()
    for old in folder.glob("*_spec.hpp"):
        if old.name not in wanted:
            old.unlink()
    for name, text in wanted.items():
        (folder / name).write_text(text)
    return sorted(wanted)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say whether the headers are current")
    parser.add_argument(
        "--out", type=Path, default=GENERATED, help="the folder (default: src/native/generated)"
    )
    args = parser.parse_args(argv)
    if args.check:
        wrong = stale(args.out)
        if wrong:
            print(
                f"stale generated headers in {args.out}: {', '.join(wrong)}; run python scripts/gen_native.py"
            )
            return 1
        print(f"{len(headers())} generated headers are current")
        return 0
    for name in write(args.out):
        print(f"wrote {args.out / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
