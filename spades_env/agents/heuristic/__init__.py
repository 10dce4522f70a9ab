"""A rule-based Spades player: trick-counting bids and priority-driven card play.

One job per module:

* :mod:`.bidding`: trick estimates (:func:`estimate_tricks`), nil risk
  (:func:`nil_risk`), the bid (:func:`choose_bid`, nil and 10 for 200
  included), blind decisions (:func:`choose_blind`) and the blind-nil
  exchange (:func:`choose_exchange`).
* :mod:`.nil_model`: the fitted nil risk of the strong style (a logistic
  model of the cards and the bidding so far, :func:`fitted_nil_risk`).
* :mod:`.table`: the shared table view (:class:`Table`: seats, the agent's
  hand, the trick, bids, tricks, cards gone, known voids, bags), card
  tables, counted tricks still needed (:func:`side_need`, through the
  core's :func:`~spades_env.core.scoring.counted_tricks`) and the odds that
  a card holds (the chance that each later opponent can beat it, from the
  unseen cards, hand sizes and known voids).
* :mod:`.play`: the mode of a card decision (:func:`choose_card`): own nil,
  cover, attack, win or duck.
* :mod:`.tactics`: winning (second hand low, third hand high, the cheapest
  card likely to hold, no overtaking a partner whose card holds), leading
  (cashing top cards when a ruff is unlikely, drawing trumps, suits the
  partner can ruff), ducking and discarding.
* :mod:`.nil_play`: one's own nil, covering a partner's nil, attacking an
  opponent's.
* :mod:`.agent`: :class:`HeuristicAgent`, :func:`decide` (from an
  observation: seat numbers are slots, the agent is 0) and
  :func:`act_from_state` (from a core hand state, for the PIMC agent's
  rollouts).

Two styles (:class:`Style`, in :mod:`.table`): :data:`STRONG`, played by
:class:`HeuristicAgent` (``heuristic``), and :data:`CLASSIC` (every switch
off: the play before the bag-aware improvements), played by
:class:`ClassicHeuristicAgent` (``heuristic_classic``) and the default of
every function here, so that the PIMC agent's rollouts and the trained
policy's prior play as before. The switches: bag ducking once the side's
contract is made (unless an opponent side can be set), score-aware set play
(an opponent side that would win the game by making its contract is set at
any cost), nil cover that keeps its high cards when the trick is already
above the nil partner, a stricter blind nil, a raise by the last bidder
when the table's bids leave tricks to spare, a bolder nil (bid on a
higher estimated risk), nil defence (leading away from the coverer's
ruffs, keeping the low cards that force a nil) and, with two players, the
discards seen counted as out of play and the fitted two-player bids. Each switch is also an agent
option (``make_agent("heuristic", bag_ducking=False)``).
"""

from .agent import ClassicHeuristicAgent, HeuristicAgent, act_from_state, decide, table_from_state, table_from_view
from .bidding import (
    DEFAULT_BID_PARAMS,
    BidParams,
    choose_bid,
    choose_blind,
    choose_exchange,
    estimate_tricks,
    nil_risk,
)
from .play import choose_card
from .table import CLASSIC, STRONG, TABLES, TRUMPS_DESC, Style, Table, beat_prob, highest, lowest, p_hold, side_need

__all__ = [
    "CLASSIC",
    "DEFAULT_BID_PARAMS",
    "STRONG",
    "TABLES",
    "TRUMPS_DESC",
    "BidParams",
    "ClassicHeuristicAgent",
    "HeuristicAgent",
    "Style",
    "Table",
    "act_from_state",
    "beat_prob",
    "choose_bid",
    "choose_blind",
    "choose_card",
    "choose_exchange",
    "decide",
    "estimate_tricks",
    "highest",
    "lowest",
    "nil_risk",
    "p_hold",
    "side_need",
    "table_from_state",
    "table_from_view",
]
