"""Evaluation: duplicate deals and games between agents, statistics and reports.

``python -m spades_env.evaluation A B`` (console script ``spades-evaluate``);
from Python: ``evaluate(EvalConfig("pimc", "heuristic", deals=500))``.
"""

try:
    import scipy  # noqa: F401 - the statistics need it; checked here to name the extra that brings it
except ModuleNotFoundError as exc:
    raise ModuleNotFoundError(
        "spades_env.evaluation needs scipy: pip install 'spades_env[eval]'", name="scipy"
    ) from exc

from .arena import Timing, play_episode
from .duplicate import (
    ConfigError,
    EvalConfig,
    EvaluationError,
    WorkerError,
    check_config,
    evaluate,
    orientations,
    task_seed,
)
from .report import (
    check_json_path,
    check_png_path,
    finished_report,
    format_report,
    headline_lines,
    headline_summary,
    write_json,
    write_png,
)
from .stats import SideTally, mean_interval, tally_hand, win_interval

__all__ = [
    "ConfigError",
    "EvalConfig",
    "EvaluationError",
    "SideTally",
    "Timing",
    "WorkerError",
    "check_config",
    "check_json_path",
    "check_png_path",
    "evaluate",
    "finished_report",
    "format_report",
    "headline_lines",
    "headline_summary",
    "mean_interval",
    "orientations",
    "play_episode",
    "tally_hand",
    "task_seed",
    "win_interval",
    "write_json",
    "write_png",
]
