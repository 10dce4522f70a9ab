"""Text rendering of a game (no GUI): hands, bids, the trick, tricks won, scores."""

from __future__ import annotations

from collections.abc import Sequence

from .core.actions import action_name
from .core.cards import CARD_SUIT, SUIT_CHARS, cards_of, format_card
from .core.drawing import stock_left
from .core.hand import HandState, Phase
from .core.rules import Rules
from .core.scoring import Bid


def _hand_text(mask: int) -> str:
    by_suit: dict[int, list[str]] = {}
    for card in cards_of(mask):
        by_suit.setdefault(CARD_SUIT[card], []).append(format_card(card))
    parts = []
    for suit in (3, 2, 1, 0):
        cards = by_suit.get(suit, [])
        parts.append(
            f"{SUIT_CHARS[suit]}: "
            + (" ".join(c[:-1] if len(c) == 2 and c[1] == SUIT_CHARS[suit] else c for c in reversed(cards)) or "-")
        )
    return "  ".join(parts)


def render_text(
    hand: HandState,
    scores: Sequence[int],
    bags: Sequence[int],
    game_rules: Rules,
    hand_index: int = 0,
    agent_names: Sequence[str] | None = None,
) -> str:
    """A readable multi-line table of the hand in progress and the game score."""
    n = hand.num_players
    names = list(agent_names) if agent_names else [f"seat {s}" for s in range(n)]
    width = max(len(x) for x in names)
    lines = [
        f"hand {hand_index + 1} ({hand.rules.name}), dealer {names[hand.dealer]}, phase {hand.phase.name.lower()}"
        + ("" if hand.current < 0 else f", to act: {names[hand.current]}")
    ]
    trick = dict(zip(hand.trick_seats, hand.trick_cards))
    for seat in range(n):
        bid = Bid(hand.bid_kinds[seat], hand.bid_values[seat])
        in_trick = format_card(trick[seat]) if seat in trick else "  "
        lead = "*" if hand.trick_cards and hand.leader == seat else " "
        lines.append(
            f"{names[seat]:>{width}} | bid {str(bid):>10} | tricks {hand.tricks_won[seat]:2d} | "
            f"trick {lead}{in_trick} | {_hand_text(hand.hands[seat])}"
        )
    if hand.stock:  # two players: the stock, the card on offer and the discards (every one face up here)
        offer = "" if hand.offered is None else f"; on offer to {names[hand.current]}: {format_card(hand.offered)}"
        lines.append(f"stock: {stock_left(hand.draw_turn)} cards{offer}")
        for seat in range(n):
            lines.append(f"{names[seat]:>{width}} | discarded {_hand_text(hand.discards[seat])}")
    if hand.last_trick is not None and not hand.trick_cards and hand.phase != Phase.BID:
        leader, seats, cards, winner = hand.last_trick
        played = " ".join(f"{names[s]}:{format_card(c)}" for s, c in zip(seats, cards))
        lines.append(f"last trick: {played} -> {names[winner]}")
    sides = game_rules.num_sides
    if game_rules.partnerships:
        side_names = [f"{names[0]}+{names[2]}", f"{names[1]}+{names[3]}"]
    else:
        side_names = names[:sides]
    score_text = ", ".join(f"{side_names[i]} {scores[i]} ({bags[i]} bags)" for i in range(sides))
    lines.append(
        f"score (target {game_rules.target_score}): {score_text}; spades broken: {'yes' if hand.spades_broken else 'no'}"
    )
    if hand.history:
        seat, action = hand.history[-1]
        lines.append(f"last action: {names[seat]} {action_name(action)}")
    return "\n".join(lines)
