"""``BatchEnv``: the public face of the batch engine (see the package docstring).

A thin layer: it validates its inputs, then calls the transitions, the
legality, the scoring and the encoder on its arrays (:class:`BatchTables`).
Bad input raises a clear error naming the problem and changes no table.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from ..core.cards import cards_of
from ..core.hand import IllegalActionError
from ..core.rules import Rules
from ..rewards import RewardScheme
from . import encoding
from . import info as info_module
from .arguments import check_arguments, check_observe, check_seed, illegal_action, integer_rows, on_host
from .dealing import new_games
from .info import StepInfo, deals_of, stocks_of
from .legality import compute_legal
from .scoring import finish_hands
from .state import BatchTables
from .tables import DRAW, EXCHANGE, NUM_ACTIONS, PLAY, WORD_BITS
from .transitions import bid, draw, exchange, play


class BatchEnv(BatchTables):
    """``num_envs`` Spades tables stepped together; see the package docstring. ``backend="torch"`` (with
    ``device``) returns a :class:`~spades_env.batch.torch_env.TorchBatchEnv` instead: torch tensors in and out."""

    def __new__(cls, *args: Any, **kwargs: Any):
        if not args and not kwargs:  # unpickling
            return super().__new__(cls)
        given = inspect.signature(cls.__init__).bind(None, *args, **kwargs).arguments
        if given.get("backend", "numpy") != "torch":
            return super().__new__(cls)  # __init__ checks the arguments (a backend that is not one included)
        from .torch_env import TorchBatchEnv  # torch only when asked for

        given = {name: value for name, value in given.items() if name not in ("self", "backend")}
        return TorchBatchEnv(**given)  # which runs the same check (check_arguments) as __init__ here

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
        obs_format: str = "float32",
        backend: str = "numpy",
        device: Any = None,
        check_actions: bool = True,
    ):
        num_envs, seed, _ = check_arguments(
            num_envs,
            episode,
            seed,
            observations,
            record_deals,
            output_buffers,
            obs_format,
            check_actions,
            backend,
            device,
        )
        super().__init__(num_envs, rules, episode, reward, observations, record_deals, output_buffers, obs_format)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
        """Start a new episode at every table; returns ``(obs, mask, to_act)``.

        With a seed the engine's generator restarts from it (``BatchEnv(seed=s)`` then ``reset()``
        is the same as ``reset(seed=s)``); without, the generator goes on.
        """
        seed = check_seed(seed)
        if seed is not None or not hasattr(self, "rng"):
            self.rng = np.random.default_rng(seed)
            self._pools = [None] * self._num_rules
        new_games(self, self._ar)
        compute_legal(self)
        self._flip = (self._flip + 1) % self.output_buffers
        obs = encoding.observe_actors(self) if self.observations else None
        return obs, encoding.mask_out(self), self.cur.copy()

    def step(self, actions: Any, observe: bool | None = None):
        """Take one action per table; returns ``(obs, mask, to_act, rewards, dones, info)``."""
        a = self._check_actions(actions)
        check_observe(observe)
        N = self.num_envs
        playing = self.phase == PLAY
        if playing.all():
            ended = play(self, a, None)
        else:
            # Tables in play are stepped with full-array operations (the others are masked out), then
            # the other phases on their (few) tables.
            O = np.flatnonzero(~playing)
            ended = play(self, a, playing)
            if self._P.exchange:
                ex = self.phase.take(O) == EXCHANGE
                if ex.any():
                    X = O[ex]
                    exchange(self, X, a.take(X))
                    O = O[~ex]
            if self._drawing:
                dr = self.phase.take(O) == DRAW
                if dr.any():
                    D = O[dr]
                    draw(self, D, a.take(D))
                    O = O[~dr]
            if len(O):
                bid(self, O, a.take(O))
        rewards = np.zeros((N, self.num_players))
        if ended is not None:
            dones, info = finish_hands(self, ended, rewards)
        else:
            dones, info = np.zeros(N, bool), self._quiet_info
        compute_legal(self)
        self._flip = (self._flip + 1) % self.output_buffers
        build = self.observations if observe is None else observe
        obs = encoding.observe_actors(self) if build else None
        return obs, encoding.mask_out(self), self.cur.copy(), rewards, dones, info

    def observe(self, seats: Any) -> np.ndarray:
        """Fresh observations of the given seat at each table (any seat, not only the one to act)."""
        return encoding.observe_seats(self, self._check_seats(seats))

    def unpack_observations(self, packed: Any, out: np.ndarray | None = None) -> np.ndarray:
        """The float32 observations of packed rows (``obs_format="packed"``), into ``out`` when given."""
        return encoding.unpack_observations(packed, self._P, out)

    def state(self) -> np.ndarray:
        """Full-information arrays ``(num_envs, STATE_SIZE)`` relative to the seat to act (``encode_state``)."""
        return encoding.full_state(self)

    def legal_actions(self, table: int) -> list[int]:
        """Legal action ids at one table."""
        lo, hi = (int(x) for x in self._legal[self._check_table(table)])
        return cards_of(lo | (hi << WORD_BITS))

    def action_masks(self) -> np.ndarray:
        """A fresh int8 mask ``(num_envs, NUM_ACTIONS)`` of the current legal actions."""
        return self._mask_bits.view(np.int8).copy()

    def episode_deals(self, table: int) -> list:
        """Deals of the current episode at a table so far (current hand included): card ids per seat (with two
        players, the stocks: card ids, top first; the AEC env's reset option ``stocks``)."""
        if not self.record_deals:
            raise RuntimeError("deals are not recorded: create the BatchEnv with record_deals=True")
        table = self._check_table(table)
        if self._drawing:
            return stocks_of(self._stock_log[table, : self.hand_index[table] + 1])
        return deals_of(self._log[table, : self.hand_index[table] + 1], self.num_players)

    def episode_dealer(self, table: int) -> int:
        """Dealer of the first hand of the current episode at a table."""
        return int(self.first_dealer[self._check_table(table)])

    def hand_rules(self, table: int) -> Rules:
        """Rules of the hand in progress at a table (differs from ``rules`` in a crazy rotation)."""
        return self._hand_rules[int(self.rid[self._check_table(table)])]

    @staticmethod
    def hand_result(info: StepInfo, table: int) -> dict[str, Any]:
        """The AEC env's ``hand_result`` info of a table whose hand ended at this step."""
        return info_module.hand_result(info, table)

    # ========================================================== validation
    def _check_table(self, table: Any) -> int:
        """A table index, or a ValueError naming the problem."""
        if isinstance(table, (bool, np.bool_)) or not isinstance(table, (int, np.integer)):
            raise ValueError(f"table must be an int in 0..{self.num_envs - 1}, got {table!r}")
        if not 0 <= table < self.num_envs:
            raise ValueError(f"table must be in 0..{self.num_envs - 1}, got {table}")
        return int(table)

    def _check_seats(self, seats: Any) -> np.ndarray:
        """One seat per table as an intp array, or a ValueError naming the problem."""
        s = on_host(integer_rows(seats, self.num_envs, "seats"))
        bad = np.flatnonzero((s < 0) | (s >= self.num_players))
        if len(bad):
            t = int(bad[0])
            raise ValueError(f"seats must be in 0..{self.num_players - 1}; table {t} has seat {s[t]}")
        return s.astype(np.intp)

    def _check_actions(self, actions: Any) -> np.ndarray:
        """One legal action per table as an intp array, or an error naming the first bad table."""
        given = on_host(integer_rows(actions, self.num_envs, "actions", IllegalActionError))
        a = given if given.dtype == np.intp else given.astype(np.intp)
        inside = a.view(np.uint64) < NUM_ACTIONS  # negative values wrap around to huge ones
        if inside.all() and self._mask_bits.ravel().take(self._action_rows + a).all():
            return a
        ok = inside.copy()
        ok[inside] = self._mask_bits.ravel().take(self._action_rows[inside] + a[inside]) != 0
        bad = np.flatnonzero(~ok)
        t = int(bad[0])
        legal = self.legal_actions(t)
        raise illegal_action(t, int(given[t]), int(self.cur[t]), int(self.phase[t]), legal, bad.tolist())
