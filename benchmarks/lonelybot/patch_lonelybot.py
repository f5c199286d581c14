"""Point a lonelybot source tree at the stand-in crates of shims/ (build.sh).

Its Cargo.toml gets path dependencies (no dev-dependencies, benches or workspace), and
src/shuffler.rs loses the 256-bit seed functions (the ``uint`` crate's U256), which the planner
does not use. Nothing else of lonelybot is changed.
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


def patch(tree: Path) -> None:
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


if __name__ == "__main__":
    patch(Path(sys.argv[1]))
