"""The observation: what each seat knows, as named slices of one flat float32 array.

Everything is relative to the observer. *Slot* ``k`` is the player ``k`` seats
to the observer's left (clockwise): with four players slot 0 is me, 1 my left
opponent, 2 my partner (or the player opposite in cutthroat), 3 my right
opponent; with three players slots 0, 1, 2 are me, left, right and slot 3 is
always zero; with two players slot 0 is me and slot 1 the other player.
Scores and bags of a slot are those of its side.

Observation layout (``OBS_SIZE`` = 1207, layout ``spades_obs_v2``; offsets in ``OBS_SLICES``):

=================  =======  ======================================================
name               size     content
=================  =======  ======================================================
phase              5        one-hot: BLIND, BID, EXCHANGE, PLAY, OVER (all zero
                            in DRAW, which is the ``drawing`` block)
to_act             4        one-hot slot of the seat to act (zero when none)
dealer             4        one-hot slot of the dealer
trick_leader       4        one-hot slot that led the current trick (zero if none)
bids               4 x 26   per slot: bid kind one-hot (8, ``BidKind`` order:
                            none, number, nil, blind nil, 10 for 200, blind,
                            skipped, cancelled), then tricks bid one-hot 0..17
                            (number, blind n, 10 for 200 = 10, cancelled bid)
tricks_won         4        per slot: tricks taken / hand size
spades_broken      1        1 once a spade (or joker) has been played
scores             4        per slot: its side's score / target_score
bags               4        per slot: its side's bags / bag_limit (10 if none)
target_score       1        target_score / 1000
rules              26       options that change play (see ``RULE_FEATURES``)
hand               54       my cards (all zero until I have looked at them)
trick              4 x 54   per slot: the card it played to the current trick
played             4 x 54   per slot: every card it played this hand
passed             54       cards I passed in a blind-nil exchange
received           54       cards I received in a blind-nil exchange
led                54       every card that led its trick this hand (the current
                            trick's lead included)
played_trick       54       every card played this hand: (trick + 1) / hand size,
                            trick counted from 0 (0 for a card not played)
voids              4 x 4    per slot, per suit (clubs, diamonds, hearts, spades):
                            1 when the table has seen the slot lack the suit
drawing            1        1 in the drawing phase of two players (``Phase.DRAW``);
                            ``to_act`` is then the drawer
drawing_rules      2        two players, discards face up (``DRAW_RULE_FEATURES``)
stock_size         1        cards left in the stock / 52 (0 for a dealt hand)
offered            54       the card on offer to me (my drawing turn only)
kept               54       every card I took from the stock into my hand
discarded          4 x 54   per slot: its discards that I have seen (all of mine;
                            the other's only with ``discards_face_up``)
=================  =======  ======================================================

The blocks down to ``received`` are version 0's (``spades_obs_v0``, 755
floats); down to ``voids``, version 1's (``spades_obs_v1``, 879 floats), at the
same offsets: ``spades_obs_v2`` (``spades_v3``) appends the blocks of
two-player Spades, all zero in the other variants. The history blocks hold everything the table has seen of the tricks:
with ``played`` (who played each card) they give, for every card played, its
trick, who led that trick (the slot that played the trick's ``led`` card) and
the suit led (that card's suit), and the order of play (clockwise from the
leader). ``voids`` are the *public* voids, what the cards played show every
player by the rules (``spades_env.core.tricks``: failing to follow suit, a
spade led before spades were broken, the lowest-club first trick); what one
observer can deduce from its own cards (every card of a suit seen) is left to
the agents. A position built without its past (``core.position``) shows the
earlier tricks' cards in ``played`` only: the history blocks hold what its
``HandState`` knows (its history, its last trick and the trick on the table).

The eleven 54-card blocks ``hand``..``received`` are contiguous
(``CARD_BLOCKS``) so that encoders can write them in one go. Card ``c`` is at
offset ``c`` of a block (actions 0..53, jokers at 52 and 53).

This table is the one statement of the blocks' content; their names, order
and sizes are those of :data:`~spades_env.obs.layout.OBSERVATION` (a test
checks the table against it), and every offset comes from that object.

The *state* (``STATE_SIZE`` = 1531, ``spades_state_v2``) is the full-information array for a
centralized critic: the observation of the given seat with its hand shown (and,
with two players, every discard in ``discarded``), followed by ``hands`` (4 x 54,
every slot's current cards), ``set_aside`` (54, the card set aside in
three-player cutthroat) and ``stock`` (54, two players: each card left in the
stock, its place from the top + 1, over 52).

The package, one module a job:

* :mod:`~spades_env.obs.layout`: the layout objects (``OBSERVATION``,
  ``STATE``, ``POSITION``), named blocks and versions, policy-file checks;
* :mod:`~spades_env.obs.features`: the rules block (``RULE_FEATURES``) and the scales;
* :mod:`~spades_env.obs.bounds`: the true bounds of every entry under an env's rules;
* :mod:`~spades_env.obs.encode`: the reference encoder (one hand);
* :mod:`~spades_env.obs.tracker`: the incremental encoder of the AEC env;
* :mod:`~spades_env.obs.decode`: observations back to readable fields.
* :mod:`~spades_env.obs.moved`: the old homes ``spades_env.layout`` and ``spades_env.encoding``
  (their names, with a DeprecationWarning).

The batch engine writes the same arrays for many tables
(:mod:`spades_env.batch.encoding`); tests compare every writer with the
reference encoder decision by decision.
"""

from .bounds import observation_bounds, space_bounds
from .decode import ObservationView, decode_observation, decode_observations
from .encode import OBS_SIZE, OBS_SLICES, STATE_SIZE, STATE_SLICES, encode_observation, encode_state
from .features import rule_features, rules_fields_from_features
from .layout import OBSERVATION, POSITION, RULE_FEATURES, STATE, LayoutError, ObservationLayout
from .tracker import ObservationTracker

__all__ = [
    "OBSERVATION",
    "STATE",
    "POSITION",
    "RULE_FEATURES",
    "OBS_SIZE",
    "OBS_SLICES",
    "STATE_SIZE",
    "STATE_SLICES",
    "ObservationLayout",
    "LayoutError",
    "ObservationView",
    "ObservationTracker",
    "encode_observation",
    "encode_state",
    "decode_observation",
    "decode_observations",
    "observation_bounds",
    "space_bounds",
    "rule_features",
    "rules_fields_from_features",
]
