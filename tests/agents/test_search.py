"""The learned search agent (``make_agent("search")``): legality, seeds, budgets, an endgame, network bids,
network rollouts, option errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import spades_env
from spades_env.agents import HeuristicAgent, available_agents, make_agent
from spades_env.agents.pimc import equivalent_choices, representative_card
from spades_env.agents.registry import POLICY_DIR
from spades_env.agents.search import SearchAgent, network_rollouts
from spades_env.core import PRESETS, BidKind, HandState, Phase, deal_cards, preset
from spades_env.core.actions import NUM_ACTIONS, action_name, mask_array
from spades_env.core.cards import cards_of, mask_of, parse_cards
from spades_env.core.position import build_position
from spades_env.nn import CheckpointError, PolicyNet, save_policy
from spades_env.nn import one_torch_thread as single_thread
from spades_env.nn.policy_file import PolicyFileError
from spades_env.obs.encode import encode_observation
from spades_env.obs.tracker import ObservationTracker
from spades_env.rewards import bag_cost

STD = preset("standard")
ROLLOUT_MODES = ("network", "heuristic")


def observation(state: HandState) -> dict:
    """The env's observation dict for the seat to act in a core hand state (scores and bags 0)."""
    sides = state.rules.num_sides
    obs = encode_observation(state, [0] * sides, [0] * sides, state.rules, state.current)
    return {"observation": obs, "action_mask": mask_array(state.legal_mask())}


def play_position(seed: int, tricks: int) -> HandState:
    """A standard hand played by the heuristic until ``tricks`` tricks are done and one card is on the table."""
    state = HandState(STD, deal_cards(STD, np.random.default_rng(seed), 0), dealer=0)
    heuristic = HeuristicAgent()
    while state.phase != Phase.PLAY or sum(state.tricks_won) < tricks or len(state.trick_cards) != 1:
        state.apply(heuristic.act(observation(state)))
    return state


@pytest.fixture(autouse=True)
def single_torch_thread(one_torch_thread):
    """One torch thread, as the evaluation's workers use: small batched forwards are slower on more."""


@pytest.fixture(scope="module")
def pure_policy(tmp_path_factory) -> str:
    """A policy file of a small pure network (no heuristic prior), seeded."""
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("policy") / "pure.pt"
    save_policy(path, PolicyNet(hidden=(32,)))
    return str(path)


@pytest.mark.parametrize("rollout", ROLLOUT_MODES)
def test_search_plays_only_legal_actions_in_a_hand(rollout):
    agent = SearchAgent(seed=0, rollout=rollout, samples=2, chunk=1, min_samples=1, oversample=2)
    env = spades_env.raw_env(rules=STD, episode="hand")
    env.reset(seed=3)
    agents = [agent, HeuristicAgent(), agent, HeuristicAgent()]
    decisions = 0
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.hand.current
        action = agents[seat].act(obs)
        assert obs["action_mask"][action] == 1, action_name(action)
        decisions += seat % 2 == 0
        env.step(action)
    assert decisions == 2 * (STD.hand_size + 1)  # every bid and card of seats 0 and 2


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_search_plays_a_hand_of_every_preset_the_network_taking_the_decisions_it_does_not_search(name, pure_policy):
    rules = preset(name)
    agent = SearchAgent(seed=0, policy=pure_policy, samples=2, chunk=2, min_samples=1, oversample=2, bid_samples=2)
    assert agent.others == "network"  # the default for a policy with every action
    env = spades_env.raw_env(rules=rules, episode="hand")
    env.reset(seed=5)
    heuristic, unsearched = HeuristicAgent(), 0
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.hand.current
        phase = env.hand.phase
        action = agent.act(obs) if seat == 0 else heuristic.act(obs)
        assert obs["action_mask"][action] == 1, (name, action_name(action))
        if seat == 0 and phase not in (Phase.PLAY, Phase.BID) and obs["action_mask"].sum() > 1:
            assert action == agent.net.act(obs), (name, phase)  # the network's, not the heuristic's
            unsearched += 1
        env.step(action)
    if rules.num_players == 2:
        assert unsearched > 0  # the drawing turns


def test_others_default_to_the_heuristic_for_a_policy_without_the_drawing_actions():
    standard_only = str(POLICY_DIR / "ppo_standard.pt")  # the release of 2026-12-03: 88 actions (spades_v2)
    release = SearchAgent(seed=0, policy=standard_only)
    assert release.net.policy.num_actions < NUM_ACTIONS and release.others == "heuristic"
    rules = preset("two_player")
    state = HandState(rules, deal_cards(rules, np.random.default_rng(0), 0), dealer=0)
    assert state.phase == Phase.DRAW
    obs = observation(state)
    assert obs["action_mask"][release.act(obs)] == 1
    forced = SearchAgent(seed=0, policy=standard_only, others="network")
    assert SearchAgent(seed=0).others == "network"  # today's release has every action
    with pytest.raises(PolicyFileError, match="drawing turns"):
        forced.act(obs)


def test_search_is_reproducible_with_a_seed():
    obs = observation(play_position(seed=3, tricks=3))
    a = SearchAgent(seed=7, rollout="network", samples=4, prune=0)
    b = SearchAgent(seed=7, rollout="network", samples=4, prune=0)
    assert a.act(obs) == b.act(obs)
    assert a.last_values == b.last_values and len(a.last_values) >= 2


def test_search_searches_its_samples_budget_in_chunks_with_one_forward_per_step():
    obs = observation(play_position(seed=3, tricks=3))
    agent = SearchAgent(seed=1, rollout="network", samples=5, chunk=2, min_samples=1, prune=0)
    agent.act(obs)
    assert agent.last_samples == 5
    # Three chunks, each at most one forward per card left to play at the table (10 tricks x 4 seats).
    assert 0 < agent.forwards <= 3 * 4 * (STD.num_tricks - 3)


def test_search_time_limit_stops_after_min_samples():
    obs = observation(play_position(seed=3, tricks=3))
    agent = SearchAgent(seed=1, rollout="network", samples=40, chunk=2, min_samples=2, time_limit=1e-9, prune=0)
    agent.act(obs)
    assert agent.last_samples == 2  # the first chunk (min_samples), then the spent limit stops it


def test_search_trumps_to_make_its_contract_on_the_last_tricks():
    # Two tricks left; left opponent led the king of hearts, partner followed low, right opponent took it with
    # the ace. We hold no heart: the 2 of spades wins this trick and the 5 of diamonds the last (only clubs are
    # left elsewhere), 8 tricks for our 7 and the opponents set; the 5 of diamonds now loses this trick.
    held = ["2S 5D", "9C", "TC", "JC"]
    trick = parse_cards("KH 2H AH")
    hands = [mask_of(parse_cards(h)) for h in held]
    rest = [c for c in range(52) if not any(h >> c & 1 for h in hands) and c not in trick]
    per_seat = len(rest) // 4  # the 11 finished tricks, split by seat
    played = [
        mask_of(rest[s * per_seat : (s + 1) * per_seat]) | (mask_of([trick[s - 1]]) if s else 0) for s in range(4)
    ]
    state = build_position(
        STD,
        0,
        hands,
        bid_kinds=[BidKind.NUMBER] * 4,
        bid_values=[4, 3, 3, 3],
        tricks_won=[3, 3, 3, 2],
        played=played,
        trick_cards=trick,
        leader=1,
        spades_broken=True,
    )
    obs = observation(state)
    for rollout in ROLLOUT_MODES:
        agent = SearchAgent(seed=0, rollout=rollout, samples=4, prune=0)
        assert action_name(agent.act(obs)) == "2S", rollout
        assert agent.last_values[parse_cards("2S")[0]] > agent.last_values[parse_cards("5D")[0]], rollout


def test_search_charges_bags_their_game_cost_by_default_and_plain_points_with_bag_cost_0():
    obs = observation(play_position(seed=5, tricks=2))
    game, plain = SearchAgent(seed=2, samples=2), SearchAgent(seed=2, samples=2, bag_cost=0)
    game.act(obs)
    plain.act(obs)
    assert game.bag_cost == bag_cost(STD) == 10 and plain.bag_cost == 0


def test_bids_are_the_networks_the_heuristics_or_searched_as_chosen():
    state = HandState(STD, deal_cards(STD, np.random.default_rng(8), 3), dealer=3)
    state.apply(HeuristicAgent().act(observation(state)))  # seat 0 bids; seat 1 is to bid
    obs = observation(state)
    assert state.phase == Phase.BID
    assert SearchAgent(seed=0, bids="network").act(obs) == make_agent("ppo").act(obs)
    assert SearchAgent(seed=0, bids="heuristic").act(obs) == HeuristicAgent().act(obs)
    searched = SearchAgent(seed=0, bids="search", bid_samples=2)
    assert obs["action_mask"][searched.act(obs)] == 1 and len(searched.last_values) >= 2  # PIMC's bid search


def bid_observation(seed: int, bids_before: int) -> dict:
    """The observation of the seat to bid after ``bids_before`` heuristic bids of a standard hand."""
    state = HandState(STD, deal_cards(STD, np.random.default_rng(seed), 3), dealer=3)
    for _ in range(bids_before):
        state.apply(HeuristicAgent().act(observation(state)))
    assert state.phase == Phase.BID
    return observation(state)


def test_rollout_bids_search_the_networks_likely_bids_with_network_rollouts_of_the_whole_hand():
    searched = 0
    for seed in range(6):
        obs = bid_observation(seed, bids_before=seed % 4)
        probs = make_agent("ppo").probabilities(obs)
        likely = {a for a in np.flatnonzero(probs >= 0.05).tolist()} | {int(np.argmax(probs))}
        agent = SearchAgent(seed=0, bids="rollouts", bid_samples=3)
        action = agent.act(obs)
        assert obs["action_mask"][action] == 1 and action in likely
        if len(likely) == 1:  # nothing to search: the network's bid, no forward beyond its own
            assert agent.last_values == {} and action == int(np.argmax(probs))
            continue
        searched += 1
        assert set(agent.last_values) == likely
        assert action == max(likely, key=lambda a: agent.last_values[a])
        # the rest of the bidding (at most 3 bids) and the 52 cards: one forward per step at most
        assert STD.num_tricks <= agent.forwards <= 3 + STD.num_tricks * 4
    assert searched >= 2


def test_network_rollouts_finish_the_bidding_and_the_play(pure_policy):
    net = make_agent("ppo", path=pure_policy)
    states, trackers = [], []
    for seed in range(3):
        state = HandState(STD, deal_cards(STD, np.random.default_rng(seed), 0), dealer=0)
        for _ in range(seed):
            state.apply(HeuristicAgent().act(observation(state)))
        tracker = ObservationTracker()
        tracker.start_hand(state, [0, 0], [0, 0], STD)
        states.append(state)
        trackers.append(tracker)
    network_rollouts(net, states, trackers, [[0] * 4 for _ in states], [0] * 4)
    assert all(s.is_over and sum(s.tricks_won) == STD.num_tricks for s in states)
    assert all(kind != BidKind.NONE for s in states for kind in s.bid_kinds)


def test_search_takes_any_policy_file(pure_policy):
    agent = SearchAgent(seed=0, policy=pure_policy, rollout="network", samples=2)
    assert agent.net.policy.prior_weight == 0 and agent.describe()["policy"] == pure_policy
    obs = observation(play_position(seed=4, tricks=2))
    assert obs["action_mask"][agent.act(obs)] == 1


def test_network_rollouts_finish_every_hand_one_forward_per_step(pure_policy):
    net = make_agent("ppo", path=pure_policy)
    states, trackers = [], []
    for seed in range(3):
        state = play_position(seed, tricks=seed)
        tracker = ObservationTracker()
        tracker.start_hand(state, [0, 0], [0, 0], STD)
        states.append(state)
        trackers.append(tracker)
    forwards = network_rollouts(net, states, trackers, [[0] * 4 for _ in states], [0] * 4)
    assert all(s.phase != Phase.PLAY and sum(s.tricks_won) == STD.num_tricks for s in states)
    # The longest rollout (from trick 0, one card on the table) has 51 cards left: one forward per step at most.
    assert 0 < forwards <= STD.num_tricks * 4 - 1


def test_network_rollouts_let_the_heuristic_play_the_seats_given_and_the_network_the_others(pure_policy, monkeypatch):
    """With heuristic seats, every choice of those seats is the heuristic's on the rollout's own state (a recording
    spy), and the other seats still go through the network."""
    import spades_env.agents.search as search_module

    net = make_agent("ppo", path=pure_policy)
    state = play_position(1, tricks=0)
    tracker = ObservationTracker()
    tracker.start_hand(state, [0, 0], [0, 0], STD)
    seats_asked = []
    real = search_module.act_from_state

    def spy(state, voids, bags):
        seats_asked.append(state.current)
        return real(state, voids, bags)

    monkeypatch.setattr(search_module, "act_from_state", spy)
    forwards = network_rollouts(net, [state], [tracker], [[0] * 4], [0] * 4, frozenset({1, 3}))
    assert state.is_over and sum(state.tricks_won) == STD.num_tricks
    assert seats_asked and set(seats_asked) == {1, 3}  # only the opponents' choices
    assert forwards > 0  # slots 0 and 2 still asked the network


def test_others_rollout_models_the_other_sides_with_the_heuristic(pure_policy):
    agent = SearchAgent(seed=0, policy=pure_policy, others_rollout="heuristic", samples=4)
    assert agent._heuristic_seats(STD) == frozenset({1, 3})
    assert agent._heuristic_seats(preset("cutthroat")) == frozenset({1, 2, 3})
    assert SearchAgent(seed=0, policy=pure_policy)._heuristic_seats(STD) == frozenset()
    assert agent.describe()["others_rollout"] == "heuristic"
    obs = observation(play_position(seed=4, tricks=2))
    assert obs["action_mask"][agent.act(obs)] == 1
    # it changes what the search finds: the same deals valued otherwise
    plain = SearchAgent(seed=0, policy=pure_policy, samples=4, prune=0.0)
    mixed = SearchAgent(seed=0, policy=pure_policy, samples=4, prune=0.0, others_rollout="heuristic")
    plain.act(obs), mixed.act(obs)
    assert plain.last_values.keys() == mixed.last_values.keys() and plain.last_values != mixed.last_values


def test_search_is_registered_for_the_evaluation_tool():
    assert "search" in available_agents()
    agent = make_agent("search", samples=3, rollout="network")
    assert isinstance(agent, SearchAgent) and agent.describe()["samples"] == 3


@pytest.mark.parametrize(
    "options, message",
    [
        ({"rollout": "mcts"}, "rollout must be one of"),
        ({"bids": "guess"}, "bids must be one of"),
        ({"others": "pimc"}, "others must be one of"),
        ({"others_rollout": "pimc"}, "others_rollout must be one of"),
        ({"chunk": 0}, "chunk must be a positive int"),
        ({"time_limit": 0}, "time_limit must be a positive"),
        ({"bag_cost": -1}, "bag_cost must be >= 0"),
        ({"samples": 0}, "option samples must be an integer"),
        ({"prune": 1}, "prune must be a probability"),
        ({"prune": -0.1}, "prune must be a probability"),
        ({"prune": True}, "prune must be a probability"),
    ],
)
def test_bad_options_raise_clear_errors(options, message):
    with pytest.raises(ValueError, match=message):
        SearchAgent(**options)


def test_a_missing_policy_file_is_named(tmp_path):
    missing = tmp_path / "nope.pt"
    with pytest.raises(CheckpointError, match="nope.pt"):
        SearchAgent(policy=missing)


def test_network_rollouts_run_on_one_torch_thread_and_restore_the_count():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with single_thread():
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_policy_probabilities_are_the_networks_softmax_over_legal_actions_only():
    obs = observation(play_position(seed=3, tricks=3))
    net = make_agent("ppo")
    probs = net.probabilities(obs)
    legal = obs["action_mask"] == 1
    assert probs[~legal].max() < 1e-12 and probs[legal].sum() == pytest.approx(1.0)
    assert int(np.argmax(probs)) == net.act(obs)


def searched_runs(obs: dict, state: HandState, prune: float) -> set[int]:
    """The searched cards that ``prune`` keeps: runs of equivalent cards the network plays with probability
    at least ``prune``, and the network's own run."""
    legal = state.legal_mask()
    gone = 0
    for m in state.played:
        gone |= m
    unseen = (1 << 52) - 1 & ~gone & ~state.hands[state.current]
    choices = equivalent_choices(legal, unseen, False)
    probs = make_agent("ppo").probabilities(obs)
    run = dict.fromkeys(choices, 0.0)
    for card in cards_of(legal):
        run[representative_card(card, choices, unseen, False)] += probs[card]
    mine = representative_card(int(np.argmax(probs)), choices, unseen, False)
    return {c for c in choices if c == mine or run[c] >= prune}


@pytest.mark.parametrize("prune", [0.0, 0.02, 0.2])
def test_prune_searches_only_the_cards_the_network_plays_with_at_least_that_probability(prune):
    for seed, tricks in [(3, 3), (5, 2), (11, 6), (4, 1)]:
        state = play_position(seed, tricks)
        obs = observation(state)
        agent = SearchAgent(seed=0, rollout="network", samples=2, prune=prune)
        action = agent.act(obs)
        kept = searched_runs(obs, state, prune)
        if len(kept) > 1:
            assert set(agent.last_values) == kept, (seed, tricks)
            assert action in kept
        else:  # nothing left to search: the network's own card
            assert agent.last_values == {} and action == make_agent("ppo").act(obs)


def test_a_margin_keeps_the_networks_card_unless_the_search_finds_one_that_much_better():
    overruled = 0
    policy = str(POLICY_DIR / "ppo_standard.pt")  # a fixed network: the positions below include one it is overruled in
    for seed, tricks in [(3, 3), (5, 2), (11, 6), (4, 1), (6, 4), (7, 8)]:
        obs = observation(play_position(seed, tricks))
        network = make_agent(policy).act(obs)
        free = SearchAgent(seed=0, policy=policy, rollout="network", samples=4, prune=0)
        best = free.act(obs)
        if not free.last_values:  # one run of equivalent cards: nothing to search
            continue
        assert free.last_values[best] == max(free.last_values.values())
        bound = SearchAgent(seed=0, policy=policy, rollout="network", samples=4, margin=1000.0, prune=0)
        assert bound.act(obs) == network and bound.last_values == free.last_values
        overruled += (
            free.last_values[best] > max(v for c, v in free.last_values.items() if c != best) and best != network
        )
    assert overruled >= 1  # the positions include one where the search overrules the network
