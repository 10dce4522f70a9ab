"""The rules config: one frozen dataclass holding every option of RULES.md.

``Rules()`` is the ``standard`` preset. Every field is validated when the
object is built; a bad value raises :class:`RulesError` naming the field.
``Rules.from_dict`` is strict about unknown keys and keys that are not
strings. Error messages are bounded: a value is quoted by at most
:data:`MAX_QUOTED_CHARS` characters, so a config of any size gives a short
error. Options that could never apply, or a table where some seat would have
no legal bid, are rejected naming the options involved. Presets are plain data in
:data:`PRESETS` (the YAML files under ``configs/rules/`` are written from them
and a test keeps the two equal). Only the standard library is used here: the
YAML reader lives outside the core (``spades_env.config_io``).

Option reference (RULES.md section in brackets):

=============================  =========  ==================================================
field                          default    meaning
=============================  =========  ==================================================
num_players                    4          4, 3 or 2 (individual play only) [2, 7, 9]
partnerships                   True       seats (0, 2) and (1, 3) play together [7]
jokers                         False      2C and 2H out, Big and Little Joker in [1]
deuce_of_spades_high           False      2S ranks above AS (below the jokers) [1]
nil                            True       nil and blind nil may be bid [3]
nil_value                      100        points for a made / failed nil [5]
blind_nil                      True       blind nil may be bid [3]
blind_nil_value                None       points for blind nil; None = 2 x nil_value [5]
blind_nil_requires_deficit     100        blind nil only when behind by this; None = always
blind_nil_exchange             0          cards passed each way after a blind nil: 0, 2, 3
nil_tricks_count_for_partner   False      a nil bidder's tricks count toward the contract
max_team_bid                   None       cap on partners' bids together (13 in openspiel)
ten_for_200                    False      the "10 for 200" partnership bid [3, 5]
blind_bids                     False      Barmore blind bids of blind_bid_min..13 [3, 5]
blind_bid_min                  7          smallest blind bid
mirror                         False      forced bid = trumps held [3]
suicide                        False      exactly one partner bids nil [3]
bids_may_total_tricks          True       False = no-hook: the last bid may not make the
                                          total equal the number of tricks [3]
first_trick                    standard   "standard": left of dealer leads a non-spade;
                                          "lowest_club": holder of the lowest club leads it
dealer_leads_any               False      dealer leads first; any card may be led anytime
bag_value                      1          points per overtrick [5]
bag_limit                      10         bags that cost bag_penalty; None = no penalty
bag_penalty                    100        points lost each time bags reach bag_limit
boston_bonus                   0          points for taking every trick
target_score                   500        a side reaching it ends the game [6]
lose_score                     None       a side at or below it ends the game [6]
max_hands                      100        the game is truncated after this many hands [6]
discards_face_up               False      two players: each sees the other's discards [9]
crazy                          None       rotation of preset names, one per hand [8]
name                           custom     a label; not a rule
=============================  =========  ==================================================
"""

from __future__ import annotations

import dataclasses
import functools
import reprlib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

FIRST_TRICK_STANDARD = "standard"
FIRST_TRICK_LOWEST_CLUB = "lowest_club"
FIRST_TRICK_CHOICES = (FIRST_TRICK_STANDARD, FIRST_TRICK_LOWEST_CLUB)
BLIND_NIL_EXCHANGE_CHOICES = (0, 2, 3)
TEN_FOR_200_TRICKS = 10
TEN_FOR_200_POINTS = 200
POINTS_PER_BID_TRICK = 10
BLIND_BID_MULTIPLIER = 2
MAX_BLIND_BID = 13
MAX_TEAM_BID = 13  # the largest cap on partners' bids together: every trick of a 4-player hand
TWO_PLAYER_HAND_SIZE = 13  # two players keep 13 cards each from the stock and discard the other 26
MAX_QUOTED_CHARS = 200  # a value quoted in an error message is cut to this many characters
# Field metadata: why a seat's observation leaves this option out (every option without it is observed, by the
# rules blocks of ``obs.features``; a test there fails naming an option neither observed nor marked).
UNOBSERVED = "unobserved"
MAX_QUOTED_KEYS = 10  # an error lists at most this many unknown keys

# Settings of the whole game, as opposed to one hand; a crazy rotation takes
# them from its own config (RULES.md section 8).
GAME_LEVEL_FIELDS = (
    "num_players",
    "partnerships",
    "target_score",
    "lose_score",
    "max_hands",
    "bag_limit",
    "bag_penalty",
)
STRUCTURAL_FIELDS = ("num_players", "partnerships")


_SHORT_REPR = reprlib.Repr()
_SHORT_REPR.maxlevel = 3
_SHORT_REPR.maxstring = _SHORT_REPR.maxother = MAX_QUOTED_CHARS


class RulesError(ValueError):
    """An invalid rules config; the message names the offending option."""


def quoted(value: Any, limit: int = MAX_QUOTED_CHARS) -> str:
    """A repr of ``value`` of at most about ``limit`` characters, for error messages of bounded size."""
    # reprlib stops at a few levels and items, so even a value with shared parts (a "billion laughs")
    # is never expanded in full; the final cut bounds what is left
    try:
        text = _SHORT_REPR.repr(value)
    except ValueError:  # an int too long to print (Python refuses over 4300 digits)
        text = f"<int of {value.bit_length()} bits>" if isinstance(value, int) else f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit] + "..."


@dataclass(frozen=True)
class Rules:
    """Every rule option of RULES.md; see the module docstring for the table."""

    num_players: int = 4
    partnerships: bool = True
    jokers: bool = False
    deuce_of_spades_high: bool = False
    nil: bool = True
    nil_value: int = 100
    blind_nil: bool = True
    blind_nil_value: int | None = None
    blind_nil_requires_deficit: int | None = 100
    blind_nil_exchange: int = 0
    nil_tricks_count_for_partner: bool = False
    max_team_bid: int | None = None
    ten_for_200: bool = False
    blind_bids: bool = False
    blind_bid_min: int = 7
    mirror: bool = False
    suicide: bool = False
    bids_may_total_tricks: bool = True
    first_trick: str = FIRST_TRICK_STANDARD
    dealer_leads_any: bool = False
    bag_value: int = 1
    bag_limit: int | None = 10
    bag_penalty: int = 100
    boston_bonus: int = 0
    target_score: int = 500
    lose_score: int | None = None
    max_hands: int = field(default=100, metadata={UNOBSERVED: "a truncation horizon of the game, not a rule of play"})
    discards_face_up: bool = False
    crazy: tuple[str, ...] | None = field(
        default=None, metadata={UNOBSERVED: "each hand of a rotation is observed with that hand's own rules"}
    )
    name: str = field(default="custom", compare=True, metadata={UNOBSERVED: "a label, not a rule"})

    # ------------------------------------------------------------------ derived
    @property
    def hand_size(self) -> int:
        """Cards in each player's hand (13, or 17 with three players; two players draw 13 each)."""
        return TWO_PLAYER_HAND_SIZE if self.num_players == 2 else 52 // self.num_players

    @property
    def num_tricks(self) -> int:
        """Tricks in a hand (equal to the hand size)."""
        return self.hand_size

    @property
    def num_sides(self) -> int:
        """Scoring units: 2 partnerships, or one per player in cutthroat."""
        return 2 if self.partnerships else self.num_players

    @property
    def blind_nil_points(self) -> int:
        """Points won or lost by a blind nil."""
        return 2 * self.nil_value if self.blind_nil_value is None else self.blind_nil_value

    def side_of(self, seat: int) -> int:
        """Scoring side of a seat: seat % 2 in partnerships, the seat itself otherwise."""
        return seat % 2 if self.partnerships else seat

    def partner_of(self, seat: int) -> int | None:
        """The partner's seat, or None in cutthroat."""
        return (seat + 2) % 4 if self.partnerships else None

    def hand_rules(self, hand_index: int) -> Rules:
        """Rules of hand ``hand_index`` (0-based): itself, or the crazy rotation's preset."""
        if self.crazy is None:
            return self
        return _crazy_hand_rules(self, self.crazy[hand_index % len(self.crazy)])

    def distinct_hand_rules(self) -> list[Rules]:
        """The rules of the hands of a game: the crazy rotation's, or these rules themselves."""
        if self.crazy is None:
            return [self]
        return [self.hand_rules(i) for i in range(len(self.crazy))]

    # --------------------------------------------------------------- validation
    def __post_init__(self) -> None:
        _check_types(self)
        _check_values(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Rules from a mapping of option names; unknown keys are errors."""
        if not isinstance(data, Mapping):
            raise RulesError(f"rules must be a mapping of option names to values, got {type(data).__name__}")
        not_named = [key for key in data if not isinstance(key, str)]
        if not_named:
            raise RulesError(f"rules option names must be strings, got {_quoted_keys(not_named)}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RulesError(f"unknown rules option(s) {_quoted_keys(unknown)}; known options: {sorted(known)}")
        values = dict(data)
        if isinstance(values.get("crazy"), list):
            values["crazy"] = tuple(values["crazy"])
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """Plain mapping of every option (lists instead of tuples), loadable by ``from_dict``."""
        out = dataclasses.asdict(self)
        if out["crazy"] is not None:
            out["crazy"] = list(out["crazy"])
        return out

    def replace(self, **changes: Any) -> Rules:
        """A validated copy with some options changed."""
        return dataclasses.replace(self, **changes)


_OPTIONAL_INT = (int, type(None))


def _quoted_keys(keys: list) -> str:
    """Keys for an error message: each quoted, at most MAX_QUOTED_KEYS of them."""
    shown = ", ".join(
        f"{quoted(k, MAX_QUOTED_CHARS // 4)} ({type(k).__name__})"
        if not isinstance(k, str)
        else quoted(k, MAX_QUOTED_CHARS // 4)
        for k in keys[:MAX_QUOTED_KEYS]
    )
    more = f" and {len(keys) - MAX_QUOTED_KEYS} more" if len(keys) > MAX_QUOTED_KEYS else ""
    return f"[{shown}]{more}"


def _check_types(rules: Rules) -> None:
    for f in fields(rules):
        value = getattr(rules, f.name)
        expected = f.type if isinstance(f.type, str) else str(f.type)
        if expected == "bool":
            ok = isinstance(value, bool)
        elif expected == "int":
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif expected == "int | None":
            ok = value is None or (isinstance(value, int) and not isinstance(value, bool))
        elif expected == "str":
            ok = isinstance(value, str)
        elif expected == "tuple[str, ...] | None":
            ok = value is None or (isinstance(value, tuple) and all(isinstance(v, str) for v in value))
        else:  # pragma: no cover - a new field with an unhandled annotation
            raise AssertionError(f"no type check for field {f.name}: {expected}")
        if not ok:
            raise RulesError(
                f"rules option '{f.name}' must be {expected}, got {quoted(value)} ({type(value).__name__})"
            )


def _require(condition: bool, key: str, message: str) -> None:
    if not condition:
        raise RulesError(f"rules option '{key}': {message}")


def _check_values(r: Rules) -> None:
    _require(r.num_players in (2, 3, 4), "num_players", f"must be 2, 3 or 4, got {r.num_players}")
    _require(not (r.partnerships and r.num_players != 4), "partnerships", "partnership play needs num_players 4")
    _require(0 <= r.nil_value <= 1000, "nil_value", f"must be in 0..1000, got {r.nil_value}")
    _require(
        r.blind_nil_value is None or 0 <= r.blind_nil_value <= 2000,
        "blind_nil_value",
        f"must be null or in 0..2000, got {r.blind_nil_value}",
    )
    _require(
        r.blind_nil_requires_deficit is None or 0 <= r.blind_nil_requires_deficit <= 10000,
        "blind_nil_requires_deficit",
        f"must be null or in 0..10000, got {r.blind_nil_requires_deficit}",
    )
    _require(
        r.blind_nil_exchange in BLIND_NIL_EXCHANGE_CHOICES,
        "blind_nil_exchange",
        f"must be one of {BLIND_NIL_EXCHANGE_CHOICES}, got {r.blind_nil_exchange}",
    )
    _require(not (r.blind_nil and not r.nil), "blind_nil", "needs nil: true")
    _require(not (r.blind_nil_exchange and not r.blind_nil), "blind_nil_exchange", "needs blind_nil: true")
    _check_every_seat_can_bid(r)
    _require(1 <= r.blind_bid_min <= MAX_BLIND_BID, "blind_bid_min", f"must be in 1..13, got {r.blind_bid_min}")
    if r.blind_bids and r.max_team_bid is not None:
        _require(
            r.blind_bid_min <= r.max_team_bid, "blind_bid_min", "exceeds max_team_bid: no blind bid would be legal"
        )
    if r.ten_for_200 and r.max_team_bid is not None and r.max_team_bid < TEN_FOR_200_TRICKS:
        raise RulesError(
            f"rules options 'ten_for_200' and 'max_team_bid': 10 for 200 can never be bid with "
            f"max_team_bid {r.max_team_bid} (the partnership's {TEN_FOR_200_TRICKS} tricks exceed it); "
            f"set max_team_bid to null or {TEN_FOR_200_TRICKS}..{MAX_TEAM_BID}, or ten_for_200: false"
        )
    _require(
        r.first_trick in FIRST_TRICK_CHOICES,
        "first_trick",
        f"must be one of {FIRST_TRICK_CHOICES}, got {quoted(r.first_trick)}",
    )
    _require(
        not (r.dealer_leads_any and r.first_trick == FIRST_TRICK_LOWEST_CLUB),
        "dealer_leads_any",
        "cannot be combined with first_trick: lowest_club",
    )
    if not r.partnerships:
        for key in ("ten_for_200", "blind_bids", "suicide"):
            _require(not getattr(r, key), key, "needs partnerships: true")
        _require(r.max_team_bid is None, "max_team_bid", "needs partnerships: true")
        _require(r.blind_nil_exchange == 0, "blind_nil_exchange", "needs partnerships: true (no exchange in cutthroat)")
    if r.num_players == 2:
        _check_two_players(r)
    else:
        _require(not r.discards_face_up, "discards_face_up", "needs num_players: 2 (there is no stock to discard from)")
    if r.mirror:
        _require(r.nil, "mirror", "needs nil: true (a player without trumps must bid nil)")
        for key in ("blind_nil", "ten_for_200", "blind_bids", "suicide"):
            _require(not getattr(r, key), key, "cannot be combined with mirror")
        _require(r.max_team_bid is None, "max_team_bid", "cannot be combined with mirror (bids are forced)")
    if r.suicide:
        _require(r.nil, "suicide", "needs nil: true")
        for key in ("ten_for_200", "blind_bids"):
            _require(not getattr(r, key), key, "cannot be combined with suicide")
    if not r.bids_may_total_tricks:
        for key in ("mirror", "suicide"):
            _require(not getattr(r, key), "bids_may_total_tricks", f"false cannot be combined with {key} (forced bids)")
    _check_game_values(r)
    if r.crazy is not None:
        _check_rotation(r)


def _check_game_values(r: Rules) -> None:
    """The scoring and game-end values in their ranges (RulesError naming the first that is not)."""
    _require(-10 <= r.bag_value <= 10, "bag_value", f"must be in -10..10, got {r.bag_value}")
    _require(
        r.bag_limit is None or 1 <= r.bag_limit <= 100, "bag_limit", f"must be null or in 1..100, got {r.bag_limit}"
    )
    _require(0 <= r.bag_penalty <= 1000, "bag_penalty", f"must be in 0..1000, got {r.bag_penalty}")
    _require(0 <= r.boston_bonus <= 1000, "boston_bonus", f"must be in 0..1000, got {r.boston_bonus}")
    _require(1 <= r.target_score <= 10000, "target_score", f"must be in 1..10000, got {r.target_score}")
    _require(
        r.lose_score is None or -10000 <= r.lose_score < 0,
        "lose_score",
        f"must be null or a negative number down to -10000, got {r.lose_score}",
    )
    _require(1 <= r.max_hands <= 10000, "max_hands", f"must be in 1..10000, got {r.max_hands}")


def _check_rotation(r: Rules) -> None:
    """A rotation (``crazy``) names known presets of one structure, with only game-level options beside it."""
    _require(len(r.crazy) > 0, "crazy", "must list at least one preset")
    # Per-hand options must stay at their defaults (so to_dict() round-trips): each hand takes its preset's.
    ignored = sorted(
        f.name
        for f in fields(r)
        if f.name not in GAME_LEVEL_FIELDS + ("crazy", "name") and getattr(r, f.name) != f.default
    )
    _require(
        not ignored,
        "crazy",
        f"option(s) {ignored} have no effect with a rotation: each hand takes its "
        f"preset's rules; only {list(GAME_LEVEL_FIELDS)} may be set beside it",
    )
    for name in r.crazy:
        _require(name in PRESETS, "crazy", f"unknown preset {quoted(name)}; presets: {sorted(PRESETS)}")
        _require(PRESETS[name].get("crazy") is None, "crazy", f"preset {quoted(name)} is itself a rotation")
        hand = preset(name)
        for key in STRUCTURAL_FIELDS:
            _require(
                getattr(hand, key) == getattr(r, key),
                "crazy",
                f"preset {name!r} has {key}={getattr(hand, key)!r} but the rotation has {getattr(r, key)!r}; "
                "a rotation cannot mix partnership and individual play",
            )


# Options that need partners, three or more players or a dealt hand, refused with two players (RULES.md
# section 9): option -> (its value that is allowed, why).
TWO_PLAYER_REFUSED: dict[str, tuple[Any, str]] = {
    "blind_nil": (False, "each player has seen every card of its hand while drawing"),
    "blind_nil_exchange": (0, "there is no partner to exchange with"),
    "ten_for_200": (False, "it is a partnership bid"),
    "blind_bids": (False, "they are partnership bids"),
    "suicide": (False, "it needs partners"),
    "mirror": (False, "the bids would not add up to the 13 tricks"),
    "max_team_bid": (None, "it needs partners"),
    "bids_may_total_tricks": (True, "no-hook is a three-player option"),
    "first_trick": (FIRST_TRICK_STANDARD, "the lowest club is often in the discards"),
    "jokers": (False, "two players draw from the 52-card pack"),
}


def _check_two_players(r: Rules) -> None:
    """Reject every option that two-player Spades cannot play, naming each (RULES.md section 9)."""
    refused = [f"{key} ({why})" for key, (allowed, why) in TWO_PLAYER_REFUSED.items() if getattr(r, key) != allowed]
    if refused:
        raise RulesError(
            "rules with num_players: 2 cannot use "
            + "; ".join(refused)
            + "; set them to their two-player values (see the two_player preset)"
        )


def _check_every_seat_can_bid(r: Rules) -> None:
    """Reject a ``max_team_bid`` out of range or leaving some seat without a legal bid (RULES.md section 3)."""
    # Every number bid is at least `lowest` (0 = nil, else 1) and the cap holds the partners' bids together,
    # so the first partner may bid up to cap - lowest and its partner what is left: both have a legal bid
    # whatever the first one bids iff cap >= 2 * lowest. Suicide pairs a nil with a bid of 1+ (within that
    # bound); mirror forces a bid and refuses the cap; 10 for 200 skips or cancels the partner's turn.
    if r.max_team_bid is None:
        return
    _require(
        1 <= r.max_team_bid <= MAX_TEAM_BID,
        "max_team_bid",
        f"must be null or in 1..{MAX_TEAM_BID}, got {r.max_team_bid}",
    )
    lowest = 0 if r.nil else 1
    if r.max_team_bid < 2 * lowest:
        raise RulesError(
            f"rules options 'max_team_bid' and 'nil': with nil: false every bid is at least "
            f"{lowest}, so max_team_bid {r.max_team_bid} leaves a seat without a legal bid; "
            f"set max_team_bid to at least {2 * lowest} or null"
        )


@functools.cache
def _crazy_hand_rules(rotation: Rules, name: str) -> Rules:
    game_level = {key: getattr(rotation, key) for key in GAME_LEVEL_FIELDS}
    return preset(name).replace(**game_level)


# Presets of RULES.md section 10, as overrides of Rules() (the standard rules).
PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "pagat": {
        "nil_value": 50,
        "nil_tricks_count_for_partner": True,
        "blind_nil_exchange": 2,
        "first_trick": FIRST_TRICK_LOWEST_CLUB,
    },
    "online": {"blind_nil_requires_deficit": None, "ten_for_200": True},
    "openspiel": {
        "nil_tricks_count_for_partner": True,
        "blind_nil": False,
        "max_team_bid": 13,
        "lose_score": -350,
    },
    "jokers": {"jokers": True},
    "barmore": {
        "jokers": True,
        "deuce_of_spades_high": True,
        "dealer_leads_any": True,
        "nil": False,
        "blind_nil": False,
        "blind_bids": True,
        "blind_bid_min": 7,
    },
    "cutthroat": {"partnerships": False},
    "cutthroat3": {"partnerships": False, "num_players": 3},
    "mirror": {"mirror": True, "blind_nil": False},
    "suicide": {"suicide": True},
    "crazy": {"crazy": ("standard", "jokers", "mirror", "suicide")},
    "two_player": {"num_players": 2, "partnerships": False, "blind_nil": False},
}


@functools.cache
def preset(name: str) -> Rules:
    """The named preset of RULES.md section 10."""
    if name not in PRESETS:
        raise RulesError(f"unknown rules preset {name!r}; presets: {sorted(PRESETS)}")
    return Rules(name=name, **PRESETS[name])


def unobserved_options() -> dict[str, str]:
    """The options a seat's observation leaves out on purpose, each with the reason (the field metadata
    ``UNOBSERVED``); every other option is written to the observation's rules blocks (``obs.features``)."""
    return {f.name: f.metadata[UNOBSERVED] for f in fields(Rules) if UNOBSERVED in f.metadata}


# Where each option is stated: the core functions that read it (``module.function`` in
# ``spades_env.core``), each in a form that serves one hand and many tables. The engines reach every
# option through these; tests/core/test_rule_homes.py checks that every field is here and that each
# function named reads it.
RULE_HOMES: dict[str, tuple[str, ...]] = {
    "num_players": ("rules.Rules.hand_size", "deal.deal_cards", "hand.HandState.__init__", "drawing.draw_rules"),
    "partnerships": ("rules.Rules.partner_of", "rules.Rules.side_of", "bidding.bid_rules"),
    "jokers": ("deal.deal_cards", "deal.make_deal"),
    "deuce_of_spades_high": ("hand._hand_rules",),
    "nil": ("bidding.bid_rules",),
    "nil_value": ("scoring._build_tables", "rules.Rules.blind_nil_points"),
    "blind_nil": ("bidding.bid_rules",),
    "blind_nil_value": ("rules.Rules.blind_nil_points",),
    "blind_nil_requires_deficit": ("bidding.bid_rules",),
    "blind_nil_exchange": ("bidding.bid_rules",),
    "nil_tricks_count_for_partner": ("scoring.counts_toward_contract",),
    "max_team_bid": ("bidding.bid_rules",),
    "ten_for_200": ("bidding.bid_rules",),
    "blind_bids": ("bidding.bid_rules",),
    "blind_bid_min": ("bidding.bid_rules",),
    "mirror": ("bidding.bid_rules",),
    "suicide": ("bidding.bid_rules",),
    "bids_may_total_tricks": ("bidding.bid_rules",),
    "first_trick": ("card_play.play_rules",),
    "dealer_leads_any": ("card_play.play_rules",),
    "bag_value": ("scoring._build_tables",),
    "bag_limit": ("scoring._carried_bags",),
    "bag_penalty": ("scoring._carried_bags",),
    "boston_bonus": ("scoring._build_tables",),
    "target_score": ("game._game_end",),
    "lose_score": ("game._game_end",),
    "max_hands": ("game._game_end",),
    "discards_face_up": ("drawing.draw_rules",),
    "crazy": ("rules.Rules.hand_rules",),
    "name": (),  # a label, not a rule
}
