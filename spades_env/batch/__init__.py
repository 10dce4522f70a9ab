"""Vectorized batch engine: many Spades tables stepped together with numpy.

``BatchEnv(num_envs, rules="standard", episode="game", seed=0, reward="hand_points")``
plays ``num_envs`` independent tables. Every table always has a seat to act:
a table whose episode ends starts a new one in the same step (auto-reset) and
reports how the finished one ended in ``info``.

* ``reset(seed=None)`` -> ``(obs, mask, to_act)``: float32 ``(num_envs, 1207)``
  (``OBS_SIZE``), int8 ``(num_envs, 90)`` (``NUM_ACTIONS``) and ``(num_envs,)`` seats to act.
* ``step(actions, observe=None)`` -> ``(obs, mask, to_act, rewards, dones, info)``;
  ``actions`` holds one action per table. ``rewards`` is float64
  ``(num_envs, num_players)``: exactly what the AEC env (``raw_env``) pays each
  seat at that step (the reward scheme's ``hand_end`` at a hand's end, plus
  ``episode_end`` when the episode ends), so partners share it. ``dones``
  marks tables whose episode ended at this step (terminated or truncated, see
  ``info``); their ``obs``, ``mask`` and ``to_act`` are already those of the
  next episode. ``observe=False`` (or ``BatchEnv(..., observations=False)``)
  skips the observations: ``obs`` is then ``None``. With
  ``observations=False`` (the raw engine) a step records only the order of
  play; the trick history and the MID features an observation reads are
  rebuilt from it when ``observe``, ``state`` or ``step(..., observe=True)``
  needs them (exactly the same values, one rebuild per such call).
* The observation of a table is exactly ``raw_env.observe(agent)["observation"]``
  of the seat to act in the same state, and the mask its ``action_mask``.
* ``obs_format="packed"`` (default ``"float32"``): ``obs`` is uint8
  ``(num_envs, PACKED_SIZE)`` (272 bytes a row instead of 4,828): the card
  blocks and the led cards as uint64 bitboards, the score features as float32,
  the head and bid features as row codes, the rules id, each card's trick and
  each slot's voids as bytes, and with two players the drawing (kept and
  seen discards as bitboards, the stock's size and the card on offer as
  bytes; ``pieces.PACKED_*`` name the fields). ``env.unpack_observations(obs, out=None)`` decodes rows to exactly
  the float32 observations, into ``out`` when given (a torch CPU tensor's
  ``.numpy()`` view is written without a copy); decode when the rows are used,
  e.g. per minibatch. ``observe(seats)`` and ``state()`` stay float32.
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
  relative to the seat to act, equal to :func:`spades_env.obs.encode.encode_state`.
  ``observe(seats)``: observations of any seat at each table.
* Attributes: ``num_envs``, ``num_players``, ``num_sides``, ``obs_size``,
  ``state_size``, ``num_actions``, ``rules``; per table ``scores``, ``bags``,
  ``dealer``, ``hand_index``, ``phase``, ``cur`` (read them, do not write).

Every preset and every rules option is vectorized: no step runs a per-table
Python loop (``HANDLED_RULES`` names every field of ``Rules`` the engine
implements: all of them). Hands are uint64 bitboards (card ``c`` is bit
``c``, jokers 52 and 53); the tables in play are stepped with whole-array operations and the
tables in other phases (drawing, bidding, exchange, hand end) as index groups; a crazy
rotation keeps a rules id per table; deals are drawn in batches from the
engine's own ``numpy.random.Generator`` (with two players, each hand's stock:
``episode_deals`` then returns the stocks, the AEC env's ``stocks`` option). Observations are built from scratch
at each step: the card blocks are gathered as bitboards relative to the
observer and unpacked with ``numpy.unpackbits``, the small blocks come from
lookup tables, and rows are written in cache-sized blocks.

Modules, one job each: ``tables`` (constant bit and layout tables), ``params``
(the core's rule records by rules id, ``HANDLED_RULES``), ``state`` (the structure of arrays),
``dealing``, ``legality``, ``transitions`` (bid, exchange, play, end of
trick), ``scoring`` (the core's ``score_hands`` and ``game_end``, rewards),
``pieces`` (the engine's cut of the observation layout), ``encoding`` (the
observation writers), ``history`` (the trick history), ``info`` (``StepInfo``)
and ``env`` (``BatchEnv``). No rule is stated here: legality, turn order, what
a bid does, the exchange, the deal, the first leader, spades broken, the trick
keys, the scoring and the game end are the core's functions
(:mod:`spades_env.core.bidding`, :mod:`~spades_env.core.card_play`,
:mod:`~spades_env.core.exchange`, :mod:`~spades_env.core.deal`,
:mod:`~spades_env.core.tricks`, :mod:`~spades_env.core.scoring`,
:mod:`~spades_env.core.game`) called on arrays (``core.ops.ARRAY``), the same
lines the scalar ``HandState`` runs on ints; the lockstep tests compare the
two on every preset.

``BatchEnv(..., backend="torch", device=...)`` returns the engine on torch tensors instead
(:mod:`spades_env.batch.torch_env`: :class:`~spades_env.batch.masked.MaskedGames` on the core's
operations as torch ops, :mod:`spades_env.batch.torch_ops`): the same observations, masks and
rewards, tensors on the device, every table stepped with masks at fixed shapes.

A ``BatchEnv`` pickles and deep-copies mid-game (generator included): the copy
continues exactly as the original. ``observe(seats)``, ``step(actions)`` and
the per-table queries reject bad input (wrong shape, non-integers, out of
range, illegal actions) with an error naming the problem, changing nothing.
Both backends run one check of their arguments (:mod:`spades_env.batch.arguments`),
so they refuse the same input with the same message: the constructor's options,
seeds (None or a non-negative integer of any size), actions and seats (one
integer per table: bools, floats, complex numbers, strings are refused). The
memory bound is the same on both: ``num_envs`` times the bytes a table takes at
its peak (``state.TABLE_BYTES`` on numpy, ``arguments.TORCH_TABLE_BYTES`` on
torch) must fit in the memory available (the host's, or a CUDA device's free
memory), else a ``MemoryError`` before anything is allocated.
"""

from __future__ import annotations

from ..core.hand import IllegalActionError
from .env import BatchEnv
from .info import StepInfo
from .params import HANDLED_RULES
from .state import EPISODE_MODES, BatchTables
from .tables import NUM_ACTIONS

__all__ = ["BatchEnv", "BatchTables", "IllegalActionError", "StepInfo", "EPISODE_MODES", "HANDLED_RULES", "NUM_ACTIONS"]
