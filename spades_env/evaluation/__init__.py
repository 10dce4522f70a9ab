"""Evaluation: duplicate deals and games between agents, statistics and reports.

``python -m spades_env.evaluation A B`` (console script ``spades-evaluate``);
from Python: ``evaluate(EvalConfig("pimc", "heuristic", deals=500))``.
"""

from .arena import Timing, play_episode
from .duplicate import EvalConfig, evaluate, orientations, task_seed
from .report import format_report, write_json, write_png
from .stats import SideTally, mean_interval, tally_hand, win_interval

__all__ = [
    "EvalConfig", "SideTally", "Timing", "evaluate", "format_report", "mean_interval", "orientations",
    "play_episode", "tally_hand", "task_seed", "win_interval", "write_json", "write_png",
]
