"""Deals: plain values that can be stored, replayed and rotated.

A :class:`Deal` is one tuple of card ids per seat (seat 0 first, each sorted)
plus the cards set aside (three-player cutthroat sets one card aside). Deals
come from an explicit ``numpy.random.Generator``; nothing here keeps hidden
random state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from .bidding import bidder
from .cards import CardError, deck, format_cards, parse_cards
from .rules import Rules


_PACK_ARRAYS = {jokers: np.array(deck(jokers), np.intp) for jokers in (False, True)}


class DealError(ValueError):
    """A malformed deal: wrong count, duplicates, or cards not in this pack."""


@dataclass(frozen=True)
class Deal:
    """The cards of every seat (seat 0 first) and those set aside, as card ids."""

    hands: tuple[tuple[int, ...], ...]
    set_aside: tuple[int, ...] = ()

    def rotate(self, k: int) -> "Deal":
        """The same cards with seat s's hand given to seat (s + k) mod n."""
        n = len(self.hands)
        return Deal(tuple(self.hands[(s - k) % n] for s in range(n)), self.set_aside)

    def to_strings(self) -> list[list[str]]:
        """Per-seat lists of card strings (for JSON records)."""
        return [format_cards(hand).split() for hand in self.hands]


def deal_positions(shuffled: np.ndarray, num_players: int, hand_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Deal shuffled packs ``(..., pack)`` one card at a time: card ``i`` goes to deal position
    ``i % num_players`` (position 0 is the dealer's left: ``core.bidding.bidder``) until every position
    holds ``hand_size``; the rest is set aside. Returns ``(..., num_players, hand_size)`` and
    ``(..., set aside)`` (one deal or many: the same lines)."""
    dealt = num_players * hand_size
    rounds = shuffled[..., :dealt].reshape(shuffled.shape[:-1] + (hand_size, num_players))
    return np.swapaxes(rounds, -1, -2), shuffled[..., dealt:]


def deal_cards(rules: Rules, rng: np.random.Generator, dealer: int) -> Deal:
    """Shuffle this hand's pack and deal one card at a time clockwise from the dealer's left."""
    pack = _PACK_ARRAYS[rules.jokers]
    n = rules.num_players
    by_position, set_aside = deal_positions(pack[rng.permutation(len(pack))], n, rules.hand_size)
    hands = [()] * n
    for position, cards in enumerate(by_position.tolist()):
        hands[bidder(dealer, position, n)] = tuple(sorted(cards))
    return Deal(tuple(hands), tuple(sorted(set_aside.tolist())))


def make_deal(rules: Rules, hands: Sequence[Iterable[str | int]]) -> Deal:
    """A validated deal from per-seat card lists (strings such as "AS" or ids)."""
    if isinstance(hands, (str, bytes)) or not isinstance(hands, Sequence):
        raise DealError(f"a deal must be a list of {rules.num_players} card lists, got {type(hands).__name__}")
    if len(hands) != rules.num_players:
        raise DealError(f"a deal needs {rules.num_players} hands (one per seat), got {len(hands)}")
    parsed = []
    for seat, hand in enumerate(hands):
        try:
            cards = parse_cards(hand)
        except (CardError, TypeError) as exc:
            raise DealError(f"seat {seat}: {exc}") from None
        if len(cards) != rules.hand_size:
            raise DealError(f"seat {seat} has {len(cards)} cards; each seat needs {rules.hand_size}")
        parsed.append(tuple(sorted(cards)))
    pack = set(deck(rules.jokers))
    seen: dict[int, int] = {}
    for seat, cards in enumerate(parsed):
        for card in cards:
            if card not in pack:
                raise DealError(f"seat {seat} holds {format_cards([card])}, which is not in this pack "
                                f"({'jokers' if rules.jokers else 'no jokers'})")
            if card in seen:
                raise DealError(f"card {format_cards([card])} is dealt twice (seats {seen[card]} and {seat})")
            seen[card] = seat
    set_aside = tuple(sorted(pack - set(seen)))
    return Deal(tuple(parsed), set_aside)
