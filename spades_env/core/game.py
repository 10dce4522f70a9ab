"""The game: hands played to the target score.

``Game`` owns the running scores and bags (one entry per side: two
partnerships, or one per player in cutthroat), the dealer, the hand counter
and the current :class:`HandState`. When a hand's last card is played it is
scored with :func:`score_hand`, the game-end rules are checked (RULES.md
section 6) and, unless the game is over, the deal passes clockwise and the next
hand is dealt.

Game end, after each hand (``game_end`` on arrays of games for the batch engine,
``game_end_one`` on one game for ``Game``: the same lines, ``_game_end``): if a
side has reached ``target_score`` or fallen to ``lose_score``, the side with the
strictly highest score wins; if the highest score is shared, another hand is
played. After ``max_hands`` hands without a winner the game is *truncated* (no
winner).

Randomness: the first dealer (unless given) and every deal come from the
``numpy.random.Generator`` passed in; ``deals`` may supply the deals instead
(records replay this way).

A game may start later than its first hand: ``hand_index`` (default 0) is the
number of hands already played, so the first hand is the crazy rotation's
hand of that index and ``max_hands`` counts those hands too (with ``scores``
and ``bags``, a game can resume where another stood).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .card_play import next_seat
from .deal import Deal, deal_cards
from .hand import HandState, Phase
from .ops import ARRAY, Ops, pick
from .rules import Rules
from .scoring import Bid, HandScore, score_hand


@dataclass(frozen=True)
class HandResult:
    """A finished hand: bids, tricks, scoring and the game's scores and bags after it."""

    hand_index: int
    dealer: int
    rules_name: str
    bids: tuple[Bid, ...]
    tricks: tuple[int, ...]
    score: HandScore
    scores: tuple[int, ...]
    bags: tuple[int, ...]

    @property
    def points(self) -> tuple[int, ...]:
        """Score change of each side this hand."""
        return self.score.points


NO_WINNER = -1  # game_end's winner while the game goes on, or when it is truncated


def next_dealer(dealer: Any, num_players: int) -> Any:
    """The dealer of the next hand: the deal passes clockwise (one dealer, or an array of them)."""
    return next_seat(dealer, num_players)


def first_dealer(rng: np.random.Generator, num_players: int, size: int | None = None) -> Any:
    """The first dealer of a game (``size``: of that many games), drawn at random."""
    return rng.integers(num_players, size=size)


_OVER = Phase.OVER  # a plain reference for the hot path (looking up Phase.OVER on the class is slower)


class GameError(ValueError):
    """Invalid game set-up (scores, bags, dealer)."""


class Game:
    """A game of Spades to the target score."""

    def __init__(
        self,
        rules: Rules,
        rng: np.random.Generator,
        *,
        dealer: int | None = None,
        scores: Sequence[int] | None = None,
        bags: Sequence[int] | None = None,
        deals: Iterable[Deal] | None = None,
        hand_index: int = 0,
    ):
        self.rules = rules
        self.rng = rng
        sides = rules.num_sides
        self.scores = _checked_per_side("scores", scores, sides, allow_negative=True)
        self.bags = _checked_per_side("bags", bags, sides, allow_negative=False)
        # checked before the first dealer is drawn: a refused set-up leaves the generator as it was
        hand_index = checked_hand_index(rules, hand_index)
        if dealer is None:
            dealer = int(first_dealer(rng, rules.num_players))
        elif (
            isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < rules.num_players
        ):
            raise GameError(f"dealer must be a seat in 0..{rules.num_players - 1}, got {dealer!r}")
        self.dealer = int(dealer)
        self.first_hand_index = int(hand_index)
        self._deals: Iterator[Deal] | None = iter(deals) if deals is not None else None
        self.hand_index = self.first_hand_index
        self.results: list[HandResult] = []
        self.deals: list[Deal] = []
        self.winner: int | None = None  # winning side
        self.truncated = False
        self.hand = self._new_hand()

    @property
    def over(self) -> bool:
        """Whether the game has ended (won or truncated)."""
        return self.winner is not None or self.truncated

    @property
    def hand_rules(self) -> Rules:
        """Rules of the hand in progress (differs from ``rules`` in a crazy rotation)."""
        return self.hand.rules

    def _new_hand(self, deal: Deal | None = None) -> HandState:
        hand_rules = self.rules.hand_rules(self.hand_index)
        if deal is None and self._deals is not None:
            deal = next(self._deals, None)
        if deal is None:
            deal = deal_cards(hand_rules, self.rng, self.dealer)
        self.deals.append(deal)
        return HandState(hand_rules, deal, self.dealer, self.scores)

    def apply(self, action: int) -> HandResult | None:
        """Take the action of the seat to act; return the hand's result when it ends the hand."""
        if self.winner is not None or self.truncated:
            raise GameError("the game is over; no action is legal")
        hand = self.hand
        hand.apply(action)
        if hand.phase != _OVER:
            return None
        return self._finish_hand()

    def _finish_hand(self) -> HandResult:
        hand = self.hand
        bids = hand.bids
        score = score_hand(hand.rules, bids, hand.tricks_won, self.bags)
        self.scores = [s + p for s, p in zip(self.scores, score.points)]
        self.bags = list(score.bags)
        result = HandResult(
            self.hand_index,
            self.dealer,
            hand.rules.name,
            bids,
            tuple(hand.tricks_won),
            score,
            tuple(self.scores),
            tuple(self.bags),
        )
        self.results.append(result)
        self.hand_index += 1
        winner, truncated = game_end_one(self.rules, self.scores, self.hand_index)
        self.winner = None if winner == NO_WINNER else winner
        self.truncated = truncated
        if not self.over:
            self.dealer = next_dealer(self.dealer, self.rules.num_players)
            self.hand = self._new_hand()
        return result


def _game_end(
    select, rules: Rules, best: Any, lowest: Any, leaders: Any, first_leader: Any, hands_played: Any
) -> tuple[Any, Any]:
    """(winner, truncated) from each game's highest and lowest score, how many sides share the highest
    and the first of them (ints of one game, or arrays; ``select``: ``pick`` or the form's ``select``)."""
    ended = best >= rules.target_score
    if rules.lose_score is not None:
        ended = ended | (lowest <= rules.lose_score)
    winner = select(ended & (leaders == 1), first_leader, NO_WINNER)  # a shared highest score plays on
    return winner, (winner == NO_WINNER) & (hands_played >= rules.max_hands)


def side_leaders(ops: Ops, values: Any) -> tuple[Any, Any, Any, Any]:
    """Per game, from ``(k, sides)`` values: the highest, the lowest, how many sides share the highest and the
    first of them (any array form: a few sides, compared column by column)."""
    sides = values.shape[1]
    columns = [ops.seat(values, s) for s in range(sides)]
    best = lowest = columns[0]
    for column in columns[1:]:
        best, lowest = ops.maximum(best, column), ops.minimum(lowest, column)
    leaders = 0
    first = sides - 1
    for s in reversed(range(sides)):
        leads = columns[s] == best
        leaders = leaders + leads * 1
        first = ops.select(leads, s, first)
    return best, lowest, leaders, first


def game_end(rules: Rules, scores: Any, hands_played: Any, ops: Ops = ARRAY) -> tuple[Any, Any]:
    """(winner, truncated) of k games after a hand: ``(k, sides)`` scores, ``(k,)`` hands played;
    winner is the winning side or -1 (RULES.md section 6); arrays of the form ``ops`` (numpy by default)."""
    if ops is ARRAY:
        scores, hands_played = np.asarray(scores, dtype=np.int64), np.asarray(hands_played)
    best, lowest, leaders, first = side_leaders(ops, scores)
    return _game_end(ops.select, rules, best, lowest, leaders, first, hands_played)


def game_end_one(rules: Rules, scores: Sequence[int], hands_played: int) -> tuple[int, bool]:
    """``game_end`` of one game, on plain values: (winner or -1, truncated)."""
    scores = list(scores)
    best = max(scores)
    return _game_end(pick, rules, best, min(scores), scores.count(best), scores.index(best), hands_played)


def game_winner(rules: Rules, scores: Sequence[int]) -> int | None:
    """Winning side after a hand, or None when the game goes on (RULES.md section 6)."""
    winner, _ = game_end_one(rules, scores, 0)
    return None if winner == NO_WINNER else winner


def checked_hand_index(rules: Rules, hand_index: Any) -> int:
    """``hand_index`` as an int in ``0..max_hands - 1`` (the hands already played); GameError naming it otherwise."""
    if isinstance(hand_index, bool) or not isinstance(hand_index, (int, np.integer)):
        raise GameError(f"hand_index must be an integer (the hands already played), got {hand_index!r}")
    if not 0 <= hand_index < rules.max_hands:
        raise GameError(
            f"hand_index must be in 0..{rules.max_hands - 1} (max_hands {rules.max_hands}), got {hand_index}"
        )
    return int(hand_index)


def _checked_per_side(what: str, values: Sequence[int] | None, sides: int, allow_negative: bool) -> list[int]:
    if values is None:
        return [0] * sides
    values = list(values)
    if len(values) != sides:
        raise GameError(f"{what} needs one value per side ({sides}), got {len(values)}")
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise GameError(f"{what} must be integers, got {v!r}")
        if not allow_negative and v < 0:
            raise GameError(f"{what} must not be negative, got {v}")
        out.append(int(v))
    return out
