"""Training metrics: one CSV row per update (and TensorBoard scalars when installed), and the learning curve."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from training.run_dir import trim_metrics

TRAINING_FIELDS = [
    "update",
    "learner_decisions",
    "env_decisions",
    "seconds",
    "decisions_per_second",
    "learning_rate",
    "policy_loss",
    "value_loss",
    "entropy",
    "approx_kl",
    "clipfrac",
    "explained_variance",
    "mean_hand_reward",
]
EXPERT_FIELDS = ["expert_targets", "expert_loss", "expert_agreement"]  # with an expert (training.expert)
TEACHER_FIELDS = ["teacher_kl"]  # with teachers (training.teachers)
EVAL_SUFFIXES = ("ppd", "low", "high")  # bag-adjusted points per deal (bags at their game cost), its 95% interval
DEFAULT_EVAL_OPPONENTS = ("random", "heuristic")


def eval_label(opponent: str) -> str:
    """The name of an evaluation opponent in metric columns: the agent name, or a policy file's stem."""
    return Path(opponent).stem if opponent.endswith((".pt", ".pth")) else opponent


def metric_fields(
    eval_opponents: Sequence[str] = DEFAULT_EVAL_OPPONENTS,
    mixture: Sequence[str] = (),
    expert: bool = False,
    teachers: bool = False,
) -> list[str]:
    """The columns of ``metrics.csv``: the training's, then ``eval_<opponent>_{ppd,low,high}`` per opponent; with a
    ``mixture`` of presets, ``mean_hand_reward_<preset>`` per preset and ``eval_<preset>_<opponent>_...`` instead;
    with an ``expert``, its targets per batch, the cross-entropy at them and the share the policy played; with
    ``teachers``, the KL divergence from them."""
    presets = [f"{p}_" for p in mixture] or [""]
    return (
        TRAINING_FIELDS
        + (EXPERT_FIELDS if expert else [])
        + (TEACHER_FIELDS if teachers else [])
        + [f"mean_hand_reward_{p}" for p in mixture]
        + [f"eval_{p}{eval_label(o)}_{s}" for p in presets for o in eval_opponents for s in EVAL_SUFFIXES]
    )


METRIC_FIELDS = metric_fields()  # with the default opponents


class MetricsLog:
    """``metrics.csv`` (appended, flushed per row) and optional TensorBoard scalars keyed by learner decisions.

    On resume (``resumed`` = the checkpoint's counters) rows written after the
    checkpoint are dropped first, and TensorBoard purges its later events.
    """

    def __init__(
        self,
        run_dir: Path,
        resumed: dict[str, Any] | None = None,
        eval_opponents: Sequence[str] = DEFAULT_EVAL_OPPONENTS,
        mixture: Sequence[str] = (),
        expert: bool = False,
        teachers: bool = False,
    ):
        self.path = run_dir / "metrics.csv"
        self.fields = metric_fields(eval_opponents, mixture, expert, teachers)
        if resumed is not None:
            dropped = trim_metrics(self.path, int(resumed["update"]))
            if dropped:
                print(f"metrics: dropped {dropped} row(s) written after the checkpoint")
        new = not self.path.exists()
        self.file = open(self.path, "a", newline="")
        self.writer = csv.DictWriter(self.file, fieldnames=self.fields)
        if new:
            self.writer.writeheader()
        self.tb = open_tensorboard(run_dir / "tb", None if resumed is None else int(resumed["learner_decisions"]) + 1)

    def write(self, row: dict[str, Any]) -> None:
        """One update's row (missing fields left empty)."""
        missing = sorted(set(row) - set(self.fields))
        if missing:  # a column the header does not have would be lost: say so rather than drop it
            raise ValueError(f"metrics row has columns {missing} that metrics.csv does not have")
        self.writer.writerow({k: row.get(k, "") for k in self.fields})
        self.file.flush()
        if self.tb is not None:
            for k, v in row.items():
                if isinstance(v, (int, float)) and k != "update":
                    self.tb.add_scalar(k, v, row["learner_decisions"])

    def close(self) -> None:
        """Close the CSV file and the TensorBoard writer."""
        self.file.close()
        if self.tb is not None:
            self.tb.close()


def open_tensorboard(log_dir: Path, purge_step: int | None) -> Any:
    """A SummaryWriter (events from ``purge_step`` on are dropped), or None when TensorBoard is not installed."""
    try:
        from torch.utils.tensorboard import SummaryWriter  # optional
    except Exception:  # tensorboard not installed
        return None
    return SummaryWriter(str(log_dir), purge_step=purge_step)


def plot_learning_curve(metrics_path: Path, png_path: Path) -> None:
    """Entropy, hand reward and evaluation points per deal against learner decisions."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(metrics_path) as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        return
    x = [float(r["learner_decisions"]) for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for ax, title in zip(axes[:2], ("mean_hand_reward", "entropy")):
        keys = (
            [k for k in rows[0] if k == title or k.startswith("mean_hand_reward_")] if title != "entropy" else [title]
        )
        for key in keys:  # with a mixture, each preset's hand reward beside the mean
            label = key[len("mean_hand_reward_") :] if key.startswith("mean_hand_reward_") else "all"
            ax.plot(x, [float(r[key]) if r[key] not in ("", "nan") else np.nan for r in rows], label=label)
        if len(keys) > 1:
            ax.legend(fontsize="small")
        ax.set_title(title)
        ax.set_xlabel("learner decisions")
    opponents = [k[len("eval_") : -len("_ppd")] for k in rows[0] if k.startswith("eval_") and k.endswith("_ppd")]
    for opponent in opponents:
        pts = [
            (
                float(r["learner_decisions"]),
                float(r[f"eval_{opponent}_ppd"]),
                float(r[f"eval_{opponent}_low"]),
                float(r[f"eval_{opponent}_high"]),
            )
            for r in rows
            if r.get(f"eval_{opponent}_ppd")
        ]
        if pts:
            xs, ys, lo, hi = map(np.array, zip(*pts))
            axes[2].plot(xs, ys, marker="o", label=f"vs {opponent}")
            axes[2].fill_between(xs, lo, hi, alpha=0.2)
    axes[2].axhline(0, color="grey", lw=0.5)
    axes[2].set_title("duplicate bag-adjusted points per deal (95% CI)")
    axes[2].set_xlabel("learner decisions")
    if axes[2].get_legend_handles_labels()[0]:
        axes[2].legend()
    fig.tight_layout()
    fig.savefig(png_path, dpi=100)
    plt.close(fig)
