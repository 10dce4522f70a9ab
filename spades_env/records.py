"""Game records: export a game to JSON and replay it to the identical outcome.

A record (``raw_env.game_record()``) holds the env name, the rules (every
option), the episode mode, the seed, the first dealer, the starting scores and
bags, the index of the first hand (``hand_index``: the hands already played,
0 unless the game was reset to start later; absent from older records), every deal (card strings per seat, one deal per hand; with two players
the stock instead, its 52 card strings top first) and every action
id, plus each hand's result and (``over``) whether the episode had ended.
Replaying feeds the deals and actions back into a fresh env; nothing random is
involved, so every observation, reward and score comes out the same.

Replay trusts nothing in a record: every action must be an integer action id
legal where it is played, the stored ``results`` must equal the results the
replay produces (a tampered score, or an action list cut short of a hand's
end, shows there), and a record marked ``over`` must end its episode with its
last action (an unfinished record, ``over`` false, must not). Records written
before ``over`` existed are checked by their results only. Any failure raises
:class:`RecordError` naming the problem.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .config_io import read_limited
from .core.drawing import has_drawing
from .core.rules import Rules
from .rewards import make_reward

RECORD_KEYS = ("env", "rules", "episode", "seed", "dealer", "scores", "bags", "deals", "actions", "results")
OPTIONAL_RECORD_KEYS = ("over", "hand_index")  # absent from records written before they existed


class RecordError(ValueError):
    """A record that is malformed or does not replay."""


def deals_option(rules: Rules) -> str:
    """The reset option that takes a record's ``deals`` under these rules: ``"stocks"`` with two players."""
    return "stocks" if has_drawing(rules.hand_rules(0)) else "deals"


def reset_options(record: dict[str, Any], rules: Rules) -> dict[str, Any]:
    """The env's reset options that start a record's game: its deals (or stocks), dealer, scores, bags and first
    hand's index."""
    return {
        deals_option(rules): record["deals"],
        "dealer": record["dealer"],
        "scores": record["scores"],
        "bags": record["bags"],
        "hand_index": record.get("hand_index", 0),
    }


RECORD_MODE = 0o644


def save_record(record: dict[str, Any], path: str | os.PathLike) -> None:
    """Write a record as JSON, whole or not at all (a temporary file beside it, then renamed over ``path``)."""
    text = json.dumps(record, indent=1)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".record-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.chmod(tmp, RECORD_MODE)  # mkstemp makes it private; a record is an ordinary file
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise


MAX_RECORD_BYTES = 64 * 2**20  # far above a record of the longest game (a few hundred KB)


def read_json_file(path: str | os.PathLike) -> Any:
    """The JSON data of a record file; RecordError naming the file when it is too large, not UTF-8, not JSON,
    nested too deeply or holds a number too long to read (OSError when it cannot be opened)."""
    try:
        raw = read_limited(path, MAX_RECORD_BYTES, "a game record")
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise RecordError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}): not a game record") from None
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}: not a JSON game record: {exc}") from None
    except RecursionError:
        raise RecordError(f"{path}: not a game record: JSON nested too deeply") from None
    except ValueError as exc:  # e.g. an integer of thousands of digits
        raise RecordError(f"{path}: not a game record: {exc}") from None


def load_record(path: str | os.PathLike) -> dict[str, Any]:
    """Read a record written by ``save_record``, checking its keys."""
    record = read_json_file(path)
    check_record(record)
    return record


def check_record(record: Any) -> None:
    """Raise RecordError unless the record has every key of ``RECORD_KEYS``."""
    if not isinstance(record, dict):
        raise RecordError(f"a record must be a JSON object, got {type(record).__name__}")
    missing = [k for k in RECORD_KEYS if k not in record]
    if missing:
        raise RecordError(f"record is missing {missing}")


@dataclass
class Step:
    """One decision of a replay: who acted, what it saw, what it did, and every agent's rewards after it."""

    agent: str
    observation: np.ndarray
    action_mask: np.ndarray
    action: int
    rewards: dict[str, float]


@dataclass
class Replay:
    """The outcome of replaying a record."""

    steps: list[Step] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    bags: list[int] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    final_observations: dict[str, np.ndarray] = field(default_factory=dict)


def iter_replay(record: dict[str, Any], reward: Any = "hand_points") -> Iterator[Step]:
    """Replay a record step by step (yields each decision); see :func:`replay`."""
    yield from _replay(record, reward, Replay())


def replay(record: dict[str, Any], reward: Any = "hand_points") -> Replay:
    """Replay a record in a fresh env; raise RecordError if an action is not legal there."""
    out = Replay()
    for step in _replay(record, reward, out):
        out.steps.append(step)
    return out


def _replay(record: dict[str, Any], reward: Any, out: Replay) -> Iterator[Step]:
    from .aec import raw_env  # local import: records are also read without the env

    check_record(record)
    scheme = make_reward(reward)  # a bad scheme is the caller's error, not the record's
    try:
        rules = Rules.from_dict(record["rules"])
        env = raw_env(rules=rules, episode=record["episode"], reward=scheme)
        env.reset(options=reset_options(record, rules))
    except (ValueError, TypeError, KeyError, AttributeError) as exc:  # any malformed rules, deal or start
        raise RecordError(f"the record does not set up a game: {type(exc).__name__}: {exc}") from None
    actions = record["actions"]
    if not isinstance(actions, list):
        raise RecordError(f"'actions' must be a list of action ids, got {type(actions).__name__}")
    for i, action in enumerate(actions):
        if isinstance(action, bool) or not isinstance(action, int):
            raise RecordError(f"action {i} is {action!r} ({type(action).__name__}); action ids are integers")
    if not isinstance(record["results"], list):
        raise RecordError(f"'results' must be a list of hand results, got {type(record['results']).__name__}")
    over = record.get("over")
    if over is not None and not isinstance(over, bool):
        raise RecordError(f"'over' must be true or false, got {over!r}")
    for i, action in enumerate(actions):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            raise RecordError(f"the episode ended before action {i} of {len(actions)}")
        obs = env.observe(agent)
        try:
            env.step(action)
        except (ValueError, TypeError) as exc:
            raise RecordError(f"action {i} ({action}) does not replay: {exc}") from None
        yield Step(agent, obs["observation"], obs["action_mask"], action, dict(env.rewards))
    if over is not None and env.episode_over != over:
        state = "ends" if env.episode_over else "does not end"
        raise RecordError(
            f"the record is marked over={over} but its {len(actions)} actions {state} the episode "
            "(the action list was cut short or extended)"
        )
    results = env.game_record()["results"]
    _check_results(record["results"], results)
    out.scores = list(env.game.scores)
    out.bags = list(env.game.bags)
    out.results = results
    out.final_observations = {a: env.observe(a)["observation"] for a in env.possible_agents}


def _check_results(stored: list[Any], replayed: list[dict[str, Any]]) -> None:
    """Raise RecordError naming the first hand and field where the stored results differ from the replay's."""
    if len(stored) != len(replayed):
        raise RecordError(
            f"the record stores {len(stored)} hand results but its actions finish {len(replayed)} hands "
            "(the action list is incomplete or the results were edited)"
        )
    for hand, (mine, theirs) in enumerate(zip(replayed, stored)):
        if mine == theirs:
            continue
        if not isinstance(theirs, dict):
            raise RecordError(f"result of hand {hand} must be an object, got {type(theirs).__name__}")
        fields = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
        raise RecordError(
            f"result of hand {hand} does not match the replay in {fields}: "
            f"stored {[theirs.get(k) for k in fields]}, replayed {[mine.get(k) for k in fields]}"
        )
