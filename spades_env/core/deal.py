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

from .cards import CardError, deck, format_cards, parse_cards
from .rules import Rules


_PACKS = {jokers: deck(jokers) for jokers in (False, True)}


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


def deal_cards(rules: Rules, rng: np.random.Generator, dealer: int) -> Deal:
    """Shuffle this hand's pack and deal one card at a time clockwise from the dealer's left."""
    pack = _PACKS[rules.jokers]
    shuffled = [pack[i] for i in rng.permutation(len(pack)).tolist()]
    n = rules.num_players
    dealt = rules.hand_size * n
    # Card i of the shuffled pack goes to seat (dealer + 1 + i) % n: every n-th card from the k-th.
    hands = [()] * n
    for k in range(n):
        hands[(dealer + 1 + k) % n] = tuple(sorted(shuffled[k:dealt:n]))
    return Deal(tuple(hands), tuple(sorted(shuffled[dealt:])))


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
