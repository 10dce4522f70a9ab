"""Which cards of each hand a viewer sees: the one rule of the observations, the pages and the pictures.

* A seat's own cards are face up to it once it has looked at them (``looked[seat]``, kept by
  :class:`~spades_env.core.hand.HandState`: set when the seat's first turn comes, when it declines a blind
  decision, and for two players as they draw). Until then they are face down to it too: under blind rules a
  seat that has not looked sees nothing of its cards while the others bid.
* Another seat's cards are never face up to a seat during the hand. A hand ends with every card played, so
  there is nothing left to turn over at its end: no view reveals the others' cards then either.
* A spectator (viewer None: agents watched, ``render``, a replay of every hand) sees every hand.
* ``after_the_fact``: a replay, viewed once the game is played, shows the viewer its own cards before it
  looked as well (what it was dealt is no secret by then); the others' stay face down, as the seat saw them.

This is the observation's rule (the ``hand`` block of :mod:`spades_env.obs` is zero until the seat has
looked), and every view states it by calling this module: the observation encoders (one hand, the tracker,
the batch engines), the web table and its replay, ``spades-play``'s table, the pictures
(:mod:`spades_env.render_image`) and the text replay. The other private cards have their own rules: the
discards in :func:`spades_env.core.drawing.discards_seen`; the card on offer is the drawer's alone.

:func:`face_up` and :func:`cards_seen` are written against :mod:`spades_env.core.ops` (one hand on bools and
ints, many tables on arrays); :func:`faces_up` and :func:`visible_hands` read one
:class:`~spades_env.core.hand.HandState` for one viewer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .ops import INT, Ops

if TYPE_CHECKING:
    from .hand import HandState


def face_up(looked: Any, own: Any, spectator: Any = False, after_the_fact: Any = False) -> Any:
    """Whether a hand is face up to a viewer: to its holder (``own``) once ``looked`` (or ``after_the_fact``),
    to a ``spectator`` always, to anyone else never."""
    # spectator | (own & (looked | after_the_fact)). A term that is a plain constant leaving the other unchanged
    # (x | False, True & x) is skipped, as ops' select skips a plain bool: the encoders pass the viewer's own
    # looked with constants, and pay no array op for them on their hot paths. Only identities are tested, so
    # every form still gives the same answer.
    seen = looked if after_the_fact is False else looked | after_the_fact
    seen = seen if own is True else own & seen
    return seen if spectator is False else spectator | seen


def cards_seen(ops: Ops, hand: Any, looked: Any, own: Any, spectator: Any = False, after_the_fact: Any = False) -> Any:
    """The cards of a hand (a bitboard) that a viewer sees: all of them where :func:`face_up`, else 0."""
    return ops.keep(face_up(looked, own, spectator, after_the_fact), hand)


def faces_up(hand: HandState, viewer: int | None, after_the_fact: bool = False) -> tuple[bool, ...]:
    """Per seat, whether its hand is face up to ``viewer`` (a seat, or None for a spectator)."""
    spectator = viewer is None
    return tuple(face_up(looked, seat == viewer, spectator, after_the_fact) for seat, looked in enumerate(hand.looked))


def visible_hands(hand: HandState, viewer: int | None, after_the_fact: bool = False) -> tuple[int, ...]:
    """Per seat, the cards of its hand that ``viewer`` sees (a bitboard; 0 where face down)."""
    spectator = viewer is None
    return tuple(
        cards_seen(INT, board, looked, seat == viewer, spectator, after_the_fact)
        for seat, (board, looked) in enumerate(zip(hand.hands, hand.looked))
    )
