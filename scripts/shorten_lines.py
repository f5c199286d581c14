"""Shorten a label file's won lines that are longer than the variant's step limit, in place.

A won label's line must win through ``gym.make``, which truncates an episode at the variant's
registered step limit; the solver's line for a deal can be longer (The Kings had lines of up to
11,530 moves where the limit is 1,000). This rewrites only the won rows whose line is over the
limit, with a shorter line that wins the same deal (:mod:`patience_gym.agents.solving.shorten`: loop erasure,
shortcuts, and the solver's probe from positions on the line), checked through ``gym.make``;
every other row and the header stay byte for byte, and one ``# shortened:`` header line says what
was done. The rows' ``nodes`` and ``seconds`` stay the search's; ``length`` is the new line's.

::

    python scripts/shorten_lines.py --env TheKings-v0
    python scripts/shorten_lines.py --env TheKings-v0 --set sequences=either
    python scripts/shorten_lines.py --env Nestor-v0 --labels my_labels

Exit status 0 when every won line fits the limit, 1 when some line is still too long (its row is
left as it was and named), 2 for a mistake in the arguments (one line on stderr).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

from patience_gym.agents.common.config import parse_override
from patience_gym.agents.solving.labels import label_path, rule_options
from patience_gym.agents.solving.shorten import shorten_file
from patience_gym.games import get_variant
from patience_gym.native import native_available

PROG = "shorten_lines.py"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, no usage block
        fail(message)


def fail(message: str) -> NoReturn:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    sys.exit(2)


def label_file(args: Any) -> Path:
    """The label file the arguments name, checked: a registered env, its rule options, a file that
    exists (ValueError, with the reason, otherwise)."""
    variant = get_variant(args.env)
    options: dict[str, Any] = {}
    for text in args.set:
        keys, value = parse_override(text)
        options[keys[-1] if keys[:1] == ["env_kwargs"] else ".".join(keys)] = value
    path = label_path(variant, rule_options(variant, options), args.labels)
    if not path.is_file():
        raise ValueError(f"no label file {path} (patience-gym solve writes it)")
    return path


def main(argv: list[str] | None = None) -> int:
    p = _Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("--env", required=True, help="environment id, e.g. TheKings-v0")
    p.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="a rule option, e.g. sequences=either"
    )
    p.add_argument("--labels", help="folder of label files (default: the package's, agents/data/labels/)")
    args = p.parse_args(argv)
    try:
        path = label_file(args)
    except ValueError as exc:  # ConfigError is one: an unknown env, a bad option, no file
        fail(str(exc))
    if not native_available():
        fail("the shortener's search runs on the native engine, which is not built (bash scripts/setup.sh)")
    began = time.perf_counter()
    report = shorten_file(path)
    for seed, (before, after) in sorted(report.lengths.items()):
        print(f"seed {seed}: {before} -> {after} moves")
    if report.lengths:
        longest = max(b for b, _ in report.lengths.values()), max(a for _, a in report.lengths.values())
        print(
            f"{path.name}: {len(report.lengths)} line(s) shortened to the limit of {report.limit} moves; "
            f"longest {longest[0]} -> {longest[1]} ({time.perf_counter() - began:.1f} s)"
        )
    else:
        print(f"{path.name}: every won line fits the limit of {report.limit} moves already")
    for seed, length in sorted(report.still_long.items()):
        print(f"seed {seed}: still {length} moves, over the limit; its row is left as it was")
    return 1 if report.still_long else 0


if __name__ == "__main__":
    sys.exit(main())
