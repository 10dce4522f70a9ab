"""Many hands stepped together with masks, on any array form: the hand layer of the engine for accelerators.

``MaskedHands(hand_rules, ops)`` keeps one hand per table (a rotation's or a
mixture's hand rules, one rules id per table; every table has the same number
of players) in arrays of the form ``ops`` (``core.ops.ARRAY``: numpy;
``spades_env.batch.torch_ops.torch_ops(device)``: torch tensors on any
device). ``start(rid, hands, dealer, scores, stocks=None)`` deals (the cards
as bitboards per seat, or two players' stocks), ``legal()`` gives every
table's legal actions as a boolean ``(tables, NUM_ACTIONS)`` array, and
``step(actions)`` takes one action at every table (tables whose hand is over
ignore theirs). ``observe.observe(hands, observer, scores, bags, game_rules)``
writes every table's observation of a seat (exactly the reference encoder's,
``spades_env.obs.encode``: the history blocks, the public voids and the
two-player blocks are kept as play goes) and ``observe.state(...)`` the
full-information state.

Unlike the numpy engine (:mod:`spades_env.batch.transitions`), which steps
each phase's tables as an index group, every table goes through every phase's
update at every step and a mask keeps what applies: the arrays keep their
shapes, nothing is read back to the host (with a ``sync_free`` form), and the
same lines run on numpy and on torch. No rule is stated here: legality, turn
order, what a bid does, the exchange, the drawing, the first leader, spades
broken and the trick keys are the core's functions, called on the form's
arrays; the lockstep tests compare every decision with the core's
``HandState`` on every preset, on numpy and on torch.

Phases and per-table state follow ``HandState``: ``phase`` (``core.hand.Phase``
codes), ``cur`` (the seat to act, -1 once over), ``hands``, ``looked``,
``kinds``/``values`` (bids), ``won`` (tricks per seat), the trick in play order
(``trick_cards``, ``trick_seats``, ``trick_n``), ``trick_index``, ``broken``,
the exchange's givers and position, the stock and the drawing turn.

The package is split by role: :mod:`~spades_env.batch.masked.form` (the array forms and the constants),
:mod:`~spades_env.batch.masked.hands` (the flow of a hand), :mod:`~spades_env.batch.masked.observe` (the
observation and state writers) and :mod:`~spades_env.batch.masked.games` (scoring, the game, dealing).
"""

from .games import GameSteps, MaskedGames
from .hands import MaskedHands

__all__ = ["GameSteps", "MaskedGames", "MaskedHands"]
