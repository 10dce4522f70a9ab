"""Reward schemes: chosen in the RL layer, never in the rules.

A scheme turns a finished hand and a finished episode into one reward per
seat. Partners always share their side's reward (in cutthroat every player is
its own side). Both hooks work on numpy arrays with any leading batch
dimensions, so the AEC env and the batch engine use the very same code; the
built-in schemes also take torch tensors (the torch batch engine's rewards
stay on its device, float32).

=============  ============================================================
name           reward
=============  ============================================================
hand_points    at the end of each hand: (own side's points - the mean of
               the other sides' points) x ``scale`` (default 1/100)
win_loss       at the end of the episode: +1 to the winning side, -1 to
               each other side in partnerships (-1/(n-1) in cutthroat, so
               rewards sum to 0); 0 to everyone when truncated or tied
=============  ============================================================

With ``episode="hand"`` the episode's winner is the side that scored the
most points in that hand (none on a tie).

Training shaping (what ``training.train`` rewards, per hand): each side's
hand points with bags charged at their game cost when taken (``bag_cost``:
bag_penalty / bag_limit per bag) and the bag penalty refunded when it falls
due, so that a hand carries the full cost of the bags it took; then the
side's shaped points minus the mean of the other sides' (``others="mean"``)
or minus the best of them (``others="best"``: in an individual game, a hand
is worth what it gains on the strongest rival; with two sides the two are
the same), scaled; and, with ``win_reward``, the game's end paid as
``win_loss`` pays it, times ``win_reward``, on the hand that ends the game. A
:class:`BagLedger` remembers each table's bags at the start of the hand and
forgets them when a new game starts. The duplicate evaluation charges bags
at the same ``bag_cost``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from .core.rules import Rules

WIN_REWARD = 1.0  # win_loss: the winning side's reward
RELATIVE_TO = ("mean", "best")  # relative_points: a side's points less the others' mean, or less the best of them


def bag_cost(rules: Rules) -> float:
    """The game cost of one bag: ``bag_penalty / bag_limit`` (0 when bags are never penalized)."""
    return rules.bag_penalty / rules.bag_limit if rules.bag_limit else 0.0


def charged_points(rules: Rules, points: Any, new_bags: Any, bag_penalties: Any) -> Any:
    """Hand points with the bag cost counted once, when the bags are taken: each new bag charged
    :func:`bag_cost` and the bag penalty paid refunded (the penalty is the same cost, paid later in a lump).
    The one statement of the bag cost: training's rewards, the evaluation's bag-adjusted points, the league and
    the search agents' utilities all use it (ints, or arrays of sides or tables)."""
    if not rules.bag_limit:  # bags are never penalized: nothing to move in time
        return points
    return points + _array(bag_penalties) * rules.bag_penalty - _array(new_bags) * bag_cost(rules)


def bags_taken(rules: Rules, bags_before: np.ndarray, bags_after: np.ndarray, bag_penalties: np.ndarray) -> np.ndarray:
    """Bags each side took this hand: the change of its bag count plus the bags a penalty cleared."""
    return _array(bags_after) + _array(bag_penalties) * rules.bag_limit - _array(bags_before)


def shaped_hand_points(
    rules: Rules, points: np.ndarray, bags_before: np.ndarray, bags_after: np.ndarray, bag_penalties: np.ndarray
) -> np.ndarray:
    """Each side's hand points with bags charged ``bag_cost`` when taken and the bag penalty refunded."""
    points = _floats(points)
    if not rules.bag_limit:
        return points
    return charged_points(rules, points, bags_taken(rules, bags_before, bags_after, bag_penalties), bag_penalties)


def training_rewards(
    rules: Rules,
    points: np.ndarray,
    scale: float,
    bags_before: np.ndarray | None = None,
    bags_after: np.ndarray | None = None,
    bag_penalties: np.ndarray | None = None,
    others: str = "mean",
    winner: np.ndarray | None = None,
    win_reward: float = 0.0,
) -> np.ndarray:
    """Per-seat float32 rewards (..., num_players) of finished hands: shaped side points relative to the others'
    (``others``: their mean or their best), scaled, plus ``win_reward`` times ``win_loss``'s reward where
    ``winner`` (the game's winning side, -1 where the game goes on or has none) is given.

    Without bag counts (``bags_before`` None) the points are used as they are (no bag shaping). Numpy arrays, or
    torch tensors (float32 on their device).
    """
    if bags_before is not None:
        points = shaped_hand_points(rules, points, bags_before, bags_after, bag_penalties)
    rewards = (relative_points(points, others) * scale)[..., _like(points, seat_sides(rules))]
    if win_reward and winner is not None:
        rewards = rewards + WinLoss().episode_end(rules, winner) * win_reward
    return rewards.float() if _is_tensor(rewards) else rewards.astype(np.float32)


class BagLedger:
    """Each table's bags at the start of its current hand (zero when a game starts), for the bag cost."""

    def __init__(self, rules: Rules, num_tables: int):
        self.rules = rules
        self.bags = np.zeros((num_tables, rules.num_sides))

    def hand_rewards(
        self, info: dict, scale: float, shaping: bool = True, others: str = "mean", win_reward: float = 0.0
    ) -> tuple[np.ndarray, np.ndarray]:
        """Tables whose hand ended in this step's ``info`` and their per-seat rewards (:func:`training_rewards`,
        the game's end read from ``info["winner"]``); remembers their bags."""
        tables = np.flatnonzero(np.asarray(info["hand_over"], dtype=bool))
        if not len(tables):
            return tables, np.zeros((0, self.rules.num_players), dtype=np.float32)
        bags_after = np.asarray(info["bags"])[tables]
        points = np.asarray(info["points"], dtype=np.float64)[tables]
        winner = np.asarray(info["winner"])[tables] if win_reward else None  # read only when the game's end pays
        ending = {"others": others, "winner": winner, "win_reward": win_reward}
        if shaping:
            penalties = np.asarray(info["bag_penalties"])[tables]
            rewards = training_rewards(self.rules, points, scale, self.bags[tables], bags_after, penalties, **ending)
        else:
            rewards = training_rewards(self.rules, points, scale, **ending)
        self.bags[tables] = bags_after
        return tables, rewards

    def new_games(self, tables: np.ndarray) -> None:
        """Forget the bags of tables whose game ended (a new game starts with none); a bool mask or indices."""
        self.bags[tables] = 0


def seat_sides(rules: Rules) -> np.ndarray:
    """Side index of every seat."""
    return np.array([rules.side_of(s) for s in range(rules.num_players)], dtype=np.intp)


class RewardScheme(Protocol):
    """Turns hand points and episode winners into per-seat rewards."""

    name: str

    def hand_end(self, rules: Rules, points: np.ndarray) -> np.ndarray:
        """Rewards (..., num_players) from this hand's points per side (..., num_sides)."""

    def episode_end(self, rules: Rules, winner: np.ndarray) -> np.ndarray:
        """Rewards (..., num_players) from the winning side (..., ) with -1 for none."""


def _relative(points, total, others: int):
    """The rule of ``relative_points`` on arrays or on one float: points minus the others' mean."""
    return points - (total - points) / others


def _is_tensor(x: Any) -> bool:
    """Whether ``x`` is a torch tensor (the rewards of the torch batch engine stay on its device)."""
    return type(x).__module__.startswith("torch")


def _floats(points: Any) -> Any:
    """Points as floats: float64 numpy, or float32 on a tensor's device."""
    return points.float() if _is_tensor(points) else np.asarray(points, dtype=np.float64)


def _array(x: Any) -> Any:
    """``x`` as an array: a torch tensor as it is (on its device), anything else as numpy."""
    return x if _is_tensor(x) else np.asarray(x)


def _like(x: Any, values: np.ndarray) -> Any:
    """``values`` in ``x``'s array library (a tensor on its device, or numpy)."""
    if _is_tensor(x):
        import torch

        return torch.as_tensor(values, device=x.device)
    return values


def relative_points(points: Any, others: str = "mean") -> Any:
    """Each side's points minus the mean of the other sides' points, or minus the best of them (``others``:
    ``RELATIVE_TO``); numpy arrays or torch tensors."""
    if others not in RELATIVE_TO:
        raise ValueError(f"others must be one of {RELATIVE_TO}, got {others!r}")
    points = _floats(points)
    k = points.shape[-1]
    if others == "best":
        return points - _best_of_others(points, k)
    total = points.sum(-1)[..., None]
    return _relative(points, total, k - 1)


def _best_of_others(points: Any, k: int) -> Any:
    """Per side, the highest points among the other sides (..., k)."""
    others = _like(points, ~np.eye(k, dtype=bool))  # [side, other]: every side but itself
    seen = _where(others, points[..., None, :], -np.inf)  # (..., side, other)
    return seen.amax(-1) if _is_tensor(seen) else seen.max(-1)


def relative_points_one(points: Sequence[float]) -> list[float]:
    """:func:`relative_points` of one hand's points per side, as Python floats (no numpy: the AEC hot path)."""
    points = [float(p) for p in points]
    total = sum(points)
    return [_relative(p, total, len(points) - 1) for p in points]


def _where(condition: Any, if_true: Any, if_false: Any) -> Any:
    """``numpy.where`` or ``torch.where``, by the arrays' library."""
    if _is_tensor(if_true):
        import torch

        return torch.where(condition, if_true, if_false)
    return np.where(condition, if_true, if_false)


def _loss_reward(num_sides: int) -> float:
    """``win_loss``'s reward of a losing side: -1, or -1/(n-1) in cutthroat so that rewards sum to 0."""
    return -WIN_REWARD / (num_sides - 1)


class HandPoints:
    """Reward the hand's points difference, scaled, at the end of each hand."""

    name = "hand_points"

    def __init__(self, scale: float = 0.01):
        self.scale = float(scale)

    def hand_end(self, rules: Rules, points: np.ndarray) -> np.ndarray:
        """See :class:`RewardScheme`."""
        return (relative_points(points) * self.scale)[..., seat_sides(rules)]

    def episode_end(self, rules: Rules, winner: np.ndarray) -> np.ndarray:
        """No reward at the end of the episode."""
        if _is_tensor(winner):
            return winner.new_zeros(tuple(winner.shape) + (rules.num_players,), dtype=_floats(winner).dtype)
        winner = np.asarray(winner)
        return np.zeros(winner.shape + (rules.num_players,))

    def hand_end_one(self, rules: Rules, points: Sequence[int]) -> list[float]:
        """:meth:`hand_end` of one hand, as Python floats."""
        relative = relative_points_one(points)
        return [relative[rules.side_of(seat)] * self.scale for seat in range(rules.num_players)]

    def episode_end_one(self, rules: Rules, winner: int) -> list[float]:
        """:meth:`episode_end` of one episode, as Python floats."""
        return [0.0] * rules.num_players


class WinLoss:
    """+1 / -1 (0 if truncated or tied) at the end of the episode."""

    name = "win_loss"

    def hand_end(self, rules: Rules, points: np.ndarray) -> np.ndarray:
        """No reward per hand."""
        if _is_tensor(points):
            return _floats(points).new_zeros(tuple(points.shape[:-1]) + (rules.num_players,))
        points = np.asarray(points)
        return np.zeros(points.shape[:-1] + (rules.num_players,))

    def episode_end(self, rules: Rules, winner: np.ndarray) -> np.ndarray:
        """See :class:`RewardScheme`."""
        winner = winner if _is_tensor(winner) else np.asarray(winner)
        won = winner[..., None] == _like(winner, seat_sides(rules))
        win, loss = _floats(won * 0) + WIN_REWARD, _floats(won * 0) + _loss_reward(rules.num_sides)
        out = _where(won, win, loss)
        return _where(winner[..., None] >= 0, out, loss * 0)

    def hand_end_one(self, rules: Rules, points: Sequence[int]) -> list[float]:
        """:meth:`hand_end` of one hand, as Python floats."""
        return [0.0] * rules.num_players

    def episode_end_one(self, rules: Rules, winner: int) -> list[float]:
        """:meth:`episode_end` of one episode, as Python floats."""
        if winner < 0:
            return [0.0] * rules.num_players
        loss = _loss_reward(rules.num_sides)
        return [WIN_REWARD if rules.side_of(seat) == winner else loss for seat in range(rules.num_players)]


REWARD_SCHEMES = {"hand_points": HandPoints, "win_loss": WinLoss}


def make_reward(reward: str | RewardScheme) -> RewardScheme:
    """A reward scheme from its name (``hand_points``, ``win_loss``) or a scheme object."""
    if isinstance(reward, str):
        if reward not in REWARD_SCHEMES:
            raise ValueError(f"unknown reward scheme {reward!r}; choose one of {sorted(REWARD_SCHEMES)}")
        return REWARD_SCHEMES[reward]()
    if not (hasattr(reward, "hand_end") and hasattr(reward, "episode_end")):
        raise TypeError(f"reward must be a scheme name or an object with hand_end and episode_end, got {reward!r}")
    return reward


def hand_rewards_one(
    scheme: RewardScheme, hand_rules: Rules, rules: Rules, points: Sequence[int], winner: int | None = None
) -> list[float]:
    """Per-seat rewards (Python floats) of one finished hand under ``hand_rules``, plus the episode's when
    ``winner`` (a side, -1 for none) is given: the scheme's scalar hooks, or its numpy hooks without them."""
    if hasattr(scheme, "hand_end_one") and hasattr(scheme, "episode_end_one"):
        per_seat = scheme.hand_end_one(hand_rules, points)
        if winner is not None:
            per_seat = [a + b for a, b in zip(per_seat, scheme.episode_end_one(rules, winner))]
        return per_seat
    per_seat = scheme.hand_end(hand_rules, np.asarray(points))
    if winner is not None:
        per_seat = per_seat + scheme.episode_end(rules, np.asarray(winner))
    return np.asarray(per_seat, dtype=float).tolist()


def hand_winner_one(points: Sequence[int]) -> int:
    """:func:`hand_winner` of one hand's points per side."""
    best = max(points)
    return points.index(best) if points.count(best) == 1 else -1


def hand_winner(points: np.ndarray) -> np.ndarray:
    """Side with the strictly highest points (-1 on a tie): the winner of a one-hand episode."""
    points = np.asarray(points)
    best = points.max(axis=-1, keepdims=True)
    count = (points == best).sum(axis=-1)
    return np.where(count == 1, points.argmax(axis=-1), -1)
