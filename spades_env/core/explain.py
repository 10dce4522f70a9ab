"""Why an action is not legal, in one sentence for the person at the table.

``why_illegal(hand, action)`` returns None when the legal-action mask allows
``action`` (the mask stays the only judge of legality) and otherwise names the
rule that forbids it, speaking to the seat to act ("you").

No rule is restated here. The reason is found by asking the rule functions of
:mod:`~spades_env.core.bidding` and :mod:`~spades_env.core.card_play` again
with one input relaxed: the card would be legal if the seat led freely (so the
situation of the play forbids it: follow suit, spades not broken, the lowest
club), the bid would be legal with one option off (no hook, ``max_team_bid``,
``suicide``, ``mirror``), with blind nil open by the score, or before the
partner's bid. What remains (a card not held, a bid beyond the tricks, an
option the rules lack, a decision of another phase) is read off the state.
"""

from __future__ import annotations

from . import actions as A
from .bidding import NO_CAP, BidRules, legal_bids, partner_bid
from .card_play import FOLLOWS, LEADS_BEFORE_BROKEN, LOWEST_CLUB_TRICK
from .cards import SUIT_MASKS, Suit, format_card, lowest_card
from .hand import NO_SEAT, HandState, Phase
from .ops import INT
from .scoring import BidKind

SUIT_WORDS = {Suit.CLUBS: "clubs", Suit.DIAMONDS: "diamonds", Suit.HEARTS: "hearts", Suit.SPADES: "spades"}

# The bidding options relaxed one at a time, with what each says when it is the one in the way.
_BID_OPTIONS = (
    ("no_hook", False, "the last bid may not make the table's bids total the {tricks} tricks"),
    ("team_cap", NO_CAP, "your side may bid at most {team_cap} tricks together (max_team_bid)"),
    ("suicide", False, "suicide: one partner bids nil and the other a number"),
    ("mirror", False, "mirror: you bid the number of spades you hold ({spades})"),
)


def why_illegal(hand: HandState, action: object) -> str | None:
    """None when ``action`` is legal for the seat to act; else one sentence naming the rule that forbids it."""
    try:
        name = A.action_name(action)  # type: ignore[arg-type]
    except A.ActionError:
        return f"{action!r} is not an action (an int in 0..{A.NUM_ACTIONS - 1})"[:200]
    action = int(action)  # type: ignore[call-overload]
    if (hand.legal_mask() >> action) & 1:
        return None
    phase = hand.phase
    if phase == Phase.OVER:
        return "the hand is over"
    if phase == Phase.DRAW:
        return f"it is the drawing from the stock: keep or discard the card on offer, not {name}"
    if phase == Phase.EXCHANGE:
        if not A.is_card_action(action):
            return f"it is the blind nil exchange: pass a card to your partner, not {name}"
        return f"you do not hold {name}"
    if phase == Phase.PLAY:
        if not A.is_card_action(action):
            return f"it is the card play: play a card, not {name}"
        return _why_card(hand, action, name)
    return _why_bid(hand, action, name)


def _why_card(hand: HandState, card: int, name: str) -> str:
    seat = hand.current
    held = hand.hands[seat]
    if not (held >> card) & 1:
        return f"you do not hold {name}"
    led = hand.led_suit
    situation = hand._situations[hand.trick_index == 0][led is None][hand.spades_broken]
    if situation == FOLLOWS:
        return f"{SUIT_WORDS[Suit(led)]} were led and you hold some: follow suit"
    if situation == LEADS_BEFORE_BROKEN:
        return "spades are not broken: lead another suit while you hold one"
    if situation == LOWEST_CLUB_TRICK:
        clubs = held & SUIT_MASKS[Suit.CLUBS]
        if clubs:
            return f"on the first trick you play your lowest club, {format_card(lowest_card(clubs))}"
        return "on the first trick, without clubs, you play a diamond or a heart"
    # LEADS_FREELY allows every card held; the mask would have allowed it
    return f"{name} is not legal now (legal: {', '.join(A.action_names(hand.legal_mask()))})"  # pragma: no cover


def _why_bid(hand: HandState, action: int, name: str) -> str:
    seat = hand.current
    p: BidRules = hand._bid_p
    blind = hand.phase == Phase.BLIND
    bidding_action = A.BID_OFFSET <= action < A.KEEP
    if not bidding_action:
        return f"it is the bidding: make a bid, not {name}"
    blind_action = action == A.BLIND_NIL or action == A.SEE_CARDS or action in A.BLIND_BID_ACTIONS
    if blind and not blind_action:
        return "you have not looked at your cards: see them first, or bid blind"
    kind, value, context, eligible = hand._bid_inputs(seat)
    # a blind option after looking is judged as if the seat had not looked: open then, or forbidden by a rule
    inputs = (blind or blind_action, eligible, hand.hands[seat], kind, value, context)

    def legal_with(relaxed: BidRules, *changed: object) -> bool:
        args = list(inputs)
        for index, new in zip(changed[::2], changed[1::2]):
            args[index] = new  # type: ignore[index]
        return bool((legal_bids(INT, relaxed, relaxed, *args) << A.BID_OFFSET >> action) & 1)

    facts = {
        "tricks": p.tricks,
        "team_cap": p.team_cap,
        "spades": (hand.hands[seat] & SUIT_MASKS[Suit.SPADES]).bit_count(),
    }
    if not blind and blind_action and (action == A.SEE_CARDS or legal_with(p)):
        return "you have already looked at your cards"
    for option, off, reason in _BID_OPTIONS:
        if getattr(p, option) != off and legal_with(p._replace(**{option: off})):
            return reason.format(**facts)
    if action == A.BLIND_NIL and p.blind_nil and not eligible and legal_with(p, 1, True):
        return f"blind nil is open only to a side behind by at least {p.deficit} points"
    partner = hand._partners[seat]
    if partner != NO_SEAT and kind != BidKind.NONE:
        none_kind, none_value = partner_bid(INT, BidKind.NONE, 0, False)
        if legal_with(p, 3, none_kind, 4, none_value):
            partner_word = _BID_WORDS.get(BidKind(hand.bid_kinds[partner]), "bid")
            return f"{name} is not open after your partner's {partner_word}"
    if action in A.BLIND_BID_ACTIONS and p.blind_bids:
        top = A.blind_bid_value(p.blind_bids.bit_length() - 1 + A.BID_OFFSET)
        return f"a blind bid is from {hand.rules.blind_bid_min} to {top} tricks"
    if action == A.TEN_FOR_200 or action == A.BLIND_NIL or action in A.BLIND_BID_ACTIONS:
        return f"{name} is not open under these rules"
    if action in A.BID_ACTIONS:
        number = A.bid_value(action)
        if number == 0 and not p.low == 0:
            return "nil is not in these rules"
        if number > p.tricks:
            return f"you may bid at most {p.tricks} tricks"
    return f"{name} is not open now (legal: {', '.join(A.action_names(hand.legal_mask()))})"


_BID_WORDS = {
    BidKind.NUMBER: "number bid",
    BidKind.NIL: "nil",
    BidKind.BLIND_NIL: "blind nil",
    BidKind.TEN_FOR_200: "10 for 200",
    BidKind.BLIND: "blind bid",
}
