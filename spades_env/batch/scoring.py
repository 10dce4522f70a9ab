"""The end of a hand at many tables: the core's scoring and game end, rewards, the step's info.

Scoring is :func:`spades_env.core.scoring.score_hands` (the same function the
scalar ``score_hand`` calls with a batch of one), in one call for all tables
(a rotation passes each table's rules index); the game
end is :func:`spades_env.core.game.game_end`. Rewards are exactly the AEC env's:
the reward scheme's ``hand_end`` for each hand, plus ``episode_end`` when the
episode ends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.game import game_end, next_dealer
from ..core.scoring import score_hands
from ..rewards import hand_winner
from .dealing import new_games, start_hands
from .info import LazyDeals, StepInfo
from .tables import KIND, VALUE, WON

if TYPE_CHECKING:
    from .state import BatchTables

# Info keys copied from the scoring (per side, except nil_made per seat).
_SCORED = ("points", "bags", "contracts", "made", "bag_penalties", "nil_made")


def score_tables(t: BatchTables, E: np.ndarray) -> dict[str, np.ndarray]:
    """The core's scoring of the finished hands at the tables E, plus their bids and tricks per seat."""
    n = t.num_players
    seat = t._seat[E]
    kinds, values, tricks = seat[:, KIND, :n], seat[:, VALUE, :n], seat[:, WON, :n]
    bags = t.bags[E]
    out: dict[str, np.ndarray] = {"tricks": tricks, "bid_kinds": kinds, "bid_values": values}
    if t._uniform:
        scored = score_hands(t._hand_rules[0], kinds, values, tricks, bags)
    else:
        scored = score_hands(t._hand_rules, kinds, values, tricks, bags, rules_index=t.rid.take(E))
    out.update({key: getattr(scored, key) for key in _SCORED})
    return out


def _episode_end(
    t: BatchTables, points: np.ndarray, scores: np.ndarray, hands_played: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(over, winner, truncated) of each table whose hand ended."""
    if t.episode == "hand":
        return np.ones(len(points), bool), hand_winner(points), np.zeros(len(points), bool)
    winner, truncated = game_end(t.rules, scores, hands_played)
    return (winner >= 0) | truncated, winner, truncated


def _rewards(
    t: BatchTables, E: np.ndarray, points: np.ndarray, over: np.ndarray, winner: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(rules id, per-seat rewards) of the tables E: exactly the AEC env's sums, per hand rules."""
    scheme = t.reward_scheme
    if t._uniform:
        rid = np.zeros(len(E), np.intp)
        per_seat = np.asarray(scheme.hand_end(t._hand_rules[0], points), dtype=np.float64)
    else:
        rid = t.rid.take(E)
        per_seat = np.zeros((len(E), t.num_players))
        for r in range(t._num_rules):
            m = rid == r
            if m.any():
                per_seat[m] = scheme.hand_end(t._hand_rules[r], points[m])
    if over.any():
        per_seat = per_seat.copy()
        per_seat[over] = per_seat[over] + scheme.episode_end(t.rules, winner[over])
    return rid, per_seat


def finish_hands(t: BatchTables, E: np.ndarray, rewards: np.ndarray) -> tuple[np.ndarray, StepInfo]:
    """Score the hands that ended at the tables E, pay the rewards, end the episodes that are over and
    deal the next hands; returns ``(dones, info)``."""
    res = score_tables(t, E)
    points = res["points"]
    scores = t.scores[E] + points
    t.scores[E] = scores
    t.bags[E] = res["bags"]
    finished = t.hand_index.take(E)
    hands_played = finished + 1
    t.hand_index[E] = hands_played
    over, winner, truncated = _episode_end(t, points, scores, hands_played)
    rid, per_seat = _rewards(t, E, points, over, winner)
    rewards[E] = per_seat
    hand_data = {
        "hand_over": True,
        "hand_index": finished,
        "hand_dealer": t.dealer.take(E),
        "hand_rules_id": rid,
        "scores": scores,
    }
    hand_data.update({key: res[key] for key in _SCORED + ("tricks", "bid_kinds", "bid_values")})
    dones = np.zeros(t.num_envs, bool)
    F = episode_data = deals = None
    if over.any():
        F = E[over]
        dones[F] = True
        episode_data = {
            "done": True,
            "truncated": truncated[over],
            "terminated": ~truncated[over],
            "winner": winner[over],
            "final_scores": scores[over],
            "final_bags": res["bags"][over],
            "episode_hands": hands_played[over],
            "episode_dealer": t.first_dealer.take(F),
        }
        if t.record_deals:
            counts = hands_played[over]
            log = t._stock_log if t._drawing else t._log
            deals = LazyDeals(F, log[F, : int(counts.max())], counts, t.num_players, stocks=t._drawing)
        new_games(t, F)
    C = E[~over]  # the games that go on: the deal passes to the left
    if len(C):
        dealer = next_dealer(t.dealer.take(C), t.num_players)
        t.dealer[C] = dealer
        start_hands(t, C, dealer)
    return dones, StepInfo(t.num_envs, t._info_width, t._P.names, E, hand_data, F, episode_data, deals)
