"""Two-player Spades through the envs: observations of the drawing phase, reset options, records, render, the
Gym wrapper and the terminal table (RULES.md section 9)."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

import spades_env
from spades_env.core.actions import DISCARD, KEEP, parse_action
from spades_env.core.cards import cards_of, format_cards, parse_cards
from spades_env.core.hand import Phase
from spades_env.obs.decode import decode_observation
from spades_env.obs.encode import OBS_SLICES, STATE_SLICES
from spades_env.play import main as play_main
from spades_env.records import replay

from .helpers import play_to_end

RANKS_DOWN = "AKQJT98765432"
STOCK = [c for r in RANKS_DOWN for c in (f"{r}S", f"{r}C", f"{r}H", f"{r}D")]  # see tests/core/test_two_player.py


def cards_in(obs: np.ndarray, name: str, item: int = 0) -> str:
    block = obs[OBS_SLICES[name]].reshape(-1, 54)[item]
    return format_cards(np.flatnonzero(block > 0.5).tolist())


def fresh(face_up: bool = False, **options) -> spades_env.raw_env:
    env = spades_env.raw_env(rules=spades_env.preset("two_player").replace(discards_face_up=face_up))
    env.reset(seed=0, options={"stock": STOCK, "dealer": 0, **options})
    return env


def test_worked_example_the_drawer_sees_both_cards_and_the_other_neither():
    env = fresh()
    assert env.agent_selection == "player_1"  # the non-dealer draws first
    before = env.observe("player_1")["observation"]
    assert cards_in(before, "offered") == "AS" and cards_in(env.observe("player_0")["observation"], "offered") == ""
    assert before[OBS_SLICES["drawing"]][0] == 1 and before[OBS_SLICES["phase"]].sum() == 0
    assert before[OBS_SLICES["stock_size"]][0] == 1.0
    env.step(KEEP)
    drawer, other = env.observe("player_1")["observation"], env.observe("player_0")["observation"]
    assert cards_in(drawer, "hand") == cards_in(drawer, "kept") == "AS"
    assert cards_in(drawer, "discarded", 0) == "AC"  # slot 0: its own discards
    assert cards_in(other, "discarded", 1) == "" and cards_in(other, "hand") == ""  # it saw neither card
    assert cards_in(other, "offered") == "AH"  # now on offer to player_0
    assert drawer[OBS_SLICES["stock_size"]][0] == pytest.approx(50 / 52)


def test_face_up_discards_are_in_the_others_observation():
    env = fresh(face_up=True)
    env.step(KEEP)
    other = env.observe("player_0")["observation"]
    assert cards_in(other, "discarded", 1) == "AC"  # slot 1 of player_0 is player_1
    assert other[OBS_SLICES["drawing_rules"]].tolist() == [1.0, 1.0]


def test_the_decoder_reads_the_drawing_blocks_back():
    env = fresh()
    env.step(DISCARD)  # player_1 discards AS and takes AC
    view = decode_observation(env.observe("player_0")["observation"])
    assert view.phase == Phase.DRAW and view.num_players == 2 and view.hand_size == 13
    assert (view.stock_size, format_cards([view.offered])) == (50, "AH")
    mine = decode_observation(env.observe("player_1")["observation"])
    assert format_cards(cards_of(mine.kept)) == "AC" and format_cards(cards_of(mine.discarded[0])) == "AS"
    assert mine.offered is None and view.discarded[1] == 0


def test_the_state_shows_every_discard_and_the_stock_in_order():
    env = fresh()
    env.step(KEEP)
    state = env.state()  # relative to the seat to act: player_0
    assert format_cards(np.flatnonzero(state[STATE_SLICES["discarded"]].reshape(4, 54)[1]).tolist()) == "AC"
    stock = state[STATE_SLICES["stock"]]
    assert stock[parse_cards("AH")[0]] == pytest.approx(1 / 52) and stock[parse_cards("AS")[0]] == 0
    assert (stock > 0).sum() == 50


@pytest.mark.parametrize(
    "options, message",
    [
        ({"stock": STOCK[:51]}, "51 cards"),
        ({"stock": STOCK[:51] + ["AS"]}, "twice"),
        ({"deal": [[], []]}, "stock"),
        ({"stock": STOCK, "deal": [[], []]}, "not"),
        ({"stocks": "AS"}, "list"),
    ],
)
def test_bad_stock_options_are_refused_and_change_nothing(options, message):
    env = fresh()
    env.step(KEEP)
    history = list(env.hand.history)
    with pytest.raises(ValueError, match=message):
        env.reset(options=options)
    assert env.hand.history == history and env.agent_selection == "player_0"


def test_a_stock_option_is_refused_for_dealt_rules():
    env = spades_env.raw_env(rules="standard")
    with pytest.raises(ValueError, match="stock is for two players"):
        env.reset(options={"stock": STOCK})


def test_stocks_give_the_first_hands_in_order_and_the_record_replays():
    env = spades_env.raw_env(rules="two_player", episode="game")
    second = STOCK[2:] + STOCK[:2]
    env.reset(seed=3, options={"stocks": [STOCK, second], "dealer": 1})
    play_to_end(env, seed=4)
    record = json.loads(json.dumps(env.game_record()))
    assert record["deals"][:2] == [STOCK, second] and all(len(d) == 52 for d in record["deals"])
    out = replay(record)
    assert out.scores == list(env.game.scores) and len(out.steps) == len(record["actions"])


def test_render_shows_the_stock_the_offer_and_the_discards():
    env = spades_env.raw_env(rules="two_player", render_mode="ansi")
    env.reset(options={"stock": STOCK, "dealer": 0})
    env.step(KEEP)
    text = env.render()
    assert "phase draw" in text and "stock: 50 cards; on offer to player_0: AH" in text
    assert "player_1 | discarded S: -  H: -  D: -  C: A" in text
    picture = spades_env.raw_env(rules="two_player", render_mode="rgb_array")
    picture.reset(options={"stock": STOCK, "dealer": 0})
    from spades_env.render_image import CARD_BACK, CARD_FACE, IMAGE_HEIGHT, IMAGE_WIDTH

    spectator, drawer, other = picture.render(), picture.table_image(viewer=1), picture.table_image(viewer=0)
    assert spectator.shape == (640, 960, 3)
    centre = (int(0.53 * IMAGE_HEIGHT) + 10, IMAGE_WIDTH // 2 + 10)  # inside the card on offer, off its letters
    assert tuple(spectator[centre]) == tuple(drawer[centre]) == CARD_FACE
    assert tuple(other[centre]) == CARD_BACK  # face down to the other player


def test_the_gym_wrapper_plays_two_player_hands():
    env = spades_env.SingleAgentSpadesEnv(rules="two_player", seat=0, opponents=[spades_env.make_agent("heuristic")])
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(0)
    steps, done = 0, False
    while not done:
        obs, reward, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        done, steps = terminated or truncated, steps + 1
    assert 13 + 1 + 13 <= steps <= 13 + 1 + 13 + 1  # its draws, its bid, its cards


def test_a_person_draws_bids_and_plays_at_the_terminal():
    moves = ["keep", "discard"] * 6 + ["keep"] + ["2", "hint"]
    table = io.StringIO()
    play_main(
        ["--rules", "two_player", "--seed", "2", "--ascii"], stdin=io.StringIO("\n".join(moves) + "\n"), stdout=table
    )
    text = table.getvalue()
    assert text.count("on offer:") >= 13 and "legal: keep, discard" in text
    assert "bidding" in text and "your hand:" in text and "hint (" in text


def test_the_heuristic_draws_toward_tricks_and_toward_a_nil():
    from spades_env.agents.heuristic.drawing import choose_draw, nil_plan
    from spades_env.core.actions import DRAW_MASK

    rules = spades_env.preset("two_player")
    hand = sum(1 << c for c in parse_cards("KS QS 9H 8D"))
    assert choose_draw(rules, hand, parse_action("AS"), 0, DRAW_MASK) == KEEP  # a sure trick
    assert choose_draw(rules, hand, parse_action("2C"), 0, DRAW_MASK) == DISCARD  # below the average card
    low = sum(1 << c for c in parse_cards("2C 3C 4D 2H 3H 5D"))
    assert nil_plan(rules, low)
    assert choose_draw(rules, low, parse_action("2D"), 0, DRAW_MASK) == KEEP  # a nil wants low cards
    assert choose_draw(rules, low, parse_action("AH"), 0, DRAW_MASK) == DISCARD


@pytest.mark.parametrize("face_up", [False, True])
def test_the_replay_viewer_shows_the_drawing_and_hides_face_down_discards(tmp_path, face_up):
    from spades_env.records import save_record
    from spades_env.replay import main as replay_main

    env = fresh(face_up=face_up)
    play_to_end(env, seed=2)
    path = tmp_path / "game.json"
    save_record(env.game_record(), path)
    shown = io.StringIO()
    assert replay_main([str(path), "--ascii"], stdin=io.StringIO(""), stdout=shown) == 0
    text = shown.getvalue()
    assert "hand 1 begins: the players draw from the stock" in text and "== drawing done" in text
    assert ("player_0 discarded:" in text or "seat 0 discarded:" in text) == face_up


def test_promotion_moves_each_card_past_the_cards_of_its_suit_out_of_play():
    from spades_env.agents.heuristic.table import promoted

    def board(text: str) -> int:
        return sum(1 << c for c in parse_cards(text))

    assert promoted(board("KH QH 5C"), board("AH")) == board("AH KH 5C")  # the king is the top heart now
    assert promoted(board("QH"), board("AH JH")) == board("KH")  # one heart (the king) still above it
    assert promoted(board("KH 2S"), 0) == board("KH 2S")
    assert promoted(board("9D"), board("AD KD QD JD TD")) == board("AD")


def test_the_strong_heuristic_counts_the_discards_it_saw_as_gone_in_play():
    from spades_env.agents.heuristic.agent import table_from_view
    from spades_env.agents.heuristic.table import CLASSIC, STRONG

    env = fresh()
    while env.hand.phase == Phase.DRAW:
        env.step(KEEP)
    obs = env.observe("player_1")["observation"]
    view = decode_observation(obs)
    rules = spades_env.preset("two_player")
    strong = table_from_view(view, rules, 0, [0, 0], STRONG)
    classic = table_from_view(view, rules, 0, [0, 0], CLASSIC)
    assert strong.gone == view.discarded[0] != 0 and classic.gone == 0  # its discards: the 13 clubs
    assert STRONG.seen_discards and not CLASSIC.seen_discards
