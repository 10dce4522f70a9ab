"""Vectorized batch engine: many Spades tables stepped together with numpy.

``BatchEnv(num_envs, rules="standard", episode="game", seed=0, reward="hand_points")``
plays ``num_envs`` independent tables. Every table always has a seat to act:
a table whose episode ends starts a new one in the same step (auto-reset) and
reports how the finished one ended in ``info``.

* ``reset(seed=None)`` -> ``(obs, mask, to_act)``: float32 ``(num_envs, 755)``,
  int8 ``(num_envs, 88)`` and ``(num_envs,)`` seats to act.
* ``step(actions, observe=None)`` -> ``(obs, mask, to_act, rewards, dones, info)``;
  ``actions`` holds one action per table. ``rewards`` is float64
  ``(num_envs, num_players)``: exactly what the AEC env (``raw_env``) pays each
  seat at that step (the reward scheme's ``hand_end`` at a hand's end, plus
  ``episode_end`` when the episode ends), so partners share it. ``dones``
  marks tables whose episode ended at this step (terminated or truncated, see
  ``info``); their ``obs``, ``mask`` and ``to_act`` are already those of the
  next episode. ``observe=False`` (or ``BatchEnv(..., observations=False)``)
  skips the observations: ``obs`` is then ``None``.
* The observation of a table is exactly ``raw_env.observe(agent)["observation"]``
  of the seat to act in the same state, and the mask its ``action_mask``.
* An illegal action at any table raises :class:`IllegalActionError` naming the
  table, the action and the legal actions there; no table changes.
* Output buffers are reused. With ``output_buffers=2`` (default) ``obs`` and
  ``mask`` alternate between two buffers: the arrays of one step stay valid
  during the next ``step`` call (``obs`` / ``next_obs`` pairs are safe) and are
  overwritten by the one after. ``output_buffers=1`` reuses one buffer (valid
  until the next call). Copy them to keep them longer. ``to_act``, ``rewards``
  and ``dones`` are fresh arrays.
* ``info`` is a read-only mapping (:class:`StepInfo`) of arrays with one row per
  table, built on first access; rows of other tables hold 0, or -1 where noted:
  ``hand_over`` (the table's hand ended at this step) and that hand's
  ``hand_index`` (-1), ``hand_dealer`` (-1), ``hand_rules_id`` (index into
  ``info["hand_rules"]``, the preset names), ``points``, ``scores`` and ``bags``
  (after the hand), ``tricks``, ``bid_kinds`` and ``bid_values`` (``BidKind``
  codes and values per seat), ``contracts``, ``made``, ``bag_penalties``,
  ``nil_made`` (-1 no nil, 0 failed, 1 made); for tables whose episode ended:
  ``done``, ``terminated``, ``truncated``, ``winner`` (side, -1 if none or a
  tie), ``final_scores``, ``final_bags``, ``episode_hands``,
  ``episode_dealer`` (the first dealer, -1) and ``episode_deals`` (a mapping
  table -> the episode's deals, with ``record_deals``).
  ``BatchEnv.hand_result(info, i)`` returns the AEC env's ``hand_result`` dict.
* Replaying a table in the AEC env: ``raw_env.reset(options={"deals":
  env.episode_deals(i), "dealer": env.episode_dealer(i)})`` (or
  ``info["episode_deals"][i]`` and ``info["episode_dealer"][i]`` for a finished
  episode) plays the same episode (scores and bags start at 0).
* ``state()``: the full-information array (``STATE_SIZE``) of every table,
  relative to the seat to act, equal to :func:`spades_env.encoding.encode_state`.
  ``observe(seats)``: observations of any seat at each table.
* Attributes: ``num_envs``, ``num_players``, ``num_sides``, ``obs_size``,
  ``state_size``, ``num_actions``, ``rules``; per table ``scores``, ``bags``,
  ``dealer``, ``hand_index``, ``phase``, ``cur`` (read them, do not write).

Every preset and every rules option is vectorized: no step runs a per-table
Python loop. Hands are uint64 bitboards (card ``c`` is bit ``c``, jokers 52
and 53); the tables in play are stepped with whole-array operations and the
tables in other phases (bidding, exchange, hand end) as index groups; a crazy
rotation keeps a rules id per table; deals are drawn in batches from the
engine's own ``numpy.random.Generator``. Observations are built from scratch
at each step: the card blocks are gathered as bitboards relative to the
observer and unpacked with ``numpy.unpackbits``, the small blocks come from
lookup tables, and rows are written in cache-sized blocks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Iterator

import numpy as np

from .config_io import load_rules
from .core import actions as A
from .core.cards import CARD_SUIT, NON_SPADE_MASK, NUM_CARDS, SPADE_MASK, SUIT_MASKS, Suit, cards_of, deck
from .core.hand import IllegalActionError, Phase, win_keys
from .core.rules import (
    BLIND_BID_MULTIPLIER,
    FIRST_TRICK_LOWEST_CLUB,
    POINTS_PER_BID_TRICK,
    TEN_FOR_200_POINTS,
    TEN_FOR_200_TRICKS,
    Rules,
)
from .core.scoring import Bid, BidKind
from .encoding import (
    BID_FEATURES,
    MAX_BID_ONE_HOT,
    NUM_BID_KINDS,
    OBS_SIZE,
    OBS_SLICES,
    SCORE_SCALE_TARGET,
    STATE_SIZE,
    STATE_SLICES,
    bag_scale,
    bid_offset,
    rule_features,
)
from .rewards import RewardScheme, hand_winner, make_reward

__all__ = ["BatchEnv", "IllegalActionError", "StepInfo", "EPISODE_MODES"]

EPISODE_MODES = ("game", "hand")
NUM_ACTIONS = A.NUM_ACTIONS

# ----------------------------------------------------------------- constants
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_BLIND, _BID, _EXCHANGE, _PLAY, _OVER = (int(p) for p in Phase)
_NONE, _NUMBER, _NIL, _BLIND_NIL, _TEN, _BLINDBID, _SKIPPED, _CANCELLED = (int(k) for k in BidKind)
_CODE_STRIDE = MAX_BID_ONE_HOT  # bid code = kind * 18 + value
_ZERO_CODE = NUM_BID_KINDS * _CODE_STRIDE  # a bid slot that encodes as zeros (slot 3 with 3 players)

CARD_BIT = np.array([1 << c for c in range(64)], dtype=np.uint64)
# By action: the card's bit (0 for the other actions) and suit (0 for the other actions).
_ACTION_CARD_BIT = np.array([1 << a if a < NUM_CARDS else 0 for a in range(A.NUM_ACTIONS)], dtype=np.uint64)
_ACTION_SUIT = np.array([CARD_SUIT[a] if a < NUM_CARDS else 0 for a in range(A.NUM_ACTIONS)], dtype=np.intp)
SUIT_MASK_ARR = np.array(SUIT_MASKS, dtype=np.uint64)
_SPADES = np.uint64(SPADE_MASK)
_NON_SPADES = np.uint64(NON_SPADE_MASK)
_CLUBS = np.uint64(SUIT_MASKS[Suit.CLUBS])
_REDS = np.uint64(SUIT_MASKS[Suit.DIAMONDS] | SUIT_MASKS[Suit.HEARTS])


def _split(mask: int) -> tuple[int, int]:
    """A legal-action bitmask as two uint64 words: actions 0..63 and 64..87."""
    return mask & ((1 << 64) - 1), mask >> 64


def _hi(action: int) -> np.uint64:
    assert action >= 64
    return np.uint64(1 << (action - 64))


_BLIND_NIL_HI = _hi(A.BLIND_NIL)
_SEE_HI = _hi(A.SEE_CARDS)
_TEN_HI = _hi(A.TEN_FOR_200)


def _range_tables() -> tuple[np.ndarray, np.ndarray]:
    """RANGE[low, high + 1]: the (lo, hi) words of the bids low..high (none if high < low)."""
    lo = np.zeros((A.MAX_BID + 1, A.MAX_BID + 2), np.uint64)
    hi = np.zeros_like(lo)
    for low in range(A.MAX_BID + 1):
        for high in range(-1, A.MAX_BID + 1):
            mask = sum(1 << (A.BID_OFFSET + b) for b in range(low, high + 1))
            lo[low, high + 1], hi[low, high + 1] = _split(mask)
    return lo, hi


_RANGE_LO, _RANGE_HI = _range_tables()
_BID_LO = np.array([_split(1 << (A.BID_OFFSET + b))[0] for b in range(A.MAX_BID + 1)], np.uint64)
_BID_HI = np.array([_split(1 << (A.BID_OFFSET + b))[1] for b in range(A.MAX_BID + 1)], np.uint64)
_BLINDBID_HI = np.array([0] + [1 << (A.blind_bid_action(b) - 64) for b in range(1, A.MAX_BLIND_BID + 1)], np.uint64)


def _bid_action_tables() -> tuple[np.ndarray, np.ndarray]:
    """Kind and value recorded by each bidding action (the core's ``_record_bid``, for the bidder)."""
    kind = np.zeros(NUM_ACTIONS, np.intp)
    value = np.zeros(NUM_ACTIONS, np.intp)
    for a in range(A.BID_OFFSET, NUM_ACTIONS):
        if a < A.BLIND_NIL:
            n = a - A.BID_OFFSET
            kind[a], value[a] = (_NUMBER, n) if n else (_NIL, 0)
        elif a == A.BLIND_NIL:
            kind[a] = _BLIND_NIL
        elif a == A.TEN_FOR_200:
            kind[a], value[a] = _TEN, TEN_FOR_200_TRICKS
        elif a >= A.BLIND_BID_OFFSET:
            kind[a], value[a] = _BLINDBID, A.blind_bid_value(a)
    return kind, value


_ACTION_KIND, _ACTION_VALUE = _bid_action_tables()
_ACTION_CODE = _ACTION_KIND * _CODE_STRIDE + _ACTION_VALUE


def _key_table() -> np.ndarray:
    """KEYS[deuce_high, card * 4 + led]: a card's trick key given the suit led (-1: cannot win)."""
    out = np.full((2, NUM_CARDS * 4), -1, np.intp)
    for deuce in (0, 1):
        trump, power = win_keys(bool(deuce))
        for c in range(NUM_CARDS):
            for led in range(4):
                key = trump[c]
                if key < 0:
                    key = power[c] if CARD_SUIT[c] == led else -1
                out[deuce, c * 4 + led] = key
    return out


_KEYS = _key_table()

# Observation offsets.
_S = OBS_SLICES
_HEAD = slice(0, _S["bids"].start)  # phase, to_act, dealer, trick_leader: 17 floats
_BIDS = _S["bids"]
_MID = slice(_S["tricks_won"].start, _S["bags"].stop)  # tricks_won, spades_broken, scores, bags: 13 floats
_TAIL = slice(_S["target_score"].start, _S["rules"].stop)  # target_score, rules: 27 floats
_CARDS = slice(_S["hand"].start, _S["received"].stop)  # 11 card blocks of 54
assert _HEAD.stop == 17 and _MID.stop - _MID.start == 13 and _TAIL.stop == _CARDS.start
assert _S["spades_broken"].start == _MID.start + 4 and _S["scores"].start == _MID.start + 5
assert _S["bags"].start == _MID.start + 9 and _CARDS.stop == OBS_SIZE

# Per-table bitboards: seat s holds 5 boards at s * 5 + (hand, trick, start, passed, received), where
# start is the hand the seat held when play began (so the cards it played are start ^ hand); board 20
# stays empty (a hidden hand).
_HAND_B, _TRICK_B, _START_B, _PASSED_B, _RECEIVED_B = range(5)
_BOARDS = 21
_EMPTY_BOARD = 20
_HAND_COLS = np.arange(4) * 5 + _HAND_B
_TRICK_COLS = np.arange(4) * 5 + _TRICK_B
# Per-table, per-seat integers: 5 planes of 4 seats.
_LOOKED, _KIND, _VALUE, _CODE, _WON = range(5)
_SEAT_W = 20
# Per-table floats of the 13 "mid" features, by seat: tricks 0..3, broken 4, scores 5..8, bags 9..12.
_MID_W = 13
# Observation rows are written in blocks of this many tables (see BatchEnv._encode).
_ROW_BLOCK = 512


def _head_table() -> np.ndarray:
    """HEAD[((phase * 5 + to_act) * 4 + dealer) * 5 + leader]: the first 17 floats (slot 4 = none)."""
    out = np.zeros((5 * 5 * 4 * 5, _HEAD.stop), np.float32)
    for phase in range(5):
        for to_act in range(5):
            for dealer in range(4):
                for leader in range(5):
                    row = out[((phase * 5 + to_act) * 4 + dealer) * 5 + leader]
                    row[_S["phase"].start + phase] = 1.0
                    if to_act < 4:
                        row[_S["to_act"].start + to_act] = 1.0
                    row[_S["dealer"].start + dealer] = 1.0
                    if leader < 4:
                        row[_S["trick_leader"].start + leader] = 1.0
    return out


def _bid_table() -> np.ndarray:
    """BIDS[kind * 18 + value]: one slot's 26 bid features (``bid_offset``); row _ZERO_CODE is zeros."""
    out = np.zeros((_ZERO_CODE + 1, BID_FEATURES), np.float32)
    for kind in range(NUM_BID_KINDS):
        for value in range(MAX_BID_ONE_HOT):
            row = out[kind * _CODE_STRIDE + value]
            row[kind] = 1.0
            off = bid_offset(BidKind(kind), value)
            if off is not None:
                row[off] = 1.0
    return out


_HEAD_TABLE = _head_table()
_BID_TABLE = _bid_table()
_IS_NIL = np.array([k in (_NIL, _BLIND_NIL) for k in range(NUM_BID_KINDS)], np.intp)


def _nil_made(kinds: np.ndarray, tricks: np.ndarray) -> np.ndarray:
    """Per seat: -1 no nil, 0 failed, 1 made."""
    return np.where(_IS_NIL.take(kinds) != 0, (tricks == 0).astype(np.intp), -1)


def _perm_tables(n: int) -> dict[str, np.ndarray]:
    """Gather tables by observer: seat of each slot, card boards, mid features, slot differences.

    ``cards[observer * 2 + visible]`` lists 15 boards: the observer's hand (or the empty board), the
    4 trick boards by slot, the observer's passed and received boards, then by slot the 4 start
    boards and the 4 hands (played = start ^ hand).
    """
    rot = np.array([[(o + k) % n if k < n else 3 for k in range(4)] for o in range(4)], np.intp)
    cards = np.zeros((8, 15), np.intp)
    mid = np.zeros((4, _MID_W), np.intp)
    for o in range(4):
        r = rot[o]
        for visible in (0, 1):
            row = [o * 5 + _HAND_B if visible else _EMPTY_BOARD] + list(r * 5 + _TRICK_B)
            row += [o * 5 + _PASSED_B, o * 5 + _RECEIVED_B] + list(r * 5 + _START_B) + list(r * 5 + _HAND_B)
            cards[o * 2 + visible] = row
        mid[o] = list(r) + [4] + list(5 + r) + list(9 + r)
    diff = np.array([(a - b) % n for a in range(4) for b in range(4)], np.intp)  # diff[a * 4 + b]: a seen by b
    deal = np.array([[(s - d - 1) % n for s in range(n)] for d in range(n)], np.intp)  # deal position of seat s
    return {"rot": rot, "cards": cards, "mid": mid, "diff": diff, "deal": deal}


_PERMS = {n: _perm_tables(n) for n in (3, 4)}

if hasattr(np, "bitwise_count"):
    def _popcount(x: np.ndarray) -> np.ndarray:
        return np.bitwise_count(x).astype(np.intp)
else:  # pragma: no cover - numpy < 2.0
    _POP8 = np.array([bin(i).count("1") for i in range(256)], np.intp)

    def _popcount(x: np.ndarray) -> np.ndarray:
        x = np.ascontiguousarray(x, dtype=np.uint64)
        return _POP8[x.view(np.uint8).reshape(x.shape + (8,))].sum(-1)


def _lowbit(x: np.ndarray) -> np.ndarray:
    return x & (~x + _U1)


def _unpack54(boards: np.ndarray) -> np.ndarray:
    """(..., k) uint64 boards -> (..., k, 54) uint8 card bits."""
    boards = np.ascontiguousarray(boards, dtype=np.uint64)
    bits = np.unpackbits(boards.view(np.uint8), bitorder="little")
    return bits.reshape(boards.shape + (64,))[..., :NUM_CARDS]


def _card_view(out: np.ndarray) -> np.ndarray:
    """(rows, 11, 54) view of the card blocks of observation rows."""
    view = out[:, _CARDS].reshape(out.shape[0], 11, NUM_CARDS)
    assert view.base is not None and np.shares_memory(view, out)
    return view


class _RulesParams:
    """Per hand-rules arrays of every option the engine reads (one entry per rules id)."""

    def __init__(self, hand_rules: list[Rules], game_rules: Rules):
        def arr(values, dtype=np.intp):
            return np.array(list(values), dtype=dtype)

        hr = hand_rules
        self.low_bid = arr(0 if r.nil else 1 for r in hr)
        self.blind_nil = arr((r.blind_nil for r in hr), bool)
        self.deficit_none = arr((r.blind_nil_requires_deficit is None for r in hr), bool)
        self.deficit = arr(r.blind_nil_requires_deficit or 0 for r in hr)
        self.ten_ok = arr((r.ten_for_200 and (r.max_team_bid is None or r.max_team_bid >= TEN_FOR_200_TRICKS)
                           for r in hr), bool)
        self.blind_bids = arr((r.blind_bids for r in hr), bool)
        self.blind_bid_hi = np.zeros(len(hr), np.uint64)
        for i, r in enumerate(hr):
            if r.blind_bids:
                top = A.MAX_BLIND_BID if r.max_team_bid is None else min(A.MAX_BLIND_BID, r.max_team_bid)
                for b in range(r.blind_bid_min, top + 1):
                    self.blind_bid_hi[i] |= _BLINDBID_HI[b]
        self.mirror = arr((r.mirror for r in hr), bool)
        self.suicide = arr((r.suicide for r in hr), bool)
        self.mtb_none = arr((r.max_team_bid is None for r in hr), bool)
        self.mtb = arr(r.max_team_bid or 0 for r in hr)
        self.no_hook = arr((not r.bids_may_total_tricks for r in hr), bool)
        self.exchange = arr(r.blind_nil_exchange if r.partnerships else 0 for r in hr)
        self.lowest_club = arr((r.first_trick == FIRST_TRICK_LOWEST_CLUB for r in hr), bool)
        self.dealer_leads_any = arr((r.dealer_leads_any for r in hr), bool)
        self.deuce = arr(int(r.deuce_of_spades_high) for r in hr)
        self.key_offset = self.deuce * (NUM_CARDS * 4)
        self.nil_value = arr(r.nil_value for r in hr)
        self.blind_nil_points = arr(r.blind_nil_points for r in hr)
        self.count_for_partner = arr((r.nil_tricks_count_for_partner for r in hr), bool)
        self.bag_value = arr(r.bag_value for r in hr)
        self.bag_limit = arr(r.bag_limit or 0 for r in hr)
        self.bag_penalty = arr(r.bag_penalty for r in hr)
        self.boston_bonus = arr(r.boston_bonus for r in hr)
        self.packs = [np.array(deck(r.jokers), np.intp) for r in hr]
        features = np.stack([rule_features(r) for r in hr]).astype(np.float32)
        target = np.float32(game_rules.target_score / SCORE_SCALE_TARGET)
        self.tail = np.concatenate([np.full((len(hr), 1), target, np.float32), features], axis=1)
        self.names = [r.name for r in hr]
        # Whether any hand of the rotation has the option (skips whole code paths when none has).
        self.any = {name: bool(np.any(getattr(self, name)))
                    for name in ("blind_nil", "blind_bids", "ten_ok", "mirror", "suicide", "no_hook", "exchange",
                                 "lowest_club", "dealer_leads_any", "count_for_partner")}
        self.any["mtb"] = not bool(self.mtb_none.all())
        self.any["nil"] = bool((self.low_bid == 0).any())
        self.any["bag_limit"] = bool((self.bag_limit > 0).any())
        self.any["boston"] = bool((self.boston_bonus != 0).any())
        self.any["blind"] = self.any["blind_nil"] or self.any["blind_bids"]
        self.any["team"] = self.any["ten_ok"] or self.any["blind_bids"]
        # Number bids without any option that depends on the state: one constant mask.
        self.simple_bids = not any(self.any[k] for k in ("ten_ok", "mirror", "suicide", "no_hook", "mtb"))


class _LazyDeals(Mapping):
    """Mapping table -> list of deals of a finished episode, converted on access."""

    def __init__(self, tables: np.ndarray, boards: np.ndarray, counts: np.ndarray, num_players: int):
        self._rows = {int(t): i for i, t in enumerate(tables)}
        self._boards = boards
        self._counts = counts
        self._n = num_players

    def __getitem__(self, table: int) -> list[list[list[int]]]:
        i = self._rows[int(table)]
        return _deals_of(self._boards[i, :self._counts[i]], self._n)

    def __iter__(self) -> Iterator[int]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


class StepInfo(Mapping):
    """The ``info`` of a step: a read-only mapping whose arrays are built on first access.

    Rows of the tables a key does not concern hold 0, or -1 for ``hand_index``, ``hand_dealer``,
    ``winner``, ``episode_dealer`` and ``nil_made``.
    """

    _NEGATIVE = ("hand_index", "hand_dealer", "winner", "episode_dealer", "nil_made")

    def __init__(self, num_envs: int, widths: dict[str, tuple[int | None, Any]], names: list[str],
                 hands: np.ndarray | None = None, hand_data: dict[str, np.ndarray] | None = None,
                 episodes: np.ndarray | None = None, episode_data: dict[str, np.ndarray] | None = None,
                 deals: Mapping | None = None):
        self._n = num_envs
        self._widths = widths
        self._rows = {}
        if hands is not None:
            self._rows.update({key: (hands, value) for key, value in hand_data.items()})
        if episodes is not None:
            self._rows.update({key: (episodes, value) for key, value in episode_data.items()})
        self._cache: dict[str, Any] = {"hand_rules": names, "episode_deals": deals if deals is not None else {}}

    def __getitem__(self, key: str) -> Any:
        value = self._cache.get(key)
        if value is None:
            width, dtype = self._widths[key]  # KeyError for unknown keys
            shape = (self._n,) if width is None else (self._n, width)
            value = np.full(shape, -1 if key in self._NEGATIVE else 0, dtype)
            if key in self._rows:
                rows, data = self._rows[key]
                value[rows] = data() if callable(data) else data
            value.setflags(write=False)
            self._cache[key] = value
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._widths) + ["hand_rules", "episode_deals"])

    def __len__(self) -> int:
        return len(self._widths) + 2


def _deals_of(boards: np.ndarray, n: int) -> list[list[list[int]]]:
    return [[cards_of(int(b)) for b in hand[:n]] for hand in boards]


class BatchEnv:
    """``num_envs`` Spades tables stepped together; see the module docstring."""

    def __init__(
        self,
        num_envs: int,
        rules: Rules | str = "standard",
        episode: str = "game",
        seed: int | None = 0,
        reward: str | RewardScheme = "hand_points",
        observations: bool = True,
        record_deals: bool = True,
        output_buffers: int = 2,
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        if episode not in EPISODE_MODES:
            raise ValueError(f"episode must be one of {EPISODE_MODES}, got {episode!r}")
        self.rules = load_rules(rules)
        self.episode = episode
        self.reward_scheme = make_reward(reward)
        self.observations = bool(observations)
        self.record_deals = bool(record_deals)
        self.num_envs = N = int(num_envs)
        self.num_players = n = self.rules.num_players
        self.num_sides = S = self.rules.num_sides
        self.partnerships = self.rules.partnerships
        self.obs_size = OBS_SIZE
        self.state_size = STATE_SIZE
        self.num_actions = NUM_ACTIONS
        self.hand_size = self.rules.hand_size
        self.num_tricks = self.rules.num_tricks
        rotation = self.rules.crazy
        self._hand_rules = [self.rules] if rotation is None else [self.rules.hand_rules(k) for k in range(len(rotation))]
        self._num_rules = len(self._hand_rules)
        self._uniform = self._num_rules == 1
        self._P = _RulesParams(self._hand_rules, self.rules)
        self._any = self._P.any
        self._perm = _PERMS[n]
        self._seat_side = np.array([self.rules.side_of(s) for s in range(n)], np.intp)
        self._size = float(self.hand_size)
        if self._P.simple_bids:
            r0 = self._hand_rules[0]
            low = 0 if r0.nil else 1
            self._simple_bid_words = (_RANGE_LO[low, self.num_tricks + 1], _RANGE_HI[low, self.num_tricks + 1])
        self._num_boards = 11 if self._any["exchange"] else 9
        self._boards_buf = np.zeros((N, self._num_boards), np.uint64)
        self._arn = np.arange(N, dtype=np.intp) * n
        self._trick_cols = _TRICK_COLS[:n]
        self._members = np.array([0, 2, 1, 3] if self.partnerships else list(range(n)), np.intp)  # by side
        # nil points by rules id and (kind * 2 + nil made): +-nil_value, +-blind_nil_points, 0 otherwise
        self._nil_points = np.zeros((self._num_rules, 2 * NUM_BID_KINDS), np.intp)
        for r, hand_rules in enumerate(self._hand_rules):
            for kind, value in ((_NIL, hand_rules.nil_value), (_BLIND_NIL, hand_rules.blind_nil_points)):
                self._nil_points[r, kind * 2:kind * 2 + 2] = (-value, value)
        self._hand_start_cols = np.concatenate([_HAND_COLS[:n], _HAND_COLS[:n] + _START_B])
        sides = self._seat_side
        self._mid_score_cols = np.concatenate([5 + np.arange(n), 9 + np.arange(n)])
        self._mid_source = np.concatenate([sides, S + sides])  # in [scores, bags] by side
        self._mid_div = np.array([float(self.rules.target_score)] * n + [bag_scale(self.rules)] * n)
        self._keys = _KEYS[self._P.deuce[0]] if self._uniform else _KEYS.ravel()

        # --- state (one row per table)
        self._ar = np.arange(N, dtype=np.intp)
        self._base20 = self._ar * _SEAT_W
        self._base21 = self._ar * _BOARDS
        self._base13 = self._ar * _MID_W
        self._base88 = self._ar * NUM_ACTIONS
        self.rid = np.zeros(N, np.intp)
        self.phase = np.zeros(N, np.intp)
        self.cur = np.zeros(N, np.intp)
        self.dealer = np.zeros(N, np.intp)
        self.first_dealer = np.zeros(N, np.intp)
        self.hand_index = np.zeros(N, np.intp)
        self.scores = np.zeros((N, S), np.int64)
        self.bags = np.zeros((N, S), np.int64)
        self._seat = np.zeros((N, 5, 4), np.intp)  # planes _LOOKED, _KIND, _VALUE, _CODE, _WON
        self._seat_init = np.zeros((5, 4), np.intp)
        self._seat_init[_CODE, n:] = _ZERO_CODE
        self.bid_pos = np.zeros(N, np.intp)
        self._bn_eligible = np.zeros((N, 4), bool)  # blind nil on the scores before the hand
        self._sb = np.zeros((N, _BOARDS), np.uint64)
        self._aside = np.zeros(N, np.uint64)
        self.trick_n = np.zeros(N, np.intp)
        self.trick_index = np.zeros(N, np.intp)
        self._led = np.zeros(N, np.intp)  # suit led to the current trick
        self.broken = np.zeros(N, bool)
        self._mid = np.zeros((N, _MID_W), np.float32)
        self._ex_from = np.zeros((N, 12), np.intp)
        self._ex_to = np.zeros((N, 12), np.intp)
        self._ex_len = np.zeros(N, np.intp)
        self._ex_pos = np.zeros(N, np.intp)
        self._legal = np.zeros((N, 2), np.uint64)
        self._mask_bits = np.zeros((N, NUM_ACTIONS), np.uint8)
        self._log = np.zeros((N, 1 if episode == "hand" else min(8, self.rules.max_hands), 4), np.uint64)
        if output_buffers not in (1, 2):
            raise ValueError(f"output_buffers must be 1 or 2, got {output_buffers!r}")
        self.output_buffers = output_buffers
        self._obs_bufs = [np.zeros((N, OBS_SIZE), np.float32) for _ in range(output_buffers)]
        for buf in self._obs_bufs:
            buf[:, _TAIL] = self._P.tail[0]
        self._card_views = [_card_view(buf) for buf in self._obs_bufs]
        self._mask_bufs = [np.zeros((N, NUM_ACTIONS), np.int8) for _ in range(output_buffers)]
        self._flip = 0
        self._info_width = self._info_widths()
        self._quiet_info = StepInfo(N, self._info_width, self._P.names)
        self._pool_size = max(256, min(N, 8192))
        self.reset(seed)

    # Per-seat planes as (num_envs, 4) views.
    @property
    def looked(self) -> np.ndarray:
        """Whether each seat has looked at its cards (a fresh bool array).

        The looked plane is set in the bidding and the exchange; in play a seat has looked once it
        has played a card or is to act (the leader is marked when play begins).
        """
        sb = self._sb
        played = (sb[:, _HAND_COLS + _START_B] ^ sb[:, _HAND_COLS]) != _U0
        acting = np.arange(4) == self.cur[:, None]
        in_play = (self.phase == _PLAY)[:, None]
        return (self._seat[:, _LOOKED] != 0) | (in_play & (played | acting))

    @property
    def bid_kind(self) -> np.ndarray:
        """``BidKind`` code of each seat's bid."""
        return self._seat[:, _KIND]

    @property
    def bid_value(self) -> np.ndarray:
        """Tricks of each seat's bid (numbers, blind n, 10 for 200; the cancelled bid's value)."""
        return self._seat[:, _VALUE]

    @property
    def tricks_won(self) -> np.ndarray:
        """Tricks taken by each seat this hand."""
        return self._seat[:, _WON]

    # ================================================================ API
    def reset(self, seed: int | None = None) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
        """Start a new episode at every table; returns ``(obs, mask, to_act)``.

        With a seed the engine's generator restarts from it (``BatchEnv(seed=s)`` then ``reset()``
        is the same as ``reset(seed=s)``); without, the generator goes on.
        """
        if seed is not None or not hasattr(self, "rng"):
            self.rng = np.random.default_rng(seed)
            self._pools = [None] * self._num_rules
        self._new_games(self._ar)
        self._compute_legal()
        self._flip = (self._flip + 1) % self.output_buffers
        obs = self._observe_actors() if self.observations else None
        return obs, self._mask_out(), self.cur.copy()

    def step(self, actions: Any, observe: bool | None = None):
        """Take one action per table; returns ``(obs, mask, to_act, rewards, dones, info)``."""
        a = self._check_actions(actions)
        N = self.num_envs
        play = self.phase == _PLAY
        if play.all():
            ended = self._play(a, None)
        else:
            # Tables in play are stepped with full-array operations (the others are masked out), then
            # the other phases on their (few) tables.
            O = np.flatnonzero(~play)
            ended = self._play(a, play)
            if self._any["exchange"]:
                ex = self.phase.take(O) == _EXCHANGE
                if ex.any():
                    X = O[ex]
                    self._exchange(X, a.take(X))
                    O = O[~ex]
            if len(O):
                self._bid(O, a.take(O))
        rewards = np.zeros((N, self.num_players))
        if ended is not None:
            dones, info = self._finish_hands(ended, rewards)
        else:
            dones, info = np.zeros(N, bool), self._quiet_info
        self._compute_legal()
        self._flip = (self._flip + 1) % self.output_buffers
        build = self.observations if observe is None else observe
        obs = self._observe_actors() if build else None
        return obs, self._mask_out(), self.cur.copy(), rewards, dones, info

    def observe(self, seats: Any) -> np.ndarray:
        """Fresh observations of the given seat at each table (any seat, not only the one to act)."""
        seats = np.asarray(seats, dtype=np.intp)
        if seats.shape != (self.num_envs,) or seats.min() < 0 or seats.max() >= self.num_players:
            raise ValueError(f"seats must be {self.num_envs} seat numbers in 0..{self.num_players - 1}")
        out = np.zeros((self.num_envs, OBS_SIZE), np.float32)
        visible = self.looked[self._ar, seats]
        self._encode(out, seats, visible, write_tail=True)
        return out

    def state(self) -> np.ndarray:
        """Full-information arrays ``(num_envs, STATE_SIZE)`` relative to the seat to act (``encode_state``)."""
        N = self.num_envs
        out = np.zeros((N, STATE_SIZE), np.float32)
        cur = self.cur
        self._encode(out, cur, np.ones(N, np.intp), write_tail=True)
        idx = self._base21[:, None] + self._perm["rot"][cur] * 5 + _HAND_B
        hands = self._sb.ravel().take(idx)
        start = STATE_SLICES["hands"].start
        out[:, start:start + 4 * NUM_CARDS].reshape(N, 4, NUM_CARDS)[...] = _unpack54(hands)
        out[:, STATE_SLICES["set_aside"]] = _unpack54(self._aside[:, None])[:, 0]
        return out

    def legal_actions(self, table: int) -> list[int]:
        """Legal action ids at one table."""
        lo, hi = (int(x) for x in self._legal[table])
        return cards_of(lo | (hi << 64))

    def action_masks(self) -> np.ndarray:
        """A fresh int8 mask ``(num_envs, 88)`` of the current legal actions."""
        return self._mask_bits.view(np.int8).copy()

    def episode_deals(self, table: int) -> list[list[list[int]]]:
        """Deals of the current episode at a table so far (current hand included): card ids per seat."""
        if not self.record_deals:
            raise RuntimeError("deals are not recorded: create the BatchEnv with record_deals=True")
        return _deals_of(self._log[table, :self.hand_index[table] + 1], self.num_players)

    def episode_dealer(self, table: int) -> int:
        """Dealer of the first hand of the current episode at a table."""
        return int(self.first_dealer[table])

    def hand_rules(self, table: int) -> Rules:
        """Rules of the hand in progress at a table (differs from ``rules`` in a crazy rotation)."""
        return self._hand_rules[int(self.rid[table])]

    @staticmethod
    def hand_result(info: dict[str, Any], table: int) -> dict[str, Any]:
        """The AEC env's ``hand_result`` info of a table whose hand ended at this step."""
        if not info["hand_over"][table]:
            raise ValueError(f"no hand ended at table {table} in this step")
        n = info["tricks"].shape[1]
        return {
            "hand_index": int(info["hand_index"][table]),
            "rules": info["hand_rules"][int(info["hand_rules_id"][table])],
            "dealer": int(info["hand_dealer"][table]),
            "points": [int(x) for x in info["points"][table]],
            "scores": [int(x) for x in info["scores"][table]],
            "bags": [int(x) for x in info["bags"][table]],
            "bids": [str(Bid(BidKind(int(info["bid_kinds"][table, s])), int(info["bid_values"][table, s])))
                     for s in range(n)],
            "tricks": [int(x) for x in info["tricks"][table]],
            "contracts": [int(x) for x in info["contracts"][table]],
            "made": [bool(x) for x in info["made"][table]],
            "bag_penalties": [int(x) for x in info["bag_penalties"][table]],
            "nil_made": [None if x < 0 else bool(x) for x in info["nil_made"][table]],
        }

    # ========================================================== validation
    def _check_actions(self, actions: Any) -> np.ndarray:
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},) (one per table), got {a.shape}")
        if a.dtype != np.intp:
            if a.dtype.kind not in "iu":  # as the core: bools, floats and anything else are not actions
                raise IllegalActionError(f"actions must be integers, got an array of dtype {a.dtype}; "
                                         "no table was changed")
            a = a.astype(np.intp)
        inside = a.view(np.uint64) < NUM_ACTIONS  # negative values wrap around to huge ones
        if inside.all() and self._mask_bits.ravel().take(self._base88 + a).all():
            return a
        ok = inside.copy()
        ok[inside] = self._mask_bits.ravel().take(self._base88[inside] + a[inside]) != 0
        bad = np.flatnonzero(~ok)
        t = int(bad[0])
        act = int(a[t])
        name = A.ACTION_NAMES[act] if 0 <= act < NUM_ACTIONS else "not an action"
        legal = [A.ACTION_NAMES[x] for x in self.legal_actions(t)]
        more = f" (and {len(bad) - 1} other table(s): {bad[1:11].tolist()})" if len(bad) > 1 else ""
        raise IllegalActionError(
            f"table {t}: illegal action {act} ({name}) for seat {int(self.cur[t])} in phase "
            f"{Phase(int(self.phase[t])).name}; legal: {legal}{more}; no table was changed")

    # ========================================================== games, hands
    def _p(self, name: str, sel):
        """An option's value: a scalar with uniform rules, else one entry per selected table."""
        values = getattr(self._P, name)
        if self._uniform:
            return values[0]
        return values[self.rid[sel]]

    def _new_games(self, T: np.ndarray) -> None:
        dealer = self.rng.integers(self.num_players, size=len(T))
        self.dealer[T] = dealer
        self.first_dealer[T] = dealer
        self.scores[T] = 0
        self.bags[T] = 0
        self.hand_index[T] = 0
        self._start_hands(T, dealer)

    def _deals(self, r: int, k: int) -> tuple[np.ndarray, np.ndarray]:
        """k shuffled deals of rules id r: hands by deal position (k, n) and the set-aside cards (k,)."""
        pool = self._pools[r]
        out_pos, out_aside = [], []
        while k:
            if pool is None or pool[2] == len(pool[0]):
                pool = self._fill_pool(r)
            pos, aside, ptr = pool
            take = min(k, len(pos) - ptr)
            out_pos.append(pos[ptr:ptr + take])
            out_aside.append(aside[ptr:ptr + take])
            pool[2] = ptr + take
            k -= take
        self._pools[r] = pool
        if len(out_pos) == 1:
            return out_pos[0], out_aside[0]
        return np.concatenate(out_pos), np.concatenate(out_aside)

    def _fill_pool(self, r: int) -> list:
        """Shuffle a batch of packs; card i of a shuffled pack goes to deal position i % n (the dealer's
        left first, as the core deals), the cards after the last full round are set aside."""
        n, hs = self.num_players, self.hand_size
        m = self._pool_size
        pack = self._P.packs[r]
        cards = self.rng.permuted(np.broadcast_to(pack, (m, len(pack))), axis=1)
        bits = CARD_BIT[cards]
        dealt = hs * n
        by_position = bits[:, :dealt].reshape(m, hs, n).sum(axis=1, dtype=np.uint64)
        aside = bits[:, dealt:].sum(axis=1, dtype=np.uint64)
        return [by_position, aside, 0]

    def _start_hands(self, T: np.ndarray, dealer: np.ndarray) -> None:
        """Deal new hands at the tables T (scores, bags, dealer and hand_index already set)."""
        n = self.num_players
        k = len(T)
        if self._uniform:
            by_position, aside = self._deals(0, k)
        else:
            rid = self.hand_index.take(T) % self._num_rules
            self.rid[T] = rid
            by_position = np.zeros((k, n), np.uint64)
            aside = np.zeros(k, np.uint64)
            for r in range(self._num_rules):
                m = rid == r
                if m.any():
                    by_position[m], aside[m] = self._deals(r, int(m.sum()))
        hands = by_position.ravel().take(self._arn[:k, None] + self._perm["deal"].take(dealer, axis=0))
        self._sb[T] = _U0
        self._sb[T[:, None], self._hand_start_cols] = np.concatenate([hands, hands], axis=1)  # start ^ hand == 0
        if n == 3:
            self._aside[T] = aside
        if self.record_deals:
            self._log_deals(T, hands)
        self._seat[T] = self._seat_init
        self.bid_pos[T] = 0
        self.trick_n[T] = 0
        self.trick_index[T] = 0
        self.broken[T] = False
        # tricks 0, scores and bags by seat (the mid features of the observation)
        scores = self.scores[T]
        mid = np.zeros((k, _MID_W), np.float32)
        mid[:, self._mid_score_cols] = np.concatenate([scores, self.bags[T]], axis=1)[:, self._mid_source] / self._mid_div
        self._mid[T] = mid
        first = (dealer + 1) % n
        self.cur[T] = first
        # The first bidder's turn: its partner has not bid, so its blind options are blind nil (on the
        # scores) and blind bids; no bid can hook yet.
        if self._any["blind"]:
            blind = np.zeros(k, bool)
            if self._any["blind_nil"]:
                eligible = self._blind_nil_eligibility(T, scores)
                self._bn_eligible[T, :n] = eligible
                blind |= eligible[np.arange(k), first]
            if self._any["blind_bids"]:
                blind |= self._p("blind_bids", T) & (self._p("blind_bid_hi", T) != _U0)
            self.phase[T] = np.where(blind, _BLIND, _BID)
            self._seat.ravel()[T * _SEAT_W + first] = ~blind  # the seat looks unless it decides blind
        else:
            self.phase[T] = _BID
            self._seat.ravel()[T * _SEAT_W + first] = 1

    def _blind_nil_eligibility(self, T: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """Blind nil for each seat (k, n), judged on the scores before the hand (suicide: at the turn)."""
        S = self.num_sides
        if S == 2:
            best_other = scores[:, ::-1]
        else:
            order = np.argsort(scores, axis=1, kind="stable")
            first = np.take_along_axis(scores, order[:, -1:], axis=1)
            second = np.take_along_axis(scores, order[:, -2:-1], axis=1)
            best_other = np.where(np.arange(S) == order[:, -1:], second, first)
        behind = (best_other - scores)[:, self._seat_side]
        P = self._P
        if self._uniform:
            if not P.blind_nil[0]:
                return np.zeros(behind.shape, bool)
            return behind >= P.deficit[0] if not P.deficit_none[0] else np.ones(behind.shape, bool)
        r = self.rid.take(T)[:, None]
        return P.blind_nil[r] & (P.deficit_none[r] | (behind >= P.deficit[r]))

    def _log_deals(self, T: np.ndarray, hands: np.ndarray) -> None:
        hi = self.hand_index[T]
        need = int(hi.max()) + 1
        if need > self._log.shape[1]:
            size = min(max(need, 2 * self._log.shape[1]), self.rules.max_hands)
            grown = np.zeros((self.num_envs, size, 4), np.uint64)
            grown[:, :self._log.shape[1]] = self._log
            self._log = grown
        self._log[T, hi, :self.num_players] = hands

    # ============================================================= bidding
    def _partner(self, T: np.ndarray, seat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Partner's bid kind and value (NONE, 0 in cutthroat)."""
        if not self.partnerships:
            z = np.zeros(len(T), np.intp)
            return z, z
        f = T * _SEAT_W + ((seat + 2) & 3)
        flat = self._seat.ravel()
        return flat.take(f + _KIND * 4), flat.take(f + _VALUE * 4)

    def _blind_bits(self, T: np.ndarray, seat: np.ndarray) -> np.ndarray:
        """High-word bits of the blind options open to ``seat`` (SEE CARDS not included)."""
        bits = np.zeros(len(T), np.uint64)
        if self._any["suicide"] or self._any["blind_bids"]:
            pk, _ = self._partner(T, seat)
        if self._any["blind_nil"]:
            eligible = self._bn_eligible.ravel().take(T * 4 + seat)
            if self._any["suicide"]:
                eligible &= ~(self._p("suicide", T) & ((pk == _NIL) | (pk == _BLIND_NIL)))
            bits |= np.where(eligible, _BLIND_NIL_HI, _U0)
        if self._any["blind_bids"]:
            bits |= np.where(self._p("blind_bids", T) & (pk == _NONE), self._p("blind_bid_hi", T), _U0)
        if self._any["no_hook"]:
            # SEE CARDS is always there: a hooking blind option is dropped even when none is left (core rule).
            _, bits = self._no_hook(T, seat, np.zeros(len(T), np.uint64), bits, keep_if_forced=False)
        return bits

    def _bid_bits(self, T: np.ndarray, seat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lo, hi) words of the number bids and 10 for 200 open to ``seat`` (it has looked)."""
        k = len(T)
        pk, pv = self._partner(T, seat)
        low = self._p("low_bid", T)
        high = self.num_tricks
        if self._any["suicide"]:
            sui = self._p("suicide", T)
            partner_nil = (pk == _NIL) | (pk == _BLIND_NIL)
            low = np.where(sui & partner_nil, 1, low)
            high = np.where(sui & ~partner_nil & (pk != _NONE), 0, high)
        if self._any["mtb"]:
            partner_bid = np.where(pk == _NUMBER, pv, np.where(pk == _NONE, self._p("low_bid", T), 0))
            high = np.where(self._p("mtb_none", T), high, np.minimum(high, self._p("mtb", T) - partner_bid))
        high = np.clip(high, -1, A.MAX_BID) + 1
        low = np.broadcast_to(low, (k,))
        lo = _RANGE_LO[low, high]
        hi = _RANGE_HI[low, high]
        if self._any["ten_ok"]:
            hi = hi | np.where(self._p("ten_ok", T) & (pk != _TEN), _TEN_HI, _U0)
        if self._any["mirror"]:
            mirror = self._p("mirror", T)
            hands = self._sb.ravel().take(T * _BOARDS + seat * 5 + _HAND_B)
            spades = _popcount(hands & _SPADES)
            lo = np.where(mirror, _BID_LO[spades], lo)
            hi = np.where(mirror, _BID_HI[spades], hi)
        if self._any["no_hook"]:
            lo, hi = self._no_hook(T, seat, lo, hi)
        return lo, hi

    def _no_hook(self, T: np.ndarray, seat: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                 keep_if_forced: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Drop the bids that end the bidding with a total equal to the number of tricks (core rule)."""
        n = self.num_players
        k = len(T)
        rows = np.arange(k)
        kinds = self.bid_kind[T]
        values = self.bid_value[T]
        pos = self.bid_pos[T]
        dealer = self.dealer[T]
        partner = (seat + 2) & 3 if self.partnerships else np.full(k, -1)
        later_none = np.zeros(k, np.intp)
        partner_later_none = np.zeros(k, bool)
        for step in range(1, n):
            p = pos + step
            s = (dealer + 1 + p) % n
            none = (p < n) & (kinds[rows, s] == _NONE)
            later_none += none
            partner_later_none |= none & (s == partner)
        counted = (kinds == _NUMBER) | (kinds == _TEN) | (kinds == _BLINDBID)
        total = (values * counted).sum(axis=1)
        last_plain = later_none == 0
        last_team = (later_none - partner_later_none) == 0
        need = self.num_tricks - total  # the bid that would hook
        if self.partnerships:
            pk, pv = kinds[rows, partner], values[rows, partner]
        else:
            pk = pv = np.zeros(k, np.intp)
        cancelled = np.where(pk == _NUMBER, pv, 0)  # a 10 for 200 cancels the partner's number bid
        ok_num = last_plain & (need >= 0) & (need <= A.MAX_BID)
        needc = np.clip(need, 0, A.MAX_BID)
        rm_lo = np.where(ok_num, _BID_LO[needc], _U0)
        rm_hi = np.where(ok_num, _BID_HI[needc], _U0)
        rm_hi |= np.where(last_plain & (need == 0), _BLIND_NIL_HI, _U0)
        rm_hi |= np.where(last_team & (total + TEN_FOR_200_TRICKS - cancelled == self.num_tricks), _TEN_HI, _U0)
        ok_blind = last_team & (need >= 1) & (need <= A.MAX_BLIND_BID)
        rm_hi |= np.where(ok_blind, _BLINDBID_HI[np.clip(need, 0, A.MAX_BLIND_BID)], _U0)
        new_lo = lo & ~rm_lo
        new_hi = hi & ~rm_hi
        on = self._p("no_hook", T)
        use = on & ((new_lo | new_hi) != _U0) if keep_if_forced else on
        return np.where(use, new_lo, lo), np.where(use, new_hi, hi)

    def _begin_bid_turn(self, T: np.ndarray, seat: np.ndarray) -> None:
        """The seat to bid looks at its cards unless a blind option is open to it (phase BLIND)."""
        looked = self._seat.ravel()
        f = T * _SEAT_W + seat  # + _LOOKED * 4 == 0
        if not self._any["blind"]:
            self.phase[T] = _BID
            looked[f] = 1
            return
        blind = (looked.take(f) == 0) & (self._blind_bits(T, seat) != _U0)
        self.phase[T] = np.where(blind, _BLIND, _BID)
        looked[f[~blind]] = 1

    def _bid(self, B: np.ndarray, a: np.ndarray) -> None:
        n = self.num_players
        seat = self.cur.take(B)
        flat = self._seat.ravel()
        if self._any["blind"]:
            see = a == A.SEE_CARDS
            if see.any():
                Bs = B[see]
                flat[Bs * _SEAT_W + seat[see]] = 1
                self.phase[Bs] = _BID
                keep = ~see
                B, a, seat = B[keep], a[keep], seat[keep]
                if not len(B):
                    return
        f = B * _SEAT_W + seat
        flat[f] = 1  # looked
        flat[f + _KIND * 4] = _ACTION_KIND.take(a)
        flat[f + _VALUE * 4] = _ACTION_VALUE.take(a)
        flat[f + _CODE * 4] = _ACTION_CODE.take(a)
        pos = self.bid_pos.take(B) + 1
        dealer = self.dealer.take(B)
        if self._any["team"] and self.partnerships:
            team = a >= A.TEN_FOR_200
            if team.any():
                fp = B[team] * _SEAT_W + ((seat[team] + 2) & 3)
                pk = flat.take(fp + _KIND * 4)
                new = np.where((a[team] == A.TEN_FOR_200) & (pk != _NONE), _CANCELLED, _SKIPPED)
                flat[fp + _KIND * 4] = new
                flat[fp + _CODE * 4] = new * _CODE_STRIDE + flat.take(fp + _VALUE * 4)
            for _ in range(n - 1):  # skip the partners whose turn was taken
                nxt = B * _SEAT_W + _KIND * 4 + (dealer + 1 + pos) % n
                skip = (pos < n) & (flat.take(nxt) != _NONE)
                if not skip.any():
                    break
                pos = pos + skip
        self.bid_pos[B] = pos
        done = pos >= n
        if done.all():
            self._end_bidding(B)
            return
        go = ~done
        G = B[go]
        nxt = (dealer[go] + 1 + pos[go]) % n
        self.cur[G] = nxt
        self._begin_bid_turn(G, nxt)
        if done.any():
            self._end_bidding(B[done])

    def _end_bidding(self, D: np.ndarray) -> None:
        if not self._any["exchange"]:
            self._begin_play(D)
            return
        k = np.broadcast_to(self._p("exchange", D), (len(D),))
        X = D[k > 0]
        if len(X):
            kx = k[k > 0]
            length = np.zeros(len(X), np.intp)
            rows = np.arange(len(X))
            kinds = self.bid_kind[X]
            dealer = self.dealer[X]
            ex_from = self._ex_from[X]
            ex_to = self._ex_to[X]
            for pos in range(4):  # each blind nil bidder in bidding order whose partner is not blind nil
                s = (dealer + 1 + pos) & 3
                pt = (s + 2) & 3
                go = (kinds[rows, s] == _BLIND_NIL) & (kinds[rows, pt] != _BLIND_NIL)
                if not go.any():
                    continue
                for j in range(int(kx.max())):
                    w = go & (j < kx)
                    r = rows[w]
                    ex_from[r, length[w] + j] = s[w]
                    ex_to[r, length[w] + j] = pt[w]
                    ex_from[r, length[w] + kx[w] + j] = pt[w]
                    ex_to[r, length[w] + kx[w] + j] = s[w]
                length += np.where(go, 2 * kx, 0)
            self._ex_from[X] = ex_from
            self._ex_to[X] = ex_to
            self._ex_len[X] = length
            self._ex_pos[X] = 0
            E = X[length > 0]
            if len(E):
                self.phase[E] = _EXCHANGE
                first = self._ex_from[E, 0]
                self.cur[E] = first
                self._seat[E, _LOOKED, first] = 1
                D = D[self.phase.take(D) != _EXCHANGE]
        self._begin_play(D)

    def _exchange(self, X: np.ndarray, a: np.ndarray) -> None:
        seat = self.cur.take(X)
        pos = self._ex_pos.take(X)
        receiver = self._ex_to[X, pos]
        bit = CARD_BIT.take(a)
        sbf = self._sb.ravel()
        base = X * _BOARDS
        for index, op in ((base + seat * 5 + _HAND_B, np.bitwise_xor), (base + receiver * 5 + _HAND_B, np.bitwise_or),
                          (base + seat * 5 + _START_B, np.bitwise_xor), (base + receiver * 5 + _START_B, np.bitwise_or),
                          (base + seat * 5 + _PASSED_B, np.bitwise_or), (base + receiver * 5 + _RECEIVED_B, np.bitwise_or)):
            sbf[index] = op(sbf.take(index), bit)
        pos = pos + 1
        self._ex_pos[X] = pos
        more = pos < self._ex_len.take(X)
        M = X[more]
        if len(M):
            nxt = self._ex_from[M, pos[more]]
            self.cur[M] = nxt
            self._seat[M, _LOOKED, nxt] = 1
        if not more.all():
            self._begin_play(X[~more])

    # ================================================================ play
    def _begin_play(self, P: np.ndarray) -> None:
        if not len(P):
            return
        n = self.num_players
        dealer = self.dealer.take(P)
        leader = (dealer + 1) % n
        if self._any["dealer_leads_any"]:
            leader = np.where(self._p("dealer_leads_any", P), dealer, leader)
        if self._any["lowest_club"]:
            lc = np.broadcast_to(self._p("lowest_club", P), (len(P),))
            if lc.any():
                L = P[lc]
                hands = self._sb[L[:, None], _HAND_COLS[:n]]
                lowest = _lowbit(np.bitwise_or.reduce(hands & _CLUBS, axis=1))
                leader[lc] = ((hands & lowest[:, None]) != _U0).argmax(axis=1)
        self.phase[P] = _PLAY
        self.cur[P] = leader
        self._seat.ravel()[P * _SEAT_W + leader] = 1  # looked
        self.trick_n[P] = 0

    def _play(self, a: np.ndarray, play: np.ndarray | None) -> np.ndarray | None:
        """Play the cards ``a`` at the tables in play (``play``: a mask, None for all); return the tables
        whose hand ended.

        Every operation runs on whole arrays; at tables not in play the card is masked to nothing and
        the seat to act and the trick count are kept. Seats in play are not marked as having looked
        here: ``looked`` derives it (a seat that has played a card or is to act has looked).
        """
        n = self.num_players
        cur, tn = self.cur, self.trick_n
        f = self._base21 + cur * 5
        bit = _ACTION_CARD_BIT.take(a)
        if play is not None:
            bit = np.where(play, bit, _U0)  # exchange passes are cards too
        sbf = self._sb.ravel()
        sbf[f] = sbf.take(f) ^ bit
        sbf[f + _TRICK_B] = bit  # at tables not in play, a trick board that is empty anyway
        self.broken = self.broken | ((bit & _SPADES) != _U0)
        led = np.where(tn == 0, _ACTION_SUIT.take(a), self._led)
        self._led = led
        nxt = cur + 1
        if n == 4:
            nxt &= 3
        else:
            nxt %= n
        if play is None:
            tn = tn + 1
            self.cur = nxt
        else:
            tn = tn + play
            self.cur = np.where(play, nxt, cur)
        self.trick_n = tn
        full = tn == n
        if full.all():
            return self._end_tricks(self._ar, led)
        if not full.any():
            return None
        F = np.flatnonzero(full)
        return self._end_tricks(F, led.take(F))

    def _end_tricks(self, F: np.ndarray, led: np.ndarray) -> np.ndarray | None:
        """Score the full tricks at the tables F (``led``: their suits led); return the hands that ended."""
        index = (F * _BOARDS)[:, None] + self._trick_cols
        sbf = self._sb.ravel()
        cards = _popcount(sbf.take(index) - _U1)  # one card per seat
        sbf[index] = _U0
        key = cards * 4 + led[:, None]
        if not self._uniform:
            key += self._P.key_offset.take(self.rid.take(F))[:, None]
        winner = self._keys.take(key).argmax(axis=1)  # the keys of the cards that can win are distinct
        fw = F * _SEAT_W + _WON * 4 + winner
        flat = self._seat.ravel()
        flat[fw] = flat.take(fw) + 1
        self.trick_n[F] = 0
        ti = self.trick_index.take(F) + 1
        self.trick_index[F] = ti
        self.cur[F] = winner
        over = ti == self.num_tricks
        if not over.any():
            return None
        E = F[over]
        self.phase[E] = _OVER
        return E

    # ======================================================= legal actions
    def _compute_legal(self) -> None:
        """Legal-action words of every table: the play rule on whole arrays, then the other phases."""
        self._play_legal()
        phase = self.phase
        other = phase != _PLAY
        if not other.any():
            return
        O = np.flatnonzero(other)
        ph = phase.take(O)
        if self._any["blind"]:
            blind = ph == _BLIND
            if blind.any():
                T = O[blind]
                self._legal[T, 0] = _U0
                self._legal[T, 1] = _SEE_HI | self._blind_bits(T, self.cur.take(T))
                O, ph = O[~blind], ph[~blind]
        if self._any["exchange"]:
            ex = ph == _EXCHANGE
            if ex.any():
                T = O[ex]
                self._legal[T, 0] = self._sb.ravel().take(T * _BOARDS + self.cur.take(T) * 5 + _HAND_B)
                self._legal[T, 1] = _U0
                O = O[~ex]
        if len(O):
            if self._P.simple_bids:
                self._legal[O] = self._simple_bid_words
            else:
                lo, hi = self._bid_bits(O, self.cur.take(O))
                self._legal[O, 0] = lo
                self._legal[O, 1] = hi

    def _play_legal(self) -> None:
        """The play rule at every table (rows of tables in another phase are overwritten after)."""
        hand = self._sb.ravel().take(self._base21 + self.cur * 5)
        lead = self.trick_n == 0
        non_spades = hand & _NON_SPADES
        free = self.broken | (non_spades == _U0)
        if self._any["dealer_leads_any"]:
            free = free | self._p("dealer_leads_any", slice(None))
        follow = hand & SUIT_MASK_ARR.take(self._led)
        mask = np.where(lead, np.where(free, hand, non_spades), np.where(follow != _U0, follow, hand))
        if self._any["lowest_club"]:
            first = (self.trick_index == 0) & self._p("lowest_club", slice(None))
            if first.any():
                clubs = hand & _CLUBS
                reds = hand & _REDS
                lc_mask = np.where(lead | (clubs != _U0), _lowbit(clubs), np.where(reds != _U0, reds, hand))
                mask = np.where(first, lc_mask, mask)
        self._legal[:, 0] = mask
        self._legal[:, 1] = _U0

    # ========================================================== hand ends
    def _score(self, E: np.ndarray) -> dict[str, np.ndarray]:
        """Vectorized ``score_hand`` for the tables E (their hands are over); a test checks it against
        the core's ``score_hand`` for every preset."""
        n, S = self.num_players, self.num_sides
        k = len(E)
        P, any_ = self._P, self._any
        if self._uniform:
            def g(name):
                return getattr(P, name)[0]
        else:
            rid = self.rid.take(E)

            def g(name):  # broadcasts against (k, S)
                return getattr(P, name)[rid][:, None]
        seat = self._seat[E]
        kinds, values, tricks = seat[:, _KIND, :n], seat[:, _VALUE, :n], seat[:, _WON, :n]
        # Per seat: number bid, tricks counting for a number bid, nil tricks, nil points; summed by side.
        q = np.zeros((k, 4, n), np.intp)
        is_num = kinds == _NUMBER
        np.multiply(values, is_num, out=q[:, 0])
        np.multiply(tricks, is_num, out=q[:, 1])
        if any_["nil"]:
            is_nil = _IS_NIL.take(kinds)
            np.multiply(tricks, is_nil, out=q[:, 2])
            made = (tricks == 0).astype(np.intp)
            if self._uniform:
                q[:, 3] = self._nil_points[0].take(kinds * 2 + made)
            else:
                q[:, 3] = self._nil_points.take((rid * (2 * NUM_BID_KINDS))[:, None] + kinds * 2 + made)
        side = q[:, :, self._members].reshape(k, 4, S, -1).sum(axis=3)
        contract, counted, nil_tricks, points = side[:, 0], side[:, 1], side[:, 2], side[:, 3]
        bag_value = g("bag_value")
        if any_["count_for_partner"]:
            cfp = g("count_for_partner")
            counted = counted + np.where(cfp, nil_tricks, 0)
            nil_tricks = np.where(cfp, 0, nil_tricks)
        made = counted >= contract
        over = counted - contract
        points = points + nil_tricks * bag_value + np.where(
            made, POINTS_PER_BID_TRICK * contract + bag_value * over, -POINTS_PER_BID_TRICK * contract)
        new_bags = nil_tricks + np.where(made, over, 0)
        if any_["team"] or any_["boston"]:
            side_tricks = tricks[:, self._members].reshape(k, S, -1).sum(axis=2)
        if any_["team"]:
            mk = kinds[:, self._members].reshape(k, S, -1)
            mv = values[:, self._members].reshape(k, S, -1)
            has_ten = (mk == _TEN).any(axis=2)
            has_blind = (mk == _BLINDBID).any(axis=2)
            special = has_ten | has_blind
            sp_contract = np.where(has_ten, TEN_FOR_200_TRICKS, (mv * (mk == _BLINDBID)).sum(axis=2))
            sp_points = np.where(has_ten, TEN_FOR_200_POINTS, BLIND_BID_MULTIPLIER * POINTS_PER_BID_TRICK * sp_contract)
            sp_made = side_tricks >= sp_contract
            sp_bags = np.where(sp_made, side_tricks - sp_contract, 0)
            points = np.where(special, np.where(sp_made, sp_points + bag_value * sp_bags, -sp_points), points)
            new_bags = np.where(special, sp_bags, new_bags)
            contract = np.where(special, sp_contract, contract)
            made = np.where(special, sp_made, made)
        if any_["boston"]:
            points = points + np.where(side_tricks == self.num_tricks, g("boston_bonus"), 0)
        bags = self.bags[E] + new_bags
        if any_["bag_limit"]:
            limit = g("bag_limit")
            penalties = np.where(limit > 0, bags // np.maximum(limit, 1), 0)
            bags = bags - penalties * limit
            points = points - penalties * g("bag_penalty")
        else:
            penalties = np.zeros_like(bags)
        return {"points": points, "bags": bags, "contracts": contract, "made": made, "bag_penalties": penalties,
                "tricks": tricks, "bid_kinds": kinds, "bid_values": values}

    def _finish_hands(self, E: np.ndarray, rewards: np.ndarray) -> tuple[np.ndarray, StepInfo]:
        n = self.num_players
        rules = self.rules
        res = self._score(E)
        points = res["points"]
        scores = self.scores[E] + points
        self.scores[E] = scores
        self.bags[E] = res["bags"]
        finished = self.hand_index.take(E)
        hands_played = finished + 1
        self.hand_index[E] = hands_played
        if self.episode == "hand":
            over = np.ones(len(E), bool)
            winner = hand_winner(points)
            truncated = np.zeros(len(E), bool)
        else:
            best = scores.max(axis=1)
            ended = best >= rules.target_score
            if rules.lose_score is not None:
                ended |= scores.min(axis=1) <= rules.lose_score
            last = hands_played >= rules.max_hands
            if ended.any() or last.any():
                unique = (scores == best[:, None]).sum(axis=1) == 1
                winner = np.where(ended & unique, scores.argmax(axis=1), -1)
                truncated = (winner < 0) & last
                over = (winner >= 0) | truncated
            else:
                over = ended  # all False
        # Rewards: exactly the AEC env's sums, per hand rules.
        scheme = self.reward_scheme
        if self._uniform:
            rid = np.zeros(len(E), np.intp)
            per_seat = np.asarray(scheme.hand_end(self._hand_rules[0], points), dtype=np.float64)
        else:
            rid = self.rid.take(E)
            per_seat = np.zeros((len(E), n))
            for r in range(self._num_rules):
                m = rid == r
                if m.any():
                    per_seat[m] = scheme.hand_end(self._hand_rules[r], points[m])
        any_over = bool(over.any())  # winner and truncated are set whenever a game ended
        if any_over:
            per_seat = per_seat.copy()
            per_seat[over] = per_seat[over] + scheme.episode_end(rules, winner[over])
        rewards[E] = per_seat

        hand_data = {"hand_over": True, "hand_index": finished, "hand_dealer": self.dealer.take(E),
                     "hand_rules_id": rid, "scores": scores}
        for key in ("points", "bags", "contracts", "made", "bag_penalties", "tricks", "bid_kinds", "bid_values"):
            hand_data[key] = res[key]
        hand_data["nil_made"] = lambda: _nil_made(res["bid_kinds"], res["tricks"])
        dones = np.zeros(self.num_envs, bool)
        F = episode_data = deals = None
        if any_over:
            F = E[over]
            dones[F] = True
            episode_data = {"done": True, "truncated": truncated[over], "terminated": ~truncated[over],
                            "winner": winner[over], "final_scores": scores[over], "final_bags": res["bags"][over],
                            "episode_hands": hands_played[over], "episode_dealer": self.first_dealer.take(F)}
            if self.record_deals:
                counts = hands_played[over]
                deals = _LazyDeals(F, self._log[F, :int(counts.max())], counts, n)
            self._new_games(F)
            C = E[~over]
        else:
            C = E
        if len(C):
            dealer = (self.dealer.take(C) + 1) % n
            self.dealer[C] = dealer
            self._start_hands(C, dealer)
        info = StepInfo(self.num_envs, self._info_width, self._P.names, E, hand_data, F, episode_data, deals)
        return dones, info

    def _info_widths(self) -> dict[str, tuple[int | None, Any]]:
        n, S = self.num_players, self.num_sides
        widths: dict[str, tuple[int | None, Any]] = {key: (None, np.intp) for key in (
            "hand_index", "hand_dealer", "hand_rules_id", "winner", "episode_hands", "episode_dealer")}
        widths.update({key: (S, np.int64) for key in (
            "points", "scores", "bags", "contracts", "bag_penalties", "final_scores", "final_bags")})
        widths.update({key: (n, np.intp) for key in ("tricks", "bid_kinds", "bid_values", "nil_made")})
        widths.update({key: (None, bool) for key in ("hand_over", "done", "terminated", "truncated")})
        widths["made"] = (S, bool)
        return widths

    # ========================================================= observation
    def _observe_actors(self) -> np.ndarray:
        flip = self._flip
        out = self._obs_bufs[flip]
        cur = self.cur
        visible = self.phase != _BLIND  # the seat to act has looked unless it is making a blind decision
        self._encode(out, cur, visible, write_tail=not self._uniform, cards=self._card_views[flip], actor=True)
        return out

    def _mask_out(self) -> np.ndarray:
        bits = np.unpackbits(self._legal.view(np.uint8), axis=1, count=NUM_ACTIONS, bitorder="little")
        self._mask_bits = bits
        out = self._mask_bufs[self._flip]
        np.copyto(out, bits.view(np.int8))
        return out

    def _encode(self, out: np.ndarray, observer: np.ndarray, visible: np.ndarray, write_tail: bool,
                cards: np.ndarray | None = None, actor: bool = False) -> None:
        """Write the observation of ``observer`` at every table into ``out[:, :OBS_SIZE]``.

        The gather indices are computed for every table at once; the rows are then written in blocks
        of ``_ROW_BLOCK`` tables, so that each block of the output stays in cache while its pieces
        are written (one sweep per piece over the whole output was several times slower).
        """
        N = self.num_envs
        perm = self._perm
        nb = self._num_boards
        # card blocks, as bitboards relative to the observer: hand, trick x 4, then played x 4 (start ^
        # hand), passed, received; the last two stay zero, and are skipped, unless the rules have an exchange
        idx = perm["cards"].take(observer * 2 + visible, axis=0)
        idx += self._base21[:, None]
        gathered = self._sb.ravel().take(idx)
        boards = self._boards_buf if actor else np.empty((N, nb), np.uint64)
        boards[:, :5] = gathered[:, :5]
        np.bitwise_xor(gathered[:, 7:11], gathered[:, 11:15], out=boards[:, 5:9])
        if nb == 11:
            boards[:, 9:11] = gathered[:, 5:7]
        if cards is None:
            cards = _card_view(out)
        # phase, to_act, dealer, trick_leader: one row of a lookup table
        diff = perm["diff"]
        o = observer
        to_act = 0 if actor else diff.take(self.cur * 4 + o)
        # the trick's leader is the seat trick_n places before the seat to act
        leader = np.where(self.trick_n > 0, diff.take(((self.cur - self.trick_n) % self.num_players) * 4 + o), 4)
        code = (self.phase * 5 + to_act) * 20 + diff.take(self.dealer * 4 + o) * 5 + leader
        # bids: one lookup row per slot; tricks, scores, bags: gathered by slot
        by_slot = perm["rot"].take(o, axis=0)
        by_slot += self._base20[:, None]
        seat = self._seat.ravel()
        bid_codes = seat.take(by_slot + _CODE * 4)
        mid = self._mid.ravel().take(perm["mid"].take(o, axis=0) + self._base13[:, None])
        mid[:, :4] = seat.take(by_slot + _WON * 4) / self._size  # an empty slot (3 players) has 0 tricks
        mid[:, 4] = self.broken
        tail = self._P.tail.take(self.rid, axis=0) if write_tail else None
        for start in range(0, N, _ROW_BLOCK):
            rows = slice(start, min(start + _ROW_BLOCK, N))
            block = out[rows]
            bits = np.unpackbits(boards[rows].view(np.uint8), bitorder="little").reshape(-1, nb, 64)
            cards[rows, :nb] = bits[:, :, :NUM_CARDS]
            block[:, _HEAD] = _HEAD_TABLE.take(code[rows], axis=0)
            block[:, _BIDS] = _BID_TABLE.take(bid_codes[rows], axis=0).reshape(-1, 4 * BID_FEATURES)
            block[:, _MID] = mid[rows]
            if tail is not None:
                block[:, _TAIL] = tail[rows]
