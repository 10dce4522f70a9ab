"""A table of the web page, without the web: a live game or a replay, driven by validated messages.

``LiveTable`` seats a person (at most one seat; none to watch agents) among
agents under any preset, takes the person's actions (refused, with the rule
that forbids them, when illegal or out of turn), moves the agents one
decision at a time (``agent_move``; the server paces them), gives hints,
holds after each hand's end until the person continues, and exports the game
record. ``ReplayTable`` replays an uploaded record to any decision (forward,
back, any index) and shows any seat's view or every hand.

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
from ..core.explain import why_illegal
from ..core.rules import PRESETS, Rules, preset
from ..play import HUMAN, seat_names
from ..records import RecordError, check_record, iter_replay, reset_options
from .view import Track, actions, table_view

EPISODES = ("game", "hand")
MAX_SEED = 2**63 - 1


class TableError(ValueError):
    """A message the table refuses; nothing changed."""


class LiveTable:
    """A game in progress with at most one person at it (see the module docstring)."""

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
        if seats.count(HUMAN) > 1:
            raise TableError("at most one seat is 'human' (the person at this page)")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED):
            raise TableError(f"seed must be an integer in 0..{MAX_SEED} or null")
        self.seed = int(np.random.SeedSequence().entropy % MAX_SEED) if seed is None else seed
        self.agents = {s: make_agent(spec, self.seed, s) for s, spec in enumerate(seats) if spec != HUMAN}
        self.specs = list(seats)
        self.names = seat_names(self.specs)
        self.person = seats.index(HUMAN) if HUMAN in seats else None
        self.env = raw_env(rules=rules, episode=episode)
        self.env.reset(seed=self.seed)
        self.track = Track()
        self.holding = False  # after a hand's end with a person seated, agents wait for "continue"
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

    def agent_turn(self) -> bool:
        """Whether an agent is to act now (not over, not holding after a hand's end)."""
        seat = self.to_act
        return seat is not None and seat != self.person and not self.holding

    def view(self) -> dict[str, Any]:
        """The table as the page draws it (the person's view; every hand when only agents sit)."""
        out = table_view(self.env, self.track, self.person, self.names)
        out["kind"] = self.kind
        out["holding"] = self.holding
        out["seed"] = self.seed
        out["actions"] = actions(self.env, self.person) if self.person is not None and not self.holding else None
        return out

    # ----------------------------------------------------------------- changes
    def act(self, action: Any) -> None:
        """The person's action; TableError naming why when it is not theirs to take or not legal."""
        if self.person is None:
            raise TableError("no person sits at this table: it is watched, not played")
        if self.over:
            raise TableError("the game is over")
        if self.holding:
            raise TableError("the hand is over: continue to the next one first")
        if self.to_act != self.person:
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
        if self.track.hand_ended and self.person is not None and not self.over:
            self.holding = True

    def resume(self) -> None:
        """Continue after a hand's end."""
        if not self.holding:
            raise TableError("nothing to continue: no hand has just ended")
        self.holding = False
        self.track.hand_ended = False

    def hint(self, agent: Any) -> int:
        """``agent``'s choice for the person's turn (nothing changes)."""
        if self.person is None or self.to_act != self.person or self.holding:
            raise TableError("a hint is for your turn")
        return int(agent.act(self.env.observe(self.env.agent_selection)))

    def record(self) -> dict[str, Any]:
        """The game so far as a game record (replays exactly)."""
        record = self.env.game_record()
        record["seats"] = list(self.specs)  # who sat where (the replay's names); replay ignores extra keys
        return record


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
        self.names = seat_names(specs) if ok else [f"seat {s}" for s in range(self.rules.num_players)]
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
