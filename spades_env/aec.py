"""PettingZoo AEC environment over the rules core (``spades_v3``).

``raw_env(rules="standard", episode="hand", reward="hand_points",
render_mode=None, info_format="numeric", observation_key="observation")`` is the
bare environment; ``env(...)`` adds PettingZoo's usual wrappers (an
illegal action terminates the episode with reward -1 for the offender, an
out-of-range action fails an assertion, and the call order is enforced). The
bare env raises :class:`IllegalActionError` on an illegal action, naming the
legal ones, and leaves its state unchanged.

* Agents ``player_0 .. player_{n-1}``; seat k is ``player_k``, clockwise;
  partnerships are seats (0, 2) and (1, 3). Two-player Spades (preset
  ``two_player``) has two agents and starts each hand with 26 drawing turns
  (actions ``keep`` and ``discard``).
* ``episode="hand"`` (the default since ``spades_v1``) ends after one hand:
  about 56 decisions in standard rules, the length RL libraries expect.
  ``episode="game"`` (the ``spades_v0`` default) plays to the target score,
  truncated at ``max_hands``; random play almost never reaches the target, so
  a game of random players is about 5,600 decisions.
* Observation: ``{"observation": float32[OBS_SIZE], "action_mask": int8[90]}``,
  relative to the observer (layout ``spades_obs_v2`` in :mod:`spades_env.obs`,
  new in ``spades_v3``: the drawing phase of two players, appended to
  ``spades_obs_v1``, whose trick history and public voids came with
  ``spades_v2``); the mask is
  all zeros for an agent that is not to act. ``observation_key`` renames the
  ``"observation"`` entry (RLlib's action-masking modules read
  ``"observations"``). ``state()`` is the full-information array
  (``STATE_SIZE``) relative to the seat to act.
* Bounds: the observation Box's ``low``/``high`` are true for these rules
  (:func:`spades_env.obs.bounds.space_bounds`).
* Actions: the 90 actions of :mod:`spades_env.core.actions` in every variant
  (88 before ``spades_v3``; ``keep`` and ``discard`` were appended).
* Rewards (:mod:`spades_env.rewards`): shared by partners, individual in
  cutthroat; ``hand_points`` (default) at the end of each hand, ``win_loss``
  at the end of the episode. The illegal-move wrapper of ``env()`` sets both
  termination and truncation, as PettingZoo's wrapper does; the bare env only
  truncates when ``max_hands`` is reached.
* ``info_format="numeric"`` (the default since ``spades_v3``): every info of
  every step holds the same keys, numbers and fixed-shape integer arrays only
  (what Tianshou's replay buffer, Gymnasium's vector envs and other
  array-stacking collectors need): ``phase`` (the ``Phase`` code), then the batch engine's
  hand-end fields (:mod:`spades_env.batch`) for one table: ``hand_over``,
  ``hand_index`` and ``hand_dealer`` (-1 unless the hand ended at this step),
  ``points``, ``scores``, ``bags``, ``contracts``, ``made``, ``bag_penalties``
  per side and ``tricks``, ``bid_kinds``, ``bid_values``, ``nil_made`` (-1 no
  nil, 0 failed, 1 made) per seat, zeros unless the hand ended.
  ``info_format="full"``: ``infos[agent]["phase"]`` names the phase (``draw``,
  ``blind``, ``bid``, ``exchange``, ``play``, ``over``); at the end of each hand
  every agent's info also holds ``hand_result`` (points, scores, bags per side;
  bids, tricks per seat; nil outcomes), a dict whose keys change between steps
  (the default before ``spades_v3``).
* ``reset(seed=..., options=...)``: ``options`` may hold ``deal`` (one card
  list per seat, e.g. ``[["AS", "KS", ...], ...]``), ``deals`` (a list of
  deals used for the first hands in order), with two players ``stock`` (the
  stock order: the 52 cards, top first) or ``stocks`` (a list of them) instead,
  ``dealer`` (a seat), ``scores``
  and ``bags`` (one integer per side), ``hand_index`` (the hands already
  played, default 0: in a ``crazy`` rotation the first hand is that hand's
  variant, and ``max_hands`` counts them; ``0 <= hand_index < max_hands``). Ranges: ``|score| <=
  START_SCORE_TARGETS`` times the larger of ``target_score`` and
  ``|lose_score|`` (a game that starts further out is not a game of Spades);
  ``0 <= bags < bag_limit`` (carried bags never reach the limit: the penalty
  removes them), or ``<= max_hands * tricks per hand`` without a limit. Without
  a deal, deals come from the seed: the same seed gives the same game. Every
  option is checked before anything changes: bad values raise ``ValueError``
  and leave the env as it was; unknown keys are ignored with a warning
  (PettingZoo's ``api_test`` resets with a dummy option).
* Call order: ``step``, ``last`` and ``observe`` before the first ``reset``,
  and ``step``/``last`` once every agent has been removed at the end of an
  episode, raise :class:`EnvStateError` saying to call ``reset`` (``env()``'s
  order-enforcing wrapper answers a step after the end with its usual warning).
* ``game_record()`` exports the game (rules, seed, deals, every action,
  results, ``over``) as a JSON-ready dict; :func:`spades_env.records.replay`
  reproduces it and checks it.
* ``render_mode``: ``"ansi"`` returns the table as text, ``"human"`` prints
  it, ``"rgb_array"`` returns a picture of it (uint8 ``(640, 960, 3)``,
  :func:`spades_env.render_image.table_image`: every hand face up, as a
  spectator or a video of self-play sees the table; needs Pillow).
* Cloning (for search): ``clone()``, ``copy.deepcopy`` and pickling keep the
  game in progress (rules, deals, every hand, scores, rewards, infos, the seed
  generator); the copy is independent and continues exactly as the original
  would under the same actions.
* The env reads the core instead of copying it: ``game`` is the core
  :class:`~spades_env.core.game.Game`, ``hand`` the hand being observed (the
  finished one once the episode is over), ``hand_index`` its index,
  ``episode_over`` whether the episode has ended, ``seat_of(agent)`` an agent's
  seat. Observations are updated from the
  :class:`~spades_env.core.hand.Transition` each action returns.
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from .config_io import load_rules
from .core.actions import MASK_BYTES_CACHE, NUM_ACTIONS, mask_bytes
from .core.deal import Deal, make_deal, make_stock
from .core.game import Game, GameError, HandResult, checked_hand_index
from .core.hand import HandState, IllegalActionError, Phase
from .core.rules import Rules
from .core.scoring import BidKind
from .obs.bounds import START_SCORE_TARGETS, space_bounds
from .obs.encode import OBS_SIZE, STATE_SIZE, encode_state
from .obs.layout import STATE
from .obs.tracker import ObservationTracker
from .render import render_text
from .rewards import RewardScheme, hand_rewards_one, hand_winner_one, make_reward

ENV_NAME = "spades_v3"
EPISODE_MODES = ("game", "hand")
DEFAULT_EPISODE = "hand"  # spades_v0 played whole games by default (see the module docstring)
INFO_FORMATS = ("full", "numeric")
RENDER_MODES = ("ansi", "human", "rgb_array")
PHASE_NAMES = {
    Phase.DRAW: "draw",
    Phase.BLIND: "blind",
    Phase.BID: "bid",
    Phase.EXCHANGE: "exchange",
    Phase.PLAY: "play",
    Phase.OVER: "over",
}
RESET_OPTIONS = ("deal", "deals", "stock", "stocks", "dealer", "scores", "bags", "hand_index")
DEAL_OPTIONS = ("deal", "deals", "stock", "stocks")  # at most one of them
ILLEGAL_ACTION_REWARD = -1
NO_NIL = -1  # numeric infos: nil_made of a seat that did not bid nil

_ZERO_MASK = np.zeros(NUM_ACTIONS, dtype=np.int8)


class EnvStateError(RuntimeError):
    """The env is asked to act or report outside an episode: before ``reset`` or after every agent is done."""


def hand_result_info(result: HandResult) -> dict[str, Any]:
    """The ``hand_result`` info: plain lists and ints (JSON-ready)."""
    return {
        "hand_index": result.hand_index,
        "rules": result.rules_name,
        "dealer": result.dealer,
        "points": list(result.points),
        "scores": list(result.scores),
        "bags": list(result.bags),
        "bids": [str(b) for b in result.bids],
        "tricks": list(result.tricks),
        "contracts": [s.contract for s in result.score.sides],
        "made": [s.made for s in result.score.sides],
        "bag_penalties": [s.bag_penalties for s in result.score.sides],
        "nil_made": list(result.score.nil_made),
    }


def env(**kwargs: Any) -> AECEnv:
    """The Spades AEC env with PettingZoo's standard wrappers' semantics, as one lean layer."""
    from .wrappers import LeanWrapper  # here: only env()'s body is this module's wrapper-facing part

    return LeanWrapper(raw_env(**kwargs), illegal_reward=ILLEGAL_ACTION_REWARD)


class raw_env(AECEnv, EzPickle):  # noqa: N801 - PettingZoo naming convention
    """Spades as a PettingZoo AEC environment; see the module docstring."""

    metadata = {"name": ENV_NAME, "render_modes": list(RENDER_MODES), "is_parallelizable": False, "render_fps": 1}

    def __init__(
        self,
        rules: Rules | str = "standard",
        episode: str = DEFAULT_EPISODE,
        reward: str | RewardScheme = "hand_points",
        render_mode: str | None = None,
        info_format: str = "numeric",
        observation_key: str = "observation",
    ):
        EzPickle.__init__(
            self,
            rules=rules,
            episode=episode,
            reward=reward,
            render_mode=render_mode,
            info_format=info_format,
            observation_key=observation_key,
        )
        super().__init__()
        self.rules = load_rules(rules)
        if episode not in EPISODE_MODES:
            raise ValueError(f"episode must be one of {EPISODE_MODES}, got {episode!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        if info_format not in INFO_FORMATS:
            raise ValueError(f"info_format must be one of {INFO_FORMATS}, got {info_format!r}")
        if not isinstance(observation_key, str) or observation_key in ("", "action_mask"):
            raise ValueError(
                f"observation_key must be a non-empty name other than 'action_mask', got {observation_key!r}"
            )
        self.episode = episode
        self.info_format = info_format
        self.observation_key = observation_key
        self.reward_scheme = make_reward(reward)
        self.render_mode = render_mode
        n = self.rules.num_players
        self.possible_agents = [f"player_{s}" for s in range(n)]
        self.agents = list(self.possible_agents)
        self._seats = {agent: s for s, agent in enumerate(self.possible_agents)}  # names, not game state
        low, high = space_bounds(self.rules)
        self._observation_space = gymnasium.spaces.Dict(
            {
                observation_key: gymnasium.spaces.Box(low, high, (OBS_SIZE,), np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        self._action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self.observation_spaces = {a: self._observation_space for a in self.possible_agents}
        self.action_spaces = {a: self._action_space for a in self.possible_agents}
        low, high = space_bounds(self.rules, STATE)
        self.state_space = gymnasium.spaces.Box(low, high, (STATE_SIZE,), np.float32)
        self._quiet_info = _numeric_quiet_info(self.rules) if info_format == "numeric" else None
        self._rng: np.random.Generator | None = None
        self._seed: int | None = None
        # Game state lives in the core: the env holds the game, the hand that ended
        # the episode (None while it runs: in "hand" episodes the game has already
        # dealt the next hand) and the actions of hands the game no longer holds.
        self._game: Game | None = None
        self._final_hand: HandState | None = None
        self._shown_hand: HandState | None = None  # what ``hand`` returns, kept as one attribute for observe()
        self._past_actions: list[int] = []
        self._tracker = ObservationTracker()
        self._record: dict[str, Any] = {}
        self._rewards_pending = False
        self._info_stale = False

    # ---------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        """The same Dict space for every agent."""
        return self._observation_space

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        """Discrete(90) (``NUM_ACTIONS``) for every agent and variant."""
        return self._action_space

    # ----------------------------------------------------------------- reset
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game (or hand); see the module docstring for ``options``."""
        rng = np.random.default_rng(seed) if seed is not None else (self._rng or np.random.default_rng())
        game = self._new_game(rng, options or {})  # raises before anything changes
        tracker = ObservationTracker()
        tracker.start_hand(game.hand, game.scores, game.bags, self.rules)
        if seed is not None:
            self._seed = int(seed)
        self._rng = rng
        self._game = game
        self._final_hand = None
        self._shown_hand = game.hand
        self._past_actions = []
        self._tracker = tracker
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: self._phase_info(game.hand.phase) for a in self.agents}
        self.agent_selection = self.possible_agents[game.hand.current]
        self._rewards_pending = False
        self._info_stale = False
        self._record = {  # "rules" is filled in by game_record(), not at every reset (a costly copy)
            "env": ENV_NAME,
            "episode": self.episode,
            "seed": self._seed if seed is not None else None,
            "dealer": game.dealer,
            "scores": list(game.scores),
            "bags": list(game.bags),
            "hand_index": game.first_hand_index,
        }

    def _new_game(self, rng: np.random.Generator, options: dict[str, Any]) -> Game:
        if not isinstance(options, dict):
            raise ValueError(f"options must be a dict, got {type(options).__name__}")
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            # A warning, not an error: PettingZoo's api_test resets with a dummy option.
            warnings.warn(f"ignoring unknown reset option(s) {unknown}; known: {list(RESET_OPTIONS)}", stacklevel=3)
        given = [key for key in DEAL_OPTIONS if key in options]
        if len(given) > 1:
            raise ValueError(f"give one of {list(DEAL_OPTIONS)}, not {given}")
        deals: list[Deal] | None = None
        try:
            first = checked_hand_index(self.rules, options.get("hand_index", 0))  # the deals are made for that hand
            scores = self._checked_start("scores", options.get("scores"), self._score_range())
            bags = self._checked_start("bags", options.get("bags"), self._bag_range())
            if given:
                key = given[0]
                make = make_stock if key.startswith("stock") else make_deal
                values = [options[key]] if key in ("deal", "stock") else options[key]
                if not isinstance(values, (list, tuple)):
                    raise ValueError(f"'{key}' must be a list of {'stocks' if key == 'stocks' else 'deals'}")
                deals = [make(self.rules.hand_rules(first + i), d) for i, d in enumerate(values)]
            return Game(
                self.rules,
                rng,
                dealer=options.get("dealer"),
                scores=scores,
                bags=bags,
                deals=deals,
                hand_index=first,
            )
        except (GameError, ValueError, TypeError) as exc:  # TypeError: e.g. scores=5 (not a sequence)
            raise ValueError(f"invalid reset options: {exc}") from None

    def _score_range(self) -> range:
        """Starting scores allowed: see the module docstring."""
        rules = self.rules
        bound = START_SCORE_TARGETS * max(rules.target_score, abs(rules.lose_score or 0))
        return range(-bound, bound + 1)

    def _bag_range(self) -> range:
        """Starting bags allowed: see the module docstring."""
        rules = self.rules
        if rules.bag_limit:
            return range(rules.bag_limit)
        return range(rules.max_hands * rules.num_tricks + 1)

    def _checked_start(self, what: str, values: Any, allowed: range) -> list[int] | None:
        """One integer per side within ``allowed``; None when the option is not given."""
        if values is None:
            return None
        sides = self.rules.num_sides
        if not isinstance(values, (list, tuple, np.ndarray)):
            raise ValueError(f"{what} must be a list of {sides} integers (one per side), got {values!r}")
        if len(values) != sides:
            raise ValueError(f"{what} needs one value per side ({sides}), got {len(values)}")
        out = []
        for value in values:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise ValueError(f"{what} must be integers, got {value!r}")
            if int(value) not in allowed:
                raise ValueError(f"{what} must be in {allowed.start}..{allowed.stop - 1} for these rules, got {value}")
            out.append(int(value))
        return out

    # ------------------------------------------------------------------ step
    def _require_episode(self, call: str) -> None:
        """Raise EnvStateError unless an episode is running (reset done, an agent left)."""
        if self._game is None:
            raise EnvStateError(f"{call}() before reset(): call reset() to start an episode")
        if not self.agents:
            raise EnvStateError(f"{call}(): the episode is over and every agent has been removed; call reset()")

    def step(self, action: int | None) -> None:
        """Take ``action`` for ``agent_selection``; see the module docstring."""
        if self._game is None or not self.agents:
            self._require_episode("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self._game
        hand = game.hand
        try:
            result = game.apply(action)
        except IllegalActionError as exc:
            raise IllegalActionError(f"{agent}: {exc}") from None
        self._cumulative_rewards[agent] = 0.0
        if self._rewards_pending:  # only the step that ends a hand pays rewards
            for a in self.rewards:
                self.rewards[a] = 0.0
            self._rewards_pending = False
        if result is None:
            done = hand.last_transition
            self._tracker.update(hand, done)
            if hand.phase != done.phase or self._info_stale:
                for a in self.agents:
                    self.infos[a] = self._phase_info(hand.phase)
                self._info_stale = False
            self.agent_selection = self.possible_agents[hand.current]
        else:
            self._end_of_hand(hand, result)
            self._accumulate_rewards()
            self._rewards_pending = True
            self._info_stale = True
        if self.render_mode == "human":
            self.render()

    def _end_of_hand(self, finished_hand: HandState, result: HandResult) -> None:
        game = self._game
        rules = self.rules
        self._past_actions += [action for _, action in finished_hand.history]
        episode_over = game.over or self.episode == "hand"
        winner = None
        if episode_over:
            if self.episode == "hand":
                winner = hand_winner_one(result.points)
            else:
                winner = -1 if game.winner is None else game.winner
            self._final_hand = finished_hand
        per_seat = hand_rewards_one(self.reward_scheme, finished_hand.rules, rules, result.points, winner)
        for a, reward in zip(self.possible_agents, per_seat):
            self.rewards[a] = reward
        shown = self._shown_hand = self.hand
        if self._quiet_info is None:
            info = hand_result_info(result)
            phase = PHASE_NAMES[shown.phase]
            for a in self.agents:
                self.infos[a] = {"phase": phase, "hand_result": info}
        else:
            info = _numeric_hand_info(rules, result, shown.phase)
            for a in self.agents:
                self.infos[a] = dict(info)
        if episode_over:  # the finished hand stays shown: one more update, not a re-encode of its history
            self._tracker.end_hand(shown, shown.last_transition, game.scores, game.bags, rules)
        else:
            self._tracker.start_hand(shown, game.scores, game.bags, rules)
        if episode_over:
            truncated = self.episode == "game" and game.truncated
            for a in self.agents:
                self.terminations[a] = not truncated
                self.truncations[a] = truncated
        else:
            self.agent_selection = self.possible_agents[game.hand.current]

    def _phase_info(self, phase: Phase) -> dict[str, Any]:
        """A fresh info for a step that did not end a hand."""
        if self._quiet_info is None:
            return {"phase": PHASE_NAMES[phase]}
        info = dict(self._quiet_info)
        info["phase"] = int(phase)
        return info

    # --------------------------------------------------------------- observe
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation and action mask (zeros unless it is to act)."""
        hand = self._shown_hand
        if hand is None:
            raise EnvStateError("observe() before reset(): call reset() to start an episode")
        try:
            seat = self._seats[agent]
        except (KeyError, TypeError):
            seat = self.seat_of(agent)  # raises, naming the agent
        obs = self._tracker.observe(hand, seat)
        if hand.current == seat and not (self.terminations.get(agent) or self.truncations.get(agent)):
            bits = MASK_BYTES_CACHE.get(hand.legal_mask())  # mask_array inlined: this is the hot path of every decision
            if bits is None:
                bits = mask_bytes(hand.legal_mask())
            mask = np.frombuffer(bytearray(bits), dtype=np.int8)
        else:
            mask = _ZERO_MASK.copy()
        return {self.observation_key: obs, "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last()``; EnvStateError before reset or once every agent has been removed."""
        if self._game is None or not self.agents:
            self._require_episode("last")
        agent = self.agent_selection  # as PettingZoo's last(), without a second call level (hot path)
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def state(self) -> np.ndarray:
        """Full-information array relative to the seat to act (seat 0 once the hand is over)."""
        if self._game is None:
            raise EnvStateError("state() before reset(): call reset() to start an episode")
        hand = self.hand
        seat = hand.current if hand.current >= 0 else 0
        return encode_state(hand, self._game.scores, self._game.bags, self.rules, seat)

    # ------------------------------------------------------------ inspection
    def seat_of(self, agent: str) -> int:
        """The seat of an agent name (``player_k`` sits at seat k)."""
        try:
            return self._seats[agent]
        except (KeyError, TypeError):
            raise KeyError(f"no agent {agent!r} in this env; agents are {self.possible_agents}") from None

    @property
    def game(self) -> Game:
        """The underlying core game (read it, do not mutate it)."""
        return self._game

    @property
    def hand(self) -> HandState:
        """The hand being observed (the finished one at the end of an episode)."""
        if self._final_hand is not None:
            return self._final_hand
        return self._game.hand

    @property
    def episode_over(self) -> bool:
        """Whether the episode has ended (every agent terminated or truncated)."""
        return self._final_hand is not None

    @property
    def hand_index(self) -> int:
        """0-based index in the game of the hand being observed."""
        game = self._game
        return game.results[-1].hand_index if self._final_hand is not None else game.hand_index

    def legal_actions(self) -> list[int]:
        """Legal action ids of ``agent_selection`` (empty once the episode is over)."""
        if self.terminations.get(self.agent_selection) or self.truncations.get(self.agent_selection):
            return []
        return self.hand.legal_actions()

    def game_record(self) -> dict[str, Any]:
        """The game so far as a JSON-ready dict: rules, seed, deals, every action, results, whether it is over."""
        game = self._game
        record = dict(self._record)
        record["rules"] = self.rules.to_dict()
        over = self.episode_over
        current = [] if over else [action for _, action in game.hand.history]
        record["actions"] = self._past_actions + current
        hands = len(game.results) + (0 if over else 1)
        record["deals"] = [d.stock_strings() if d.stock else d.to_strings() for d in game.deals[:hands]]
        record.setdefault("results", [hand_result_info(r) for r in game.results])
        record["over"] = over
        return record

    # ---------------------------------------------------------------- render
    def render(self) -> str | np.ndarray | None:
        """``ansi``: return the table as text; ``human``: print it; ``rgb_array``: return a picture of it."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'"
            )
            return None
        if self._game is None:
            return None
        if self.render_mode == "rgb_array":
            return self.table_image()
        text = render_text(
            self.hand, self._game.scores, self._game.bags, self.rules, self.hand_index, self.possible_agents
        )
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def table_image(self, viewer: int | None = None) -> np.ndarray:
        """The table as an RGB uint8 array, hands shown as seat ``viewer`` sees them (every hand if None)."""
        from .render_image import table_image  # Pillow is needed only for pictures

        if self._game is None:
            raise EnvStateError("table_image() before reset(): call reset() to start an episode")
        return table_image(
            self.hand, self._game.scores, self._game.bags, self.rules, viewer=viewer, names=self.possible_agents
        )

    # --------------------------------------------------------------- cloning
    def __getstate__(self) -> dict[str, Any]:
        """The whole env, game in progress included (EzPickle's would keep only the constructor's arguments)."""
        return self.__dict__.copy()

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore what ``__getstate__`` saved."""
        self.__dict__.update(state)

    def clone(self) -> raw_env:
        """An independent copy of the env and its game in progress (for search)."""
        # Rules and spaces never change: the copy shares them instead of copying them.
        shared = (
            self.rules,
            self._observation_space,
            self._action_space,
            self.state_space,
            self.observation_spaces,
            self.action_spaces,
            self.possible_agents,
            self._seats,
        )
        return copy.deepcopy(self, {id(x): x for x in shared})

    def close(self) -> None:
        """Nothing to release."""


def _numeric_quiet_info(rules: Rules) -> dict[str, Any]:
    """The numeric info of a step that did not end a hand: the hand-end fields at their "no hand ended" values."""
    sides, seats = rules.num_sides, rules.num_players
    fields: dict[str, Any] = {
        "phase": 0,
        "hand_over": False,
        "hand_index": -1,
        "hand_dealer": -1,
        "points": np.zeros(sides, np.int64),
        "scores": np.zeros(sides, np.int64),
        "bags": np.zeros(sides, np.int64),
        "contracts": np.zeros(sides, np.int64),
        "made": np.zeros(sides, bool),
        "bag_penalties": np.zeros(sides, np.int64),
        "tricks": np.zeros(seats, np.int64),
        "bid_kinds": np.zeros(seats, np.int64),
        "bid_values": np.zeros(seats, np.int64),
        "nil_made": np.full(seats, NO_NIL, np.int64),
    }
    for value in fields.values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)  # shared by every quiet step's info
    return fields


def _numeric_hand_info(rules: Rules, result: HandResult, phase: Phase) -> dict[str, Any]:
    """The numeric info of the step that ended a hand (the batch engine's hand-end fields for one table)."""
    score = result.score
    return {
        "phase": int(phase),
        "hand_over": True,
        "hand_index": result.hand_index,
        "hand_dealer": result.dealer,
        "points": np.array(result.points, np.int64),
        "scores": np.array(result.scores, np.int64),
        "bags": np.array(result.bags, np.int64),
        "contracts": np.array([s.contract for s in score.sides], np.int64),
        "made": np.array([s.made for s in score.sides], bool),
        "bag_penalties": np.array([s.bag_penalties for s in score.sides], np.int64),
        "tricks": np.array(result.tricks, np.int64),
        "bid_kinds": np.array([int(b.kind) for b in result.bids], np.int64),
        "bid_values": np.array([b.value for b in result.bids], np.int64),
        "nil_made": np.array([NO_NIL if m is None else int(m) for m in score.nil_made], np.int64),
    }


assert int(BidKind.NONE) == 0  # the quiet info's bid_kinds are BidKind.NONE
