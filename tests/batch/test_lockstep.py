"""The vectorized batch engine against the AEC env (which runs on the rules core).

The lockstep tests run the batch engine twice with the same seeds: the first
pass records each table's episodes (first dealer and deals); the second pass
steps one ``raw_env`` per table beside the engine, resetting it with those
deals at every episode start, and compares every seat to act, mask,
observation (exact equality), reward, score, hand result, end of episode and,
now and then, the full-information state and other seats' observations.
"""

from __future__ import annotations

import numpy as np
import pytest

import spades_env
from spades_env.batch import BatchEnv, IllegalActionError
from spades_env.batch.scoring import score_tables
from spades_env.core import PRESETS, Bid, BidKind, preset, score_hand
from spades_env.core.actions import NUM_ACTIONS
from spades_env.core.drawing import has_drawing
from spades_env.obs.encode import OBS_SIZE, STATE_SIZE

PRESET_NAMES = sorted(PRESETS)


def same(actual, expected, what):
    """Exact equality of two arrays (a fast check; numpy's report on failure)."""
    if not np.array_equal(actual, expected):
        np.testing.assert_array_equal(actual, expected, err_msg=what)


def random_actions(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per table."""
    keys = rng.random(mask.shape)
    keys[mask == 0] = -1.0
    return keys.argmax(axis=1)


def short_games(name: str):
    """A preset with games that end quickly (wins, lose_score and truncation at max_hands)."""
    return preset(name).replace(target_score=100, max_hands=3, lose_score=-300)


def record_episodes(rules, episode, num_envs, steps, seed, reward="hand_points"):
    """First pass: every table's episodes as (first dealer, deals)."""
    env = BatchEnv(num_envs, rules, episode=episode, seed=seed, reward=reward)
    rng = np.random.default_rng(seed + 1000)
    _, mask, _ = env.reset()
    episodes = [[] for _ in range(num_envs)]
    for _ in range(steps):
        _, mask, _, _, dones, info = env.step(random_actions(rng, mask))
        for i in np.flatnonzero(dones):
            episodes[i].append((int(info["episode_dealer"][i]), info["episode_deals"][i]))
    for i in range(num_envs):
        episodes[i].append((env.episode_dealer(i), env.episode_deals(i)))
    return episodes


def run_lockstep(rules, episode, num_envs, steps, seed, reward="hand_points", check_every=5):
    """Second pass: the engine and one AEC env per table in lockstep; returns counters."""
    episodes = record_episodes(rules, episode, num_envs, steps, seed, reward)
    env = BatchEnv(num_envs, rules, episode=episode, seed=seed, reward=reward)
    rng = np.random.default_rng(seed + 1000)
    obs, mask, to_act = env.reset()
    n = env.num_players
    agents = [f"player_{s}" for s in range(n)]
    aecs = [
        spades_env.raw_env(rules=rules, episode=episode, reward=reward, info_format="full")  # hand_result dicts
        for _ in range(num_envs)
    ]
    position = [0] * num_envs
    pick_seats = np.random.default_rng(seed + 2000)  # apart from the action stream, which must match pass 1

    deals_key = "stocks" if has_drawing(env.rules) else "deals"  # two players are dealt stocks

    def start(i):
        dealer, deals = episodes[i][position[i]]
        aecs[i].reset(options={deals_key: deals, "dealer": dealer})

    for i in range(num_envs):
        start(i)
    counts = {"decisions": 0, "hands": 0, "episodes": 0, "truncated": 0, "won": 0, "phases": set()}

    def compare(i, obs, mask, to_act, step):
        aec = aecs[i]
        agent = aec.agent_selection
        assert agent == agents[to_act[i]], (i, step)
        view = aec.observe(agent)
        same(mask[i], view["action_mask"], f"mask, table {i}, step {step}")
        if obs is not None:
            assert obs[i].dtype == np.float32
            same(obs[i], view["observation"], f"obs, table {i}, step {step}")
        assert list(env.scores[i]) == list(aec.game.scores), (i, step)
        assert list(env.bags[i]) == list(aec.game.bags), (i, step)
        counts["phases"].add(aec.hand.phase)

    for i in range(num_envs):
        compare(i, obs, mask, to_act, -1)
    for step in range(steps):
        actions = random_actions(rng, mask)
        obs, mask, to_act, rewards, dones, info = env.step(actions)
        assert rewards.shape == (num_envs, n) and dones.shape == (num_envs,)
        for i in range(num_envs):
            aec = aecs[i]
            aec.step(int(actions[i]))
            counts["decisions"] += 1
            for s, agent in enumerate(agents):
                assert rewards[i, s] == aec.rewards[agent], (i, step, s, rewards[i], aec.rewards)
            agent = aec.agent_selection
            has_result = "hand_result" in aec.infos[agent]
            assert bool(info["hand_over"][i]) == has_result, (i, step)
            if has_result:
                counts["hands"] += 1
                assert BatchEnv.hand_result(info, i) == aec.infos[agent]["hand_result"], (i, step)
            over = aec.terminations[agent] or aec.truncations[agent]
            assert bool(dones[i]) == over, (i, step)
            if over:
                counts["episodes"] += 1
                assert bool(info["truncated"][i]) == aec.truncations[agent], (i, step)
                assert bool(info["terminated"][i]) == aec.terminations[agent], (i, step)
                assert list(info["final_scores"][i]) == list(aec.game.scores)
                assert list(info["final_bags"][i]) == list(aec.game.bags)
                assert info["episode_hands"][i] == len(aec.game.results)
                if episode == "game":
                    expected = -1 if aec.game.winner is None else aec.game.winner
                else:
                    expected = int(spades_env.rewards.hand_winner(np.asarray(aec.game.results[-1].points)))
                assert info["winner"][i] == expected, (i, step)
                counts["truncated"] += bool(info["truncated"][i])
                counts["won"] += bool(info["winner"][i] >= 0)
                position[i] += 1
                start(i)
            compare(i, obs, mask, to_act, step)
        if step % check_every == 0:
            state = env.state()
            assert state.shape == (num_envs, STATE_SIZE)
            seats = pick_seats.integers(n, size=num_envs)
            others = env.observe(seats)
            for i in range(num_envs):
                same(state[i], aecs[i].state(), f"state, table {i}, step {step}")
                same(others[i], aecs[i].observe(agents[seats[i]])["observation"], f"observe, table {i}, step {step}")
    return counts


# ------------------------------------------------------------------ lockstep
@pytest.mark.parametrize("name", PRESET_NAMES)
def test_lockstep_short_games(name):
    """Whole games (won at the target or at lose_score, or truncated) with auto-reset, game mode."""
    reward = "win_loss" if PRESET_NAMES.index(name) % 2 else "hand_points"
    counts = run_lockstep(short_games(name), "game", num_envs=10, steps=450, seed=11, reward=reward)
    assert counts["episodes"] >= 10 and counts["won"] > 0


@pytest.mark.parametrize("name", ["standard", "pagat", "cutthroat3", "crazy"])
def test_lockstep_truncated_games(name):
    rules = preset(name).replace(target_score=5000, max_hands=2)
    counts = run_lockstep(rules, "game", num_envs=6, steps=300, seed=4, reward="win_loss")
    assert counts["episodes"] >= 10 and counts["truncated"] == counts["episodes"]


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_lockstep_hand_mode(name):
    counts = run_lockstep(name, "hand", num_envs=8, steps=250, seed=3)
    assert counts["episodes"] >= 28


@pytest.mark.parametrize(
    "options",
    [
        {"bids_may_total_tricks": False, "partnerships": False, "num_players": 3},
        {"bids_may_total_tricks": False, "partnerships": False},
        {"bids_may_total_tricks": False, "ten_for_200": True, "blind_bids": True, "blind_nil_requires_deficit": None},
        {"blind_nil_exchange": 3, "blind_nil_requires_deficit": None, "nil_tricks_count_for_partner": True},
        {
            "max_team_bid": 11,
            "ten_for_200": True,
            "blind_nil_requires_deficit": None,
            "boston_bonus": 200,
            "bag_limit": None,
        },
        {
            "nil": False,
            "blind_nil": False,
            "max_team_bid": 9,
            "blind_bids": True,
            "blind_bid_min": 3,
            "bag_value": -2,
            "bag_limit": 5,
            "bag_penalty": 50,
        },
        {
            "jokers": True,
            "deuce_of_spades_high": True,
            "first_trick": "lowest_club",
            "blind_nil_exchange": 2,
            "blind_nil_requires_deficit": 0,
        },
    ],
)
def test_lockstep_custom_rules(options):
    rules = spades_env.Rules(**{"target_score": 250, "max_hands": 3, **options})
    counts = run_lockstep(rules, "game", num_envs=6, steps=300, seed=2)
    assert counts["episodes"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", PRESET_NAMES)
def test_lockstep_many_games_slow(name):
    """About 4,000 games in all (~350 per preset): ~150 one-hand games, ~200 short games (up to 3 hands)
    and a few full games (to the target or truncated at 100 hands) per preset."""
    hands = run_lockstep(name, "hand", num_envs=30, steps=300, seed=101, check_every=17)
    assert hands["episodes"] >= 140
    short = run_lockstep(short_games(name), "game", num_envs=30, steps=1000, seed=102, check_every=17)
    assert short["episodes"] >= 150
    full = run_lockstep(
        name,
        "game",
        num_envs=4,
        steps=6000 if name != "openspiel" else 2000,
        seed=103,
        reward="win_loss",
        check_every=29,
    )
    assert full["episodes"] >= 1 and full["hands"] >= 100


# --------------------------------------------------------------- interface
def test_shapes_dtypes_and_attributes():
    env = BatchEnv(5, "cutthroat3", seed=1)
    assert (env.num_players, env.obs_size, env.num_actions, env.num_envs) == (3, OBS_SIZE, NUM_ACTIONS, 5)
    obs, mask, to_act = env.reset()
    assert obs.shape == (5, OBS_SIZE) and obs.dtype == np.float32
    assert mask.shape == (5, NUM_ACTIONS) and mask.dtype == np.int8
    assert to_act.shape == (5,) and ((to_act >= 0) & (to_act < 3)).all()
    obs, mask, to_act, rewards, dones, info = env.step(random_actions(np.random.default_rng(0), mask))
    assert rewards.shape == (5, 3) and rewards.dtype == np.float64
    assert dones.shape == (5,) and dones.dtype == bool
    for key in (
        "hand_over",
        "points",
        "scores",
        "tricks",
        "bid_kinds",
        "bid_values",
        "winner",
        "truncated",
        "final_scores",
    ):
        assert key in info
    assert env.state().shape == (5, STATE_SIZE)


def test_observations_can_be_skipped_and_masks_still_match():
    a = BatchEnv(16, "standard", seed=4)
    b = BatchEnv(16, "standard", seed=4, observations=False)
    rng = np.random.default_rng(0)
    obs_a, mask_a, _ = a.reset()
    obs_b, mask_b, _ = b.reset()
    assert obs_b is None
    for step in range(300):
        actions = random_actions(rng, mask_a)
        obs_a, mask_a, to_a, r_a, d_a, _ = a.step(actions, observe=step % 2 == 0)
        obs_b, mask_b, to_b, r_b, d_b, _ = b.step(actions)
        assert obs_b is None and (obs_a is None) == (step % 2 == 1)
        np.testing.assert_array_equal(mask_a, mask_b)
        np.testing.assert_array_equal(to_a, to_b)
        np.testing.assert_array_equal(r_a, r_b)


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_raw_engine_observes_exactly_what_the_observing_engine_does(name):
    """Without observations the history is rebuilt from the order of play when observed: every
    observation (any seat, float32 or packed) and state equal those of an engine that kept it live."""
    live = BatchEnv(12, name, seed=6)
    raw = BatchEnv(12, name, seed=6, observations=False)
    packed = BatchEnv(12, name, seed=6, observations=False, obs_format="packed")
    rng = np.random.default_rng(3)
    _, mask, _ = live.reset()
    raw.reset()
    packed.reset()
    for step in range(240):
        actions = random_actions(rng, mask)
        if step % 17 == 0:
            obs, mask, *_ = live.step(actions)
            same(raw.step(actions, observe=True)[0], obs, f"{name} step {step}: raw observe=True")
            same(packed.unpack_observations(packed.step(actions, observe=True)[0]), obs, f"{name}: packed")
            continue
        _, mask, *_ = live.step(actions)
        raw.step(actions)
        packed.step(actions)
        if step % 11 == 0:
            seats = rng.integers(live.num_players, size=live.num_envs)
            same(raw.observe(seats), live.observe(seats), f"{name} step {step}: observe(seats)")
            same(raw.state(), live.state(), f"{name} step {step}: state()")


def test_reward_is_shared_by_partners_and_paid_at_hand_ends():
    env = BatchEnv(32, "standard", seed=9)
    rng = np.random.default_rng(1)
    _, mask, _ = env.reset()
    paid = 0
    for _ in range(400):
        _, mask, _, rewards, _, info = env.step(random_actions(rng, mask))
        np.testing.assert_array_equal(rewards[:, 0], rewards[:, 2])
        np.testing.assert_array_equal(rewards[:, 1], rewards[:, 3])
        assert (rewards[~info["hand_over"]] == 0).all()
        paid += int(info["hand_over"].sum())
    assert paid >= 32


def test_output_buffers_survive_one_step():
    env = BatchEnv(8, "standard", seed=2)
    rng = np.random.default_rng(3)
    obs0, mask0, _ = env.reset()
    keep_obs, keep_mask = obs0.copy(), mask0.copy()
    obs1, mask1, *_ = env.step(random_actions(rng, mask0))
    np.testing.assert_array_equal(obs0, keep_obs)
    np.testing.assert_array_equal(mask0, keep_mask)
    assert not np.shares_memory(obs0, obs1) and not np.shares_memory(mask0, mask1)


def test_single_output_buffer_gives_the_same_outputs():
    a = BatchEnv(8, "pagat", seed=6)
    b = BatchEnv(8, "pagat", seed=6, output_buffers=1)
    rng = np.random.default_rng(6)
    obs_a, mask_a, _ = a.reset()
    obs_b, mask_b, _ = b.reset()
    previous = obs_b
    for _ in range(200):
        np.testing.assert_array_equal(obs_a, obs_b)
        np.testing.assert_array_equal(mask_a, mask_b)
        actions = random_actions(rng, mask_a)
        obs_a, mask_a, *_ = a.step(actions)
        obs_b, mask_b, *_ = b.step(actions)
        assert obs_b is previous  # one reused buffer
    with pytest.raises(ValueError, match="output_buffers"):
        BatchEnv(2, output_buffers=3)


def test_info_is_read_only_and_quiet_steps_share_it():
    env = BatchEnv(4, "standard", seed=1)
    rng = np.random.default_rng(1)
    _, mask, _ = env.reset()
    _, mask, _, _, _, quiet = env.step(random_actions(rng, mask))
    assert not quiet["hand_over"].any() and (quiet["winner"] == -1).all()
    with pytest.raises(ValueError):
        quiet["points"][0, 0] = 5
    with pytest.raises(ValueError, match="no hand ended"):
        BatchEnv.hand_result(quiet, 0)
    assert set(quiet) >= {"hand_over", "points", "tricks", "done", "winner", "episode_deals", "hand_rules"}


# ----------------------------------------------------------------- illegal
def snapshot(env):
    """Every piece of state and the outputs a step would build, copied."""
    out = {k: v.copy() for k, v in vars(env).items() if isinstance(v, np.ndarray)}
    out["rng"] = env.rng.bit_generator.state
    out["state"] = env.state()
    out["masks"] = env.action_masks()
    return out


@pytest.mark.parametrize("name", ["standard", "pagat", "barmore", "cutthroat3"])
def test_illegal_action_at_one_table_raises_and_changes_nothing(name):
    env = BatchEnv(6, name, seed=7)
    rng = np.random.default_rng(8)
    obs, mask, to_act = env.reset()
    for step in range(60):
        if step in (0, 3, 20, 59):
            for table in (0, 4):
                legal = np.flatnonzero(mask[table])
                illegal = [x for x in (0, 13, 54, 60, 72, 73, 74, 80, NUM_ACTIONS + 3, -1) if x not in legal]
                for bad in illegal[:4]:
                    before = snapshot(env)
                    actions = random_actions(rng, mask)
                    actions[table] = bad
                    with pytest.raises(IllegalActionError) as excinfo:
                        env.step(actions)
                    message = str(excinfo.value)
                    assert f"table {table}" in message and str(bad) in message and "legal" in message
                    after = snapshot(env)
                    for key in before:
                        if key == "rng":
                            assert before[key] == after[key]
                        else:
                            np.testing.assert_array_equal(before[key], after[key], err_msg=key)
        obs, mask, to_act, *_ = env.step(random_actions(rng, mask))


def test_illegal_message_names_the_legal_actions():
    env = BatchEnv(3, "standard", seed=0)
    _, mask, to_act = env.reset()
    actions = random_actions(np.random.default_rng(0), mask)
    legal = env.legal_actions(1)
    bad = next(a for a in range(NUM_ACTIONS) if a not in legal)
    actions[1] = bad
    with pytest.raises(IllegalActionError, match=r"table 1: illegal action") as excinfo:
        env.step(actions)
    assert spades_env.action_name(legal[0]) in str(excinfo.value)


def test_bad_action_arrays_are_rejected():
    env = BatchEnv(4, "standard", seed=0)
    _, mask, _ = env.reset()
    good = random_actions(np.random.default_rng(0), mask)
    with pytest.raises(ValueError, match="shape"):
        env.step(good[:3])
    for bad in (good + 0.5, good.astype(np.float64), good.astype(bool)):  # not actions, as in the core
        with pytest.raises(IllegalActionError, match="integers"):
            env.step(bad)
    env.step(good.astype(np.int16))


# ------------------------------------------------------------ reproducible
@pytest.mark.parametrize("name", ["standard", "crazy", "pagat"])
def test_same_seed_same_actions_same_trajectory(name):
    def run(seed):
        env = BatchEnv(12, name, seed=seed, episode="game")
        rng = np.random.default_rng(42)
        obs, mask, to_act = env.reset()
        trace = [obs.copy(), mask.copy(), to_act]
        for _ in range(250):
            obs, mask, to_act, rewards, dones, info = env.step(random_actions(rng, mask))
            trace += [obs.copy(), mask.copy(), to_act, rewards, dones, info["points"].copy()]
        return trace, [env.episode_deals(i) for i in range(12)]

    first, deals = run(5)
    again, deals_again = run(5)
    assert deals == deals_again
    for x, y in zip(first, again):
        np.testing.assert_array_equal(x, y)
    other, other_deals = run(6)
    assert other_deals != deals


def test_reset_with_seed_restarts_the_same_games():
    env = BatchEnv(6, "standard", seed=1)
    obs, mask, to_act = env.reset(seed=123)
    first = (obs.copy(), mask.copy(), to_act.copy(), [env.episode_deals(i) for i in range(6)])
    env.step(random_actions(np.random.default_rng(0), mask))
    obs, mask, to_act = env.reset(seed=123)
    np.testing.assert_array_equal(obs, first[0])
    np.testing.assert_array_equal(mask, first[1])
    assert [env.episode_deals(i) for i in range(6)] == first[3]


# ------------------------------------------------------------------ scoring
ALL_BIDS = spades_env.Rules(
    ten_for_200=True,
    blind_bids=True,
    blind_bid_min=5,
    boston_bonus=250,
    bag_limit=None,
    nil_tricks_count_for_partner=True,
    blind_nil_value=150,
    bag_value=2,
    name="all_bids",
)


@pytest.mark.parametrize("name", PRESET_NAMES + ["all_bids"])
def test_vectorized_scoring_matches_score_hand(name):
    """Random bids (of the kinds the rules allow), tricks and bags written into the engine's arrays,
    scored by the engine and by score_hand."""
    env = BatchEnv(300, ALL_BIDS if name == "all_bids" else name, seed=0)
    pick = np.random.default_rng(sum(map(ord, name)))
    n, tricks_per_hand = env.num_players, env.num_tricks
    for r, hand_rules in enumerate(env._hand_rules):
        env.rid[:] = r
        choices = [BidKind.NUMBER] + [BidKind.NIL] * hand_rules.nil + [BidKind.BLIND_NIL] * hand_rules.blind_nil
        kinds = np.zeros((env.num_envs, 4), np.intp)
        values = np.zeros((env.num_envs, 4), np.intp)
        for t in range(env.num_envs):
            for s in range(n):
                kind = choices[pick.integers(len(choices))]
                kinds[t, s], values[t, s] = kind, (pick.integers(1, 14) if kind == BidKind.NUMBER else 0)
            s = int(pick.integers(4))
            if hand_rules.ten_for_200 and pick.random() < 0.3:
                kinds[t, s], values[t, s] = BidKind.TEN_FOR_200, 10
                kinds[t, (s + 2) % 4] = pick.choice([BidKind.SKIPPED, BidKind.CANCELLED])
            elif hand_rules.blind_bids and pick.random() < 0.3:
                kinds[t, s], values[t, s] = BidKind.BLIND, int(pick.integers(hand_rules.blind_bid_min, 14))
                kinds[t, (s + 2) % 4], values[t, (s + 2) % 4] = BidKind.SKIPPED, 0
        split = np.sort(pick.integers(0, tricks_per_hand + 1, size=(env.num_envs, n - 1)), axis=1)
        edges = np.concatenate(
            [np.zeros((env.num_envs, 1), int), split, np.full((env.num_envs, 1), tricks_per_hand)], axis=1
        )
        tricks = np.diff(edges, axis=1)
        env.bid_kind[:] = kinds
        env.bid_value[:] = values
        env.tricks_won[:, :n] = tricks
        env.bags[:] = pick.integers(0, 12, size=env.bags.shape)
        result = score_tables(env, np.arange(env.num_envs))
        for t in range(env.num_envs):
            bids = [Bid(BidKind(int(kinds[t, s])), int(values[t, s])) for s in range(n)]
            expected = score_hand(hand_rules, bids, [int(x) for x in tricks[t]], [int(x) for x in env.bags[t]])
            assert list(result["points"][t]) == list(expected.points), (t, bids, tricks[t])
            assert list(result["bags"][t]) == list(expected.bags)
            assert list(result["contracts"][t]) == [s.contract for s in expected.sides]
            assert list(result["made"][t]) == [s.made for s in expected.sides]
            assert list(result["bag_penalties"][t]) == [s.bag_penalties for s in expected.sides]
            nil_made = result["nil_made"][t]
            assert [None if x < 0 else bool(x) for x in nil_made] == list(expected.nil_made)


def test_deals_replay_in_the_aec_env():
    env = BatchEnv(4, "cutthroat3", seed=3)
    _, mask, _ = env.reset()
    deals = env.episode_deals(2)
    assert len(deals) == 1 and [len(h) for h in deals[0]] == [17, 17, 17]
    aec = spades_env.raw_env(rules="cutthroat3")
    aec.reset(options={"deals": deals, "dealer": env.episode_dealer(2)})
    assert [sorted(h) for h in aec.game.deals[0].hands] == deals[0]


def test_record_deals_can_be_turned_off():
    env = BatchEnv(4, "standard", seed=3, record_deals=False)
    env.reset()
    with pytest.raises(RuntimeError, match="record_deals"):
        env.episode_deals(0)
