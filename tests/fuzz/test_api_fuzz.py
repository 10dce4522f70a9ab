"""Fuzzing the public API: random calls with valid and invalid arguments.

Surfaces: ``spades_env.raw_env``, ``spades_env.env()`` (PettingZoo's wrappers),
``spades_env.SingleAgentSpadesEnv`` (Gymnasium) and ``spades_env.batch.BatchEnv``.
Each test draws a rules config (valid or not), then a sequence of calls: resets
with random seeds and options (scores, bags, dealer, deals, unknown keys, junk),
steps with actions of every type (legal ints, illegal ints, numpy ints, floats,
bools, strings, None, huge ints), observations, ``last``, ``state`` and steps
after the episode's end.

The property, per call: either the call succeeds and did what the API documents
(a step was a legal action, or an illegal move the wrapper documents as ending
the episode), or it raises a documented error -- a ``ValueError`` or
``TypeError`` subclass, ``EnvStateError`` for a call outside an episode, or
``AssertionError`` where PettingZoo's wrappers document one -- and everything observable is as it was before the call.

The default suite runs a few examples of each; ``-m slow`` runs many more.
Defects these properties found keep regression tests of their own at the end.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import spades_env
from spades_env.aec import EnvStateError
from spades_env.batch import BatchEnv
from spades_env.core.actions import NUM_ACTIONS
from spades_env.core.rules import PRESETS

# IllegalActionError, RulesError, GameError are ValueErrors; EnvStateError (a RuntimeError) is a call
# outside an episode (before reset, after the end)
DOCUMENTED_ERRORS = (ValueError, TypeError, EnvStateError)
# PettingZoo's AssertOutOfBounds / OrderEnforcing: AssertionError, and AttributeError for last() before reset
WRAPPER_ERRORS = DOCUMENTED_ERRORS + (AssertionError, AttributeError)
MESSAGE_BOUND = 5000  # an error message quoting a drawn value stays short
FAST = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # unknown reset options, illegal moves
CALLS = 40  # calls per example (the slow run draws as many; it differs in examples)

# ------------------------------------------------------------------ strategies
preset_names = st.sampled_from(sorted(PRESETS))
rule_options = st.fixed_dictionaries(
    {},
    optional={
        "target_score": st.one_of(st.integers(-10, 20_000), st.just("500")),
        "max_hands": st.integers(0, 3),
        "nil": st.booleans(),
        "blind_nil": st.booleans(),
        "ten_for_200": st.booleans(),
        "blind_nil_requires_deficit": st.one_of(st.none(), st.integers(-1, 300)),
        "max_team_bid": st.one_of(st.none(), st.integers(-1, 14)),
        "jokers": st.booleans(),
        "bags_limit": st.just(3),  # an unknown key, refused
    },
)
# A valid preset name, a custom mapping (maybe invalid), a junk value.
rules_arg = st.one_of(
    preset_names,
    preset_names,
    rule_options.map(lambda d: ("custom", d)),
    st.sampled_from(["nosuch", 42, None, ["standard"]]),
)

legal_marker = st.just("LEGAL")  # replaced by a legal action of the seat to act, when there is one
action_values = st.one_of(
    legal_marker,
    legal_marker,
    legal_marker,
    legal_marker,
    st.integers(0, NUM_ACTIONS - 1),
    st.integers(-3, NUM_ACTIONS + 3),
    st.sampled_from([2**63, 2**64 + 3, -(2**63), 10**30, -(10**30)]),
    st.integers(0, NUM_ACTIONS - 1).map(np.int64),
    st.integers(0, NUM_ACTIONS - 1).map(np.uint8),
    st.integers(0, NUM_ACTIONS - 1).map(np.int16),
    st.sampled_from([np.uint64(2**64 - 1), np.int64(-1), np.int8(-128)]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.just(3.0),
    st.booleans(),
    st.none(),
    st.sampled_from(["3", "AS", "bid 4", "", "nil", "LEGAL?"]),
    st.sampled_from([[1], (2,), {"a": 1}, b"\x01", np.array([1, 2])]),
)
seed_values = st.one_of(
    st.none(), st.integers(0, 2**32), st.integers(-5, -1), st.just(2**130), st.sampled_from(["7", 1.5, [1]])
)


def options_for(num_players: int, num_sides: int):
    """Reset options: valid ones, invalid ones and junk."""
    scores = st.one_of(
        st.lists(st.integers(-600, 600), min_size=num_sides, max_size=num_sides),
        st.lists(st.integers(-5, 5), max_size=5),
        st.sampled_from([5, "0,0", [0.5] * num_sides, [True] * num_sides, [None] * num_sides]),
    )
    bags = st.one_of(
        st.lists(st.integers(0, 9), min_size=num_sides, max_size=num_sides),
        st.lists(st.integers(-3, 200), max_size=5),
        st.sampled_from([3, ["1"] * num_sides]),
    )
    dealer = st.one_of(st.integers(-2, num_players + 1), st.sampled_from([True, 1.0, "1", None, np.int64(1)]))
    deal = st.sampled_from(
        [[["AS"]], "AS", [[0] * 13] * num_players, [list(range(13 * k, 13 * k + 13)) for k in range(num_players)]]
    )
    mapping = st.fixed_dictionaries(
        {},
        optional={
            "scores": scores,
            "bags": bags,
            "dealer": dealer,
            "deal": deal,
            "deals": st.sampled_from([[], 3]),
            "nosuch": st.just(1),
        },
    )
    return st.one_of(st.none(), mapping, mapping, st.sampled_from([[1], "x", 3]))


def call_kinds(include_last: bool):
    kinds = ["step", "step", "step", "step", "step", "step", "observe", "reset", "state", "advance", "advance"]
    return st.sampled_from(kinds + (["last"] if include_last else []))


# -------------------------------------------------------------------- helpers
def build_rules(choice):
    if isinstance(choice, tuple):
        return spades_env.Rules(**choice[1])
    return choice


def make_or_refuse(factory, choice):
    """The env built from a drawn rules choice, or None when the choice is refused with a documented error."""
    try:
        return factory(build_rules(choice))
    except DOCUMENTED_ERRORS as exc:
        assert len(str(exc)) < MESSAGE_BOUND
        return None


def same(a: Any, b: Any) -> bool:
    """Deep equality for snapshots (arrays compared exactly, NaN never appears)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and a.dtype == b.dtype
            and bool(np.array_equal(a, b))
        )
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def is_action_int(value: Any) -> bool:
    """Whether a value is an action id by the core's rule: an int or numpy integer, not a bool."""
    return (type(value) is int or isinstance(value, np.integer)) and not isinstance(value, bool)


def resolve(value: Any, legal: list[int], data) -> Any:
    if isinstance(value, str) and value == "LEGAL":
        index = data.draw(st.integers(0, NUM_ACTIONS - 1))  # same draw whatever is legal: replays stay stable
        return legal[index % len(legal)] if legal else None
    return value


# ------------------------------------------------------------------ AEC env
def aec_snapshot(raw) -> dict[str, Any]:
    """Everything observable about a raw env (works before the first reset)."""
    if raw.game is None:
        return {"reset": False}
    return {
        "obs": {a: raw.observe(a) for a in raw.possible_agents},
        "state": raw.state(),
        "agent_selection": raw.agent_selection,
        "agents": list(raw.agents),
        "scores": list(raw.game.scores),
        "bags": list(raw.game.bags),
        "dealer": raw.game.dealer,
        "history": list(raw.hand.history),
        "hand_index": raw.game.hand_index,
        "rewards": dict(raw.rewards),
        "cumulative": dict(raw._cumulative_rewards),
        "terminations": dict(raw.terminations),
        "truncations": dict(raw.truncations),
        "infos": copy.deepcopy(raw.infos),
        "actions": len(raw.game_record()["actions"]),
    }


def aec_legal(raw) -> list[int]:
    if raw.game is None or raw.agent_selection not in raw.terminations:
        return []
    return raw.legal_actions()


def aec_episode_over(raw) -> bool:
    agent = raw.agent_selection
    return agent not in raw.terminations or raw.terminations[agent] or raw.truncations[agent]


def run_aec(data, wrapped: bool) -> None:
    episode = data.draw(st.sampled_from(["hand", "game"]))
    factory = spades_env.env if wrapped else spades_env.raw_env
    env = make_or_refuse(lambda r: factory(rules=r, episode=episode), data.draw(rules_arg))
    if env is None:
        return
    raw = env.unwrapped
    raw._rng = np.random.default_rng(0)  # reset(seed=None) goes on from here: examples replay exactly
    n, sides = raw.rules.num_players, raw.rules.num_sides
    options = options_for(n, sides)
    has_reset = False
    for _ in range(CALLS):
        kind = data.draw(call_kinds(include_last=True))
        if has_reset and not raw.agents and kind in ("step", "last"):
            kind = "reset"  # every agent is gone: PettingZoo's agent_iter has stopped (its last() would KeyError)
        if not has_reset and kind == "advance":
            kind = "reset"  # advancing needs an episode; other calls before the first reset must fail cleanly
        before = aec_snapshot(raw)
        legal = aec_legal(raw)
        over = has_reset and aec_episode_over(raw)
        if over:
            event(f"call after the episode's end: {kind}")
        errors = WRAPPER_ERRORS if wrapped else DOCUMENTED_ERRORS
        if kind == "advance":  # many legal steps at once, so that hands and episodes end within an example
            for _ in range(data.draw(st.integers(1, 60))):
                if aec_episode_over(raw):
                    break
                env.step(raw.legal_actions()[0] if data.draw(st.booleans()) else raw.legal_actions()[-1])
        elif kind == "reset":
            seed, opts = data.draw(seed_values), data.draw(options)
            try:
                env.reset(seed=seed, options=opts)
            except errors as exc:
                assert same(aec_snapshot(raw), before), f"reset({seed!r}, {opts!r}) failed and changed the env"
                assert len(str(exc)) < MESSAGE_BOUND
                continue
            has_reset = True
            check_fresh_reset(raw, opts)
        elif kind == "step":
            action = resolve(data.draw(action_values), legal, data)
            try:
                env.step(action)
            except errors as exc:
                assert same(aec_snapshot(raw), before), f"step({action!r}) failed and changed the env"
                assert len(str(exc)) < MESSAGE_BOUND
                assert not (has_reset and not over and is_action_int(action) and int(action) in legal), (
                    f"legal action {action!r} refused: {exc}"
                )
                if wrapped and isinstance(exc, AssertionError):
                    in_space = raw.action_space(raw.agent_selection).contains(action) if has_reset else True
                    assert not in_space or not has_reset or (over and action is not None), (
                        f"AssertionError for an in-space action {action!r}: {exc}"
                    )
                continue
            assert has_reset, "step before reset succeeded"
            if over:
                assert action is None, f"step({action!r}) after the episode's end was accepted"
            elif is_action_int(action) and int(action) in legal:
                assert len(raw.hand.history) != len(before["history"]) or raw.game.hand_index != before["hand_index"]
            else:
                # only the wrapped env takes an illegal action, by ending the episode for everyone
                assert wrapped, f"raw_env accepted the illegal action {action!r}"
                assert all(raw.terminations.values()) and raw.rewards[before["agent_selection"]] < 0
        elif kind == "observe":
            agent = data.draw(st.one_of(st.sampled_from(raw.possible_agents), st.sampled_from(["player_9", 3, None])))
            try:
                obs = env.observe(agent)
            except errors + (KeyError,):  # an unknown agent is a KeyError naming the agents
                assert agent not in raw.possible_agents or not has_reset
                assert same(aec_snapshot(raw), before)
                continue
            assert (
                agent in raw.possible_agents
                and obs["observation"].shape == raw.observation_space(agent)["observation"].shape
            )
        elif kind == "last":
            try:
                obs, reward, terminated, truncated, info = env.last()
            except errors:
                assert same(aec_snapshot(raw), before)
                continue
            assert has_reset
            if not (terminated or truncated):
                assert obs["action_mask"].any(), "the seat to act has an empty mask"
        else:
            try:
                state = env.state()
            except errors:
                assert same(aec_snapshot(raw), before)
                continue
            assert has_reset and state.shape == raw.state_space.shape


def check_fresh_reset(raw, opts) -> None:
    """After a successful reset: the options took effect and the seat to act has a legal action."""
    assert raw.legal_actions() and raw.agent_selection == raw.possible_agents[raw.hand.current]
    if isinstance(opts, dict):
        if opts.get("scores") is not None:
            assert raw.game.scores == [int(s) for s in opts["scores"]]
        if opts.get("dealer") is not None:
            assert raw.game.dealer == opts["dealer"] and not isinstance(opts["dealer"], bool)


@FAST
@given(st.data())
def test_raw_env_calls_advance_legally_or_fail_cleanly(data):
    run_aec(data, wrapped=False)


@FAST
@given(st.data())
def test_wrapped_env_calls_advance_legally_or_fail_cleanly(data):
    run_aec(data, wrapped=True)


@pytest.mark.slow
@SLOW
@given(st.data())
def test_raw_env_calls_advance_legally_or_fail_cleanly_long(data):
    run_aec(data, wrapped=False)


@pytest.mark.slow
@SLOW
@given(st.data())
def test_wrapped_env_calls_advance_legally_or_fail_cleanly_long(data):
    run_aec(data, wrapped=True)


# --------------------------------------------------------------- Gym wrapper
def gym_snapshot(env) -> dict[str, Any]:
    return {"aec": aec_snapshot(env.aec), "seat": env.seat, "done": env._done, "mask": env.action_masks()}


def is_gym_action(value: Any) -> bool:
    """Action ids as SB3 sends them: ints, numpy integers, 0-d integer arrays (not bools)."""
    if isinstance(value, np.ndarray):
        return value.shape == () and value.dtype.kind in "iu"
    return is_action_int(value)


def run_gym(data) -> None:
    illegal_mode = data.draw(st.sampled_from(["terminate", "raise"]))
    seat = data.draw(st.one_of(st.integers(0, 3), st.integers(-1, 4), st.sampled_from(["random", True, 1.5])))
    episode = data.draw(st.sampled_from(["hand", "game"]))
    env = make_or_refuse(
        lambda r: spades_env.SingleAgentSpadesEnv(rules=r, episode=episode, seat=seat, illegal_action=illegal_mode),
        data.draw(rules_arg),
    )
    if env is None:
        return
    raw = env.aec
    options = options_for(raw.rules.num_players, raw.rules.num_sides)
    has_reset = False
    for _ in range(CALLS):
        kind = data.draw(st.sampled_from(["step", "step", "step", "step", "reset", "advance"]))
        if not has_reset:
            kind = "reset"
        before = gym_snapshot(env)
        legal = [] if env._done else np.flatnonzero(env.action_masks()).tolist()
        if kind == "advance":
            for _ in range(data.draw(st.integers(1, 30))):
                if env._done:
                    break
                env.step(int(np.flatnonzero(env.action_masks())[0]))
        elif kind == "reset":
            # gymnasium checks seeds itself; the first reset is seeded so that examples replay exactly
            seed = data.draw(st.one_of(st.none(), st.integers(0, 2**32)) if has_reset else st.integers(0, 2**32))
            opts = data.draw(options)
            try:
                obs, info = env.reset(seed=seed, options=opts)
            except DOCUMENTED_ERRORS as exc:
                if has_reset:
                    assert same(gym_snapshot(env)["aec"], before["aec"]), f"reset(options={opts!r}) changed the game"
                assert len(str(exc)) < MESSAGE_BOUND
                continue
            has_reset = True
            assert env._done or env.action_masks().any()
        else:
            if env._done:
                with pytest.raises(EnvStateError, match="reset"):
                    env.step(0)
                continue
            action = resolve(data.draw(action_values), legal, data)
            try:
                obs, reward, terminated, truncated, info = env.step(action)
            except DOCUMENTED_ERRORS as exc:
                event("gym: step raised")
                assert same(gym_snapshot(env), before), f"step({action!r}) failed and changed the env"
                assert illegal_mode == "raise" and not (is_gym_action(action) and int(action) in legal), (
                    f"step({action!r}) raised {exc!r}"
                )
                continue
            event(f"gym: step returned, illegal={bool(info.get('illegal_action'))}")
            if is_gym_action(action) and int(action) in legal:
                assert not info.get("illegal_action")
            else:
                assert illegal_mode == "terminate", f"illegal {action!r} accepted in raise mode"
                assert (
                    terminated and reward == -1 and info["illegal_action"] and env.action_masks().all()
                )  # v1: any action once over


@FAST
@given(st.data())
def test_gym_env_calls_advance_legally_or_fail_cleanly(data):
    run_gym(data)


@pytest.mark.slow
@SLOW
@given(st.data())
def test_gym_env_calls_advance_legally_or_fail_cleanly_long(data):
    run_gym(data)


# -------------------------------------------------------------- batch engine
def batch_snapshot(env) -> dict[str, Any]:
    return {
        "scores": env.scores.copy(),
        "bags": env.bags.copy(),
        "phase": env.phase.copy(),
        "cur": env.cur.copy(),
        "hand_index": env.hand_index.copy(),
        "dealer": env.dealer.copy(),
        "masks": env.action_masks(),
        "state": env.state(),
        "obs": [env.observe(np.full(env.num_envs, s)) for s in range(env.num_players)],
        "kinds": env.bid_kind.copy(),
        "values": env.bid_value.copy(),
        "won": env.tricks_won.copy(),
    }


def run_batch(data) -> None:
    num_envs = data.draw(st.one_of(st.integers(1, 3), st.integers(1, 3), st.sampled_from([0, -1, True, 2.0, "2"])))
    episode = data.draw(st.sampled_from(["hand", "game", "hand", "game", "match"]))
    seed = data.draw(st.one_of(st.integers(0, 2**32), st.integers(0, 9), st.sampled_from([-1, "x"])))
    env = make_or_refuse(lambda r: BatchEnv(num_envs, rules=r, episode=episode, seed=seed), data.draw(rules_arg))
    if env is None:
        return
    N = env.num_envs
    for _ in range(CALLS):
        kind = data.draw(st.sampled_from(["step", "step", "step", "step", "reset", "advance", "observe"]))
        before = batch_snapshot(env)
        legal = [env.legal_actions(t) for t in range(N)]
        if kind == "advance":
            for _ in range(data.draw(st.integers(1, 60))):
                _, mask, to_act, rewards, dones, _ = env.step(
                    [row[-1] for row in (env.legal_actions(t) for t in range(N))]
                )
                check_batch_step(env, rewards)
        elif kind == "reset":
            try:
                env.reset(seed=data.draw(st.one_of(st.none(), st.integers(0, 2**32), st.sampled_from([-1, "x", 1.5]))))
            except DOCUMENTED_ERRORS:
                assert same(batch_snapshot(env), before)
                continue
            assert all(env.legal_actions(t) for t in range(N))
        elif kind == "observe":
            seats = data.draw(st.one_of(st.lists(st.integers(-1, 4), min_size=N, max_size=N), st.just([0] * (N + 1))))
            try:
                env.observe(seats)
            except DOCUMENTED_ERRORS:
                pass
            assert same(batch_snapshot(env), before), "observe changed the engine"
        else:
            shape = data.draw(st.sampled_from(["list", "list", "list", "array", "short", "scalar"]))
            every_legal = data.draw(st.booleans())  # else one random value per table: mostly refused
            values = [resolve("LEGAL" if every_legal else data.draw(action_values), legal[t], data) for t in range(N)]
            actions = {
                "list": values,
                "array": np.array(values, dtype=object) if shape == "array" else None,
                "short": values[:-1],
                "scalar": values[0],
            }[shape]
            try:
                with np.errstate(all="ignore"):
                    as_array = np.asarray(actions)
                expected_ok = (
                    as_array.shape == (N,)
                    and as_array.dtype.kind in "iu"
                    and all(0 <= int(a) < NUM_ACTIONS and int(a) in legal[t] for t, a in enumerate(as_array))
                )
            except (ValueError, TypeError, OverflowError):
                expected_ok = False
            try:
                _, _, _, rewards, _, _ = env.step(actions)
            except DOCUMENTED_ERRORS as exc:
                event("batch: step refused")
                assert same(batch_snapshot(env), before), f"step({actions!r}) failed and changed the engine"
                assert not expected_ok, f"legal actions {actions!r} refused: {exc}"
                assert len(str(exc)) < MESSAGE_BOUND
                continue
            event("batch: step accepted")
            assert expected_ok, f"step({actions!r}) accepted"
            check_batch_step(env, rewards)


def check_batch_step(env, rewards) -> None:
    """After a step: every table has a seat to act with a legal action; partners are paid alike."""
    assert all(env.legal_actions(t) for t in range(env.num_envs))
    if env.partnerships:
        np.testing.assert_array_equal(rewards[:, 0], rewards[:, 2])
        np.testing.assert_array_equal(rewards[:, 1], rewards[:, 3])


@FAST
@given(st.data())
def test_batch_engine_calls_advance_legally_or_fail_cleanly(data):
    run_batch(data)


@pytest.mark.slow
@SLOW
@given(st.data())
def test_batch_engine_calls_advance_legally_or_fail_cleanly_long(data):
    run_batch(data)


# ------------------------------------------------------------- known defects
# Defects the fuzz tests above found (now fixed): each keeps a test of its own.
def card_phase_env():
    env = spades_env.raw_env()
    env.reset(seed=0)
    while env.hand.phase != 3:  # Phase.PLAY
        env.step(env.legal_actions()[0])
    return env


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int64])
def test_small_numpy_integer_card_actions_are_played_like_ints(dtype):
    env, reference = card_phase_env(), card_phase_env()
    action = env.legal_actions()[-1]
    env.step(dtype(action))
    reference.step(action)
    assert same(aec_snapshot(env), aec_snapshot(reference))


@pytest.mark.parametrize(
    "value", [float("inf"), float("-inf"), 3.7, 10**5000, "AS"], ids=["inf", "-inf", "float", "huge-int", "str"]
)
def test_a_non_integer_or_huge_action_is_an_illegal_action_with_a_short_message(value):
    env = card_phase_env()
    before = aec_snapshot(env)
    with pytest.raises(spades_env.core.IllegalActionError) as raised:
        env.step(value)
    assert len(str(raised.value)) < MESSAGE_BOUND
    assert same(aec_snapshot(env), before)


def test_gym_infinite_float_action_ends_the_episode_as_illegal():
    env = spades_env.SingleAgentSpadesEnv()
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(float("inf"))
    assert terminated and reward == -1 and info["illegal_action"]


@pytest.mark.parametrize("make", [lambda a: float(a) + 0.7, lambda a: str(a), lambda a: float(a), lambda a: True])
def test_gym_non_integer_actions_are_illegal(make):
    env = spades_env.SingleAgentSpadesEnv()
    env.reset(seed=0)
    action = int(np.flatnonzero(env.action_masks())[0])
    _, reward, terminated, _, info = env.step(make(action))
    assert terminated and info["illegal_action"]


def test_gym_step_after_the_end_raises_env_state_error_naming_reset():
    env = spades_env.SingleAgentSpadesEnv(episode="hand")
    env.reset(seed=0)
    env.step(-1)  # illegal: the episode ends
    with pytest.raises(EnvStateError, match="reset"):
        env.step(0)


def test_gym_failed_reset_keeps_the_learners_seat_and_opponents():
    env = spades_env.SingleAgentSpadesEnv(seat="random")
    env.reset(seed=0)
    seat, opponents = env.seat, dict(env.opponents)
    for _ in range(20):
        with pytest.raises(ValueError):
            env.reset(options={"dealer": 9})
        assert env.seat == seat and env.opponents == opponents


@pytest.mark.parametrize(
    "call",
    [lambda e: e.observe("player_0"), lambda e: e.state(), lambda e: e.step(54), lambda e: e.last()],
    ids=["observe", "state", "step", "last"],
)
def test_raw_env_calls_before_reset_raise_env_state_error_naming_reset(call):
    with pytest.raises(EnvStateError, match="reset"):
        call(spades_env.raw_env())


@pytest.mark.parametrize("agent", ["player_9", 3, None])
def test_raw_env_observe_of_an_unknown_agent_names_the_agents(agent):
    env = spades_env.raw_env()
    env.reset(seed=0)
    with pytest.raises(KeyError, match="player_0"):
        env.observe(agent)
