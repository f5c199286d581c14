"""Point a lonelybot source tree at the stand-in crates of shims/ (build.sh).

Its Cargo.toml gets path dependencies (no dev-dependencies, benches or workspace),
src/shuffler.rs loses the 256-bit seed functions (the ``uint`` crate's U256), which the planner
does not use, and src/hop_solver.rs counts the visits of its capped solves (``VISITS``, which
hopbench prints). With ``--book``, besides, the book's rule: its move generator never brings a
foundation card down (no ``StackPile``), so a card put up is no longer a reversible move; its
other dominances are left as they are. Nothing else of lonelybot is changed.

    python patch_lonelybot.py TREE [--book]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

DEPENDENCIES = """[dependencies]
rand = { path = "../shims/rand" }
rand_mt = { path = "../shims/rand_mt" }
arrayvec = { path = "../shims/arrayvec" }
hashbrown = { path = "../shims/hashbrown" }
static_assertions = { path = "../shims/static_assertions" }

"""


BOOK = [
    (
        "        MoveMask {\n            pile_stack,\n            deck_stack,\n            stack_pile,\n",
        "        let _ = stack_pile; // the book's rule: foundation cards never come back\n"
        "        MoveMask {\n            pile_stack,\n            deck_stack,\n            stack_pile: 0,\n",
    ),
    (
        "            Move::PileStack(c) if self.get_locked_mask() & c.mask() == 0 => {\n"
        "                Some(Move::StackPile(c))\n            }\n",
        "",
    ),
]


def replace_once(path: Path, old: str, new: str) -> None:
    """``old`` (which must be there exactly once) replaced by ``new`` in the file ``path``."""
    text = path.read_text()
    if text.count(old) != 1:
        raise SystemExit(f"patch_lonelybot.py: {path} is not the expected lonelybot source (commit 5074673)")
    path.write_text(text.replace(old, new))


def patch(tree: Path, book: bool) -> None:
    cargo = tree / "Cargo.toml"
    text = re.sub(r"workspace = \{[^\n]*\n", "", cargo.read_text())
    start, end = text.index("[dependencies]"), text.index("[dev-dependencies]")
    text = text[:start] + DEPENDENCIES + text[end:]
    text = re.sub(r"\[dev-dependencies\][^\[]*", "", text)
    text = re.sub(r"\[\[bench\]\][^\[]*", "", text)
    cargo.write_text(text)
    shuffler = tree / "src" / "shuffler.rs"
    text = re.sub(r"use uint::construct_uint;\s*construct_uint! \{[^}]*\}\n", "", shuffler.read_text())
    shuffler.write_text(text[: text.index("#[must_use]\nfn factorial")])
    hop = tree / "src" / "hop_solver.rs"
    replace_once(hop, "use rand::RngCore;\n", "use rand::RngCore;\n" + COUNTER)
    replace_once(hop, "        self.n_visit += 1;\n", "        self.n_visit += 1;\n" + COUNT)
    for old, new in BOOK if book else []:
        replace_once(tree / "src" / "state.rs", old, new)


COUNTER = "pub static VISITS: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);\n"
COUNT = "        VISITS.fetch_add(1, core::sync::atomic::Ordering::Relaxed);\n"

if __name__ == "__main__":
    patch(Path(sys.argv[1]), "--book" in sys.argv[2:])
