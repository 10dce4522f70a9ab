"""Game records: export a game to JSON and replay it to the identical outcome.

A record (``raw_env.game_record()``) holds the env name, the rules (every
option), the episode mode, the seed, the first dealer, the starting scores and
bags, every deal (card strings per seat, one deal per hand) and every action
id, plus each hand's result. Replaying feeds the deals and actions back into a
fresh env; nothing random is involved, so every observation, reward and score
comes out the same.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np

from .core.rules import Rules
from .rewards import make_reward

RECORD_KEYS = ("env", "rules", "episode", "seed", "dealer", "scores", "bags", "deals", "actions", "results")


class RecordError(ValueError):
    """A record that is malformed or does not replay."""


def save_record(record: dict[str, Any], path: str | os.PathLike) -> None:
    """Write a record as JSON."""
    with open(path, "w") as fh:
        json.dump(record, fh, indent=1)


def load_record(path: str | os.PathLike) -> dict[str, Any]:
    """Read a record written by ``save_record``, checking its keys."""
    try:
        with open(path) as fh:
            record = json.load(fh)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}: not a JSON game record: {exc}") from None
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
        env.reset(options={"deals": record["deals"], "dealer": record["dealer"], "scores": record["scores"],
                           "bags": record["bags"]})
    except (ValueError, TypeError) as exc:
        raise RecordError(f"the record does not set up a game: {exc}") from None
    if not isinstance(record["actions"], list):
        raise RecordError(f"'actions' must be a list of action ids, got {type(record['actions']).__name__}")
    for i, action in enumerate(record["actions"]):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            raise RecordError(f"the episode ended before action {i} of {len(record['actions'])}")
        obs = env.observe(agent)
        try:
            env.step(int(action))
        except (ValueError, TypeError) as exc:
            raise RecordError(f"action {i} ({action}) does not replay: {exc}") from None
        yield Step(agent, obs["observation"], obs["action_mask"], int(action), dict(env.rewards))
    out.scores = list(env.game.scores)
    out.bags = list(env.game.bags)
    out.results = env.game_record()["results"]
    out.final_observations = {a: env.observe(a)["observation"] for a in env.possible_agents}
