"""What the page draws: a table as a JSON-ready dict, seen from one seat or with every hand shown.

``table_view(env, track, viewer, names)`` reads an AEC env (``raw_env``) and
the :class:`Track` kept beside it, and returns plain JSON values: the seats
(name, side, bid, tricks won, the cards a viewer may see, or their count),
the trick on the table and the last trick, spades broken, each side's score
and bags, the seat to act, the target, the two-player stock, the results of
the hands played and how the game ended. ``viewer`` is a seat (only what that
seat knows: its own cards once it has looked at them, as the env's
observation, or from the deal with ``after_the_fact`` (a replay); the card
on offer when it draws, its own discards, the others' with
``discards_face_up``) or None (every hand face up: watching agents,
replays). Which hands are face up is :func:`spades_env.core.visibility.faces_up`;
no other hand is revealed at a hand's end (its cards are all played).

``actions(env, seat)`` lists the seat's legal actions by name and, for every
action the page shows (the cards it holds; the bids and blind options of its
rules; keep and discard), why it is
not legal (:func:`spades_env.core.why_illegal`): the page greys those and
says the reason when one is clicked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.actions import (
    BID_ACTIONS,
    BLIND_BID_ACTIONS,
    BLIND_NIL,
    DRAW_ACTIONS,
    SEE_CARDS,
    TEN_FOR_200,
    action_name,
)
from ..core.cards import cards_of, format_card
from ..core.drawing import stock_left
from ..core.explain import why_illegal
from ..core.hand import HandState, Phase
from ..core.visibility import faces_up
from ..play import side_names, suit_groups

PHASE_WORDS = {
    Phase.DRAW: "drawing",
    Phase.BLIND: "blind",
    Phase.BID: "bidding",
    Phase.EXCHANGE: "exchange",
    Phase.PLAY: "play",
    Phase.OVER: "over",
}


@dataclass(frozen=True)
class LogLine:
    """One line of the log: ``text`` with ``{}`` where the seat's name goes: its ``name`` when the line was
    written (a person's moves stay theirs after an agent takes the seat over), "you" and the like for the
    viewer's own seat; a ``private`` line (a card passed in the exchange) reads ``{} passes a card`` to every
    other seat."""

    seat: int | None
    text: str
    name: str = ""
    private: bool = False

    def seen_by(self, viewer: int | None, names: list[str]) -> str:
        """The line as ``viewer`` (a seat, None for every hand, or no seat: a spectator of what is played) reads
        it, ``names`` being the seats' names as the viewer reads them now."""
        text = "{}: passes a card" if self.private and viewer is not None and viewer != self.seat else self.text
        if self.seat is None:
            return text
        return text.format(names[self.seat] if self.seat == viewer or not self.name else self.name)


@dataclass
class Track:
    """What the page shows that the env does not keep once the next hand is dealt: the last trick played
    (it stays on view over a hand's end), the number of decisions taken and the log."""

    last_trick: dict[str, Any] | None = None
    decisions: int = 0
    hand_ended: bool = False  # the last decision ended a hand
    log: list[LogLine] = field(default_factory=list)  # one line per decision, newest last

    def step(self, env: Any, action: int, names: list[str]) -> None:
        """Take ``action`` in ``env`` (legal: the caller checked) and note what it did, the seats named
        ``names`` (as everyone reads them now)."""
        before = env.hand
        seat = before.current
        passing = before.phase == Phase.EXCHANGE  # the card passed is the giver's to know
        hands_done = len(env.game.results)
        env.step(action)
        self.decisions += 1
        self.log.append(LogLine(seat, "{}: " + action_name(action), names[seat], private=passing))
        if before.last_transition is not None and before.last_transition.trick_winner >= 0:
            _, seats, cards, winner = before.last_trick
            self.last_trick = {"cards": [_played(s, c) for s, c in zip(seats, cards)], "winner": winner}
            self.log.append(LogLine(winner, "trick to {}", names[winner]))
        self.hand_ended = len(env.game.results) > hands_done
        if self.hand_ended:
            self.log.append(LogLine(None, f"hand {hands_done + 1} over"))


def _played(seat: int, card: int) -> dict[str, Any]:
    return {"seat": seat, "card": format_card(card)}


def _cards(mask: int) -> list[str]:
    """Card names in the terminal's order (spades_env.play.suit_groups: jokers, then by suit, highest first)."""
    return [format_card(c) for group in suit_groups(mask) for c in group]


def table_view(
    env: Any, track: Track, viewer: int | None, names: list[str], after_the_fact: bool = False
) -> dict[str, Any]:
    """The table as JSON values, seen by ``viewer`` (a seat) or with every hand shown (None); the viewer's own
    cards show once it has looked at them, or always ``after_the_fact`` (a replay, as the text replay)."""
    game = env.game
    hand: HandState = env.hand
    rules = env.rules
    n = rules.num_players
    over = env.episode_over
    current = None if over or hand.phase == Phase.OVER else hand.current
    seats = []
    face_up = faces_up(hand, viewer, after_the_fact)
    for seat in range(n):
        held = hand.hands[seat]
        bid = hand.bids[seat]
        seats.append(
            {
                "seat": seat,
                "name": names[seat],
                "side": rules.side_of(seat),
                "dealer": seat == hand.dealer,
                "cards": _cards(held) if face_up[seat] else None,
                "count": held.bit_count(),
                "bid": None if bid.kind == 0 else str(bid),
                "tricks": hand.tricks_won[seat],
                "looked": bool(hand.looked[seat]),
                "discards": _cards(hand.discards[seat])
                if hand.stock and (viewer is None or viewer == seat or rules.discards_face_up)
                else None,
            }
        )
    drawing = None
    if hand.stock:
        offered = hand.offered
        shown = offered is not None and (viewer is None or viewer == hand.current)
        drawing = {"stock_left": int(stock_left(hand.draw_turn)), "offered": format_card(offered) if shown else None}
    sides = [
        {"side": s, "name": name, "score": game.scores[s], "bags": game.bags[s]}
        for s, name in enumerate(side_names(rules, names))
    ]
    record = env.game_record()
    return {
        "rules": rules.name,
        "hand_rules": hand.rules.name,
        "num_players": n,
        "partnerships": rules.partnerships,
        "target": rules.target_score,
        "lose_score": rules.lose_score,
        "episode": record["episode"],
        "hand_number": env.hand_index + 1,
        "phase": "over" if over else PHASE_WORDS[hand.phase],
        "current": current,
        "viewer": viewer,
        "seats": seats,
        "trick": [_played(s, c) for s, c in zip(hand.trick_seats, hand.trick_cards)],
        "trick_number": min(hand.trick_index + 1, hand.rules.num_tricks),
        "num_tricks": hand.rules.num_tricks,
        "last_trick": track.last_trick,
        "spades_broken": bool(hand.spades_broken),
        "drawing": drawing,
        "sides": sides,
        "results": record["results"],
        "hand_ended": track.hand_ended,
        "over": over,
        "winner": game.winner,
        "truncated": bool(game.truncated),
        "decisions": track.decisions,
        "log": [line.seen_by(viewer, names) for line in track.log[-12:]],
    }


def actions(env: Any, seat: int) -> dict[str, Any]:
    """The seat's legal actions by name, and why each other action the page shows is not legal."""
    hand: HandState = env.hand
    legal = hand.legal_actions() if not env.episode_over and hand.current == seat else []
    shown: list[int] = []
    if legal and hand.phase in (Phase.PLAY, Phase.EXCHANGE):
        shown = cards_of(hand.hands[seat])
    elif legal and hand.phase == Phase.BID:  # the bids of these rules (others would only clutter the page)
        rules = hand.rules
        shown = [
            a for a in BID_ACTIONS if a - BID_ACTIONS[0] <= rules.num_tricks and (rules.nil or a != BID_ACTIONS[0])
        ]
        shown += [TEN_FOR_200] if rules.ten_for_200 else []
    elif legal and hand.phase == Phase.BLIND:
        rules = hand.rules
        shown = [SEE_CARDS] + ([BLIND_NIL] if rules.blind_nil else [])
        shown += list(BLIND_BID_ACTIONS) if rules.blind_bids else []
    elif legal and hand.phase == Phase.DRAW:
        shown = list(DRAW_ACTIONS)
    illegal = {}
    for action in shown:
        reason = why_illegal(hand, action)
        if reason is not None:
            illegal[str(action)] = reason
    return {
        "legal": [{"id": a, "name": action_name(a)} for a in legal],
        "shown": [{"id": a, "name": action_name(a)} for a in shown],
        "illegal": illegal,
    }
