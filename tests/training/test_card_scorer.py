"""The card-centred scorer (spades_env.card_scorer): its features against the rules core, its place in the
policy network, policy files and the training's snapshot pass."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from spades_env.aec import raw_env
from spades_env.card_scorer import CARD_FEATURES, CardFeatures
from spades_env.config_io import load_rules
from spades_env.core.actions import SEE_CARDS, bid_action
from spades_env.core.cards import CARD_SUIT, NUM_CARDS, NUM_RANKS, NUM_STANDARD_CARDS, card_power, deck, parse_card
from spades_env.core.hand import Phase
from spades_env.core.tricks import NUM_SUITS, TRICK_KEYS
from spades_env.nn import PolicyFileError, PolicyNet, load_policy, save_policy, sparse_rows
from spades_env.obs.decode import decode_observation
from spades_env.obs.encode import OBS_SIZE
from training.config import TrainConfig
from training.learner import SnapshotNets

HIGHER_OUT, LOWER_OUT, HIGHER_MINE, LOWER_MINE, SUIT_OUT, SUIT_MINE, MASTER, FOLLOWS, WINS_NOW = range(9)
SUIT = slice(9, 13)
POWER = 13
VOIDS = slice(14, 17)
TRICK_SIZE = slice(17, 21)
WINNING_SLOT = slice(21, 25)


def play_positions(preset: str, episodes: int) -> list[tuple[np.ndarray, object]]:
    """(observation, copy of the core hand) at every card play of random games."""
    rules, rng, out = load_rules(preset), np.random.default_rng(0), []
    for episode in range(episodes):
        env = raw_env(rules=rules)
        env.reset(seed=episode)
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            if env.hand.phase == Phase.PLAY:
                out.append((obs["observation"].copy(), copy.deepcopy(env.hand)))
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


def expected_features(hand) -> dict[int, dict[str, float]]:
    """Per card in the hand to act, the features recomputed from the core state (the test's own arithmetic)."""
    seat, rules = hand.current, hand.rules
    mine = hand.hands[seat]
    seen = mine
    for cards in hand.played:
        seen |= cards
    out = [c for c in deck(rules.jokers) if not (seen >> c) & 1]
    power = {c: card_power(c, rules.deuce_of_spades_high) for c in range(NUM_CARDS)}
    led = CARD_SUIT[hand.trick_cards[0]] if hand.trick_cards else None
    result = {}
    for card in range(NUM_CARDS):
        if not (mine >> card) & 1:
            continue
        suit = CARD_SUIT[card]
        same = [c for c in range(NUM_CARDS) if CARD_SUIT[c] == suit and c != card]
        wins = 0.0
        if led is not None:
            key = TRICK_KEYS[int(rules.deuce_of_spades_high)]
            wins = float(key[card * NUM_SUITS + led] > max(key[c * NUM_SUITS + led] for c in hand.trick_cards))
        result[card] = {
            "higher_out": sum(c in out and power[c] > power[card] for c in same),
            "lower_out": sum(c in out and power[c] < power[card] for c in same),
            "higher_mine": sum((mine >> c) & 1 and power[c] > power[card] for c in same),
            "suit_mine": 1 + sum((mine >> c) & 1 for c in same),
            "wins_now": wins,
            "follows": float(led == suit),
            "power": power[card],
        }
    return result


@pytest.mark.parametrize("preset", ["standard", "jokers", "barmore", "cutthroat3"])
def test_card_features_agree_with_the_rules_core(preset):
    features = CardFeatures()
    checked = 0
    for obs, hand in play_positions(preset, 4):
        row, card, got = features(torch.from_numpy(obs[None]))
        assert got.shape[1] == CARD_FEATURES and (row == 0).all()
        assert sorted(card.tolist()) == sorted(expected_features(hand))  # exactly the cards in the hand
        view = decode_observation(obs)
        for c, values in zip(card.tolist(), got.numpy()):
            want = expected_features(hand)[c]
            assert values[HIGHER_OUT] * NUM_RANKS == pytest.approx(want["higher_out"])
            assert values[LOWER_OUT] * NUM_RANKS == pytest.approx(want["lower_out"])
            assert values[HIGHER_MINE] * NUM_RANKS == pytest.approx(want["higher_mine"])
            assert values[SUIT_MINE] * NUM_RANKS == pytest.approx(want["suit_mine"])
            assert values[MASTER] == float(want["higher_out"] == 0)
            assert values[WINS_NOW] == want["wins_now"]
            assert values[FOLLOWS] == want["follows"]
            assert values[POWER] * (NUM_RANKS + 2) == pytest.approx(want["power"])
            assert values[SUIT].argmax() == CARD_SUIT[c]
            assert list(values[VOIDS]) == [float((view.voids[slot] >> CARD_SUIT[c]) & 1) for slot in (1, 2, 3)]
            assert values[TRICK_SIZE].argmax() == len(hand.trick_cards)
            checked += 1
    assert checked > 200


def test_the_winning_slot_is_the_trick_winner_so_far():
    for obs, hand in play_positions("standard", 3):
        _, _, got = CardFeatures()(torch.from_numpy(obs[None]))
        slot = got[0, WINNING_SLOT]
        if not hand.trick_cards:
            assert slot.sum() == 0
            continue
        key = TRICK_KEYS[0]
        led = CARD_SUIT[hand.trick_cards[0]]
        best = max(range(len(hand.trick_cards)), key=lambda i: key[hand.trick_cards[i] * NUM_SUITS + led])
        assert slot.sum() == 1 and slot.argmax() == (hand.trick_seats[best] - hand.current) % 4


def test_a_lead_of_the_ace_of_a_fresh_suit_is_the_master_and_wins_nothing_yet():
    """A literal deal: seat 0 holds every club, so after the bidding its ace of clubs is the master, and while it
    leads no card follows or wins."""
    rules = load_rules("standard")
    env = raw_env(rules=rules)
    hands = [[c for c in range(NUM_STANDARD_CARDS) if CARD_SUIT[c] == suit] for suit in range(4)]
    env.reset(seed=0, options={"deal": hands, "dealer": 3})
    while env.hand.phase != Phase.PLAY:  # everyone looks at the cards and bids 3
        mask = env.last()[0]["action_mask"]
        env.step(bid_action(3) if mask[bid_action(3)] else SEE_CARDS)
    obs = env.last()[0]["observation"]
    assert env.hand.phase == Phase.PLAY and env.hand.current == 0
    _, card, got = CardFeatures()(torch.from_numpy(obs[None]))
    ace = card.tolist().index(parse_card("AC"))
    assert got[ace, MASTER] == 1 and got[ace, HIGHER_MINE] == 0 and got[ace, SUIT_OUT] == 0
    assert got[:, FOLLOWS].sum() == 0 and got[:, WINS_NOW].sum() == 0 and got[:, TRICK_SIZE.start].all()


def test_the_card_scorer_changes_only_the_logits_of_cards_in_hand():
    torch.manual_seed(0)
    obs = torch.from_numpy(np.stack([o for o, _ in play_positions("standard", 1)[:40]]))
    plain = PolicyNet((32,))
    scored = PolicyNet((32,), card_scorer=8)
    scored.load_state_dict({**scored.state_dict(), **plain.state_dict()})
    with torch.no_grad():
        scored.cards.score.weight.normal_()  # a trained scorer: not near zero
        delta = scored(obs) - plain(obs)
    hand = obs[:, :OBS_SIZE][:, slice(*_hand_block())] > 0
    assert (delta[:, :NUM_CARDS][hand] != 0).all()  # the option changes the decision's logits
    assert (delta[:, :NUM_CARDS][~hand] == 0).all() and (delta[:, NUM_CARDS:] == 0).all()


def _hand_block() -> tuple[int, int]:
    from spades_env.obs.layout import OBSERVATION

    block = OBSERVATION.block("hand")
    return block.start, block.stop


def test_sparse_and_dense_inputs_give_the_same_logits_and_gradients():
    torch.manual_seed(1)
    obs = torch.from_numpy(np.stack([o for o, _ in play_positions("jokers", 1)[:30]]))
    net = PolicyNet((16,), card_scorer=8)
    dense = net(obs)
    dense.square().sum().backward()
    grads = [p.grad.clone() for p in net.parameters()]
    net.zero_grad()
    sparse = net(sparse_rows(obs))
    sparse.square().sum().backward()
    assert torch.allclose(dense, sparse, atol=1e-5)
    for a, p in zip(grads, net.parameters()):
        assert torch.allclose(a, p.grad, atol=1e-4)


@pytest.mark.parametrize("chunk", [7, 4096])
def test_hand_card_features_made_once_for_a_batch_give_every_minibatch_the_same_logits_and_gradients(chunk):
    torch.manual_seed(3)
    obs = torch.from_numpy(np.stack([o for o, _ in play_positions("barmore", 1)[:40]]))
    net = PolicyNet((16,), card_scorer=8)
    rows = sparse_rows(obs)
    cards = net.hand_card_features(rows, chunk=chunk)
    assert len(cards) == len(obs) and cards.values.shape[1] == CARD_FEATURES
    pick = torch.tensor([31, 2, 17, 17, 0, 39, 5])  # a minibatch: any order, a row twice
    fresh = net(rows[pick])
    fresh.square().sum().backward()
    grads = [p.grad.clone() for p in net.parameters()]
    net.zero_grad()
    made = net(rows[pick], cards[pick])
    made.square().sum().backward()
    assert torch.equal(fresh, made)
    for a, p in zip(grads, net.parameters()):
        assert torch.allclose(a, p.grad, atol=1e-6)


def test_hand_card_features_must_match_the_rows_and_a_net_without_scorer_has_none():
    obs = torch.from_numpy(np.stack([o for o, _ in play_positions("standard", 1)[:6]]))
    net = PolicyNet((16,), card_scorer=8)
    with pytest.raises(ValueError, match="hand_cards holds 5 rows for 6 observations"):
        net(obs, net.hand_card_features(obs[:5]))
    assert PolicyNet((16,)).hand_card_features(obs) is None


def test_a_policy_file_keeps_its_card_scorer(tmp_path):
    torch.manual_seed(2)
    net = PolicyNet((16,), card_scorer=8)
    path = tmp_path / "p.pt"
    save_policy(path, net)
    loaded, _ = load_policy(path)
    assert loaded.card_scorer == 8
    obs = torch.from_numpy(np.stack([o for o, _ in play_positions("standard", 1)[:10]]))
    assert torch.equal(loaded(obs), net.eval()(obs))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda p: p.update(card_scorer=-1), "'card_scorer' must be a width >= 0"),
        (lambda p: p.update(card_scorer=True), "'card_scorer' must be a width >= 0"),
        (lambda p: p.update(card_scorer=0), "unexpected ['cards."),  # weights of a scorer the description lacks
        (lambda p: p.update(card_scorer=16), "cards.card.weight has shape"),
    ],
)
def test_a_policy_file_whose_card_scorer_does_not_fit_is_refused(tmp_path, edit, message):
    path = tmp_path / "p.pt"
    save_policy(path, PolicyNet((16,), card_scorer=8))
    payload = torch.load(path, weights_only=True)
    edit(payload)
    torch.save(payload, path)
    with pytest.raises(PolicyFileError) as raised:
        load_policy(path)
    assert message in str(raised.value)


def test_a_policy_file_from_before_the_card_scorer_has_none(tmp_path):
    path = tmp_path / "p.pt"
    save_policy(path, PolicyNet((16,)))
    payload = torch.load(path, weights_only=True)
    del payload["card_scorer"]
    torch.save(payload, path)
    assert load_policy(path)[0].cards is None


def test_snapshots_with_card_scorers_play_each_row_with_its_own_snapshot():
    torch.manual_seed(3)
    pool = [PolicyNet((16,), card_scorer=8).state_dict() for _ in range(3)]
    nets = SnapshotNets([16], torch.device("cpu"), card_scorer=8)
    obs = torch.from_numpy(np.stack([o for o, _ in play_positions("standard", 1)[:12]]))
    which = torch.tensor([0, 2, 1, 2, 0, 0, 1, 2, 2, 1, 0, 1])
    with torch.no_grad():
        got = nets.logits(pool, sparse_rows(obs), which)
        for row in range(len(obs)):
            assert torch.allclose(got[row], nets.net(pool[int(which[row])])(obs[row : row + 1])[0], atol=1e-5)


@pytest.mark.parametrize("width", [-1, -8])
def test_the_train_config_refuses_a_negative_card_scorer(width):
    with pytest.raises(ValueError, match="card_scorer"):
        TrainConfig(card_scorer=width).validate()


def test_a_policy_net_refuses_a_bad_card_scorer_width():
    with pytest.raises(ValueError, match="card_scorer"):
        PolicyNet((8,), card_scorer=-3)
