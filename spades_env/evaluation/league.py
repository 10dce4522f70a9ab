"""League ratings: a round robin of duplicate matches, and Bradley-Terry ratings with intervals.

``python -m spades_env.evaluation --league A B C ... [--deals N] [--games M]
[--workers K] [--json F] [--png F] [--seed S] [--rules R] [--anchor NAME]``

* **Entries.** Each entry is an agent name for ``make_agent`` (``random``,
  ``heuristic``, ``pimc``, ``ppo``), a policy file, or a training run folder:
  every policy file in the folder (``policy.pt``) and every policy a training
  checkpoint holds (``checkpoints/*.pt``: the learner's policy and each
  snapshot of its opponent pool, written to a temporary policy file for the
  league) becomes an entry, so a run's learning progress shows as ratings
  against fixed anchors. The output folder of ``spades-exploit`` (its
  ``exploit.json``) is one entry, its exploiter, labelled ``exploit(TARGET)``,
  so the ratings show how far each exploiter got. ``LABEL=AGENT`` names an entry; an agent given twice
  gets ``#2``, ``#3``... (same agent, its own seeded generator in every match).
  A label names one entry: a LABEL given twice, or equal to another entry's
  label (an ``x#2`` numbering included), is refused before any match, naming
  both entries (an entry is never renamed to make room).
* **Matches.** Every pair plays one duplicate evaluation
  (:func:`spades_env.evaluation.duplicate.evaluate`) from the same ``seed``, so
  every pair sees the same deals and games.
* **Headline metrics** per entry: the win rate in games to the target (with
  a Wilson interval), and points per deal with each new bag charged at its
  game cost (:func:`spades_env.rewards.bag_cost`); plain points per deal as a
  secondary column.
* **Ratings.** A Bradley-Terry model, P(i beats j) = 1 / (1 + exp(r_j - r_i)),
  fitted by maximum likelihood to the pairwise game results (or, with
  ``--games 0``, to the per-deal results: the side with more points in a
  duplicate deal wins it). A weak Gaussian prior on each played pair's rating
  difference (sd ``PRIOR_SD_LOGIT`` logits) keeps an unbeaten record finite.
  One entry is the anchor, rated 0 (``--anchor``, default the first entry);
  the others' 95% intervals come from the Fisher information (the inverse
  Hessian of the penalized log-likelihood) and are relative to the anchor.
  Ratings are printed on the Elo scale (``ELO_PER_LOGIT`` points per logit:
  400 points = odds of 10 to 1). A game's winner beat every other player:
  in cutthroat, where A faces a field of B players, A's win counts as a win
  over each of them and a B player's win as one win over A (so equal agents
  get equal ratings), and a B win shares out among the B players in the win
  rates (fair rate: one over the number of sides). An undecided game counts
  half a comparison each way.

Everything derives from ``seed``: the same entries and seed give the same JSON
(no timings are stored in it).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import math
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
from scipy import optimize

from ..cli_args import non_negative_int, positive_int, sigterm_interrupts
from ..core.rules import Rules
from ..rewards import bag_cost
from .duplicate import ConfigError, EvalConfig, check_config, evaluate, resolve_rules
from .report import check_output_paths, write_outputs
from .stats import undecided_share, win_interval

ELO_PER_LOGIT = 400.0 / math.log(10.0)
PRIOR_SD_LOGIT = 3.0  # about 520 Elo: weak next to a few games' evidence, finite for an unbeaten record
CONFIDENCE_Z = 1.959963984540054  # two-sided 95% normal quantile
UNDECIDED_SHARE = undecided_share(2)  # an undecided game counts half a comparison each way (the evaluation's rule)
POLICY_SUFFIXES = (".pt", ".pth")
EXPLOIT_REPORT = "exploit.json"  # an exploit's output folder (training.exploit) holds it
BASES = ("games", "deals")


class LeagueError(ValueError):
    """A league that cannot be played: too few entries, a bad anchor, an empty run folder."""


@dataclass
class Entry:
    """One league entry: its label and what ``make_agent`` receives."""

    label: str
    agent: str
    source: str = ""  # where it came from (a run folder), for the report


@dataclass
class LeagueConfig:
    """What the league plays; every field but ``workers`` and ``progress`` goes into the JSON."""

    entries: list[str]
    deals: int = 40
    games: int = 10
    seed: int = 0
    rules: str = "standard"
    anchor: str | None = None
    workers: int | None = None
    progress: bool = True
    options: dict[str, Any] = field(default_factory=dict)  # make_agent options for every entry

    def __post_init__(self) -> None:
        try:  # the numbers as one match checks them
            EvalConfig(
                agent_a="random",
                agent_b="random",
                deals=self.deals,
                games=self.games,
                seed=self.seed,
                workers=self.workers,
            )
        except ValueError as exc:
            raise LeagueError(str(exc)) from None


# ------------------------------------------------------------------ entries
def _is_policy_file(path: Path) -> bool:
    return path.is_file() and path.suffix in POLICY_SUFFIXES


def run_folder_entries(folder: str | os.PathLike, workdir: str | os.PathLike) -> list[Entry]:
    """Every policy of a training run folder as an entry (checkpoint policies written under ``workdir``)."""
    from ..nn import POLICY_FORMAT, PolicyNet, safe_load, save_policy  # torch: only for run folders

    folder = Path(folder)
    run = folder.name
    entries: list[Entry] = []
    seen: set[str] = set()

    def add(label: str, path: Path, digest: str) -> None:
        if digest not in seen:  # the final policy.pt repeats the last checkpoint's policy
            seen.add(digest)
            entries.append(Entry(label, str(path), str(folder)))

    def digest_of(state: dict[str, Any]) -> str:
        h = hashlib.sha256()
        for key in sorted(state):
            h.update(key.encode())
            h.update(state[key].detach().float().cpu().numpy().tobytes())
        return h.hexdigest()

    exported = Path(workdir)
    for path in sorted(p for p in folder.rglob("*") if _is_policy_file(p)):
        payload = safe_load(path)
        rel = path.relative_to(folder).with_suffix("").as_posix()
        if payload.get("format") == POLICY_FORMAT:
            update = payload.get("meta", {}).get("update")
            label = f"{run}/{rel}" + (f"@u{update}" if update is not None else "")
            add(label, path, digest_of(payload["state_dict"]))
        elif "policy" in payload and "config" in payload:  # a training checkpoint
            config = payload["config"]
            counters = payload.get("counters", {})
            update = int(counters.get("update", 0))
            net = PolicyNet(
                config["hidden"],
                prior_weight=config.get("prior_weight", 0.0),
                prior_on_bids=config.get("prior_on_bids", False),
                card_scorer=config.get("card_scorer", 0),
            )
            pool = list(payload.get("pool", []))
            every = int(config.get("snapshot_every", 1)) or 1
            last_snapshot = (update // every) * every
            # The pool keeps the newest snapshots, one every `snapshot_every` updates.
            states = [(f"snapshot@u{last_snapshot - every * (len(pool) - 1 - k)}", s) for k, s in enumerate(pool)]
            states.append((f"policy@u{update}", payload["policy"]))
            for name, state in states:
                net.load_state_dict(state)
                target = exported / f"{len(entries):03d}-{run}-{name.replace('@', '-')}.pt"
                digest = digest_of(state)
                if digest in seen:
                    continue
                save_policy(target, net, meta={"source": str(path), "entry": name})
                add(f"{run}/{name}", target, digest)
    if not entries:
        raise LeagueError(f"{folder}: no policy file or training checkpoint found in this run folder")
    entries.sort(key=lambda e: (_update_of(e.label), e.label))
    return entries


def exploit_entry(folder: str | os.PathLike, label: str | None = None) -> Entry:
    """The exploiter of an exploit's output folder (``spades-exploit --out``; its ``exploit.json``) as one entry,
    labelled ``exploit(TARGET)`` unless ``label`` names it."""
    import json

    folder = Path(folder)
    try:
        report = json.loads((folder / EXPLOIT_REPORT).read_text())
        policy = folder / report["exploiter"]
        target = report["options"]["target"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise LeagueError(f"{folder}: not a readable exploit report ({type(exc).__name__}: {exc})") from None
    if not policy.is_file():
        raise LeagueError(f"{folder}: the exploiter's policy {policy} is missing")
    return Entry(
        label or f"exploit({Path(target).stem if os.path.isfile(target) else target})", str(policy), str(folder)
    )


def _update_of(label: str) -> int:
    tail = label.rsplit("@u", 1)
    return int(tail[1]) if len(tail) == 2 and tail[1].isdigit() else sys.maxsize


def resolve_entries(specs: Sequence[str], workdir: str | os.PathLike) -> list[Entry]:
    """League entries from names, ``LABEL=AGENT`` pairs, policy files and run folders (LeagueError naming both
    entries when two would share a label)."""
    entries: list[Entry] = []
    origins: list[tuple[int, str, bool]] = []  # per entry: the spec's position, the spec, and whether it named it
    for position, spec in enumerate(specs, 1):
        label, agent = None, spec
        if "=" in spec and not os.path.exists(spec):
            label, agent = spec.split("=", 1)
            if not label or not agent:
                raise LeagueError(f"entry {spec!r}: write LABEL=AGENT with both parts")
        if os.path.isfile(os.path.join(agent, EXPLOIT_REPORT)):  # an exploit's folder: its exploiter
            entries.append(exploit_entry(agent, label))
            origins.append((position, spec, bool(label)))
        elif os.path.isdir(agent):
            try:
                found = run_folder_entries(agent, workdir)
            except LeagueError:
                raise
            except Exception as exc:  # an unreadable or foreign file in the folder: named, before any match
                raise LeagueError(f"entry {spec!r}: run folder {agent!r}: {type(exc).__name__}: {exc}") from None
            counts: dict[str, int] = {}
            for e in found:  # the folder's own labels, numbered where two of its policies share one
                if label:
                    e.label = f"{label}/{e.label.split('/', 1)[1]}"
                k = counts[e.label] = counts.get(e.label, 0) + 1
                e.label += f"#{k}" if k > 1 else ""
            entries.extend(found)
            origins.extend((position, spec, bool(label)) for _ in found)
        else:
            default = Path(agent).stem if os.path.isfile(agent) else agent
            entries.append(Entry(label or default, agent))
            origins.append((position, spec, bool(label)))
    _number_repeats(entries, origins)
    if len(entries) < 2:
        raise LeagueError(f"a league needs at least 2 entries, got {[e.label for e in entries]}")
    return entries


def _number_repeats(entries: list[Entry], origins: list[tuple[int, str, bool]]) -> None:
    """Number the repeats of a default label ``#2``, ``#3``...; LeagueError naming both entries when two labels
    (given, default or numbered) are the same, since renaming one would hide which entry is which."""
    seen: dict[str, int] = {}
    named: list[str] = []
    for e, (position, spec, by_label) in zip(entries, origins):
        k = 1
        if not by_label:
            k = seen[e.label] = seen.get(e.label, 0) + 1
        if k > 1:  # the same agent again: its own entry, numbered
            named.append(f"entry {position} ({spec!r}, numbered #{k} as a repeat)")
            e.label = f"{e.label}#{k}"
        else:
            named.append(f"entry {position} ({spec!r})")
    owner: dict[str, int] = {}
    for i, e in enumerate(entries):
        j = owner.setdefault(e.label, i)
        if j != i:
            raise LeagueError(
                f"{named[j]} and {named[i]} would both be labelled {e.label!r}; "
                "give them different labels with LABEL=AGENT"
            )


def check_entries(entries: Sequence[Entry], rules: Rules, options: dict[str, Any]) -> None:
    """Build every entry's agent as a match would, before any match is played (LeagueError naming the entry)."""
    for e in entries:
        try:
            check_config(EvalConfig(agent_a=e.agent, agent_b="random", a_options=dict(options), rules=rules))
        except ConfigError as exc:
            raise LeagueError(f"entry {e.label!r}: {exc}") from None


# ------------------------------------------------------------------ ratings
def fit_bradley_terry(
    wins: np.ndarray, anchor: int = 0, prior_sd: float = PRIOR_SD_LOGIT
) -> tuple[np.ndarray, np.ndarray]:
    """Ratings (logits, anchor = 0) and their standard errors from ``wins[i, j]`` (i's wins over j)."""
    wins = np.asarray(wins, dtype=np.float64)
    n = wins.shape[0]
    if wins.shape != (n, n) or n < 2:
        raise LeagueError(f"wins must be a square matrix of 2+ entries, got shape {wins.shape}")
    if not 0 <= anchor < n:
        raise LeagueError(f"anchor index {anchor} is not one of the {n} entries")
    if (wins < 0).any():
        raise LeagueError("wins must be >= 0")
    played = (wins + wins.T) > 0
    np.fill_diagonal(played, False)
    free = np.array([i for i in range(n) if i != anchor])
    precision = 1.0 / prior_sd**2
    laplacian = np.diag(played.sum(axis=1)) - played.astype(np.float64)

    total = wins + wins.T

    def full(x: np.ndarray) -> np.ndarray:
        r = np.zeros(n)
        r[free] = x
        return r

    def penalized(r: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """Log-likelihood minus the prior's penalty, its gradient and Hessian."""
        diff = r[:, None] - r[None, :]
        p = 1.0 / (1.0 + np.exp(-diff))  # P(i beats j)
        value = -float((wins * np.logaddexp(0.0, -diff)).sum()) - 0.5 * precision * float(r @ laplacian @ r)
        grad = (wins - total * p).sum(axis=1) - precision * laplacian @ r
        info = total * p * (1 - p)
        hess = info - np.diag(info.sum(axis=1)) - precision * laplacian
        return value, grad, hess

    # The penalized log-likelihood is concave: scipy's trust-region Newton finds its maximum (anchor fixed at 0).
    fit = optimize.minimize(
        lambda x: -penalized(full(x))[0],
        np.zeros(n - 1),
        jac=lambda x: -penalized(full(x))[1][free],
        hess=lambda x: -penalized(full(x))[2][np.ix_(free, free)],
        method="trust-exact",
        options={"gtol": 1e-10},
    )
    r = full(fit.x)
    _, _, hess = penalized(r)
    se = np.zeros(n)
    reachable = _connected_to(played, anchor)
    cov = np.linalg.inv(-hess[np.ix_(free, free)])
    se[free] = np.sqrt(np.diag(cov))
    se[~reachable] = math.nan  # no games link it to the anchor: its rating is only the prior
    return r, se


def _connected_to(played: np.ndarray, start: int) -> np.ndarray:
    seen = np.zeros(len(played), dtype=bool)
    stack = [start]
    while stack:
        i = stack.pop()
        if not seen[i]:
            seen[i] = True
            stack.extend(int(j) for j in np.flatnonzero(played[i]) if not seen[j])
    return seen


# ------------------------------------------------------------------- league
def _pair_summary(a: str, b: str, report: dict[str, Any], rules: Rules) -> dict[str, Any]:
    """The parts of a duplicate report the league keeps (no timings, no per-deal lists)."""
    out: dict[str, Any] = {"a": a, "b": b}
    if "games" in report:
        g = report["games"]
        # In cutthroat A plays a field of B players: a win of "B" is a win of one of them.
        field = 1 if rules.partnerships else rules.num_sides - 1
        out["games"] = {
            "n": g["n_games"],
            "a_wins": g["a_wins"],
            "b_wins": g["b_wins"],
            "b_players": field,
            "undecided": g["undecided"],
            "a_win_rate": g["a_win_rate"]["rate"],
            "a_win_low": g["a_win_rate"]["low"],
            "a_win_high": g["a_win_rate"]["high"],
            "mean_hands": g["mean_hands"],
        }
    if "deals" in report:
        d = report["deals"]
        sides = report["sides"]["deals"]
        charged = {role: sides[role]["bag_adjusted_points_per_hand"] for role in "AB"}  # rewards.charged_points
        diffs = d["per_deal_diff"]
        out["deals"] = {
            "n": d["n"],
            "a_points": d["a_points"],
            "b_points": d["b_points"],
            "a_points_charged": charged["A"],
            "b_points_charged": charged["B"],
            "a_bags": sides["A"]["bags_per_hand"],
            "b_bags": sides["B"]["bags_per_hand"],
            "points_diff": d["points_diff"]["mean"],
            "points_diff_low": d["points_diff"]["low"],
            "points_diff_high": d["points_diff"]["high"],
            "a_deals_won": sum(x > 0 for x in diffs),
            "b_deals_won": sum(x < 0 for x in diffs),
            "deals_tied": sum(x == 0 for x in diffs),
        }
    return out


def _wins_matrix(labels: list[str], pairs: list[dict[str, Any]], basis: str) -> np.ndarray:
    index = {name: i for i, name in enumerate(labels)}
    wins = np.zeros((len(labels), len(labels)))
    for p in pairs:
        i, j = index[p["a"]], index[p["b"]]
        if basis == "games":
            # A game's winner beat every other player: a win of A beats each of the B players it faced,
            # a win of one B player beats A (partnerships: one side against one side).
            g = p["games"]
            a, b, half = g["a_wins"] * g["b_players"], g["b_wins"], g["undecided"]
        else:
            a, b, half = p["deals"]["a_deals_won"], p["deals"]["b_deals_won"], p["deals"]["deals_tied"]
        wins[i, j] += a + UNDECIDED_SHARE * half
        wins[j, i] += b + UNDECIDED_SHARE * half
    return wins


def _entry_totals(label: str, pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """Win rate (Wilson interval; undecided games shared) over an entry's games, and its points per deal."""
    won = games = 0.0
    deal_weights, charged, plain = [], [], []
    for p in pairs:
        if label not in (p["a"], p["b"]):
            continue
        me = "a" if p["a"] == label else "b"
        if "games" in p:
            g = p["games"]
            share = 1 if me == "a" else g["b_players"]  # a B win is shared by the B players
            won += g[f"{me}_wins"] / share + g["undecided"] * undecided_share(g["b_players"] + 1)
            games += g["n"]
        if "deals" in p:
            deal_weights.append(p["deals"]["n"])
            charged.append(p["deals"][f"{me}_points_charged"])
            plain.append(p["deals"][f"{me}_points"])
    interval = win_interval(won, int(games))
    out: dict[str, Any] = {
        "games": int(games),
        "win_rate": won / games if games else None,
        "win_low": interval["low"] if games else None,
        "win_high": interval["high"] if games else None,
    }
    if deal_weights:
        out["points_per_deal_charged"] = float(np.average(charged, weights=deal_weights))
        out["points_per_deal"] = float(np.average(plain, weights=deal_weights))
    return out


def play_league(cfg: LeagueConfig) -> dict[str, Any]:
    """Play the round robin and fit the ratings; returns the JSON-ready league report."""
    rules = resolve_rules(cfg.rules)
    cost = bag_cost(rules)
    with _entry_workdir() as workdir:
        entries = resolve_entries(cfg.entries, workdir)
        labels = [e.label for e in entries]
        anchor = labels[0] if cfg.anchor is None else cfg.anchor
        if anchor not in labels:
            raise LeagueError(f"anchor {anchor!r} is not an entry; entries: {labels}")
        check_entries(entries, rules, cfg.options)
        matches = list(combinations(range(len(entries)), 2))
        pairs = []
        for i, j in _progress(matches, cfg.progress):
            a, b = entries[i], entries[j]
            report = evaluate(
                EvalConfig(
                    agent_a=a.agent,
                    agent_b=b.agent,
                    a_options=dict(cfg.options),
                    b_options=dict(cfg.options),
                    rules=rules,
                    deals=cfg.deals,
                    games=cfg.games,
                    seed=cfg.seed,
                    workers=cfg.workers,
                    progress=False,
                )
            )
            pairs.append(_pair_summary(a.label, b.label, report, rules))
    basis = "games" if cfg.games else "deals"
    r, se = fit_bradley_terry(_wins_matrix(labels, pairs, basis), labels.index(anchor))
    ratings = {}
    for k, e in enumerate(entries):
        rating, half = ELO_PER_LOGIT * r[k], ELO_PER_LOGIT * CONFIDENCE_Z * se[k]
        ratings[e.label] = {
            "rating": float(rating),
            "low": float(rating - half),
            "high": float(rating + half),
            "agent": Path(e.agent).name if e.source else e.agent,  # no temporary paths
            **({"run": e.source} if e.source else {}),
            **_entry_totals(e.label, pairs),
        }
    return {
        "config": {
            "entries": list(cfg.entries),
            "rules_name": rules.name,
            "rules": rules.to_dict(),
            "deals": cfg.deals,
            "games": cfg.games,
            "seed": cfg.seed,
            "options": cfg.options,
        },
        "method": {
            "model": "Bradley-Terry",
            "basis": basis,
            "anchor": anchor,
            "scale": "Elo",
            "elo_per_logit": ELO_PER_LOGIT,
            "prior_sd_logit": PRIOR_SD_LOGIT,
            "interval": "95% Fisher",
            "bag_cost": cost,
            "undecided_share": UNDECIDED_SHARE,
            "fair_win_rate": 1.0 / rules.num_sides,
        },
        "ratings": ratings,
        "pairs": pairs,
    }


@contextlib.contextmanager
def _entry_workdir() -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="spades-league-") as tmp:
        yield tmp


def _progress(items: list, enabled: bool):
    if not enabled:
        return items
    from tqdm import tqdm

    return tqdm(items, desc="league matches", unit="match")


# ---------------------------------------------------------------- reporting
def _fmt(x: Any, spec: str) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return format(x, spec)


def format_league(report: dict[str, Any]) -> str:
    """The league table, best rating first."""
    m, cfg = report["method"], report["config"]
    rows = sorted(report["ratings"].items(), key=lambda kv: -kv[1]["rating"])
    width = max(12, *(len(name) for name, _ in rows))
    lines = [
        f"League: {len(rows)} entries, rules {cfg['rules_name']}, seed {cfg['seed']}, "
        f"{cfg['deals']} duplicate deals and {cfg['games']} game seeds per match",
        f"Ratings: {m['model']} on {m['basis']} results, Elo scale, anchor {m['anchor']} = 0; "
        f"95% intervals relative to the anchor; fair win rate {100 * m['fair_win_rate']:.1f}%",
        "",
        f"{'entry':{width}s} {'rating':>7s} {'95% interval':>17s} {'win rate':>9s} {'games':>6s} "
        f"{'pts/deal':>9s} {'plain':>8s}",
        f"{'':{width}s} {'':>7s} {'':>17s} {'':>9s} {'':>6s} {'bags chg':>9s} {'pts/deal':>8s}",
    ]
    for name, x in rows:
        interval = f"[{_fmt(x['low'], '+.0f')}, {_fmt(x['high'], '+.0f')}]"
        win = "-" if x["win_rate"] is None else f"{100 * x['win_rate']:.1f}%"
        lines.append(
            f"{name:{width}s} {x['rating'] + 0.0:+7.0f} {interval:>17s} {win:>9s} {x['games']:6d} "
            f"{_fmt(x.get('points_per_deal_charged'), '+9.1f'):>9s} {_fmt(x.get('points_per_deal'), '+8.1f'):>8s}"
        )
    lines.append(
        f"(pts/deal bags chg: points per deal with each new bag charged {m['bag_cost']:g} points, "
        "its share of the bag penalty)"
    )
    return "\n".join(lines)


def write_league_png(report: dict[str, Any], path: str | os.PathLike) -> None:
    """A chart of the ratings with their intervals, best at the top."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = sorted(report["ratings"].items(), key=lambda kv: kv[1]["rating"])
    names = [name for name, _ in rows]
    values = np.array([x["rating"] for _, x in rows])
    low = np.array([x["low"] for _, x in rows])
    high = np.array([x["high"] for _, x in rows])
    err = np.nan_to_num(np.vstack([values - low, high - values]))
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.45 * len(names)))
    ax.errorbar(values, range(len(names)), xerr=err, fmt="o", capsize=5, color="tab:blue")
    ax.axvline(0, color="grey", lw=0.8, ls="--")
    ax.set_yticks(range(len(names)), names)
    m = report["method"]
    ax.set_xlabel(f"rating (Elo scale, {m['anchor']} = 0; 95% interval)")
    ax.set_title(f"League ({report['config']['rules_name']}, {m['model']} on {m['basis']})")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``--league``."""
    p = argparse.ArgumentParser(
        prog="spades-evaluate --league",
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--league",
        nargs="+",
        required=True,
        metavar="ENTRY",
        help="agents, policy files, run folders, or LABEL=AGENT (2 or more in all)",
    )
    p.add_argument("--deals", type=non_negative_int, default=40, help="duplicate deals per match (0 to skip)")
    p.add_argument(
        "--games", type=non_negative_int, default=10, help="game seeds per match, each in every orientation (0 to skip)"
    )
    p.add_argument("--rules", default="standard", help="preset name or YAML path")
    p.add_argument("--seed", type=non_negative_int, default=0)
    p.add_argument("--anchor", default=None, help="the entry rated 0 (default: the first)")
    p.add_argument("--workers", type=positive_int, default=None, help="processes per match (default: all cores)")
    p.add_argument("--json", dest="json_path", help="write the league report as JSON here")
    p.add_argument("--png", dest="png_path", help="write a ratings chart here")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m spades_env.evaluation --league ...``."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:  # the numbers, the rules and the output paths are checked before any match is played
        cfg = LeagueConfig(
            entries=args.league,
            deals=args.deals,
            games=args.games,
            seed=args.seed,
            rules=args.rules,
            anchor=args.anchor,
            workers=args.workers,
            progress=not args.no_progress,
        )
        try:
            resolve_rules(args.rules)
        except (ValueError, TypeError, KeyError, OSError) as exc:
            raise LeagueError(f"--rules {args.rules!r}: {exc}") from None
        sources = [s.split("=", 1)[1] if "=" in s and not os.path.exists(s) else s for s in args.league]
        check_output_paths(args.json_path, args.png_path, inputs=sources)
    except ValueError as exc:
        parser.error(str(exc))
    try:
        with sigterm_interrupts():  # stopped by a scheduler or timeout: the worker processes stop too
            report = play_league(cfg)
    except LeagueError as exc:
        print(f"league: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("league: interrupted; the worker processes were stopped", file=sys.stderr)
        return 130
    print(format_league(report))
    write_outputs(report, args.json_path, args.png_path, write_chart=write_league_png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
