"""The rules core: cards, rules config, deals, hand state machine, scoring, game.

Imports only the standard library and numpy (a test checks this).
"""

from .actions import (
    BID_OFFSET,
    BLIND_BID_OFFSET,
    BLIND_NIL,
    DISCARD,
    KEEP,
    NUM_ACTIONS,
    SEE_CARDS,
    TEN_FOR_200,
    ActionError,
    action_name,
    bid_action,
    blind_bid_action,
    card_action,
    parse_action,
)
from .cards import CardError, Suit, format_card, format_cards, parse_card, parse_cards
from .deal import Deal, DealError, deal_cards, make_deal, make_stock
from .explain import why_illegal
from .game import Game, GameError, HandResult, game_winner
from .hand import HandState, IllegalActionError, Phase, trick_winner
from .rules import PRESETS, Rules, RulesError, preset
from .scoring import Bid, BidKind, HandScore, SideScore, score_hand

__all__ = [name for name in dir() if not name.startswith("_")]
