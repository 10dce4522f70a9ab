"""Cards, suits, notation and bitboards.

A card is an ``int`` in ``0..53``:

=========  ==========================================================
``0..51``  ``suit * 13 + rank``; suits in the order C, D, H, S; ranks
           ``2..A`` as ``0..12`` (OpenSpiel's card numbering)
``52``     Little Joker ``LJ``
``53``     Big Joker ``BJ``
=========  ==========================================================

A set of cards (a hand, the cards played by a seat, ...) is a *bitboard*: a
Python ``int`` whose bit ``c`` is set when card ``c`` is in the set. A joker
belongs to the spade suit for every purpose (following, leading, breaking,
winning, counting), so :data:`SUIT_MASKS` puts both jokers in the spade mask.

Notation: rank ``23456789TJQKA`` (``10`` accepted on input) followed by suit
``CDHS``; jokers ``BJ`` and ``LJ``. Parsing is case-insensitive.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

NUM_RANKS = 13
NUM_SUITS = 4
NUM_STANDARD_CARDS = NUM_SUITS * NUM_RANKS  # 52
LITTLE_JOKER = 52
BIG_JOKER = 53
NUM_CARDS = 54  # card ids, jokers included; a deck always holds 52 of them

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "CDHS"


class Suit(enum.IntEnum):
    """Suits in sorting order; spades are always trump."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3


TRUMP = Suit.SPADES


class CardError(ValueError):
    """A malformed card string or card id."""


def make_card(suit: int, rank: int) -> int:
    """Card id of a standard card; ``rank`` 0 is the two, 12 the ace."""
    return int(suit) * NUM_RANKS + rank


def card_suit(card: int) -> Suit:
    """Suit a card belongs to for play; jokers are spades."""
    if card >= NUM_STANDARD_CARDS:
        return Suit.SPADES
    return Suit(card // NUM_RANKS)


def card_rank(card: int) -> int:
    """Rank index ``0..12`` of a standard card (``-1`` for a joker)."""
    if card >= NUM_STANDARD_CARDS:
        return -1
    return card % NUM_RANKS


def _build_names() -> tuple[str, ...]:
    names = [RANK_CHARS[c % NUM_RANKS] + SUIT_CHARS[c // NUM_RANKS] for c in range(NUM_STANDARD_CARDS)]
    names += ["LJ", "BJ"]
    return tuple(names)


CARD_NAMES: tuple[str, ...] = _build_names()
_NAME_TO_CARD = {name: card for card, name in enumerate(CARD_NAMES)}


def parse_card(text: str) -> int:
    """Card id of a card string such as ``"AS"``, ``"TD"``, ``"10D"``, ``"BJ"``."""
    if not isinstance(text, str):
        raise CardError(f"a card must be a string such as 'AS', got {text!r}")
    key = text.strip().upper()
    if key.startswith("10") and len(key) == 3:
        key = "T" + key[2:]
    card = _NAME_TO_CARD.get(key)
    if card is None:
        raise CardError(f"malformed card {text!r}: expected rank {RANK_CHARS} (or 10) then suit {SUIT_CHARS}, or BJ/LJ")
    return card


def format_card(card: int) -> str:
    """Two-letter string of a card id (``"TD"``, ``"BJ"``)."""
    if not isinstance(card, (int,)) or isinstance(card, bool) or not 0 <= int(card) < NUM_CARDS:
        raise CardError(f"card id must be an int in 0..{NUM_CARDS - 1}, got {card!r}")
    return CARD_NAMES[int(card)]


def parse_cards(cards: str | Iterable[str | int]) -> list[int]:
    """Card ids of a space-separated string or of a list of strings or ids."""
    items = cards.split() if isinstance(cards, str) else list(cards)
    out = []
    for item in items:
        if isinstance(item, str):
            out.append(parse_card(item))
        else:
            format_card(item)  # validates the id
            out.append(int(item))
    return out


def format_cards(cards: Iterable[int]) -> str:
    """Space-separated card strings, in the order given."""
    return " ".join(format_card(c) for c in cards)


# --- bitboards -------------------------------------------------------------


def mask_of(cards: Iterable[int]) -> int:
    """Bitboard holding the given cards."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_of(mask: int) -> list[int]:
    """Card ids in a bitboard, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def lowest_card(mask: int) -> int:
    """Lowest card id in a non-empty bitboard."""
    return (mask & -mask).bit_length() - 1


_SUIT_BITS = (1 << NUM_RANKS) - 1
JOKER_MASK = (1 << LITTLE_JOKER) | (1 << BIG_JOKER)
SUIT_MASKS: tuple[int, ...] = (
    _SUIT_BITS,
    _SUIT_BITS << NUM_RANKS,
    _SUIT_BITS << (2 * NUM_RANKS),
    (_SUIT_BITS << (3 * NUM_RANKS)) | JOKER_MASK,
)
SPADE_MASK = SUIT_MASKS[Suit.SPADES]
NON_SPADE_MASK = SUIT_MASKS[0] | SUIT_MASKS[1] | SUIT_MASKS[2]
ALL_CARDS_MASK = (1 << NUM_CARDS) - 1
CARD_SUIT: tuple[int, ...] = tuple(int(card_suit(c)) for c in range(NUM_CARDS))

TWO_OF_CLUBS = make_card(Suit.CLUBS, 0)
TWO_OF_HEARTS = make_card(Suit.HEARTS, 0)
TWO_OF_SPADES = make_card(Suit.SPADES, 0)


def deck(jokers: bool) -> tuple[int, ...]:
    """The 52 cards in play: the standard pack, or with jokers instead of 2C and 2H."""
    if not jokers:
        return tuple(range(NUM_STANDARD_CARDS))
    removed = {TWO_OF_CLUBS, TWO_OF_HEARTS}
    return tuple(c for c in range(NUM_CARDS) if c not in removed)


def card_power(card: int, deuce_of_spades_high: bool) -> int:
    """Strength of a card within its suit; among spades: BJ > LJ > (2S if high) > A > ... ."""
    if card == BIG_JOKER:
        return NUM_RANKS + 2
    if card == LITTLE_JOKER:
        return NUM_RANKS + 1
    if deuce_of_spades_high and card == TWO_OF_SPADES:
        return NUM_RANKS
    return card % NUM_RANKS


def sort_key(card: int) -> tuple[int, int]:
    """Display order: by suit (C, D, H, S with jokers last), then rank."""
    return (CARD_SUIT[card], card)
