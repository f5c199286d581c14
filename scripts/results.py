"""Regenerate the baseline results table: random, greedy and PPO on held-out deals, per variant.

::

    python scripts/results.py                          # every registered variant, 1,000 deals each
    python scripts/results.py --env Nestor-v0 --env Klondike-v0 --workers 2
    python scripts/results.py --env Nestor-v0 --policy ppo   # only the PPO row, the others kept

Each policy plays deals ``reset(seed=i)``, ``i`` in ``0 .. episodes-1``: seeds that training and its
periodic validation never use (see :mod:`patience_gym.agents.training.sb3`).

The ``ppo`` row is **reinforcement learning from the env's reward alone**: the model the package
ships for the variant (``agents/data/models/<id>.zip``, ``ppo:<variant>``), trained by
``patience-gym train <variant>`` from ``configs/ppo/<variant>.yaml`` and shipped by
``scripts/ship_model.py``; the row records its config, learner, steps, wall time, seed and commit
from the model's card, and its name says which network read which inputs (:data:`INPUTS`: the flat
observation, or the per-move policy that scores every legal move from one-move features). Where the
training folders are here (``runs/ppo/<variant>`` and ``runs/ppo/<variant>_seed<k>``), the row also
gets the run's best checkpoint and the other training seeds' final models, played on the same deals
(batched, :func:`patience_gym.agents.policies.ppo.play_batched`); where they are not, a row of the same model
keeps those figures from the previous table.

Under the verdicts, :func:`against_greedy` counts the reward-only rows against greedy's twice: at or
above greedy's point estimate of the win rate (a tie of no wins counts), and strictly above (95%
intervals apart both on wins, Wilson's, and on mean foundation cards, ``mean +- 1.96 s / sqrt(n)``
over the deals).

Rows measured earlier and not rerun stay in the table: the ``ppo+rollouts (clone of rollout:16)``
rows (``configs/ppo_rollouts/``: a model that reads rollout look-ahead as features and clones its
teacher; not reinforcement learning) among them.

Where ``patience-gym solve`` wrote labels for the variant (the package's, ``agents/data/labels/``),
a row gives the deals winnable by a player who sees every card, and each policy's wins among them.
``--policy`` (repeatable) runs only the policies named and keeps the other rows, e.g.
``--policy planner:samples=8`` adds the planner's row; ``--labels-only`` runs no policy and
refreshes the winnable rows after new labels.

Writes ``results/results.md`` (a Markdown table, with a plain verdict per variant) and
``results/results.json``: the one generated copy of the table (the README links to it). Rows for
variants not run this time are kept from the previous JSON, so variants can be (re)done one at a
time.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patience_gym.agents.evaluation.evaluate import Result, evaluate
from patience_gym.agents.training.config import deal_range
from patience_gym.core.game import house_rules
from patience_gym.games import VARIANTS, get_variant

ROOT = Path(__file__).resolve().parent.parent
#: The policy name of the solver's row: deals winnable by a player who sees every card.
WINNABLE = "winnable (every card seen)"


#: What each network of a reward-only model reads, by its card's ``policy`` key: the env's flat
#: observation (``mlp``), or the board and, for every legal move, the result of playing it once on a
#: copy of the game (``move_policy``: cards gained, wins, mobility, moves opened, dead end, undoes;
#: patience_gym/move_features.py), a one-move look-ahead.
INPUTS = {"mlp": "flat observation", "move_policy": "per-move, one-move features"}

#: The normal quantile of a two-sided 95% interval (the mean foundation cards' interval).
Z95 = 1.959963984540054


def cards_interval(cards: list[int]) -> list[float]:
    """The 95% interval of the mean foundation cards over the deals: ``mean +- Z95 * s / sqrt(n)``
    (``s`` the deals' sample standard deviation; one deal: the mean itself)."""
    n = len(cards)
    mean = sum(cards) / n
    half = Z95 * (sum((c - mean) ** 2 for c in cards) / (n - 1) / n) ** 0.5 if n > 1 else 0.0
    return [mean - half, mean + half]


#: Config keys two runs of one recipe may differ in: the training seed, the budget (a run extended
#: past the shipped one's), the checkpoint a run resumed from, and where and how a run reports.
NOT_RECIPE = ("seed", "total_timesteps", "resume", "output_dir", "progress_bar")


def run_dirs(env_name: str, card: dict[str, Any]) -> list[Path]:
    """The local training folders of the shipped model's recipe: its own run (``card["run"]``,
    else ``runs/ppo/<stem>``) first, then every run whose config differs from its only in
    :data:`NOT_RECIPE` (the other training seeds; not an experiment with another setting), those
    holding a final model and its ``train_info.json``."""
    import yaml

    def recipe(d: Path) -> dict[str, Any] | None:
        if not (d / "config.yaml").is_file() or not (d / "train_info.json").is_file():
            return None
        cfg = yaml.safe_load((d / "config.yaml").read_text())
        return {k: v for k, v in cfg.items() if k not in NOT_RECIPE}

    stem = re.sub(r"(?<!^)(?=[A-Z])", "_", env_name.rsplit("-v", 1)[0]).lower()
    shipped = ROOT / "runs" / "ppo" / card.get("run", stem)
    mine = recipe(shipped)
    if mine is None or mine.get("env") != env_name:
        return []
    found = [shipped] + [
        d for d in sorted((ROOT / "runs" / "ppo").glob("*/")) if d != shipped and recipe(d) == mine
    ]
    return [d for d in found if (d / "final_model.zip").is_file()]


def ppo_card(env_name: str) -> dict[str, Any] | None:
    """The shipped model's card (config, learner, steps, wall time, seed, commit), or None."""
    from patience_gym.agents.policies.ppo import shipped_models

    path = shipped_models() / f"{env_name}.json"
    return json.loads(path.read_text()) if path.is_file() and path.with_suffix(".zip").is_file() else None


def batched_row(model_path: Path, env_name: str, episodes: int, sample: bool = False) -> dict[str, Any]:
    """A model's wins on seeds 0..episodes-1, played batched (the same deals as the table's rows),
    by its most likely moves or (``sample``) by moves drawn as ``ppo-sample`` draws them."""
    from sb3_contrib import MaskablePPO

    from patience_gym.agents.evaluation.evaluate import wilson
    from patience_gym.agents.policies.ppo import play_batched

    play = play_batched(MaskablePPO.load(model_path, device="cpu"), env_name, range(episodes), sample=sample)
    wins = int(play.won.sum())
    return {
        "wins": wins,
        "games": episodes,
        "win_rate": wins / episodes,
        "ci95": list(wilson(wins, episodes)),
    }


def same_budget(steps: int, shipped: int) -> bool:
    """Whether a run trained as long as the shipped model: within 1% of its steps (runs stop at the
    first rollout past their budget, so a resumed run may end a few thousand steps apart)."""
    return abs(steps - shipped) <= shipped // 100


def ppo_extras(env_name: str, episodes: int, card: dict[str, Any]) -> dict[str, Any]:
    """The shipped run's best checkpoint and every training seed's final model at the shipped
    model's budget on the same deals, played as the shipped model is, where the training folders
    are here (an empty dict otherwise). The shipped model stands for its own seed; a run folder
    since extended past it gives no best checkpoint (docs/training.md reports such runs apart)."""
    import yaml

    from patience_gym.agents.policies.ppo import shipped_model

    extras: dict[str, Any] = {}
    sample = card.get("play") == "sample"
    dirs = run_dirs(env_name, card)
    if not dirs:
        return extras
    info = json.loads((dirs[0] / "train_info.json").read_text())
    if same_budget(info["num_timesteps"], card["steps"]) and (dirs[0] / "best_model.zip").is_file():
        extras["best_checkpoint"] = {
            **batched_row(dirs[0] / "best_model.zip", env_name, episodes, sample),
            "steps": (info.get("best_evaluation") or {}).get("steps"),
        }
    own = shipped_model(env_name)
    seeds = (
        [{"seed": card["seed"], "steps": card["steps"], **batched_row(own, env_name, episodes, sample)}]
        if own
        else []
    )
    for d in dirs[1:]:
        info = json.loads((d / "train_info.json").read_text())
        if not same_budget(info["num_timesteps"], card["steps"]):
            continue  # another budget: not a training seed of this row
        seeds.append(
            {
                "seed": yaml.safe_load((d / "config.yaml").read_text()).get("seed", 0),
                "steps": info["num_timesteps"],
                **batched_row(d / "final_model.zip", env_name, episodes, sample),
            }
        )
    if len(seeds) > 1:
        extras["training_seeds"] = sorted(seeds, key=lambda x: x["seed"])
    return extras


def row_key(env_name: str, env_kwargs: dict[str, Any]) -> str:
    """The table's name for a run: the id, then any options given, then a warning where an option
    is not the book's rule (``LightAndShade-v0 redeals=1 (not the book's rule)``)."""
    if not env_kwargs:
        return env_name
    game = get_variant(env_name).game
    opts = " ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}" for k, v in sorted(env_kwargs.items()))
    return f"{env_name} {opts}" + (" (not the book's rule)" if house_rules(game.OPTIONS, env_kwargs) else "")


def option_sets_in(results: dict[str, list[dict[str, Any]]], env_name: str) -> list[dict[str, Any]]:
    """The option sets (``env_kwargs``, not the defaults) of ``env_name``'s rows in ``results``."""
    found: list[dict[str, Any]] = []
    for key, rows in results.items():
        for row in rows:
            kw = row.get("env_kwargs")
            if kw and row_key(env_name, kw) == key and kw not in found:
                found.append(kw)
    return found


def parse_sets(items: list[str]) -> dict[str, Any]:
    """``--set redeals=1`` -> ``{"redeals": 1}`` (values read as YAML scalars)."""
    import yaml

    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SystemExit(f"results.py: --set takes NAME=VALUE, got {item!r}")
        out[key] = yaml.safe_load(value)
    return out


def chunks_row(folder: Path) -> tuple[str, dict[str, Any]]:
    """The table key and row of a finished ``scripts/eval_chunks.py`` run in ``folder`` (its
    ``command.json`` names the variant, spec and options; its chunks hold every episode)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from eval_chunks import env_kwargs_of, summarise

    stamp = folder / "command.json"
    if not stamp.is_file():
        raise SystemExit(f"results.py: --from-chunks: {folder} holds no eval_chunks run (no command.json)")
    meta = json.loads(stamp.read_text())
    env_name = get_variant(meta["env"]).env_name
    env_kwargs = env_kwargs_of(meta["set"])
    chunks = [json.loads(p.read_text()) for p in sorted(folder.glob("[0-9]*.json"))]
    seeds = sorted(c["seed"] + e["index"] for c in chunks for e in c["result"]["episodes"])
    if seeds != list(range(len(seeds))) or not seeds:
        raise SystemExit(
            f"results.py: --from-chunks: {folder} does not hold seeds 0..N-1 (resume the run first)"
        )
    summary = summarise(folder)
    episodes = [e for c in chunks for e in c["result"]["episodes"]]
    row: dict[str, Any] = {
        "env": env_name,
        "policy": policy_name(meta["policy"]),
        "spec": meta["policy"],
        "name": summary["policy"],
        "env_kwargs": env_kwargs,
        "seed": 0,
        "games": summary["deals"],
        "wins": summary["wins"],
        "win_rate": summary["win_rate"],
        "ci95": summary["ci95"],
        "mean_foundation_cards": summary["mean_foundation_cards"],
        "mean_length": sum(e["length"] for e in episodes) / len(episodes),
        "truncated": sum(bool(e.get("truncated")) for e in episodes),
        "seconds_per_game": summary["seconds_per_game"],
        "nodes_per_game": summary["nodes_per_game"],
        "won_seeds": summary["won_seeds"],
        "cards_ci95": cards_interval([e["foundation_cards"] for e in episodes]),
        "chunks": str(folder.resolve().relative_to(ROOT))
        if folder.resolve().is_relative_to(ROOT)
        else str(folder),
    }
    return row_key(env_name, env_kwargs), row


def add_chunks_row(folder: Path, md: Path) -> int:
    """--from-chunks: the run's row put in the table (replacing that policy's row of its variant
    and options); the winnable row and the rest kept."""
    key, row = chunks_row(folder)
    js = md.with_suffix(".json")
    results = json.loads(js.read_text()) if js.is_file() else {}
    rows = [r for r in results.get(key, []) if r["policy"] not in (row["policy"], WINNABLE)]
    rows.append(row)
    win = winnable_row(row["env"], row["env_kwargs"], row["games"])
    rows += [win] if win else []
    results[key] = sorted(
        rows, key=lambda r: ORDER.index(r["policy"]) if r["policy"] in ORDER else len(ORDER)
    )
    js.write_text(json.dumps(results, indent=2) + "\n")
    md.write_text(
        f"Held-out deals: seeds 0..N-1 (`reset(seed=i)`), the same for every policy. "
        f"Regenerate with `python scripts/results.py` (see its docstring).\n\n{markdown(results)}"
    )
    print(
        f"{key}: {row['policy']} {row['wins']}/{row['games']} from {folder}; written {md} and {js}",
        file=sys.stderr,
    )
    return 0


def run_variant(env_name: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    env_kwargs = parse_sets(args.set)
    # PPO models are per registered id; option runs compare the baselines only
    card = None if env_kwargs else ppo_card(env_name)
    specs = [sp for sp in (args.policy or ["random", "greedy", "ppo"]) if sp != "ppo"]
    if card is not None and (not args.policy or "ppo" in args.policy):
        specs.append(f"{ppo_spec(card)}:{env_name}")
    elif args.policy and "ppo" in args.policy:
        print(f"{env_name}: no shipped PPO model (scripts/ship_model.py); PPO left out", file=sys.stderr)
    rows = []
    for spec in specs:
        r: Result = evaluate(
            env_name,
            spec,
            episodes=args.episodes,
            seed=0,
            workers=args.workers,
            env_kwargs=env_kwargs,
            progress=True,
        )
        row = r.summary()
        row["policy"] = policy_name(spec)
        if spec != row["policy"]:
            row["spec"] = spec
        row["won_seeds"] = [r.seed + e.index for e in r.episodes if e.won]
        row["cards_ci95"] = cards_interval([e.foundation_cards for e in r.episodes])
        if spec.startswith(("ppo:", "ppo-sample:")) and card is not None:
            row["card"] = card
            row.update(ppo_extras(env_name, args.episodes, card))
        if spec.startswith("exit:"):
            row["exit_card"] = exit_card(spec)
        print(
            f"{env_name:<18}{row['policy']:<8}{r.wins:>5}/{r.games} wins, "
            f"{r.mean_foundation_cards:.1f} cards ({r.seconds:.0f} s)",
            file=sys.stderr,
        )
        rows.append(row)
    return rows


def policy_name(spec: str) -> str:
    """The row's policy name: ``ppo:<path>`` and ``ppo-sample:<path>`` -> ``ppo`` (one reward-only
    row a variant, its spec recorded beside), ``planner:samples=8`` -> ``planner``; ``rollout:16``
    stays whole (the teacher a ``ppo+rollouts`` row names, compared with it)."""
    if spec.startswith("rollout:"):
        return spec
    name = spec.split(":", 1)[0]
    return "ppo" if name == "ppo-sample" else name


def ppo_spec(card: dict[str, Any]) -> str:
    """How the table plays a shipped model: as its card's ``play`` says (scripts/ship_model.py
    chooses it on the validation deals): ``ppo`` (its most likely moves) or ``ppo-sample``."""
    return "ppo-sample" if card.get("play") == "sample" else "ppo"


def winnable_row(env_name: str, env_kwargs: dict[str, Any], episodes: int) -> dict[str, Any] | None:
    """The solver's labels of the same deals (seeds 0..episodes-1) as a row, or None without labels."""
    from patience_gym.agents.evaluation.evaluate import wilson
    from patience_gym.agents.solving.labels import labels_for

    labels = labels_for(env_name, env_kwargs)  # the shipped labels, agents/data/labels/
    seen = [labels[s] for s in range(episodes) if s in labels]
    if not seen:
        return None
    won = [lb.seed for lb in seen if lb.label == "won"]
    return {
        "policy": WINNABLE,
        "games": len(seen),
        "wins": len(won),
        "win_rate": len(won) / len(seen),
        "ci95": list(wilson(len(won), len(seen))),
        "unknown": sum(lb.label == "unknown" for lb in seen),
        "won_seeds": won,
        "env_kwargs": env_kwargs,
    }


def share_of_winnable(row: dict[str, Any], winnable: dict[str, Any] | None) -> str:
    """``wins among winnable / winnable`` for a policy row ('' without labels or won seeds)."""
    if winnable is None or "won_seeds" not in row or row["policy"] == WINNABLE:
        return ""
    won = set(winnable["won_seeds"])
    hits = len(won.intersection(row["won_seeds"]))
    return f"{hits}/{len(won)} ({100 * hits / max(1, len(won)):.0f}%)"


def stale_ppo(
    old: list[dict[str, Any]], new: list[dict[str, Any]], reason: str | None
) -> list[dict[str, Any]]:
    """The previous PPO row, kept and marked stale, when this run measured no PPO model.

    A PPO figure is never silently kept from older rules: with ``--stale-reason`` the old row
    stays in the table labelled with the reason (retrain to replace it); without it, it is dropped.
    """
    if reason is None or any(r["policy"] == "ppo" for r in new):
        return []
    return [{**r, "stale": r.get("stale") or reason} for r in old if r["policy"] == "ppo"]


ORDER = ("random", "greedy", "planner", "macro", "ppo", "exit")
#: A reward-only row's figures measured from its training folders (:func:`ppo_extras`).
EXTRAS = ("best_checkpoint", "training_seeds")


def keep_extras(old: list[dict[str, Any]], row: dict[str, Any]) -> dict[str, Any]:
    """``row``, with the best checkpoint and training seeds of the previous row of the same model
    (the same card, played on as many deals) where this run had no training folders to measure them."""
    if "card" not in row or any(k in row for k in EXTRAS):
        return row
    same = [r for r in old if r.get("card") == row["card"] and r["games"] == row["games"]]
    return {**row, **{k: v for r in same for k, v in r.items() if k in EXTRAS}}


def merge_rows(
    old: list[dict[str, Any]], new: list[dict[str, Any]], args: argparse.Namespace
) -> list[dict[str, Any]]:
    """This run's rows, the previous rows of policies not run this time (``--policy`` runs only
    some), and a stale PPO row where asked; in the order random, greedy, planner, ppo."""
    ran = {r["policy"] for r in new}
    kept = [r for r in old if r["policy"] not in ran and r["policy"] != WINNABLE and r["policy"] != "ppo"]
    if args.policy and "ppo" not in args.policy:
        kept += [r for r in old if r["policy"] == "ppo"]
    new = [keep_extras(old, r) for r in new]
    rows = new + kept + stale_ppo(old, new + kept, args.stale_reason)
    return sorted(rows, key=lambda r: ORDER.index(r["policy"]) if r["policy"] in ORDER else len(ORDER))


def _rate(row: dict[str, Any]) -> str:
    lo, hi = row["ci95"]
    return f"{100 * row['win_rate']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def _cards(row: dict[str, Any]) -> str:
    lo, hi = row["cards_ci95"]
    return f"{row['mean_foundation_cards']:.1f} [{lo:.1f}, {hi:.1f}]"


def wins_above(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether row ``a``'s 95% Wilson interval on wins lies wholly above ``b``'s."""
    return bool(a["ci95"][0] > b["ci95"][1])


def cards_above(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether row ``a``'s 95% interval on mean foundation cards lies wholly above ``b``'s (False
    where either row does not record one: measured before the table kept it)."""
    return "cards_ci95" in a and "cards_ci95" in b and bool(a["cards_ci95"][0] > b["cards_ci95"][1])


@dataclass(frozen=True)
class GreedyCount:
    """The reward-only rows of the registered variants against greedy's: ``variants`` those with
    both rows; ``point`` those at or above greedy's point estimate of the win rate (no wins against
    no wins counts); ``strict`` those strictly above, 95% intervals apart on wins and on mean cards;
    ``unmeasured`` those whose cards' interval is not recorded (not counted as strict)."""

    variants: list[str]
    point: list[str]
    strict: list[str]
    unmeasured: list[str]

    def sentence(self) -> str:
        n = len(self.variants)
        text = (
            f"**Reward-only PPO against greedy**, over the {n} variants with a shipped model: at or "
            f"above greedy's point estimate of the win rate on **{len(self.point)} of {n}** "
            f"({', '.join(self.point) or 'none'}; a tie counts, no wins against no wins included); "
            f"strictly above, 95% intervals apart both on wins (Wilson) and on mean foundation cards "
            f"(mean ± 1.96 s/√n over the deals), on **{len(self.strict)} of {n}** "
            f"({', '.join(self.strict) or 'none'})."
        )
        if self.unmeasured:
            text += f" Not measured for the strict count (no cards' interval): {', '.join(self.unmeasured)}."
        return text


def against_greedy(results: dict[str, list[dict[str, Any]]]) -> GreedyCount:
    """Both counts of the table's reward-only rows (a shipped model's, not stale) against greedy's,
    over the registered variants under their default rules."""
    variants: list[str] = []
    point: list[str] = []
    strict: list[str] = []
    unmeasured: list[str] = []
    for v in VARIANTS:
        by = {r["policy"]: r for r in results.get(v.env_name, [])}
        p, g = by.get("ppo"), by.get("greedy")
        if p is None or g is None or "card" not in p or p.get("stale"):
            continue
        variants.append(v.env_name)
        if p["win_rate"] >= g["win_rate"]:
            point.append(v.env_name)
        if wins_above(p, g) and cards_above(p, g):
            strict.append(v.env_name)
        if "cards_ci95" not in p or "cards_ci95" not in g:
            unmeasured.append(v.env_name)
    return GreedyCount(variants, point, strict, unmeasured)


def inputs(card: dict[str, Any]) -> str:
    """What a reward-only model's network reads (:data:`INPUTS`), from its card (``mlp`` where an
    older card does not say)."""
    policy = str(card.get("policy", "mlp"))
    return INPUTS.get(policy, f"policy {policy}")


def ppo_label(row: dict[str, Any]) -> str:
    """A PPO row's name, saying what it measures: ``ppo (reward only, flat observation)`` or
    ``ppo (reward only, per-move, one-move features)`` for reinforcement learning from the env's
    reward (a shipped model with its card, its inputs named), ``ppo+rollouts (clone of
    rollout:16)`` for a clone of a teacher whose rollouts the model reads as features (the
    teacher's look-ahead, not reinforcement learning), ``ppo (clone of greedy)``, ``ppo (from
    scratch)``; plain ``ppo`` for rows measured before the table recorded the teacher."""
    if "card" in row:
        sampled = ", sampled moves" if row.get("spec", "").startswith("ppo-sample:") else ""
        return f"ppo (reward only, {inputs(row['card'])}{sampled})"
    if "teacher" not in row:
        return "ppo"
    if not row["teacher"]:
        return "ppo (from scratch)"
    return f"{'ppo+rollouts' if row.get('rollout_features') else 'ppo'} (clone of {row['teacher']})"


def verdict(rows: list[dict[str, Any]]) -> str:
    """A plain sentence: what the PPO row is, and how its wins (Wilson intervals) and cards compare
    with greedy's (and random's). A clone's lift is its teacher's, so no row is said to "beat"."""
    by = {r["policy"]: r for r in rows}
    text = " ".join(
        compare(by[k], by["greedy"], by["random"], by.get(by[k].get("teacher") or ""))
        for k in by
        if k.startswith("ppo") and "greedy" in by
    )
    if text and ("ppo" not in by or "card" not in by["ppo"]):
        text = "no reward-only PPO model yet. " + text
    return text.strip() or "no PPO model."


def compare(
    p: dict[str, Any], g: dict[str, Any], r: dict[str, Any], teacher: dict[str, Any] | None = None
) -> str:
    """One PPO row against greedy and random: wins (Wilson intervals apart or not) and cards; a
    clone's row also against its teacher's own row (``rollout:16``) where the table has one."""
    name = ppo_label(p)
    if p.get("stale"):
        return f"the {name} row is stale ({p['stale']}): retrain to compare."
    pc, gc = p["mean_foundation_cards"], g["mean_foundation_cards"]
    more = "more" if pc > gc else "fewer" if pc < gc else "as many"
    cards = f"{more} cards on the foundations ({pc:.1f} vs {gc:.1f})"
    if "cards_ci95" in p and "cards_ci95" in g:
        apart = "95% intervals apart" if cards_above(p, g) or cards_above(g, p) else "intervals overlap"
        cards = f"{more} cards on the foundations ({_cards(p)} vs {_cards(g)}: {apart})"
    if wins_above(p, g):
        text = (
            f"{name} wins more than greedy ({_rate(p)} vs {_rate(g)}: 95% intervals apart) and puts {cards}."
        )
    elif wins_above(g, p):
        text = (
            f"{name} wins less than greedy ({_rate(p)} vs {_rate(g)}: 95% intervals apart) and puts {cards}."
        )
    elif p["wins"] == 0 and g["wins"] == 0:
        text = f"Neither {name} nor greedy wins a game; {name} puts {cards}."
    else:
        text = f"{name} and greedy win within each other's 95% intervals; {name} puts {cards}."
    if name.startswith("ppo+rollouts"):
        text += " The lift is the teacher's look-ahead, not reinforcement learning."
    if teacher is not None and teacher is not p:
        gain = 100 * (p["win_rate"] - teacher["win_rate"])
        apart = p["ci95"][0] > teacher["ci95"][1] or p["ci95"][1] < teacher["ci95"][0]
        text += (
            f" Against its teacher {teacher['policy']} itself ({_rate(teacher)}): {gain:+.1f} points"
            f" ({'95% intervals apart' if apart else 'within noise'})."
        )
    if p["win_rate"] <= r["win_rate"] and p["mean_foundation_cards"] <= r["mean_foundation_cards"]:
        text += " It plays no better than random."
    best = p.get("best_checkpoint")
    if best:
        text += (
            f" The run's best validation checkpoint (highest mean reward on the validation deals,"
            f" {best['steps']:,} steps) wins {_rate(best)}."
        )
    seeds = p.get("training_seeds")
    if seeds:
        rates = [100 * x["win_rate"] for x in seeds]
        text += (
            f" Training seeds {', '.join(str(x['seed']) for x in seeds)}: "
            f"{', '.join(f'{v:.1f}%' for v in rates)} (spread {max(rates) - min(rates):.1f} points)."
        )
    return text


def exit_card(spec: str) -> dict[str, Any]:
    """The card of the net an ``exit:`` spec plays (what it learnt from, data, compute, commit)."""
    from patience_gym.agents.policies.exit import _net_path

    path = _net_path("exit", spec.split(":", 1)[1])
    card = json.loads(path.with_suffix(".json").read_text())
    keys = ("labeller", "games", "decisions", "core_hours", "commit")
    return {k: card[k] for k in keys if k in card} | {"inputs": card.get("net", {}).get("inputs", "native")}


def exit_note(card: dict[str, Any]) -> str:
    """An ``exit`` row's cost: the search that labelled, the data, the compute and the commit."""
    return (
        f"learnt from `{card['labeller']}`'s labels: {card['games']:,} games, {card['decisions']:,} "
        f"decisions, {card['core_hours']:.2f} core-h, commit {card['commit']}"
    )


def card_note(card: dict[str, Any]) -> str:
    """What made a reward-only row's model (learner, config, steps, wall time, seed, commit) and how
    it plays, with the validation deals' figures that chose that (scripts/ship_model.py)."""
    note = (
        f"{card['learner']} ({card.get('policy', 'mlp')}), `{card['config']}`, {card['steps']:,} steps, "
        f"{card['train_seconds'] / 60:.0f} min, seed {card['seed']}, commit {card['commit']}"
    )
    chosen = card.get("validation_play")
    if chosen:
        note += (
            f"; plays by {card['play']} (validation deals won: argmax {chosen['argmax']['wins']}, "
            f"sampled {chosen['sample']['wins']} of {len(deal_range(chosen['deals'])):,})"
        )
    return note


def markdown(results: dict[str, list[dict[str, Any]]]) -> str:
    head = (
        "| variant | policy | games | wins | win rate [95% Wilson CI] | wins among the winnable deals "
        "| mean cards on foundations | mean length | PPO training, or search cost |\n"
        "|---|---|---:|---:|---|---:|---:|---:|---|"
    )
    lines = [head]
    # each registered id, then its runs with options (``Klondike-v0 draw=3``) right below it
    order = [
        k for v in VARIANTS for k in sorted(results) if k == v.env_name or k.startswith(v.env_name + " ")
    ]
    order += sorted(k for k in results if k not in order)
    for env_name in order:
        winnable = next((r for r in results[env_name] if r["policy"] == WINNABLE), None)
        for r in results[env_name]:
            if r["policy"] == WINNABLE:
                unknown = f", {r['unknown']} unknown" if r["unknown"] else ""
                lines.append(
                    f"| {env_name} | **{WINNABLE}** | {r['games']} | {r['wins']} | {_rate(r)}{unknown} "
                    "| | | | |"
                )
                continue
            budget, policy = row_cost(r), row_name(r)
            lines.append(
                f"| {env_name} | {policy} | {r['games']} | {r['wins']} | {_rate(r)} "
                f"| {share_of_winnable(r, winnable)} "
                f"| {r['mean_foundation_cards']:.1f} | {r['mean_length']:.1f} | {budget} |"
            )
    return "\n".join([*lines, "", *verdicts(results, order)]) + "\n"


def row_cost(r: dict[str, Any]) -> str:
    """A row's last column: what made a model (its card, or a clone's steps), a net's labels, or a
    search's cost a game."""
    budget = ""
    card = r.get("card")
    if card:
        budget = card_note(card)
    elif r["policy"].startswith("ppo") and r.get("train_timesteps"):
        secs = r.get("train_seconds")
        budget = f"{r['train_timesteps']:,} steps" + (f", {secs / 60:.1f} min" if secs else "")
        if r.get("imitation_seconds"):
            budget += f" after {r['imitation_seconds'] / 60:.1f} min of cloning"
        if r.get("revisit_penalty"):
            budget += f", revisit penalty {r['revisit_penalty']:g}"
    if r.get("exit_card"):
        budget = exit_note(r["exit_card"])
    if r.get("seconds_per_game") and r.get("nodes_per_game"):  # a search's cost
        budget = search_cost(r["seconds_per_game"], r["nodes_per_game"])
    return budget


def row_name(r: dict[str, Any]) -> str:
    """A row's policy, saying what it measures: a search's settings, PPO or a clone, a net learnt
    from a search (not RL), and a stale row's reason."""
    policy = str(r["policy"])
    if policy in ("planner", "macro") and ":" in r.get("spec", ""):  # its settings: rows may differ
        policy += f" ({r['spec'].split(':', 1)[1]})"
    if policy.startswith("ppo"):  # what the row measures: a clone or PPO itself
        policy = ppo_label(r)
    if policy == "exit" and r.get("exit_card"):  # a net learnt from a search: not RL
        policy = f"exit (net learnt from search, {r['exit_card']['inputs']} inputs; not reward-only RL)"
    if policy == "turnbull":  # a published player, not this project's
        policy = "turnbull (Bill Turnbull's published move-priority list: a blind rule player)"
    if r.get("stale"):
        policy += f" (stale: {r['stale']})"
    return policy


def search_cost(seconds: float, nodes: float) -> str:
    """A search's cost a game, in a few figures: ``5.4 CPU s and 8.1M positions``."""
    sec = f"{seconds:.1f}" if seconds >= 1 else f"{seconds:.2g}"
    pos = f"{nodes / 1e6:.1f}M" if nodes >= 1e6 else f"{nodes / 1e3:.0f}K" if nodes >= 1e3 else f"{nodes:.0f}"
    return f"{sec} CPU s and {pos} positions a game"


def verdicts(results: dict[str, list[dict[str, Any]]], order: list[str]) -> list[str]:
    """The lines under the table: each variant's verdict, then both counts of the reward-only rows
    against greedy (:func:`against_greedy`)."""
    lines = [f"- **{env_name}**: {verdict(results[env_name])}" for env_name in order]
    count = against_greedy(results)
    return [*lines, "", count.sentence()] if count.variants else lines


def checked_names(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    """The variants to run; a bad count or an unknown id ends the run in one line, before anything
    is written (``--episodes 0`` would replace the table's rows with empty ones)."""
    for flag, value in (("--episodes", args.episodes), ("--workers", args.workers)):
        if value < 1:
            parser.error(f"{flag} must be >= 1, got {value}")
    try:
        return [get_variant(e).env_name for e in args.env] if args.env else [v.env_name for v in VARIANTS]
    except ValueError as exc:
        parser.error(str(exc))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", action="append", help="variant(s) to run (default: every registered one)")
    parser.add_argument("--episodes", type=int, default=1000, help="held-out deals per policy (seeds 0..N-1)")
    parser.add_argument("--workers", type=int, default=1, help="processes for the evaluation")
    parser.add_argument(
        "--labels-only",
        action="store_true",
        help="run no policy: refresh the winnable rows from the label files (agents/data/labels/)",
    )
    parser.add_argument(
        "--policy",
        action="append",
        help="run only these policies (repeatable: random, greedy, planner:..., ppo); other rows are kept",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an env option for this run (rows are named after it; PPO is left out)",
    )
    parser.add_argument(
        "--stale-reason",
        default=None,
        help="keep the previous PPO row of a variant run without a model, marked with this reason",
    )
    parser.add_argument(
        "--from-chunks",
        type=Path,
        default=None,
        metavar="DIR",
        help="play nothing: the row of a finished scripts/eval_chunks.py run (its folder), under its "
        "variant and options",
    )
    parser.add_argument("--out", default=str(ROOT / "results" / "results.md"), help="Markdown table to write")
    args = parser.parse_args(argv)
    if args.from_chunks is not None:
        return add_chunks_row(args.from_chunks, Path(args.out))
    names = checked_names(parser, args)

    md = Path(args.out)
    js = md.with_suffix(".json")
    results: dict[str, list[dict[str, Any]]] = {}
    start = time.perf_counter()
    sets = parse_sets(args.set)
    for name in names:  # a bad option is refused before anything runs
        try:
            get_variant(name).make_game(**sets)
        except (TypeError, ValueError) as e:
            hint = " (values are read as YAML: null for None)" if "'None'" in str(e) else ""
            raise SystemExit(f"results.py: --set: {e}{hint}") from None
    targets = [(name, sets) for name in names]
    if args.labels_only and not sets:  # also the option sets already in the table
        previous = json.loads(js.read_text()) if js.is_file() else {}
        targets += [(name, kw) for name in names for kw in option_sets_in(previous, name)]
    for name, env_kwargs in targets:
        rows = [] if args.labels_only else run_variant(name, args)
        key = row_key(name, env_kwargs)
        # re-read just before writing: another run may have updated other variants meanwhile
        results = json.loads(js.read_text()) if js.is_file() else {}
        if not args.labels_only:
            results[key] = merge_rows(results.get(key, []), rows, args)
        win = winnable_row(name, env_kwargs, args.episodes)
        results[key] = [r for r in results.get(key, []) if r["policy"] != WINNABLE] + ([win] if win else [])
        md.parent.mkdir(parents=True, exist_ok=True)  # written after each variant: a crash keeps the rest
        js.write_text(json.dumps(results, indent=2) + "\n")
        table = markdown(results)
        md.write_text(
            f"Held-out deals: seeds 0..N-1 (`reset(seed=i)`), the same for every policy. "
            f"Regenerate with `python scripts/results.py` (see its docstring).\n\n{table}"
        )
    print(markdown(results))
    print(f"written {md} and {js} in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
