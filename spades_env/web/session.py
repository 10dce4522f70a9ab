"""A table of the web page, without the web: a live game or a replay, driven by validated messages.

``LiveTable`` seats people (``"human"`` seats, any number; none to watch
agents) among agents under any preset, takes each person's actions for their
own seat (refused, with the rule that forbids them, when illegal or out of
turn), moves the agents one decision at a time (``agent_move``; the server
paces them), gives hints, holds after each hand's end until every person at
the table has continued, and exports the game record. A person's seat can be
empty (``stand``: not yet claimed, or its person gone; the hand-end hold does
not wait for it) and can be given to an agent for the rest of the game
(``replace``; the record notes from which decision, so that its later
decisions are not taken for the person's). ``ReplayTable`` replays an
uploaded record to any decision (forward, back, any index) and shows any
seat's view or every hand.

Views: a seat's view holds only what that seat knows; ``None`` shows every
hand (agents watched, a spectator the host lets see the hands); ``PUBLIC``
shows only what is played, as a spectator of the room would see it.

Every refusal is a :class:`TableError` whose message names the problem; a
refused message changes nothing. Agents come from names the server allows
(``allowed``: registered agents, released policies, policy files named on
the server's command line); a page never names a file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..aec import raw_env
from ..agents import check_plays
from ..core.explain import why_illegal
from ..core.rules import PRESETS, Rules, preset
from ..play import HUMAN, seat_names
from ..records import RecordError, check_record, iter_replay, reset_options
from .view import Track, actions, table_view

EPISODES = ("game", "hand")
MAX_SEED = 2**63 - 1
PUBLIC = -1  # the viewer of what is played only: a spectator who sees no hand (not a seat, not every hand)
ONLY_PERSON = object()  # view()'s default viewer: the one person's seat, or every hand when agents alone sit


class TableError(ValueError):
    """A message the table refuses; nothing changed."""


class LiveTable:
    """A game in progress with people and agents at it (see the module docstring)."""

    kind = "live"

    def __init__(
        self,
        rules_name: str,
        seats: list[str],
        make_agent: Callable[[str, int, int], Any],
        episode: str = "game",
        seed: int | None = None,
    ):
        if rules_name not in PRESETS:
            raise TableError(f"unknown rules {rules_name!r}; presets: {sorted(PRESETS)}")
        rules: Rules = preset(rules_name)
        if episode not in EPISODES:
            raise TableError(f"episode must be one of {list(EPISODES)}, got {episode!r}")
        if not isinstance(seats, list) or len(seats) != rules.num_players:
            raise TableError(f"{rules_name} seats {rules.num_players} players: give one entry per seat")
        if any(not isinstance(s, str) for s in seats):
            raise TableError("every seat is 'human' or an agent name")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED):
            raise TableError(f"seed must be an integer in 0..{MAX_SEED} or null")
        self.seed = int(np.random.SeedSequence().entropy % MAX_SEED) if seed is None else seed
        self.make_agent = make_agent
        self.rules = rules
        self.agents = {s: self._agent(spec, s) for s, spec in enumerate(seats) if spec != HUMAN}
        self.specs = list(seats)
        self.people = {s for s, spec in enumerate(seats) if spec == HUMAN}  # seats a person plays (until replaced)
        self.names = person_names(self.specs)  # as everyone reads them; each person reads "you" for their own
        self.env = raw_env(rules=rules, episode=episode)
        self.env.reset(seed=self.seed)
        self.track = Track()
        self.empty: set[int] = set()  # people's seats with nobody in them (not yet claimed, or the person gone)
        self.waiting: set[int] = set()  # after a hand's end: the people yet to continue (agents wait for them)
        self.replaced: list[dict[str, Any]] = []  # seats given to an agent: {"seat", "decision" (from), "agent"}
        self.recorded = False  # saved in the server's record folder (once, when the game is over)

    # ------------------------------------------------------------------ queries
    @property
    def over(self) -> bool:
        """Whether the episode has ended."""
        return self.env.episode_over

    @property
    def to_act(self) -> int | None:
        """The seat to act, None when the episode is over."""
        return None if self.over else self.env.hand.current

    @property
    def holding(self) -> bool:
        """Whether the table waits after a hand's end for people to continue."""
        return bool(self.waiting)

    @property
    def person(self) -> int | None:
        """The one person's seat (None when agents alone sit); TableError when several people sit."""
        if len(self.people) > 1:
            raise TableError("several people sit at this table: name the seat")
        return next(iter(self.people), None)

    def agent_turn(self) -> bool:
        """Whether an agent is to act now (not over, not holding after a hand's end)."""
        seat = self.to_act
        return seat is not None and seat not in self.people and not self.holding

    def view(self, viewer: Any = ONLY_PERSON) -> dict[str, Any]:
        """The table as the page draws it, seen by ``viewer``: a seat, None (every hand) or PUBLIC (no hand);
        by default the one person's seat, or every hand when agents alone sit."""
        if viewer is ONLY_PERSON:
            viewer = self.person
        out = table_view(self.env, self.track, viewer, self.names_for(viewer))
        out["kind"] = self.kind
        out["holding"] = self.holding
        out["waiting"] = sorted(self.waiting)
        out["seed"] = self.seed
        out["actions"] = actions(self.env, viewer) if viewer in self.people and not self.holding else None
        return out

    def names_for(self, viewer: int | None) -> list[str]:
        """The seats' names as ``viewer`` reads them: its own seat "you" (with its number when several people
        sit), the others' as everyone reads them."""
        names = list(self.names)
        if viewer in self.people:
            names[viewer] = "you" if self.specs.count(HUMAN) == 1 else f"you (seat {viewer})"
        return names

    # ----------------------------------------------------------------- changes
    def _seat(self, seat: int | None) -> int:
        """The person's seat an action is for: ``seat``, or the one person's when None."""
        if seat is None:
            if not self.people:
                raise TableError("no person sits at this table: it is watched, not played")
            return self.person  # type: ignore[return-value]  # TableError when several
        if seat not in self.people:
            raise TableError(f"seat {seat} is not a person's seat")
        return seat

    def act(self, action: Any, seat: int | None = None) -> None:
        """The action of the person in ``seat`` (the one person's by default); TableError naming why when it is
        not theirs to take or not legal."""
        seat = self._seat(seat)
        if self.over:
            raise TableError("the game is over")
        if self.holding:
            raise TableError("the hand is over: continue to the next one first")
        if self.to_act != seat:
            raise TableError(f"it is not your turn: {self.names[self.to_act]} is to act")
        reason = why_illegal(self.env.hand, action)
        if reason is not None:
            raise TableError(reason)
        self._step(int(action))

    def agent_move(self) -> int:
        """The agent to act decides and its action is taken; returns it."""
        if not self.agent_turn():
            raise TableError("no agent is to act now")
        seat = self.to_act
        action = int(self.agents[seat].act(self.env.observe(self.env.agent_selection)))
        self._step(action)
        return action

    def _step(self, action: int) -> None:
        self.track.step(self.env, action, self.names)
        if self.track.hand_ended and not self.over:
            self.waiting = self.people - self.empty  # none: the hand's end shows until the next decision

    def _stop_waiting(self, seat: int) -> None:
        """The table no longer waits for ``seat`` after a hand's end; the hold ends once it waits for nobody."""
        if seat in self.waiting:
            self.waiting.discard(seat)
            if not self.waiting:
                self.track.hand_ended = False

    def resume(self, seat: int | None = None) -> None:
        """The person in ``seat`` (the one person's by default) continues after a hand's end; the table goes on
        once every person at it has."""
        seat = self._seat(seat)
        if not self.holding:
            raise TableError("nothing to continue: no hand has just ended")
        if seat not in self.waiting:
            others = ", ".join(self.names[s] for s in sorted(self.waiting))
            raise TableError(f"you have continued already; waiting for {others}")
        self._stop_waiting(seat)

    def stand(self, seat: int) -> None:
        """Nobody sits in the person's ``seat`` now (not claimed yet, or the person gone): the table does not
        wait for it after a hand's end (its turn still waits)."""
        self._seat(seat)
        self.empty.add(seat)
        self._stop_waiting(seat)

    def sit(self, seat: int) -> None:
        """Someone sits in the person's ``seat`` again."""
        self._seat(seat)
        self.empty.discard(seat)

    def replace(self, seat: int, spec: str) -> None:
        """The agent ``spec`` plays the person's ``seat`` from now to the game's end."""
        self._seat(seat)
        agent = self._agent(spec, seat)
        self.agents[seat] = agent
        self.people.discard(seat)
        self.empty.discard(seat)
        self.replaced.append({"seat": seat, "decision": self.track.decisions, "agent": spec})
        self.names[seat] = f"{spec} (seat {seat})"
        self._stop_waiting(seat)

    def _agent(self, spec: str, seat: int) -> Any:
        """The agent ``spec`` for ``seat``; TableError for a name the server does not offer or an agent that
        cannot play these rules (a policy without the drawing turns of two players)."""
        agent = self.make_agent(spec, self.seed, seat)
        self._check_plays(agent, spec)
        return agent

    def _check_plays(self, agent: Any, spec: str) -> None:
        try:
            check_plays(agent, self.rules)
        except ValueError as exc:
            raise TableError(f"{spec} cannot play {self.rules.name}: {exc}") from None

    def hint(self, agent: Any, seat: int | None = None, name: str = "the hint agent") -> int:
        """``agent``'s choice for the turn of the person in ``seat`` (nothing changes)."""
        seat = self._seat(seat)
        if self.to_act != seat or self.holding:
            raise TableError("a hint is for your turn")
        self._check_plays(agent, name)
        return int(agent.act(self.env.observe(self.env.agent_selection)))

    def record(self) -> dict[str, Any]:
        """The game so far as a game record (replays exactly); ``seats`` says who sat where, ``replaced`` which
        people's seats an agent took over, from which decision."""
        record = self.env.game_record()
        record["seats"] = list(self.specs)  # who sat where (the replay's names); replay ignores extra keys
        if self.replaced:
            record["replaced"] = [dict(change) for change in self.replaced]
        return record


def person_names(specs: list[str]) -> list[str]:
    """Seat names for a table of several people: ``person (seat k)`` and the agents' names."""
    return [f"person (seat {s})" if spec == HUMAN else f"{spec} (seat {s})" for s, spec in enumerate(specs)]


class ReplayTable:
    """An uploaded record, stepped to any decision (see the module docstring)."""

    kind = "replay"

    def __init__(self, record: Any):
        if isinstance(record, dict) and "record" in record and "actions" not in record:
            record = record["record"]  # a golden transcript holds its record under "record"
        try:
            check_record(record)
            for _ in iter_replay(record):  # the one validation of a record: setup, actions, results, end
                pass
            self.rules = Rules.from_dict(record["rules"])
        except RecordError as exc:
            raise TableError(f"the record does not replay: {exc}") from None
        self.record = record
        self.total = len(record["actions"])
        specs = record.get("seats")
        ok = isinstance(specs, list) and len(specs) == self.rules.num_players and all(isinstance(s, str) for s in specs)
        if not ok:
            self.names = [f"seat {s}" for s in range(self.rules.num_players)]
        else:  # "you" for the one person of a game; each person's seat number when several played
            self.names = seat_names(specs) if specs.count(HUMAN) < 2 else person_names(specs)
            for change in record.get("replaced", []):  # a seat an agent took over: both named
                seat = change.get("seat") if isinstance(change, dict) else None
                if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(self.names):
                    self.names[seat] += f", then {str(change.get('agent'))[:40]}"
        self.viewer: int | None = None
        self.index = -1  # none replayed yet
        self.seek(0)

    def seek(self, index: Any) -> None:
        """Show the table after ``index`` decisions (0: as dealt)."""
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index <= self.total:
            raise TableError(f"index must be an integer in 0..{self.total}, got {str(index)[:40]!r}")
        if index < self.index or self.index < 0:  # back (or first): from the deal; forward steps on from here
            self.env = raw_env(rules=self.rules, episode=self.record["episode"])
            self.env.reset(options=reset_options(self.record, self.rules))
            self.track, self.index = Track(), 0
        for action in self.record["actions"][self.index : index]:
            self.track.step(self.env, int(action), self.names)
        self.index = index

    def set_viewer(self, seat: Any) -> None:
        """Show one seat's view (an int) or every hand (None)."""
        n = self.rules.num_players
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n):
            raise TableError(f"seat must be null (every hand) or an integer in 0..{n - 1}")
        self.viewer = seat

    def view(self) -> dict[str, Any]:
        """The table after ``index`` decisions, from the chosen view."""
        out = table_view(self.env, self.track, self.viewer, self.names, after_the_fact=True)
        out.update(kind=self.kind, index=self.index, total=self.total, actions=None, holding=False)
        return out
