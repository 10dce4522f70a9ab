"""The state of every table as a structure of arrays (one row per table).

``BatchTables`` holds the configuration (rules, per-rules-id parameters, gather
tables) and the arrays the other modules of the package read and write:

* ``_sb``: ``(N, BOARDS)`` uint64 bitboards, per seat hand / trick / start /
  passed / received (``tables.HAND_B`` ...), plus an always-empty board;
* ``_seat``: ``(N, SEAT_PLANES, MAX_SEATS)`` ints: looked, bid kind, bid value,
  bid code (a row of the bid feature table), tricks won;
* per table: ``rid`` (rules id), ``phase``, ``cur`` (seat to act),
  ``dealer``, ``first_dealer``, ``hand_index``, ``scores``, ``bags`` (per
  side), ``bid_pos``, ``trick_n`` (cards in the trick), ``trick_index``,
  ``_led`` (suit led), ``broken``, the exchange schedule (``_ex_*``), the
  legal-action words ``_legal`` and the deal log ``_log``;
* the trick history (``_card_trick``, ``_leads``, ``_voids``; without observations only the order of
  play ``_play_order``: see ``history``);
* ``_mid``: ``(N, MID_W)`` floats of the observation's MID piece by seat (tricks won, and the scores
  and bags written when a hand starts); without observations rebuilt when observed
  (``encoding.sync_observed``).

The object pickles (the card views into the output buffers are rebuilt).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from ..config_io import load_rules
from ..core.bidding import bid_orders
from ..core.card_play import next_seats
from ..core.cards import NUM_CARDS
from ..core.drawing import STOCK_SIZE
from ..core.rules import Rules
from ..core.tricks import TRICK_KEYS
from ..obs.features import bag_scale
from ..obs.layout import OBSERVATION, STATE
from ..rewards import make_reward
from .info import StepInfo, info_widths
from .params import RulesParams
from .pieces import (
    BAGS_AT,
    MID_W,
    NUM_CARD_BLOCKS,
    PACKED_SIZE,
    SCORES_AT,
    SHORT_BOARDS,
    TAIL,
    card_view,
    packed_views,
    perm_tables,
)
from .tables import (
    BOARDS,
    CODE,
    HAND_COLS,
    KIND,
    LEGAL_WORDS,
    LOOKED,
    MAX_SEATS,
    NUM_ACTIONS,
    PLAY,
    SEAT_PLANES,
    SEAT_W,
    START_B,
    TRICK_COLS,
    U0,
    VALUE,
    WON,
    ZERO_CODE,
)

EPISODE_MODES = ("game", "hand")
_RENAMED = {
    "_base20": "_seat_rows",
    "_base21": "_board_rows",
    "_base13": "_mid_rows",
    "_base88": "_action_rows",
    "_base_cards": "_card_rows",
}
NO_PARTNER = -1
LOG_HANDS = 8  # deal-log rows allocated up front (it grows to max_hands as games get longer)
POOL_MIN, POOL_MAX = 256, 8192  # shuffled packs drawn at a time (scaled with num_envs, within these bounds)


# Peak bytes a table at reset (tracemalloc, 2026-12-05, 1,000 and 4,000 tables of standard and two_player, two
# output buffers), rounded up: what the memory check before allocating counts (arguments.check_arguments).
TABLE_BYTES = {"float32": 13_000, "packed": 3_000}


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation: the least of the host's (Linux MemAvailable; else the
    physical memory), this process's control group's room (cgroup v2 ``memory.max`` or v1 ``limit_in_bytes``, less
    what the group uses) and its address-space limit (``ulimit -v``, less what it maps); None when none is known."""
    limits = [_host_memory(), _cgroup_room(), _address_space_room()]
    known = [limit for limit in limits if limit is not None]
    return max(0, min(known)) if known else None


def _host_memory() -> int | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


CGROUP_FILES = (  # (limit, usage): cgroup v2, then v1
    ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
    ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
)


def _cgroup_room() -> int | None:
    """What this process's memory control group still allows (None: no limit, or not Linux)."""
    for limit_file, usage_file in CGROUP_FILES:
        try:
            limit = Path(limit_file).read_text().strip()
            usage = int(Path(usage_file).read_text().strip())
        except (OSError, ValueError):
            continue
        if limit.isdigit() and int(limit) < 1 << 60:  # "max" (v2) or a huge number (v1): no limit
            return int(limit) - usage
        return None
    return None


def _address_space_room() -> int | None:
    """What ``ulimit -v`` (RLIMIT_AS) still allows this process to map (None: no limit, or not known here)."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY:
            return None
        with open("/proc/self/status") as fh:
            mapped = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:"))
        return soft - mapped
    except (ImportError, OSError, ValueError, StopIteration):
        return None


class BatchTables:
    """Configuration and state arrays of ``num_envs`` tables; see the module docstring. Its arguments come checked
    (``BatchEnv`` runs :func:`~spades_env.batch.arguments.check_arguments` first)."""

    def __init__(
        self,
        num_envs: int,
        rules: Rules | str,
        episode: str,
        reward: Any,
        observations: bool,
        record_deals: bool,
        output_buffers: int,
        obs_format: str = "float32",
    ):
        self.obs_format = obs_format
        self.rules = load_rules(rules)
        self.episode = episode
        self.reward_scheme = make_reward(reward)
        self.observations = bool(observations)
        # the trick history is written at every play only when observations are on (see ``history``)
        self._live_history = self.observations
        self.record_deals = bool(record_deals)
        self.output_buffers = output_buffers
        self.num_envs = int(num_envs)
        self._configure()
        self._allocate()
        self._allocate_outputs()

    def _configure(self) -> None:
        """Sizes, per-rules parameters and gather tables."""
        r = self.rules
        n = self.num_players = r.num_players
        self.num_sides = r.num_sides
        self.partnerships = r.partnerships
        self.obs_size = OBSERVATION.size
        self.state_size = STATE.size
        self.num_actions = NUM_ACTIONS
        self.hand_size = r.hand_size
        self.num_tricks = r.num_tricks
        rotation = r.crazy
        self._hand_rules = [r] if rotation is None else [r.hand_rules(k) for k in range(len(rotation))]
        self._num_rules = len(self._hand_rules)
        self._uniform = self._num_rules == 1
        self._P = RulesParams(self._hand_rules, r)
        self._drawing = self._P.drawing  # two players: each hand starts with the drawing phase
        self._perm = perm_tables(n)
        # [dealer, deal position] -> the seat dealt it (the core's order)
        self._deal_seats = np.array(bid_orders(n), np.intp)
        self._next_seat = np.array(next_seats(n), np.intp)  # a gather per card: cheaper than the arithmetic
        self._seat_side = np.array([r.side_of(s) for s in range(n)], np.intp)
        partners = [r.partner_of(s) for s in range(MAX_SEATS)] if r.partnerships else [None] * MAX_SEATS
        self._partner_seat = np.array([NO_PARTNER if p is None else p for p in partners], np.intp)
        self._size = float(self.hand_size)
        self._num_boards = NUM_CARD_BLOCKS if self._P.exchange else SHORT_BOARDS
        self._trick_cols = TRICK_COLS[:n]
        self._hand_start_cols = np.concatenate([HAND_COLS[:n], HAND_COLS[:n] + START_B])
        self._mid_score_cols = np.concatenate([SCORES_AT + np.arange(n), BAGS_AT + np.arange(n)])
        self._mid_source = np.concatenate([self._seat_side, self.num_sides + self._seat_side])  # [scores, bags]
        self._mid_div = np.array([float(r.target_score)] * n + [bag_scale(r)] * n)
        self._pool_size = max(POOL_MIN, min(self.num_envs, POOL_MAX))
        # Trick keys: the core's table; a rotation reads the row of each table's rules.
        self._keys = TRICK_KEYS[self._P.key_row[0]] if self._uniform else TRICK_KEYS.ravel()
        self._key_offset = self._P.key_start

    def _allocate(self) -> None:
        """The state arrays (one row per table)."""
        N, S = self.num_envs, self.num_sides
        self._ar = np.arange(N, dtype=np.intp)
        self._arn = self._ar * self.num_players
        # Each table's first index into a flattened per-table array (flat gathers and writes).
        self._seat_rows = self._ar * SEAT_W
        self._board_rows = self._ar * BOARDS
        self._mid_rows = self._ar * MID_W
        self._action_rows = self._ar * NUM_ACTIONS
        self._card_rows = self._ar * (NUM_CARDS + 1)
        for name in (
            "rid",
            "phase",
            "cur",
            "dealer",
            "first_dealer",
            "hand_index",
            "bid_pos",
            "trick_n",
            "trick_index",
            "_led",
            "_ex_len",
            "_ex_pos",
        ):
            setattr(self, name, np.zeros(N, np.intp))
        self.scores = np.zeros((N, S), np.int64)
        self.bags = np.zeros((N, S), np.int64)
        self._seat = np.zeros((N, SEAT_PLANES, MAX_SEATS), np.intp)
        self._seat_init = np.zeros((SEAT_PLANES, MAX_SEATS), np.intp)
        self._seat_init[CODE, self.num_players :] = ZERO_CODE
        self._bn_eligible = np.zeros((N, MAX_SEATS), bool)  # blind nil on the scores before the hand
        self._sb = np.zeros((N, BOARDS), np.uint64)
        self._aside = np.zeros(N, np.uint64)
        self.broken = np.zeros(N, bool)
        self._ex_givers = np.zeros((N, 2), np.intp)  # the exchange's givers (core.exchange.Givers)
        # each table's card-play rules (a rotation writes them when a hand is dealt)
        self._play = self._P.play_at(self.rid)
        self._mid = np.zeros((N, MID_W), np.float32)
        self._legal = np.zeros((N, LEGAL_WORDS), np.uint64)
        self._mask_bits = np.zeros((N, NUM_ACTIONS), np.uint8)
        log_hands = 1 if self.episode == "hand" else min(LOG_HANDS, self.rules.max_hands)
        self._log = np.zeros((N, log_hands, MAX_SEATS), np.uint64)
        # the trick history (written by ``history``; without observations only the order of play)
        self._card_trick = np.zeros((N, NUM_CARDS + 1), np.uint8)
        self._leads = np.zeros(N, np.uint64)
        self._voids = np.zeros((N, MAX_SEATS), np.uint8)
        self._play_order = None if self._live_history else np.zeros((N, NUM_CARDS + 1), np.uint8)
        self._plays = None if self._live_history else np.zeros(N, np.uint8)
        # two players: the stock order (top first), the turns taken and each seat's discards
        self.draw_turn = np.zeros(N, np.intp)
        self._stock = np.zeros((N, STOCK_SIZE if self._drawing else 0), np.intp)
        self._discards = np.zeros((N, MAX_SEATS), np.uint64)
        self._stock_log = np.zeros((N, log_hands, STOCK_SIZE if self._drawing else 0), np.uint8)

    def _allocate_outputs(self) -> None:
        """Reused output buffers (see ``output_buffers``) and the quiet-step info."""
        N = self.num_envs
        self._boards_buf = np.zeros((N, self._num_boards), np.uint64)
        if self.obs_format == "packed":
            # rules id 0 and the boards an exchange-free game never writes stay 0
            self._obs_bufs = [np.zeros((N, PACKED_SIZE), np.uint8) for _ in range(self.output_buffers)]
        else:
            self._obs_bufs = [np.zeros((N, OBSERVATION.size), np.float32) for _ in range(self.output_buffers)]
            for buf in self._obs_bufs:
                buf[:, TAIL] = self._P.tail[0]  # constant with uniform rules: written once
        self._views()
        self._mask_bufs = [np.zeros((N, NUM_ACTIONS), np.int8) for _ in range(self.output_buffers)]
        self._flip = 0
        self._info_width = info_widths(self.num_players, self.num_sides)
        self._quiet_info = StepInfo(N, self._info_width, self._P.names)

    def _views(self) -> None:
        """Views into the output buffers: float32 card blocks, or the fields of packed rows."""
        packed = self.obs_format == "packed"
        self._card_views = [] if packed else [card_view(buf) for buf in self._obs_bufs]
        self._packed_views = [packed_views(buf) for buf in self._obs_bufs] if packed else []

    # Pickling: the views share memory with the output buffers, which a pickle would not keep.
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_card_views"], state["_packed_views"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state.setdefault("obs_format", "float32")  # pickled before obs_format existed
        if "_drawing" not in state:  # pickled before two-player Spades (spades_v3): no drawing phase
            n = state["num_envs"]
            state.update(
                _drawing=False,
                draw_turn=np.zeros(n, np.intp),
                _stock=np.zeros((n, 0), np.intp),
                _discards=np.zeros((n, MAX_SEATS), np.uint64),
                _stock_log=np.zeros((n, state["_log"].shape[1], 0), np.uint8),
            )
        if "_live_history" not in state:  # pickled before the raw engine kept only the order of play
            state.update(_live_history=True, _play_order=None, _plays=None, _card_rows=state["_ar"] * (NUM_CARDS + 1))
        for old, new in _RENAMED.items():  # pickled under the names of the widths they stood for
            if old in state:
                state[new] = state.pop(old)
        # The rule records are rebuilt from the rules (a pickle may hold an older form of them).
        state["_P"] = RulesParams(state["_hand_rules"], state["rules"])
        state["_next_seat"] = np.array(next_seats(state["num_players"]), np.intp)
        state.pop("_any", None)
        state.pop("_simple_bid_words", None)
        state["_play"] = state["_P"].play_at(state["rid"])
        if "_ex_givers" not in state:  # pickled before the exchange kept only its givers (core.exchange)
            ex_from = state.pop("_ex_from")
            state.pop("_ex_to")
            cards = np.broadcast_to(state["_P"].bid_at(state["rid"]).exchange, state["rid"].shape)
            second = np.take_along_axis(ex_from, np.minimum(2 * cards, ex_from.shape[1] - 1)[:, None], axis=1)[:, 0]
            state["_ex_givers"] = np.stack([ex_from[:, 0], second], axis=1)
        self.__dict__.update(state)
        self._views()

    # Per-seat planes as (num_envs, MAX_SEATS) views.
    @property
    def looked(self) -> np.ndarray:
        """Whether each seat has looked at its cards (a fresh bool array).

        The looked plane is set in the bidding and the exchange; in play a seat has looked once it
        has played a card or is to act (the leader is marked when play begins).
        """
        sb = self._sb
        played = (sb[:, HAND_COLS + START_B] ^ sb[:, HAND_COLS]) != U0
        acting = np.arange(MAX_SEATS) == self.cur[:, None]
        in_play = (self.phase == PLAY)[:, None]
        return (self._seat[:, LOOKED] != 0) | (in_play & (played | acting))

    @property
    def bid_kind(self) -> np.ndarray:
        """``BidKind`` code of each seat's bid."""
        return self._seat[:, KIND]

    @property
    def bid_value(self) -> np.ndarray:
        """Tricks of each seat's bid (numbers, blind n, 10 for 200; the cancelled bid's value)."""
        return self._seat[:, VALUE]

    @property
    def tricks_won(self) -> np.ndarray:
        """Tricks taken by each seat this hand."""
        return self._seat[:, WON]
