"""Deals: plain values that can be stored, replayed and rotated.

A :class:`Deal` is one tuple of card ids per seat (seat 0 first, each sorted)
plus the cards set aside (three-player cutthroat sets one card aside). Two
players are dealt no cards: their deal is the *stock*, the order of the whole
pack, top card first (``Deal.stock``; RULES.md section 9), from which they
draw their hands (:mod:`spades_env.core.drawing`). Deals come from an explicit
``numpy.random.Generator``; nothing here keeps hidden random state.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from .bidding import bidder
from .cards import CardError, deck, format_cards, parse_cards
from .drawing import STOCK_SIZE, has_drawing
from .rules import Rules

_PACK_ARRAYS = {jokers: np.array(deck(jokers), np.intp) for jokers in (False, True)}


class DealError(ValueError):
    """A malformed deal: wrong count, duplicates, or cards not in this pack."""


@dataclass(frozen=True)
class Deal:
    """The cards of every seat (seat 0 first) and those set aside, as card ids; with two players, no cards
    per seat and the stock order (top first) instead."""

    hands: tuple[tuple[int, ...], ...]
    set_aside: tuple[int, ...] = ()
    stock: tuple[int, ...] = ()

    def rotate(self, k: int) -> Deal:
        """The same cards with seat s's hand given to seat (s + k) mod n (a stock is kept as it is: who draws
        which card depends on the dealer, so a stock is played from the other seat by changing the dealer)."""
        n = len(self.hands)
        return Deal(tuple(self.hands[(s - k) % n] for s in range(n)), self.set_aside, self.stock)

    def to_strings(self) -> list[list[str]]:
        """Per-seat lists of card strings (for JSON records; empty lists for a stock)."""
        return [format_cards(hand).split() for hand in self.hands]

    def stock_strings(self) -> list[str]:
        """The stock as card strings, top first (empty for a dealt hand)."""
        return format_cards(self.stock).split() if self.stock else []


def deal_positions(shuffled: np.ndarray, num_players: int, hand_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Deal shuffled packs ``(..., pack)`` one card at a time: card ``i`` goes to deal position
    ``i % num_players`` (position 0 is the dealer's left: ``core.bidding.bidder``) until every position
    holds ``hand_size``; the rest is set aside. Returns ``(..., num_players, hand_size)`` and
    ``(..., set aside)`` (one deal or many: the same lines)."""
    dealt = num_players * hand_size
    rounds = shuffled[..., :dealt].reshape(shuffled.shape[:-1] + (hand_size, num_players))
    return np.swapaxes(rounds, -1, -2), shuffled[..., dealt:]


def deal_cards(rules: Rules, rng: np.random.Generator, dealer: int) -> Deal:
    """Shuffle this hand's pack and deal one card at a time clockwise from the dealer's left (with two
    players, the shuffled pack is the stock)."""
    pack = _PACK_ARRAYS[rules.jokers]
    n = rules.num_players
    if has_drawing(rules):
        return Deal(((),) * n, (), tuple(pack[rng.permutation(len(pack))].tolist()))
    by_position, set_aside = deal_positions(pack[rng.permutation(len(pack))], n, rules.hand_size)
    hands = [()] * n
    for position, cards in enumerate(by_position.tolist()):
        hands[bidder(dealer, position, n)] = tuple(sorted(cards))
    return Deal(tuple(hands), tuple(sorted(set_aside.tolist())))


def make_stock(rules: Rules, stock: Sequence[str | int]) -> Deal:
    """A validated two-player deal from a stock order: the 52 cards of the pack, top first (strings such as
    "AS" or ids)."""
    if not has_drawing(rules):
        raise DealError(f"a stock is for two players; these rules have {rules.num_players}: give a deal instead")
    if isinstance(stock, (str, bytes)) or not isinstance(stock, Sequence):
        raise DealError(f"a stock must be a list of the {STOCK_SIZE} cards, top first, got {type(stock).__name__}")
    if len(stock) != STOCK_SIZE:
        raise DealError(f"the stock has {len(stock)} cards; it needs all {STOCK_SIZE} cards of the pack, top first")
    try:
        cards = parse_cards(stock)
    except (CardError, TypeError) as exc:
        raise DealError(f"stock: {exc}") from None
    pack = set(deck(False))
    seen: set[int] = set()
    for card in cards:
        if card not in pack:
            raise DealError(f"the stock holds {format_cards([card])}, which is not in the 52-card pack (no jokers)")
        if card in seen:
            raise DealError(f"card {format_cards([card])} is twice in the stock")
        seen.add(card)
    return Deal(((),) * rules.num_players, (), tuple(cards))


def make_deal(rules: Rules, hands: Sequence[Iterable[str | int]]) -> Deal:
    """A validated deal from per-seat card lists (strings such as "AS" or ids)."""
    if has_drawing(rules):
        raise DealError("two players are dealt no hands: give the stock order (option 'stock', 52 cards, top first)")
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
                raise DealError(
                    f"seat {seat} holds {format_cards([card])}, which is not in this pack "
                    f"({'jokers' if rules.jokers else 'no jokers'})"
                )
            if card in seen:
                raise DealError(f"card {format_cards([card])} is dealt twice (seats {seen[card]} and {seat})")
            seen[card] = seat
    set_aside = tuple(sorted(pack - set(seen)))
    return Deal(tuple(parsed), set_aside)
