"""A long evaluation in resumable chunks: each chunk of deals is written as it finishes, and the same
command run again plays only the chunks not yet written, then prints the row of all of them.

::

    python scripts/eval_chunks.py --env Klondike-v0 \\
        --set env_kwargs.draw=3 --set env_kwargs.passes=null --set env_kwargs.partial_moves=true \\
        --policy macro:samples=30,batch=5,nodes=3000 --episodes 1000 --chunk 50 --workers 2 \\
        --out results/macro/klondike-draw3

Every chunk is ``patience-gym evaluate``'s JSON for deals ``seed .. seed + chunk - 1`` (episodes
included: won, cards, length, CPU seconds, search nodes), in ``OUT/<first seed>.json``; a chunk
whose file exists, with the same env, options and policy, is not played again. ``--workers N``
plays N chunks at once (one process each). The closing row: wins of the deals played, the 95%
Wilson interval, mean cards, mean CPU seconds and search nodes a game, and the wins among the
deals the solver's labels call won. ``--against DIR`` (another run's folder of chunks) then sets the
two side by side on the deals both played: each one's wins and the deals won by one only, the
figure to read where two settings meet the same deals.
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict
from pathlib import Path
from typing import Any

import yaml

from patience_gym.agents.evaluation.evaluate import evaluate, wilson
from patience_gym.agents.solving.labels import labels_for


def _chunk_file(out: Path, seed: int) -> Path:
    return out / f"{seed:05d}.json"


def env_kwargs_of(sets: list[str]) -> dict[str, Any]:
    """``env_kwargs.KEY=VALUE`` settings as a dict (values read as YAML: 3, null, true)."""
    out: dict[str, Any] = {}
    for item in sets:
        key, eq, value = item.partition("=")
        if not eq or not key.startswith("env_kwargs.") or len(key) == len("env_kwargs."):
            raise SystemExit(f"eval_chunks: error: --set takes env_kwargs.KEY=VALUE, got {item!r}")
        out[key.removeprefix("env_kwargs.")] = yaml.safe_load(value)
    return out


def _play(env: str, policy: str, env_kwargs: dict[str, Any], seed: int, n: int, out: Path) -> int:
    result = evaluate(env, policy, episodes=n, seed=seed, env_kwargs=env_kwargs)
    body = {"seed": seed, "episodes": n, "result": result.summary()}
    body["result"]["episodes"] = [asdict(e) for e in result.episodes]
    tmp = _chunk_file(out, seed).with_suffix(".tmp")
    tmp.write_text(json.dumps(body, indent=1))
    tmp.replace(_chunk_file(out, seed))
    return result.wins


def _chunks(out: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(out.glob("[0-9]*.json"))]


def _episodes(chunks: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    return [(c["seed"] + e["index"], e) for c in chunks for e in c["result"]["episodes"]]


def against(out: Path, other: Path) -> str:
    """The line that sets the run in ``out`` beside the run in ``other`` (a folder of chunks) on the
    deals both played; a folder with no chunks, or chunks of another game, is an error that says so."""
    mine, theirs = _chunks(out), _chunks(other) if other.is_dir() else []
    if not theirs:
        raise SystemExit(
            f"eval_chunks: error: --against {other}: no chunks there (a folder this script wrote)"
        )
    game = [(c["result"]["env"], c["result"]["env_kwargs"]) for c in (mine[0], theirs[0])]
    if game[0] != game[1]:
        raise SystemExit(
            f"eval_chunks: error: --against {other}: another game ({game[1]}, this run {game[0]})"
        )
    a, b = dict(_episodes(mine)), dict(_episodes(theirs))
    both = sorted(set(a) & set(b))
    won_a = {s for s in both if a[s]["won"]}
    won_b = {s for s in both if b[s]["won"]}
    return (
        f"against {theirs[0]['result']['policy']} on the {len(both)} deals both played: {len(won_a)} won "
        f"against {len(won_b)}; {len(won_a - won_b)} won by this run only, "
        f"{len(won_b - won_a)} by the other only"
    )


def summarise(out: Path) -> dict[str, Any]:
    """The row of every chunk in ``out``."""
    chunks = _chunks(out)
    eps = _episodes(chunks)
    wins = sum(e["won"] for _, e in eps)
    n = len(eps)
    lo, hi = wilson(wins, n) if n else (0.0, 0.0)
    first = chunks[0]["result"] if chunks else {}
    row: dict[str, Any] = {
        "env": first.get("env"),
        "policy": first.get("policy"),
        "options": first.get("options"),
        "env_kwargs": first.get("env_kwargs", {}),
        "deals": n,
        "wins": wins,
        "win_rate": wins / n if n else 0.0,
        "ci95": [lo, hi],
        "mean_foundation_cards": sum(e["foundation_cards"] for _, e in eps) / n if n else 0.0,
        "seconds_per_game": sum(e.get("seconds", 0.0) for _, e in eps) / n if n else 0.0,
        "nodes_per_game": sum(e.get("nodes", 0) for _, e in eps) / n if n else 0.0,
        "won_seeds": sorted(s for s, e in eps if e["won"]),
    }
    return row


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--env", required=True)
    p.add_argument("--policy", required=True)
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--episodes", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--chunk", type=int, default=50)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--against", type=Path, metavar="DIR", help="another run's folder: both side by side")
    args = p.parse_args(argv)
    if args.episodes < 1 or args.chunk < 1 or args.workers < 1 or args.seed < 0:
        p.error("--episodes, --chunk and --workers must be >= 1, --seed >= 0")
    if args.against:  # before any deal is played: a folder with no chunks, or of another variant
        theirs = _chunks(args.against) if args.against.is_dir() else []
        if not theirs or theirs[0]["result"]["env"] != args.env:
            p.error(f"--against {args.against}: no chunks of {args.env} there (a folder this script wrote)")
    args.out.mkdir(parents=True, exist_ok=True)
    meta = {"env": args.env, "policy": args.policy, "set": sorted(args.set)}
    stamp = args.out / "command.json"
    if stamp.exists() and json.loads(stamp.read_text()) != meta:
        p.error(
            f"{args.out} holds chunks of another evaluation ({stamp.read_text().strip()}); use another --out"
        )
    stamp.write_text(json.dumps(meta))
    end = args.seed + args.episodes
    chunks = [(s, min(args.chunk, end - s)) for s in range(args.seed, end, args.chunk)]
    todo = [(s, n) for s, n in chunks if not _chunk_file(args.out, s).exists()]
    print(f"{len(todo)} chunks to play, {len(chunks) - len(todo)} done", flush=True)
    env_kwargs = env_kwargs_of(args.set)
    if args.workers == 1:  # in this process
        for s, n in todo:
            print(f"deals {s}-{s + n - 1}: {_play(args.env, args.policy, env_kwargs, s, n, args.out)} won")
    else:
        with ProcessPoolExecutor(args.workers) as pool:
            jobs = {pool.submit(_play, args.env, args.policy, env_kwargs, s, n, args.out): s for s, n in todo}
            for f in as_completed(jobs):
                s = jobs[f]
                print(f"deals {s}-{s + min(args.chunk, end - s) - 1}: {f.result()} won", flush=True)
    row = summarise(args.out)
    labels = {s: lab.label for s, lab in labels_for(args.env, row["env_kwargs"]).items()}
    won = [s for s in range(args.seed, args.seed + args.episodes) if labels.get(s) == "won"]
    row["winnable_won"] = [len(set(row["won_seeds"]) & set(won)), len(won)] if labels else None
    (args.out / "summary.json").write_text(json.dumps(row, indent=1))
    lo, hi = row["ci95"]
    print(
        f"{row['env']} {row['policy']}: {row['wins']}/{row['deals']} = {100 * row['win_rate']:.1f}% "
        f"[{100 * lo:.1f}, {100 * hi:.1f}], {row['mean_foundation_cards']:.1f} cards, "
        f"{row['seconds_per_game']:.2f} CPU s and {row['nodes_per_game']:.0f} nodes a game"
        + (f", {row['winnable_won'][0]} of {row['winnable_won'][1]} winnable won" if labels else "")
    )
    if args.against:
        print(against(args.out, args.against))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
