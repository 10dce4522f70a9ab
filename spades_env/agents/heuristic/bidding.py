"""Bidding of the heuristic: trick estimates, nil risk, the bid, blind decisions and the exchange.

* :func:`estimate_tricks`: side-suit aces, kings and queens count by suit
  length (the per-card probabilities of "Bidding in Spades", ECAI 2020, as
  a prior, raised when the honours are backed by higher ones); spades count
  by rank against the trumps missing above them with enough small spades to
  guard them, and every spade beyond the usual length as a trick; short side
  suits add ruffing value only with spare spades.
* :func:`nil_risk`: a rough chance that a nil with the hand takes a trick.
* :func:`choose_bid`: adapts to the bids already made (shading down when the
  table is over-bid, covering a partner's nil) and to the score (safer near
  the target, higher near the bag limit, nil more readily behind a side
  about to win); bids nil when the estimated chance of taking a trick is low
  enough for nil to beat the number bid, 10 for 200 with a partnership
  estimate of 11+, and always picks a legal action (mirror's forced bid,
  suicide's pairing, ``max_team_bid`` and no-hook limits come from the mask).
* :func:`choose_blind`: blind nil (or a Barmore blind bid) only as a
  comeback when far behind (strong style: only when 200 behind a leader
  within 100 of the target; a blind nil without an exchange fails about
  three times in four).
* Strong style, nil: the estimated nil risk is scaled down by a further
  :data:`BOLD_NIL_DISCOUNT` (about 60% more nils at about 71% success
  instead of 75%; measured on games to 500 against the classic style).
* Strong style, fitted nil risk (``fitted_nil``): where :func:`.nil_model.fits` the rules (four
  players in partnerships, 52 cards, the deuce low), the nil risk is the fitted model's calibrated
  chance (:mod:`.nil_model`, which reads the partner's bid and the seat's place in the bidding itself),
  instead of the hand-written risk scaled and adjusted above. On 2,000 duplicate deals against the
  classic style (seed 101): about as many nils (890 against 887 with the hand-written risk), made
  73.8% of the time instead of 67.1%.
* Strong style, last bidder: one trick more when the table's bids leave 4
  or more tricks spare (they fall to someone as bags).
* Strong style, two players (``two_player_bids``): the bid comes from a model
  fitted on two-player self-play (:func:`two_player_tricks`): the expected
  tricks are linear in the four-player estimate of the hand promoted past
  the discards the seat has seen (``table.promoted``), and for the second
  bidder in the other's number bid (13 tricks are shared by two); the bid is
  that expectation plus :data:`TWO_PLAYER_BIAS`, rounded down (the offset
  with the most points, each bag charged its game cost of 10, on the fitting
  data). Nil only below :data:`TWO_PLAYER_NIL_RISK_MAX`. On 2,000 duplicate
  deals against the strong style without it (sampled scores, seed 11):
  +5.88 [+4.72, +7.05] points per deal with bags charged 10, and 63.0% of 400 games.
* :func:`choose_exchange` (blind nil): the nil bidder passes its most
  dangerous cards (high spades, aces, kings); its partner passes back its
  lowest side cards.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ...core import actions as A
from ...core.cards import CARD_SUIT, NUM_RANKS, SPADE_MASK, SUIT_MASKS, TRUMP, cards_of
from ...core.drawing import TWO_PLAYERS
from ...core.rules import POINTS_PER_BID_TRICK, Rules
from ...core.scoring import NIL_KINDS, BidKind
from .nil_model import fits, fitted_nil_risk
from .table import (
    ACE,
    BAG_PRESSURE_MARGIN,
    CLASSIC,
    KING,
    NO_PARTNER,
    QUEEN,
    SIDE_SUITS,
    TABLES,
    TRUMPS_DESC,
    Style,
    promoted,
)

# ---- trick estimate
# Side-suit honour values by suit length (index = cards held in the suit).
ACE_VALUE = (0.0, 0.98, 0.985, 0.983, 0.970, 0.948, 0.915, 0.857, 0.774, 0.65, 0.5, 0.4, 0.3, 0.2, 0.1)
KING_VALUE = (0.0, 0.2, 0.62, 0.78, 0.74, 0.62, 0.48, 0.33, 0.2, 0.1, 0.05, 0.0, 0.0, 0.0, 0.0)
QUEEN_VALUE = (0.0, 0.03, 0.15, 0.42, 0.32, 0.2, 0.09, 0.02, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
SPADE_GUARDED = (1.0, 0.85, 0.62, 0.45, 0.32, 0.25)  # by trumps missing above, when guarded
# A spade one guard short of its missing trumps: worth this much (the first two missing: more).
SPADE_SHORT_GUARD = {True: 0.15, False: 0.05}
LONG_SPADE_VALUE = 0.95  # a spade beyond the usual length
LONG_SPADES_FROM = {2: 4, 3: 5, 4: 4}  # by players: spades beyond this many are length tricks
SHORTNESS_VALUE = (2.0, 1.0, 0.3)  # ruffing value of a void, a singleton, a doubleton
KING_WITH_ACE = (0.85, 0.5)  # a king under its ace: in a suit of up to 5 (effective) cards, and longer
QUEEN_WITH_ACE_KING = (0.6, 0.25)  # a queen under both: in a suit of up to 4 cards, and longer
QUEEN_WITH_ONE = (0.35, 0.15)  # a queen under the ace or the king: in a suit of 3+ cards, and shorter
SPARE_SPADES_MIN = 0.5  # spades beyond their own tricks needed to count ruffs
RUFF_VALUE = {2: 0.75, 3: 0.6, 4: 0.75}  # by players: tricks per ruffing chance with spare spades

# ---- nil risk
NIL_TOP_TRUMPS = 2  # a spade with at most this many trumps above it nearly always wins a trick
NIL_TOP_TRUMP_RISK = 0.9
NIL_HIGH_SPADE_FROM = 7  # rank from the bottom of the pack's trumps (the nine and up in a standard pack)
NIL_HIGH_SPADE_RISK = (0.35, 0.05)  # base, and per rank above NIL_HIGH_SPADE_FROM
NIL_LOW_SPADE_RISK = (0.04, 0.03)  # base, and per rank from the bottom
NIL_SPADE_BELOW = 0.05  # each of one's own spades below a spade raises its risk
NIL_SPADE_RISK_MAX = 0.95
NIL_SPADES_OK = {2: 3, 3: 4, 4: 3}  # by players: spades a nil can hold before each extra one multiplies the safety
NIL_EXTRA_SPADE_SAFETY = 0.55
NIL_SIDE_RISK = {ACE: 0.85, KING: 0.55, QUEEN: 0.35, 9: 0.2, 8: 0.1, 7: 0.05}  # side cards by power (J, 10, 9)
NIL_SMALL_SIDE_RISK = (4, 0.01)  # side cards from the six up (power 4) below the jack risk this much
NIL_GUARD = (1.0, 0.55, 0.3, 0.18, 0.12)  # multiplies a side card's risk by own lower cards in the suit
NIL_LONG_SUIT = (6, 0.05)  # a side suit this long adds this risk to each of its cards


@dataclass(frozen=True)
class BidParams:
    """Tunable constants of the bidding."""

    bias: float = 0.3  # added to the trick estimate before rounding down
    nil_risk_max: float = 0.6  # never bid nil above this estimated risk
    nil_risk_scale: float = 0.7  # multiplies nil_risk (calibration of the risk model)

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"bid parameter {name} must be a number, got {value!r}")
            if not math.isfinite(value):
                raise ValueError(f"bid parameter {name} must be finite, got {value!r}")


DEFAULT_BID_PARAMS = BidParams()

# ---- the bid
# Bids that add tricks to the table's total (nils count 0, cancelled and skipped bids nothing).
TABLE_TOTAL_KINDS = (BidKind.NUMBER, BidKind.TEN_FOR_200, BidKind.BLIND)
BAG_PRESSURE_BIAS = 0.3
NEAR_TARGET = 100  # points from the target score that count as about to win
LEADING_BIAS = -0.2  # near the target and ahead: bid safe
DESPERATE_DEFICIT = 50  # behind a side about to win by this much: dare a nil
PARTNER_GUESS = 3.2  # tricks expected of a partner who has not bid yet (10 for 200)
PARTNER_NIL_GUESS = 2.0  # tricks a nil bidder still helps with (10 for 200)
TEN_FOR_200_ESTIMATE = 11.0  # partnership estimate that bids 10 for 200
# A partner's number bid scales the nil risk: (bid from, factor), strongest first, else the last factor.
PARTNER_BID_NIL_FACTOR = ((5, 0.8), (3, 1.0))
WEAK_PARTNER_NIL_FACTOR = 1.15  # also: no partner at all
NUMBER_BID_DISCOUNT = 0.9  # expected share of a number bid's points
PARTNER_BONUS = 8.0  # points a number bid gains from the partner's tricks counting with it
SUICIDE_NIL_RISK_MAX = 0.45  # suicide, first of the partnership: a nil needs less risk than usual
DESPERATE_NUMBER_DISCOUNT = 0.7
DESPERATE_RISK_ALLOWANCE = 0.1
NIL_COVER_BID = (0.5, 4, 2)  # covering a partner's nil: round the estimate (+0.5), at least min(4, est + 2)
OVERBID_SLACK = 0.5  # the table is over-bid when its total plus the estimate exceeds the tricks by this
BOLD_NIL_DISCOUNT = 0.1  # strong style: taken off the nil risk scale (0.7 -> 0.6), so that more hands bid nil
UNDERBID_SPARE = 4  # strong style, last bidder: the table is under-bid when this many tricks are left over

# ---- two players (strong style: ``two_player_bids``)
# Least squares on 73,628 number-bid hands of two-player self-play of the strong style before this switch:
# the tricks a seat took against the four-player estimate of its hand promoted past the discards it had seen
# (table.promoted), and, bidding second, the other's number bid: `python benchmarks/fit_two_player_bids.py
# --games 3000 --seed 0` (2026-12-05; residual sd 1.27 bidding first, 1.04 second; docs/evaluation.md).
TWO_FIRST_FIT = (0.893, 0.883)  # bidding first: tricks = a + b * estimate
TWO_SECOND_FIT = (6.136, 0.545, -0.512)  # bidding second: tricks = a + b * estimate + c * the first bid
TWO_PLAYER_BIAS = -0.5  # added to the fitted tricks before rounding down: the most points at a bag's game cost
TWO_PLAYER_NIL_RISK_MAX = 0.15  # a two-player nil needs this little risk (329 nils bid at higher risk: 15.5% made)

# ---- blind decisions
BLIND_NIL_DEFICIT = 200  # behind by this much: blind nil
BLIND_NIL_LATE = (100, 120)  # or behind by 100 with the leader within 120 of the target
STRICT_BLIND_NIL = (200, 100)  # strict: behind by this much with the leader within this much of the target
BLIND_BID_DEFICIT = 150  # behind by this much: a blind bid
BLIND_BID_LATE = (50, 100)  # or behind by more than 50 with the leader within 100 of the target

# ---- exchange
EXCHANGE_TRUMP_DANGER = 20.0  # any trump is more dangerous than a side card
EXCHANGE_GUARD_WEIGHT = 2.5  # a side card's danger falls by this per own lower card in its suit
EXCHANGE_GUARDS_MAX = 3


def _row(table: Sequence[float], length: int) -> float:
    return table[min(max(length, 0), len(table) - 1)]


def _spade_tricks(hand: int, rules: Rules) -> float:
    """Tricks of the hand's spades: honours against the trumps missing above them, then length."""
    n_spades = (hand & SPADE_MASK).bit_count()
    length_from = LONG_SPADES_FROM[rules.num_players]
    missing = 0
    idx = 0
    spade_tricks = 0.0
    for c in TRUMPS_DESC[rules.jokers, rules.deuce_of_spades_high]:
        if not hand >> c & 1:
            missing += 1
            continue
        guards = n_spades - idx - 1
        if missing == 0:
            value = 1.0
        elif guards >= missing:
            value = SPADE_GUARDED[min(missing, len(SPADE_GUARDED) - 1)]
        elif guards + 1 == missing:
            value = SPADE_SHORT_GUARD[missing <= 2]
        else:
            value = 0.0
        if idx >= length_from:
            value = max(value, LONG_SPADE_VALUE)
        spade_tricks += value
        idx += 1
    return spade_tricks


def _honour_value(cards: int, base: int, eff: int) -> float:
    """Tricks of the ace, king and queen of one side suit (``eff``: its effective length)."""
    ace, king, queen = cards >> (base + ACE) & 1, cards >> (base + KING) & 1, cards >> (base + QUEEN) & 1
    value = 0.0
    if ace:
        value += _row(ACE_VALUE, eff)
    if king:
        value += (KING_WITH_ACE[0] if eff <= 5 else KING_WITH_ACE[1]) if ace else _row(KING_VALUE, eff)
    if queen:
        if ace and king:
            value += QUEEN_WITH_ACE_KING[0] if eff <= 4 else QUEEN_WITH_ACE_KING[1]
        elif ace or king:
            value += QUEEN_WITH_ONE[0] if eff >= 3 else QUEEN_WITH_ONE[1]
        else:
            value += _row(QUEEN_VALUE, eff)
    return value


def estimate_tricks(hand: int, rules: Rules) -> float:
    """Expected tricks of a hand (bitboard) under the rules; see the module docstring."""
    three = rules.num_players == 3
    shift = 1 if three else 0  # a three-player hand is longer: each suit counts one card shorter
    total = 0.0
    spade_tricks = _spade_tricks(hand, rules)
    total += spade_tricks
    shortness = 0.0
    for s in SIDE_SUITS:
        cards = hand & SUIT_MASKS[s]
        length = cards.bit_count()
        if length < len(SHORTNESS_VALUE):
            shortness += SHORTNESS_VALUE[length]
        if length == 0:
            continue
        total += min(_honour_value(cards, NUM_RANKS * s, max(length - shift, 1)), length)
    spare = (hand & SPADE_MASK).bit_count() - spade_tricks
    if spare > SPARE_SPADES_MIN and shortness:
        total += min(spare, shortness) * RUFF_VALUE[rules.num_players]
    return total


def _nil_spades_safety(hand: int, rules: Rules) -> float:
    """Chance that the hand's spades take no trick in a nil."""
    safe = 1.0
    trumps = TRUMPS_DESC[rules.jokers, rules.deuce_of_spades_high]
    spades = [c for c in trumps if hand >> c & 1]
    n_trumps = len(trumps)
    for i, c in enumerate(spades):
        above = trumps.index(c)  # trumps above it in the pack
        below_mine = len(spades) - i - 1
        rank_from_bottom = n_trumps - 1 - above
        if above <= NIL_TOP_TRUMPS:
            risk = NIL_TOP_TRUMP_RISK
        elif rank_from_bottom >= NIL_HIGH_SPADE_FROM:
            risk = NIL_HIGH_SPADE_RISK[0] + NIL_HIGH_SPADE_RISK[1] * (rank_from_bottom - NIL_HIGH_SPADE_FROM)
        else:
            risk = NIL_LOW_SPADE_RISK[0] + NIL_LOW_SPADE_RISK[1] * rank_from_bottom
        risk += NIL_SPADE_BELOW * below_mine
        safe *= 1.0 - min(risk, NIL_SPADE_RISK_MAX)
    extra = len(spades) - NIL_SPADES_OK[rules.num_players]
    if extra > 0:
        safe *= NIL_EXTRA_SPADE_SAFETY**extra
    return safe


def nil_risk(hand: int, rules: Rules) -> float:
    """Rough chance that a nil with this hand takes a trick."""
    tables = TABLES[rules.deuce_of_spades_high]
    power = tables.power
    safe = _nil_spades_safety(hand, rules)
    small_from, small_risk = NIL_SMALL_SIDE_RISK
    long_suit, long_risk = NIL_LONG_SUIT
    for s in SIDE_SUITS:
        cards = hand & SUIT_MASKS[s]
        length = cards.bit_count()
        for c in cards_of(cards):
            rank = power[c]
            low = (cards & ~tables.higher[c]).bit_count() - 1  # my cards below it in the suit
            base = NIL_SIDE_RISK.get(rank, small_risk if rank >= small_from else 0.0)
            risk = base * NIL_GUARD[min(low, len(NIL_GUARD) - 1)]
            if length >= long_suit:
                risk += long_risk
            safe *= 1.0 - risk
    return 1.0 - safe


def _legal_bids(mask: int) -> list[int]:
    return [a - A.BID_OFFSET for a in range(A.BID_OFFSET, A.BID_OFFSET + A.MAX_BID + 1) if mask >> a & 1]


def _nearest_bid(mask: int, target: int) -> int:
    bids = _legal_bids(mask)
    if not bids:
        return -1
    numbers = [b for b in bids if b > 0] or bids
    best = min(numbers, key=lambda b: (abs(b - target), b))
    return A.BID_OFFSET + best


@dataclass(frozen=True)
class _Bidding:
    """What a bid decision reads: the seat, its partner, the estimate and the score situation."""

    rules: Rules
    hand: int
    legal: int
    partner: int
    partner_kind: int
    est: float
    bias: float
    desperate: bool
    two: bool = False  # two players, bid by the fitted model (style ``two_player_bids``)


def two_player_tricks(hand: int, rules: Rules, gone: int = 0, first_bid: int | None = None) -> float:
    """Expected tricks of a two-player hand: the fitted model of the estimate of the hand promoted past the cards
    ``gone`` (the discards seen), bidding first (``first_bid`` None) or after the other's number bid."""
    est = estimate_tricks(promoted(hand, gone) if gone else hand, rules)
    if first_bid is None:
        a, b = TWO_FIRST_FIT
        return a + b * est
    a, b, c = TWO_SECOND_FIT
    return a + b * est + c * first_bid


def _bidding(
    rules: Rules,
    hand: int,
    legal: int,
    me: int,
    kinds: Sequence[int],
    values: Sequence[int],
    scores: Sequence[int],
    bags: Sequence[int],
    params: BidParams,
    style: Style,
    gone: int,
) -> _Bidding:
    """The bid situation. The score: near the target play safe, behind a side about to win dare a nil,
    near the bag limit bid up."""
    partner = rules.partner_of(me)
    partner = NO_PARTNER if partner is None else partner
    own = scores[me]
    best_other = max(scores[s] for s in range(rules.num_players) if rules.side_of(s) != rules.side_of(me))
    target_score = rules.target_score
    two = style.two_player_bids and rules.num_players == TWO_PLAYERS
    bias = TWO_PLAYER_BIAS if two else params.bias
    if rules.bag_limit is not None and bags[me] >= rules.bag_limit - BAG_PRESSURE_MARGIN:
        bias += BAG_PRESSURE_BIAS
    if own >= target_score - NEAR_TARGET and own >= best_other:
        bias += LEADING_BIAS
    desperate = best_other >= target_score - NEAR_TARGET and best_other - own >= DESPERATE_DEFICIT
    partner_kind = kinds[partner] if partner >= 0 else BidKind.NONE
    if two:
        other = 1 - me
        est = two_player_tricks(hand, rules, gone, values[other] if kinds[other] == BidKind.NUMBER else None)
    else:
        est = estimate_tricks(hand, rules)
    return _Bidding(rules, hand, legal, partner, partner_kind, est, bias, desperate, two)


def _ten_for_200(b: _Bidding, values: Sequence[int]) -> bool:
    """Whether to bid 10 for 200: the partnership's estimate reaches 11."""
    partner_est = values[b.partner] if b.partner_kind == BidKind.NUMBER else PARTNER_GUESS
    if b.partner_kind in NIL_KINDS:
        partner_est = PARTNER_NIL_GUESS
    return b.est + partner_est >= TEN_FOR_200_ESTIMATE


def _nil_factor(partner_bid: int) -> float:
    for bid_from, factor in PARTNER_BID_NIL_FACTOR:
        if partner_bid >= bid_from:
            return factor
    return WEAK_PARTNER_NIL_FACTOR


def _nil_risk(
    b: _Bidding, me: int, kinds: Sequence[int], values: Sequence[int], params: BidParams, style: Style
) -> float:
    """The chance that a nil takes a trick: the fitted model (strong style, where it applies), else the
    hand-written one, scaled and adjusted for the partner's bid."""
    if b.partner >= 0 and b.partner_kind in NIL_KINDS:
        return 1.0  # no double nil
    if style.fitted_nil and fits(b.rules):
        return fitted_nil_risk(b.hand, kinds, me, b.partner, values)  # calibrated; it reads the partner's bid
    if b.two:
        return nil_risk(b.hand, b.rules)  # unscaled: its threshold is the two-player one
    scale = max(params.nil_risk_scale - (BOLD_NIL_DISCOUNT if style.bold_nil else 0.0), 0.0)
    risk = nil_risk(b.hand, b.rules) * scale
    if b.partner < 0:
        return risk * WEAK_PARTNER_NIL_FACTOR
    if b.partner_kind == BidKind.NUMBER:
        return risk * _nil_factor(values[b.partner])
    return risk


def _nil_wins(
    b: _Bidding, me: int, kinds: Sequence[int], values: Sequence[int], params: BidParams, style: Style
) -> bool:
    """Whether nil beats a number bid: low enough risk, and more expected points."""
    rules = b.rules
    risk = _nil_risk(b, me, kinds, values, params, style)
    nil_points = rules.nil_value * (1.0 - 2.0 * risk)
    number_points = POINTS_PER_BID_TRICK * max(b.est, 1.0) * NUMBER_BID_DISCOUNT + (
        PARTNER_BONUS if b.partner >= 0 else 0.0
    )
    suicide_first = rules.suicide and b.partner_kind == BidKind.NONE
    threshold = SUICIDE_NIL_RISK_MAX if suicide_first else params.nil_risk_max
    if b.two:
        threshold = TWO_PLAYER_NIL_RISK_MAX
    if b.desperate:
        number_points *= DESPERATE_NUMBER_DISCOUNT
        threshold += DESPERATE_RISK_ALLOWANCE
    return risk < threshold and nil_points > number_points


def _number_target(b: _Bidding, me: int, kinds: Sequence[int], values: Sequence[int], style: Style) -> int:
    """The number to bid: the estimate (with the bias), shaded down at an over-bid table."""
    rules = b.rules
    est = b.est
    num_tricks = rules.num_tricks
    if b.two:  # the fitted model has read the other's bid already
        target = int(est + b.bias)
    elif b.partner >= 0 and b.partner_kind in NIL_KINDS:
        round_up, floor, extra = NIL_COVER_BID
        target = max(int(est + round_up), min(floor, int(est + extra)))
    else:
        bids_before = [s for s in range(rules.num_players) if kinds[s] != BidKind.NONE and s != me]
        table_total = sum(values[s] for s in bids_before if kinds[s] in TABLE_TOTAL_KINDS)
        target = int(est + b.bias)
        if table_total + est > num_tricks + OVERBID_SLACK and bids_before:
            target -= 1
        last = len(bids_before) == rules.num_players - 1
        if style.underbid_raise and last and table_total + target <= num_tricks - UNDERBID_SPARE:
            target += 1  # spare tricks fall to someone as bags: count one of them
    return max(1, min(target, num_tricks))


def choose_bid(
    rules: Rules,
    hand: int,
    legal: int,
    me: int,
    kinds: Sequence[int],
    values: Sequence[int],
    scores: Sequence[int],
    bags: Sequence[int],
    params: BidParams = DEFAULT_BID_PARAMS,
    style: Style = CLASSIC,
    gone: int = 0,
) -> int:
    """A bid action for seat ``me`` (seats may be slots); ``scores``/``bags`` per seat (its side's); ``gone``:
    the cards the seat knows to be out of play (two players: the discards it has seen)."""
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    b = _bidding(rules, hand, legal, me, kinds, values, scores, bags, params, style, gone)
    if legal >> A.TEN_FOR_200 & 1 and _ten_for_200(b, values):
        return A.TEN_FOR_200
    if legal >> A.BID_OFFSET & 1 and rules.nil:
        if not any(bid > 0 for bid in _legal_bids(legal)):
            return A.BID_OFFSET
        if _nil_wins(b, me, kinds, values, params, style):
            return A.BID_OFFSET
    return _nearest_bid(legal, _number_target(b, me, kinds, values, style))


def choose_blind(
    rules: Rules,
    legal: int,
    me: int,
    kinds: Sequence[int],
    scores: Sequence[int],
    target_score: int,
    style: Style = CLASSIC,
) -> int:
    """At a blind decision: blind nil or a blind bid only as a comeback, else look at the cards."""
    n = rules.num_players
    own = scores[me]
    best_other = max(scores[s] for s in range(n) if rules.side_of(s) != rules.side_of(me))
    deficit = best_other - own
    partner = rules.partner_of(me)
    partner_kind = kinds[partner] if partner is not None else BidKind.NONE
    late_deficit, late_margin = BLIND_NIL_LATE
    desperate = deficit >= BLIND_NIL_DEFICIT or (deficit >= late_deficit and best_other >= target_score - late_margin)
    if style.strict_blind_nil:  # a blind nil fails often: only when the game is otherwise lost
        strict_deficit, strict_margin = STRICT_BLIND_NIL
        desperate = deficit >= strict_deficit and best_other >= target_score - strict_margin
    if legal >> A.BLIND_NIL & 1 and desperate and partner_kind not in NIL_KINDS:
        return A.BLIND_NIL
    blind_bids = [a for a in A.BLIND_BID_ACTIONS if legal >> a & 1]
    late_deficit, late_margin = BLIND_BID_LATE
    if blind_bids and (
        deficit >= BLIND_BID_DEFICIT or (deficit > late_deficit and best_other >= target_score - late_margin)
    ):
        return blind_bids[0]
    return A.SEE_CARDS


def choose_exchange(rules: Rules, hand: int, legal: int, me_is_nil: bool) -> int:
    """The card to pass in a blind-nil exchange."""
    tables = TABLES[rules.deuce_of_spades_high]
    power = tables.power
    cards = cards_of(legal & hand) or cards_of(legal)
    if me_is_nil:
        # Pass the most dangerous card: trumps by rank first, then side honours with few guards.
        def danger(c: int) -> float:
            if CARD_SUIT[c] == TRUMP:
                return EXCHANGE_TRUMP_DANGER + power[c]
            suit = hand & SUIT_MASKS[CARD_SUIT[c]]
            low = (suit & ~tables.higher[c]).bit_count() - 1
            return power[c] - EXCHANGE_GUARD_WEIGHT * min(low, EXCHANGE_GUARDS_MAX)

        return max(cards, key=danger)
    side = [c for c in cards if CARD_SUIT[c] != TRUMP]
    return min(side or cards, key=lambda c: (power[c], c))
