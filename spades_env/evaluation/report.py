"""Presenting an evaluation report: a terminal table, JSON and a PNG chart."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def _fmt(x: Any, digits: int = 3, pct: bool = False) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if pct:
        return f"{100 * x:.1f}%"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def _interval(ci: dict[str, float], digits: int = 2) -> str:
    return f"{ci['mean']:+.{digits}f} [{ci['low']:+.{digits}f}, {ci['high']:+.{digits}f}]"


def headline_lines(report: dict[str, Any], indent: str = "  ") -> list[str]:
    """The headline, one line per measure in the order that judges strength (game win rate first)."""
    h = report["headline"]
    rows = []
    if h["win_rate"] is not None:
        w = h["win_rate"]
        rows.append(
            (
                f"game win rate, games to {h['target_score']}",
                _fmt(w["rate"], pct=True),
                f"[{_fmt(w['low'], pct=True)}, {_fmt(w['high'], pct=True)}]",
                f"{h['games']} games",
            )
        )
    if h["bag_adjusted_points_per_deal"] is not None:
        for label, ci in (
            (f"points per deal, bags charged {h['bag_cost']:g}", h["bag_adjusted_points_per_deal"]),
            ("points per deal, plain (secondary)", h["points_per_deal"]),
        ):
            rows.append((label, f"{ci['mean']:+.2f}", f"[{ci['low']:+.2f}, {ci['high']:+.2f}]", f"{h['deals']} deals"))
    return [f"{indent}{label:36s} {value:>8s}  95% CI {ci:20s} {n}" for label, value, ci, n in rows]


def headline_summary(report: dict[str, Any]) -> str:
    """The headline on one line: win rate, bag-adjusted points per deal (A - B), plain points per deal."""
    h = report["headline"]
    parts = []
    if h["win_rate"] is not None:
        w = h["win_rate"]
        parts.append(
            f"wins {_fmt(w['rate'], pct=True)} [{_fmt(w['low'], pct=True)}, {_fmt(w['high'], pct=True)}] "
            f"of {h['games']} games"
        )
    if h["bag_adjusted_points_per_deal"] is not None:
        parts.append(f"bag-adjusted {_interval(h['bag_adjusted_points_per_deal'])}/deal")
        parts.append(f"plain {_interval(h['points_per_deal'])}/deal over {h['deals']} deals")
    return "  ".join(parts)


def format_report(report: dict[str, Any]) -> str:
    """A plain-text table of the report, its headline first."""
    cfg = report["config"]
    a = cfg["agent_a"] + (f" {cfg['a_options']}" if cfg["a_options"] else "")
    b = cfg["agent_b"] + (f" {cfg['b_options']}" if cfg["b_options"] else "")
    lines = [
        f"A = {a}",
        f"B = {b}",
        f"rules {cfg['rules_name']}, seed {cfg['seed']}, orientations {' '.join(cfg['orientations'])}"
        + (f", cross-play with {cfg['partner']}" if cfg["cross_play"] else ""),
    ]
    lines += ["", "Headline, A vs B:"] + headline_lines(report)
    if "deals" in report:
        d = report["deals"]
        ci = d["points_diff"]
        lines.append("")
        lines.append(f"Duplicate deals: {d['n']} (context {cfg['context']})")
        lines.append(
            f"  points per deal, A - B: {ci['mean']:+.2f}  95% CI [{ci['low']:+.2f}, {ci['high']:+.2f}]"
            f"  (sd {_fmt(ci['sd'], 1)})"
        )
        lines.append(f"  A points per deal {d['a_points']:+.2f}, B points per deal {d['b_points']:+.2f}")
        adj = d["bag_adjusted_diff"]
        lines.append(
            f"  with each new bag costing {d['bag_cost']:g} points (its share of the bag penalty): "
            f"{adj['mean']:+.2f}  95% CI [{adj['low']:+.2f}, {adj['high']:+.2f}]  (sd {_fmt(adj['sd'], 1)})"
        )
    if "games" in report:
        g = report["games"]
        w = g["a_win_rate"]
        lines.append("")
        lines.append(
            f"Games to {cfg['rules']['target_score']}: {g['n_games']} ({g['n_seeds']} seeds x "
            f"{len(cfg['orientations'])} orientations), mean {_fmt(g['mean_hands'], 1)} hands"
        )
        lines.append(
            f"  A wins {g['a_wins']}, B wins {g['b_wins']}, undecided {g['undecided']}"
            + (
                f" (each counted {g['undecided_share']:.2g} of a win to each side; A led in "
                f"{g.get('undecided_a_leading', '?')} of them when they stopped)"
                if g["undecided"]
                else ""
            )
        )
        lines.append(
            f"  A win rate {_fmt(w['rate'], pct=True)}  95% Wilson CI [{_fmt(w['low'], pct=True)}, "
            f"{_fmt(w['high'], pct=True)}]  (fair: {_fmt(g['fair_a_win_rate'], pct=True)}; "
            "every game taken as independent)"
        )
        c = g.get("a_win_rate_by_seed")
        if c and c["n"] > 1:
            lines.append(
                f"  clustered by seed (the orientations of a seed share its deals): 95% CI "
                f"[{_fmt(c['low'], pct=True)}, {_fmt(c['high'], pct=True)}] over {c['n']} seeds"
            )
    rows = [
        ("points per hand, bags charged", "bag_adjusted_points_per_hand", False),
        ("points per hand", "points_per_hand", False),
        ("set rate", "set_rate", True),
        ("exact-bid rate", "exact_bid_rate", True),
        ("bags per hand", "bags_per_hand", False),
        ("mean contract", "mean_contract", False),
        ("mean bid (seat)", "mean_bid", False),
        ("nil bids", "nil_bids", False),
        ("nil success", "nil_success", True),
        ("blind nil bids", "blind_nil_bids", False),
        ("blind nil success", "blind_nil_success", True),
    ]
    for mode, sides in report.get("sides", {}).items():
        lines.append("")
        lines.append(f"Per side ({mode}): {'':14s} {'A':>10s} {'B':>10s}")
        for label, key, pct in rows:
            lines.append(f"  {label:30s} {_fmt(sides['A'][key], 2, pct):>10s} {_fmt(sides['B'][key], 2, pct):>10s}")
    if report.get("timing"):
        lines.append("")
        lines.append("Time per decision:")
        for role, t in report["timing"].items():
            lines.append(
                f"  {role}: {_fmt(t['ms_per_decision'], 3)} ms per decision, "
                f"{_fmt(t['ms_per_play'], 3)} ms per card play ({t['decisions']} decisions)"
            )
    return "\n".join(lines)


def check_json_path(path: str | os.PathLike, what: str = "output path") -> None:
    """Raise ValueError naming the problem (and ``what``, e.g. the option) if a file cannot be written at ``path``
    (nothing is written)."""
    target = Path(path)
    if target.is_dir():
        raise ValueError(f"{what} {str(path)!r} is a directory")
    folder = target.parent
    if not folder.is_dir():
        raise ValueError(f"{what} {str(path)!r}: folder {str(folder)!r} does not exist")
    if target.exists() and not os.access(target, os.W_OK):
        raise ValueError(f"{what} {str(path)!r} is not writable")
    if not target.exists() and not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"{what} {str(path)!r}: folder {str(folder)!r} is not writable")


def check_png_path(path: str | os.PathLike) -> None:
    """:func:`check_json_path`, plus matplotlib installed and a file type it can write (by the suffix)."""
    check_json_path(path)
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
    except ImportError as exc:
        raise ValueError(f"a chart needs matplotlib, which is not importable: {exc}") from None
    suffix = Path(path).suffix.lower().lstrip(".")
    types = FigureCanvasAgg.get_supported_filetypes()
    if suffix and suffix not in types:
        raise ValueError(
            f"chart path {str(path)!r}: matplotlib cannot write {suffix!r} files; use one of {sorted(types)}"
        )


def write_json(report: dict[str, Any], path: str | os.PathLike) -> None:
    """Write the report as indented JSON."""
    with open(path, "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")


SAME_RUN_KEYS = ("agent_a", "agent_b", "rules_name", "seed", "deals", "games")


def finished_report(path: str | os.PathLike, cfg: Any) -> dict[str, Any] | None:
    """The report written at ``path`` if it is ``cfg``'s evaluation (same agents, rules, seed, deals and games; a
    benchmark's ``--resume`` reads it back), else None."""
    if not Path(path).is_file():
        return None
    report = json.loads(Path(path).read_text())
    done = report.get("config", {})
    wanted = {"agent_a": cfg.agent_a, "agent_b": cfg.agent_b, "rules_name": cfg.rules, "seed": cfg.seed}
    wanted.update(deals=cfg.deals, games=cfg.games)
    return report if all(done.get(k) == wanted[k] for k in SAME_RUN_KEYS) else None


def write_png(report: dict[str, Any], path: str | os.PathLike) -> None:
    """A chart: points per deal and win rate with their intervals, and per-side statistics."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cfg = report["config"]
    panels = [name for name in ("games", "deals") if name in report] + ["sides"]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.8 * len(panels), 4.2), squeeze=False)
    axes = dict(zip(panels, axes[0]))
    fig.suptitle(f"A = {cfg['agent_a']} vs B = {cfg['agent_b']} ({cfg['rules_name']})")
    if "deals" in report:
        ax = axes["deals"]
        d = report["deals"]
        for x, (ci, color) in enumerate(((d["bag_adjusted_diff"], "tab:blue"), (d["points_diff"], "tab:grey"))):
            ax.errorbar(
                [x],
                [ci["mean"]],
                yerr=[[ci["mean"] - ci["low"]], [ci["high"] - ci["mean"]]],
                fmt="o",
                capsize=8,
                color=color,
            )
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xlim(-0.6, 1.6)
        ax.set_xticks([0, 1], [f"bags charged {d['bag_cost']:g}", "plain"])
        ax.set_xlabel(f"{d['n']} duplicate deals")
        ax.set_ylabel("A - B points per deal (95% CI)")
    if "games" in report:
        ax = axes["games"]
        w = report["games"]["a_win_rate"]
        ax.bar([0], [w["rate"]], yerr=[[w["rate"] - w["low"]], [w["high"] - w["rate"]]], capsize=8, color="tab:green")
        ax.axhline(report["games"]["fair_a_win_rate"], color="grey", lw=0.8, ls="--")
        ax.set_ylim(0, 1)
        ax.set_xticks([0], [f"{report['games']['n_games']} games"])
        ax.set_ylabel("A win rate (95% Wilson CI)")
    ax = axes["sides"]
    sides = report["sides"].get("deals") or report["sides"].get("games")
    keys = [
        ("set_rate", "set"),
        ("exact_bid_rate", "exact bid"),
        ("nil_success", "nil made"),
        ("bags_per_hand", "bags/hand"),
    ]
    xs = range(len(keys))
    for k, (role, color) in enumerate((("A", "tab:blue"), ("B", "tab:orange"))):
        vals = [sides[role][key] or 0.0 for key, _ in keys]
        ax.bar([x + 0.4 * k for x in xs], vals, width=0.4, label=role, color=color)
    ax.set_xticks([x + 0.2 for x in xs], [label for _, label in keys])
    ax.legend()
    ax.set_title("per side")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def check_output_paths(
    json_path: str | os.PathLike | None, png_path: str | os.PathLike | None, inputs: Sequence[str | os.PathLike] = ()
) -> None:
    """Raise ValueError naming the problem unless the JSON report and the chart asked for can be written, to two
    different files, neither of which is one of the ``inputs`` (policy files, run folders: never overwritten)."""
    if json_path:
        check_json_path(json_path, "--json")
    if png_path:
        check_png_path(png_path)
    outputs = [(flag, Path(path)) for flag, path in (("--json", json_path), ("--png", png_path)) if path]
    if len(outputs) == 2 and _same_file(outputs[0][1], outputs[1][1]):
        raise ValueError(f"--json and --png name the same file {str(json_path)!r}")
    for flag, out in outputs:
        for given in inputs:
            source = Path(given)
            if source.is_dir() and out.resolve().is_relative_to(source.resolve()):
                raise ValueError(f"{flag} {str(out)!r} is inside the input folder {str(given)!r}")
            if source.is_file() and _same_file(out, source):
                raise ValueError(f"{flag} {str(out)!r} is the input file {str(given)!r}: it would be overwritten")


def _same_file(a: Path, b: Path) -> bool:
    """Whether two paths name the same file (existing files by identity, others by their resolved paths)."""
    if a.exists() and b.exists():
        return os.path.samefile(a, b)
    return a.resolve() == b.resolve()


def write_outputs(
    report: dict[str, Any],
    json_path: str | os.PathLike | None,
    png_path: str | os.PathLike | None,
    write_chart: Callable[[dict[str, Any], str | os.PathLike], None] = write_png,
) -> None:
    """Write the JSON report and the chart where asked, and say where."""
    if json_path:
        write_json(report, json_path)
        print(f"\nJSON report: {json_path}")
    if png_path:
        write_chart(report, png_path)
        print(f"chart: {png_path}")
