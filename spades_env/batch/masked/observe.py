"""The masked engine's observation and state writers: what each table's seat sees, from the hands' arrays.

``observe(hands, observer, scores, bags, game_rules)`` writes every table's observation of a seat, exactly the
reference encoder's (:func:`spades_env.obs.encode.encode_observation`: the same layout object, the same
features), and ``state(...)`` the full-information state (:func:`spades_env.obs.encode.encode_state`), on the
hands' form (numpy or torch). They read a :class:`~spades_env.batch.masked.hands.MaskedHands` and change nothing.
"""

from __future__ import annotations

from typing import Any

from ...core.cards import NUM_CARDS
from ...core.drawing import (
    DRAW_TURNS,
    STOCK_SIZE,
    discards_seen,
    draw_rules,
    stock_left,
)
from ...core.rules import Rules
from ...core.visibility import cards_seen
from ...obs.encode import (
    BAGS_AT,
    BIDS_AT,
    BROKEN_AT,
    DEALER_AT,
    DISCARDED_AT,
    DRAW_RULES_AT,
    HAND_AT,
    KEPT_AT,
    LEADER_AT,
    LED_AT,
    OBS_SIZE,
    OFFERED_AT,
    PASSED_AT,
    PLAYED_AT,
    PLAYED_TRICK_AT,
    RECEIVED_AT,
    RULES_AT,
    SCORES_AT,
    STATE_SIZE,
    STOCK_SIZE_AT,
    TARGET_AT,
    TO_ACT_AT,
    TRICK_AT,
    TRICKS_AT,
    VOIDS_AT,
)
from ...obs.features import SCORE_SCALE_TARGET, bag_scale
from ...obs.layout import BID_FEATURES, NUM_BID_KINDS
from .form import DRAW
from .hands import MaskedHands


def observe(h: MaskedHands, observer: Any, scores: Any, bags: Any, game_rules: Rules) -> Any:
    """Each table's observation of the seat ``observer`` (``(tables,)``), ``(tables, OBS_SIZE)`` float32:
    exactly :func:`spades_env.obs.encode.encode_observation` of that seat (the same layout object, the same
    features); ``scores``/``bags``: ``(tables, sides)`` before the hand, ``game_rules``: the game's rules
    (the target and bag scale; a rotation's hand rules give the rules block)."""
    ops, f, n, T = h.ops, h.form, h.n, h.T
    obs = f.floats_zeros((T, OBS_SIZE + 1))  # the last column takes the writes of tables that have none
    rows = f.arange(T)
    sink = OBS_SIZE
    observer = f.ints(observer)

    def slot(seat: Any) -> Any:
        return (seat - observer) % n

    slots = (h._cols - observer[:, None]) % n  # each seat's slot, per table
    scores, bags = f.ints(scores), f.ints(bags)

    def one(col: Any, where: Any = None) -> None:
        col = col if where is None else ops.select(where, col, sink)
        f.put(obs, rows, col, 1.0)

    def block(at: int, width: int, values: Any) -> None:
        obs[:, at : at + width] = values

    def cards(at: int, board: Any) -> None:
        block(at, NUM_CARDS, h._card_floats(board))

    phase = h.phase
    one(h._phase_cells[phase])
    one(TO_ACT_AT + slot(ops.maximum(h.cur, 0)), h.cur >= 0)
    one(DEALER_AT + slot(h.dealer))
    one(LEADER_AT + slot(ops.maximum(h.leader, 0)), h.trick_n > 0)
    size = float(h.rules[0].hand_size)
    target = float(game_rules.target_score)
    scale = bag_scale(game_rules)
    for s in range(n):
        k = slots[:, s]
        kind, value = h.kinds[:, s], h.values[:, s]
        base = BIDS_AT + k * BID_FEATURES
        one(base + kind)
        one(base + NUM_BID_KINDS + value, h._has_value[kind])
        f.put(obs, rows, TRICKS_AT + k, f.to_floats(h.won[:, s]) / size)
        side = h._side[s]
        f.put(obs, rows, SCORES_AT + k, f.to_floats(scores[:, side]) / target)
        f.put(obs, rows, BAGS_AT + k, f.to_floats(bags[:, side]) / scale)
        f.put_rows(
            obs,
            PLAYED_AT + k[:, None] * NUM_CARDS + h._card_cols[:, :NUM_CARDS],
            h._card_floats(h.played[:, s]),
        )
        voids = ((h.voids[:, s][:, None] >> h._suit_shift[None]) & 1) != 0
        f.put_rows(obs, VOIDS_AT + k[:, None] * 4 + h._suit_cols, f.to_floats(voids))
        trick_here = h.trick_n > s
        seat_t, card_t = h.trick_seats[:, s], ops.minimum(h.trick_cards[:, s], NUM_CARDS - 1)
        one(TRICK_AT + slot(seat_t) * NUM_CARDS + card_t, trick_here)
    obs[:, BROKEN_AT] = f.to_floats(h.broken)
    obs[:, TARGET_AT] = target / SCORE_SCALE_TARGET
    block(RULES_AT.start, RULES_AT.stop - RULES_AT.start, h._rule_rows[h.rid])
    block(DRAW_RULES_AT.start, DRAW_RULES_AT.stop - DRAW_RULES_AT.start, h._draw_rule_rows[h.rid])

    def mine(boards: Any) -> Any:
        return ops.at(boards, observer)

    cards(HAND_AT, cards_seen(ops, mine(h.hands), ops.at(h.looked, observer), True))
    cards(PASSED_AT, mine(h.passed))
    cards(RECEIVED_AT, mine(h.received))
    cards(LED_AT, h.led)
    block(PLAYED_TRICK_AT, NUM_CARDS, f.to_floats(h.played_trick[:, :NUM_CARDS]) / size)
    if h.stock is not None:
        obs[:, STOCK_SIZE_AT] = f.to_floats(stock_left(h.draw_turn)) / STOCK_SIZE
        cards(KEPT_AT, mine(h.hands) | mine(h.played))
        at = 2 * ops.minimum(h.draw_turn, DRAW_TURNS - 1)
        offered = (phase == DRAW) & (h.cur == observer)
        one(OFFERED_AT + ops.at(h.stock, at), offered)
        seeing = draw_rules(h.rules[0])
        for s in range(n):
            k = slots[:, s]
            seen = discards_seen(ops, seeing, observer, s, h.discards[:, s])
            f.put_rows(obs, DISCARDED_AT + k[:, None] * NUM_CARDS + h._card_cols[:, :NUM_CARDS], h._card_floats(seen))
    return obs[:, :OBS_SIZE]


def state(h: MaskedHands, observer: Any, scores: Any, bags: Any, game_rules: Rules) -> Any:
    """Each table's full-information state relative to ``observer``, ``(tables, STATE_SIZE)`` float32: exactly
    :func:`spades_env.obs.encode.encode_state` (the observation with the observer's hand shown, every hand,
    every discard, the cards set aside and the stock, each card of it its place from the top + 1 over the
    stock's size)."""
    ops, f, n, T = h.ops, h.form, h.n, h.T
    observer = f.ints(observer)
    obs = observe(h, observer, scores, bags, game_rules)
    slots = (h._cols - observer[:, None]) % n
    bits = h._card_floats
    obs[:, HAND_AT : HAND_AT + NUM_CARDS] = bits(ops.at(h.hands, observer))  # shown, looked at or not
    hands = f.floats_zeros((T, n * NUM_CARDS))
    for s in range(n):
        cols = slots[:, s][:, None] * NUM_CARDS + h._card_cols[:, :NUM_CARDS]
        f.put_rows(hands, cols, bits(h.hands[:, s]))
        if h.stock is not None:  # every discard, seen or not
            f.put_rows(obs, DISCARDED_AT + cols, bits(h.discards[:, s]))
    stock = f.floats_zeros((T, NUM_CARDS + 1))  # the last column takes the cards gone from the stock
    if h.stock is not None:
        place = f.arange(STOCK_SIZE)[None] - 2 * h.draw_turn[:, None]  # from the top of what is left
        cards = ops.select(place >= 0, h.stock, NUM_CARDS)
        f.put_rows(stock, cards, f.to_floats(place + 1) / STOCK_SIZE)
    tail = STATE_SIZE - OBS_SIZE - n * NUM_CARDS - 2 * NUM_CARDS  # the hands block's slots nobody sits in
    return f.concat1([obs, hands, f.floats_zeros((T, tail)), bits(h.aside), stock[:, :NUM_CARDS]])
