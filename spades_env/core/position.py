"""Build a :class:`HandState` in the middle of a hand from explicit fields.

Search agents (PIMC) know a position as a list of facts: whose cards are
where, the bids, the tricks taken, the cards played and the trick on the
table. :func:`build_position` turns such facts into a live ``HandState`` that
``legal_mask`` / ``apply`` / ``clone`` work on exactly as on a hand played
from the deal, so the rules are never re-implemented by the caller.

Supported phases: ``PLAY`` (the usual case: every bid made, any exchange
done) and ``BID`` (some bids made; the seat to bid follows from the bidding
order and has looked at its cards; later seats decide blind options when
their turn comes). What the builder cannot know is filled in as follows and
documented on the returned state:

* ``deal`` holds, per seat, its current cards plus the cards it has played
  (its hand after any exchange), and ``set_aside`` the cards no seat holds or
  played; ``passed`` / ``received`` are as given (exchange records only).
* ``history`` is empty and ``last_trick`` is None: the position has no past.
* Every seat has looked at its cards (``looked`` all True) in ``PLAY``.

Only the standard library is used (the core's import rule).
"""

from __future__ import annotations

from collections.abc import Sequence

from .card_play import breaks_spades
from .cards import cards_of, deck
from .deal import Deal
from .hand import HandState, Phase
from .rules import Rules
from .scoring import BidKind


class PositionError(ValueError):
    """Fields that cannot describe a position of a hand."""


def _mask(cards: int | Sequence[int]) -> int:
    if isinstance(cards, int):
        return cards
    out = 0
    for c in cards:
        out |= 1 << int(c)
    return out


def build_position(
    rules: Rules,
    dealer: int,
    hands: Sequence[int | Sequence[int]],
    *,
    bid_kinds: Sequence[int] | None = None,
    bid_values: Sequence[int] | None = None,
    tricks_won: Sequence[int] | None = None,
    played: Sequence[int | Sequence[int]] | None = None,
    trick_cards: Sequence[int] = (),
    leader: int | None = None,
    spades_broken: bool | None = None,
    scores: Sequence[int] | None = None,
    passed: Sequence[int | Sequence[int]] | None = None,
    received: Sequence[int | Sequence[int]] | None = None,
    phase: Phase = Phase.PLAY,
    validate: bool = True,
) -> HandState:
    """A ``HandState`` at the given position (see the module docstring).

    ``hands``, ``played``, ``passed`` and ``received`` are per seat, each a
    bitboard or a list of card ids; ``played`` includes the cards on the table.
    ``trick_cards`` are the cards of the current trick in play order, the first
    one played by ``leader`` (in ``PLAY`` the leader is required). ``bid_kinds``
    are :class:`BidKind` values; ``bid_values`` the tricks of number, blind and
    10-for-200 bids. ``spades_broken`` defaults to "a spade has been played".
    With ``validate`` the fields are checked for consistency (cards held once,
    counts per seat, bids complete, the seat to act) and :class:`PositionError`
    names the first problem.
    """
    n = rules.num_players
    if not 0 <= dealer < n:
        raise PositionError(f"dealer must be a seat in 0..{n - 1}, got {dealer}")
    if len(hands) != n:
        raise PositionError(f"need {n} hands, got {len(hands)}")
    hand_masks = [_mask(h) for h in hands]
    played_masks = _per_seat_masks(played, n)
    kinds = [BidKind(k) for k in bid_kinds] if bid_kinds is not None else [BidKind.NONE] * n
    values = list(bid_values) if bid_values is not None else [0] * n
    won = list(tricks_won) if tricks_won is not None else [0] * n
    trick = [int(c) for c in trick_cards]
    for name, seq in (
        ("played", played_masks),
        ("passed", passed),
        ("received", received),
        ("bid_kinds", kinds),
        ("bid_values", values),
        ("tricks_won", won),
    ):
        if seq is not None and len(seq) != n:
            raise PositionError(f"{name} needs one entry per seat ({n}), got {len(seq)}")
    trick_seats = [(leader + i) % n for i in range(len(trick))] if leader is not None else []
    if trick and leader is None:
        raise PositionError("a trick on the table needs its leader")
    if validate:
        _validate(rules, hand_masks, played_masks, kinds, won, trick, trick_seats, leader, phase)

    state = HandState(rules, _deal_of(rules, hand_masks, played_masks), dealer, scores)
    state.hands = hand_masks
    state.played = played_masks
    state.passed = _per_seat_masks(passed, n)
    state.received = _per_seat_masks(received, n)
    state.bid_kinds = kinds
    state.bid_values = values
    state.tricks_won = won
    state.history = []
    state.last_trick = None
    state.forget_legal()
    if phase == Phase.PLAY:
        _enter_play(state, trick, trick_seats, leader, spades_broken)
    elif phase == Phase.BID:
        _enter_bidding(state)
    else:
        raise PositionError(f"phase must be PLAY or BID, got {phase!r}")
    return state


def _per_seat_masks(cards: Sequence[int | Sequence[int]] | None, n: int) -> list[int]:
    """Bitboards per seat from bitboards or card lists; empty for every seat when None."""
    return [_mask(c) for c in cards] if cards is not None else [0] * n


def _deal_of(rules: Rules, hand_masks: list[int], played_masks: list[int]) -> Deal:
    """The deal the position implies: each seat's held and played cards; the rest of the pack set aside."""
    original = [h | p for h, p in zip(hand_masks, played_masks)]
    held = 0
    for m in original:
        held |= m
    set_aside = tuple(c for c in deck(rules.jokers) if not (held >> c) & 1)
    return Deal(tuple(tuple(cards_of(m)) for m in original), set_aside)


def _enter_play(
    state: HandState, trick: list[int], trick_seats: list[int], leader: int, spades_broken: bool | None
) -> None:
    """Put a state in the PLAY phase with the given trick on the table (bidding and any exchange done)."""
    n = state.num_players
    state.looked = [True] * n
    state.bid_pos = n
    state.exchange_steps = []
    state.exchange_pos = 0
    state.trick_index = sum(state.tricks_won)
    state.trick_cards = trick
    state.trick_seats = trick_seats
    state.leader = leader
    state.current = (leader + len(trick)) % n
    if spades_broken is None:
        all_played = 0
        for m in state.played:
            all_played |= m
        spades_broken = bool(breaks_spades(all_played))
    state.spades_broken = bool(spades_broken)
    state.phase = Phase.PLAY


def _enter_bidding(state: HandState) -> None:
    """Put a state in the BID phase at the first seat (in bidding order) that has not bid."""
    n, kinds = state.num_players, state.bid_kinds
    pos = 0
    while pos < n and kinds[state.bid_order[pos]] != BidKind.NONE:
        pos += 1
    if pos >= n:
        raise PositionError("every seat has bid: the position is in the PLAY phase")
    state.bid_pos = pos
    state.current = state.bid_order[pos]
    state.looked = [kinds[s] != BidKind.NONE for s in range(n)]
    state.looked[state.current] = True  # the seat to bid has looked: a BID decision, not a blind one
    state.phase = Phase.BID


def _validate(
    rules: Rules,
    hands: list[int],
    played: list[int],
    kinds: list[BidKind],
    won: list[int],
    trick: list[int],
    trick_seats: list[int],
    leader: int | None,
    phase: Phase,
) -> None:
    n = rules.num_players
    pack = 0
    for c in deck(rules.jokers):
        pack |= 1 << c
    seen = 0
    for s in range(n):
        for what, m in (("holds", hands[s]), ("played", played[s])):
            if m & ~pack:
                raise PositionError(f"seat {s} {what} cards not in this pack: {cards_of(m & ~pack)}")
            if m & seen:
                raise PositionError(f"cards {cards_of(m & seen)} appear twice (seat {s} {what})")
            seen |= m
    if phase == Phase.BID:
        if any(played) or trick or any(won):
            raise PositionError("no card can be played during the bidding")
        for s in range(n):
            if hands[s].bit_count() != rules.hand_size:
                raise PositionError(f"seat {s} holds {hands[s].bit_count()} cards, expected {rules.hand_size}")
        return
    if leader is None or not 0 <= leader < n:
        raise PositionError(f"the PLAY phase needs the current trick's leader (a seat), got {leader!r}")
    if any(k == BidKind.NONE for k in kinds):
        raise PositionError(f"every seat must have bid in the PLAY phase, got kinds {[int(k) for k in kinds]}")
    done = sum(won)
    if done >= rules.num_tricks:
        raise PositionError(f"{done} tricks are already won: the hand is over")
    if len(trick) >= n:
        raise PositionError(f"the current trick holds {len(trick)} cards; a full trick is already won")
    for s in range(n):
        on_table = 1 if s in trick_seats else 0
        if played[s].bit_count() != done + on_table:
            raise PositionError(f"seat {s} has played {played[s].bit_count()} cards, expected {done + on_table}")
        if hands[s].bit_count() != rules.hand_size - done - on_table:
            raise PositionError(
                f"seat {s} holds {hands[s].bit_count()} cards, expected {rules.hand_size - done - on_table}"
            )
    for seat, card in zip(trick_seats, trick):
        if not (played[seat] >> card) & 1:
            raise PositionError(f"card {card} on the table is not among seat {seat}'s played cards")
