#!/usr/bin/env bash
# Build lonelybot's planner (its do_hop, as benchmarks/lonelybot/hopbench) offline, for
# benchmarks/lonelybot_deals.py. lonelybot's crates come from crates.io, which these machines
# cannot reach: the folder shims/ holds small stand-ins for the parts of them it uses (rand's
# SmallRng is xoshiro256++ seeded by splitmix64, as rand's own on 64-bit machines).
#
#   git clone https://github.com/vuonghy2442/lonelybot /tmp/lonelybot-src
#   bash benchmarks/lonelybot/build.sh /tmp/lonelybot-src [BUILD_DIR] [--book]
#
# --book: the book's rule, foundation cards never come back (patch_lonelybot.py).
#
# Commit 5074673 (2025-04-24) is the last before cf43cdd ("update prunner + callback interface"),
# after which pick_moves' candidates are single moves and do_hop never ends on some lost deals:
# the version that plays as lonelybot's published figure describes. Needs cargo (rustup.rs).
set -euo pipefail
src=${1:?usage: build.sh LONELYBOT_CHECKOUT [BUILD_DIR] [--book]}
out=${2:-/tmp/lonelybot-build}
book=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out"
mkdir -p "$out/lonelybot"
git -C "$src" archive 5074673 | tar -x -C "$out/lonelybot"
cp -r "$here/shims" "$here/hopbench" "$out/"
python3 "$here/patch_lonelybot.py" "$out/lonelybot" $book
(cd "$out/hopbench" && cargo build --release --offline --quiet)
echo "$out/hopbench/target/release/hopbench"
