"""Progress on long work, shown wherever its output goes.

On a terminal it is a tqdm bar (when tqdm is installed). When stderr is a file or a pipe, as for a
run sent to the background with its output in a log, a bar would not show at all (tqdm's
``disable=None``) or would write one ever-growing line, so a plain line is written instead, at
most once every ``every`` seconds, and once more at the end when it wrote any (a run shorter than
``every`` stays quiet)::

    StLouis-v0 planner: 120/1000 games (12%), 4.1 min, about 30.1 min left; win=0.412
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any

__all__ = ["Progress"]


class Progress:
    """Progress over ``total`` items of ``unit`` (see the module docstring); a no-op when not
    ``enabled``. ``update(n, **postfix)`` counts ``n`` more done and shows ``postfix`` beside."""

    def __init__(
        self,
        total: int,
        desc: str,
        unit: str,
        *,
        enabled: bool = True,
        every: float = 60.0,
        stream: IO[str] | None = None,
    ) -> None:
        self.total, self.desc, self.unit, self.every = total, desc, unit, every
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self.lines = 0  # lines written so far: a run short enough to write none stays quiet
        self.start = self.shown = time.perf_counter()
        self.postfix: dict[str, Any] = {}
        self.enabled = enabled and total > 0
        self.bar: Any = None
        if self.enabled and _is_terminal(self.stream):
            try:
                from tqdm import tqdm
            except ImportError:
                return
            self.bar = tqdm(total=total, desc=desc, unit=unit, leave=False, file=self.stream)

    def update(self, n: int, **postfix: Any) -> None:
        if not self.enabled:
            return
        self.done += n
        self.postfix = postfix
        if self.bar is not None:
            self.bar.update(n)
            self.bar.set_postfix(postfix)
        elif time.perf_counter() - self.shown >= self.every:
            self._line()

    def close(self) -> None:
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.close()
        elif self.lines:
            self._line(final=True)
        self.enabled = False

    def _line(self, final: bool = False) -> None:
        now = time.perf_counter()
        self.shown = now
        self.lines += 1
        elapsed = now - self.start
        text = f"{self.desc}: {self.done}/{self.total} {self.unit}s ({100 * self.done / self.total:.0f}%), "
        text += f"{elapsed / 60:.1f} min"
        if not final and 0 < self.done < self.total:
            text += f", about {elapsed * (self.total - self.done) / self.done / 60:.1f} min left"
        if self.postfix:
            text += "; " + ", ".join(f"{k}={v}" for k, v in self.postfix.items())
        print(text, file=self.stream, flush=True)


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
