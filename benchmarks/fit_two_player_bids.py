"""Fit the heuristic's two-player bids (``TWO_FIRST_FIT``, ``TWO_SECOND_FIT``, ``TWO_PLAYER_BIAS`` in
``spades_env/agents/heuristic/bidding.py``) on two-player self-play.

Games of ``two_player`` (seeds ``--seed`` ..) are played to the target by the strong heuristic in both seats,
with the bids of ``--bids``: ``four_player`` (the strong style without ``two_player_bids``: the four-player
estimate and rules) or ``fitted`` (the style as it is, reading the constants being refitted). At every bid
the script keeps the four-player trick estimate of the bidder's hand promoted past the discards it has seen
(``heuristic.table.promoted``), whether it bid first, and the other's bid; at the hand's end, the tricks the
bidder took. On the hands where both players bid a number it fits by least squares

* bidding first: tricks = a + b * estimate;
* bidding second: tricks = a + b * estimate + c * the first bid;

and reports each fit's residual standard deviation, then the offset added to the fitted tricks before
rounding down that scores the most points a hand on these hands (a made bid 10 a trick and 1 a bag, each
bag charged a further ``--bag-cost``; a set bid -10 a trick; the tricks as they were taken), beside the
points of the bids the players actually made. The nils bid in the games are counted with how often they
were made.

    python benchmarks/fit_two_player_bids.py [--games 3000] [--seed 0] [--workers 2] [--bids four_player]

Run 2026-12-05 (``--games 3000 --seed 0``, the default ``--bids four_player``): 74,286 bids, 329 nils made
15.5%; 73,628 number bids; bidding first (0.893, 0.883), residual sd 1.271; bidding second (6.136, 0.545,
-0.512), residual sd 1.042; 30.31 points a hand for the bids played, 34.56 for the fitted bids at offset -0.50:
the constants in ``bidding.py``. Refitted on self-play with those bids (``--bids fitted``, an earlier fit with
offset -0.6): the refit's best offset scored 35.69 a hand against 35.75 for the bids played, so a second round
gains nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
from multiprocessing import Pool

import numpy as np

import spades_env
from spades_env.agents.heuristic import STRONG, HeuristicAgent, estimate_tricks
from spades_env.agents.heuristic.table import promoted
from spades_env.agents.knowledge import seen_discards
from spades_env.core import preset
from spades_env.core.hand import Phase
from spades_env.core.scoring import BidKind
from spades_env.obs.decode import decode_observation

RULES = preset("two_player")
STYLES = {"four_player": dataclasses.replace(STRONG, two_player_bids=False), "fitted": STRONG}
OTHER = 1  # the other player's slot in an observation
OFFSETS = np.round(np.arange(-1.5, 0.51, 0.05), 2)


def play_game(task: tuple[int, str]) -> list[tuple[float, int, int, int, int, int]]:
    """One game: per bid (estimate of the promoted hand, bid first, the first bid, bid kind, bid, tricks taken)."""
    seed, bids = task
    style = STYLES[bids]
    env = spades_env.raw_env(rules=RULES, episode="game")
    env.reset(seed=seed)
    agents = [HeuristicAgent(seed=seed, style=style), HeuristicAgent(seed=seed + 1, style=style)]
    pending = []
    for name in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = int(name.rsplit("_", 1)[1])
        view = decode_observation(obs["observation"])
        if view.phase == Phase.BID:
            first = view.bid_kinds[OTHER] == BidKind.NONE
            est = estimate_tricks(promoted(view.hand, seen_discards(view)), RULES)
            pending.append((env.game.hand_index, seat, est, int(first), int(view.bid_values[OTHER])))
        env.step(int(agents[seat].act(obs)))
    rows = []
    for hand_index, seat, est, first, first_bid in pending:
        result = env.game.results[hand_index]
        other_kind = result.bids[1 - seat].kind
        bid = result.bids[seat]
        both_numbers = int(bid.kind == BidKind.NUMBER and other_kind == BidKind.NUMBER)
        rows.append((est, first, first_bid, int(bid.kind) if not both_numbers else -1, bid.value, result.tricks[seat]))
    return rows


def points(bids: np.ndarray, tricks: np.ndarray, bag_cost: float) -> np.ndarray:
    """Points of number bids with the tricks taken, each bag charged ``bag_cost`` besides its point."""
    return np.where(tricks >= bids, 10 * bids + (tricks - bids) * (1 - bag_cost), -10 * bids)


def main() -> None:
    """Play, fit and report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="games to 500 played")
    parser.add_argument("--seed", type=int, default=0, help="first game seed")
    parser.add_argument("--workers", type=int, default=2, help="processes")
    parser.add_argument("--bids", choices=sorted(STYLES), default="four_player", help="the bids played")
    parser.add_argument("--bag-cost", type=float, default=10.0, help="points each bag costs besides its point")
    args = parser.parse_args()
    if args.games < 1 or args.workers < 1:
        parser.error("--games and --workers must be at least 1")
    tasks = [(args.seed + g, args.bids) for g in range(args.games)]
    with Pool(args.workers) as pool:
        rows = [row for game in pool.imap(play_game, tasks, chunksize=8) for row in game]
    data = np.array(rows, dtype=float)
    est, first, first_bid, kind, bid, tricks = data.T
    nil = np.isin(kind, [BidKind.NIL, BidKind.BLIND_NIL])
    print(
        f"{len(data):,} bids in {args.games:,} games; nils {nil.sum():,}, made "
        f"{np.mean(tricks[nil] == 0) if nil.any() else float('nan'):.1%}"
    )
    keep = kind == -1
    est, first, first_bid, bid, tricks = est[keep], first[keep] == 1, first_bid[keep], bid[keep], tricks[keep]
    print(
        f"{keep.sum():,} number bids with a number bid opposite: mean estimate {est.mean():.2f}, bid "
        f"{bid.mean():.2f}, tricks {tricks.mean():.2f}"
    )
    fitted = np.empty_like(tricks)
    second = ~first
    for name, rows_, columns in (("first", first, [est]), ("second", second, [est, first_bid])):
        x = np.column_stack([np.ones(rows_.sum())] + [c[rows_] for c in columns])
        coef, *_ = np.linalg.lstsq(x, tricks[rows_], rcond=None)
        fitted[rows_] = x @ coef
        sd = np.std(tricks[rows_] - fitted[rows_])
        print(
            f"bidding {name}: {rows_.sum():,} hands, coefficients {tuple(np.round(coef, 3).tolist())}, "
            f"residual sd {sd:.3f}"
        )
    played = points(bid, tricks, args.bag_cost).mean()
    scores = [points(np.clip(np.floor(fitted + o), 1, RULES.num_tricks), tricks, args.bag_cost).mean() for o in OFFSETS]
    best = int(np.argmax(scores))
    print(
        f"points a hand (bags charged {args.bag_cost:g}): the bids played {played:.2f}; fitted, offset "
        f"{OFFSETS[best]:+.2f}: {scores[best]:.2f} (offset -0.8: {scores[list(OFFSETS).index(-0.8)]:.2f}, "
        f"-0.4: {scores[list(OFFSETS).index(-0.4)]:.2f})"
    )


if __name__ == "__main__":
    main()
