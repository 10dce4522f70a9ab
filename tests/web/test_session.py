"""Web tables without the web: what a person's view holds on every preset, refusals that change nothing, the
agents the server offers, the command line."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import spades_env

pytest.importorskip("starlette")  # the [web] extra

from spades_env.aec import raw_env  # noqa: E402
from spades_env.core import PRESETS, why_illegal  # noqa: E402
from spades_env.core.actions import BLIND_NIL, SEE_CARDS, action_name  # noqa: E402
from spades_env.core.hand import Phase  # noqa: E402
from spades_env.core.rules import preset  # noqa: E402
from spades_env.web.server import Agents, MessageError, build_parser, create_app, parse_message
from spades_env.web.session import PUBLIC, LiveTable, ReplayTable, TableError
from spades_env.web.view import Track, table_view

AGENTS = Agents()


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_person_sees_only_what_their_seat_knows_and_every_refusal_names_its_rule(name):
    n = 2 if name == "two_player" else 3 if name == "cutthroat3" else 4
    person = n - 1
    seats = ["random"] * n
    seats[person] = "human"
    table = LiveTable(name, seats, AGENTS.make, episode="hand", seed=len(name))
    rng = random.Random(0)
    while not table.over:
        view = json.loads(json.dumps(table.view()))  # JSON values only
        hand = table.env.hand
        for seat in view["seats"]:
            if seat["seat"] != person:
                assert seat["cards"] is None and seat["count"] == hand.hands[seat["seat"]].bit_count()
            if seat["discards"] is not None and seat["seat"] != person:
                assert hand.rules.discards_face_up
        if view["drawing"] and view["drawing"]["offered"] is not None:
            assert hand.current == person  # the card on offer is the drawer's to see
        if table.agent_turn():
            assert view["actions"]["legal"] == []
            with pytest.raises(TableError, match="not your turn"):
                table.act(hand.legal_actions()[0])
            table.agent_move()
            continue
        actions = view["actions"]
        for action_id, reason in actions["illegal"].items():
            assert reason == why_illegal(hand, int(action_id))
            before = table.track.decisions
            with pytest.raises(TableError, match="^" + reason.replace("(", r"\(").replace(")", r"\)") + "$"):
                table.act(int(action_id))
            assert table.track.decisions == before
        table.act(rng.choice(actions["legal"])["id"])
    assert table.view()["results"] and table.record()["over"]


def test_watching_agents_shows_every_hand_and_refuses_actions():
    table = LiveTable("standard", ["random"] * 4, AGENTS.make, seed=1)
    view = table.view()
    assert view["viewer"] is None and all(s["cards"] is not None for s in view["seats"])
    with pytest.raises(TableError, match="watched, not played"):
        table.act(0)


def test_an_uploaded_record_that_is_tampered_with_is_refused():
    table = LiveTable("standard", ["human", "random", "random", "random"], AGENTS.make, episode="hand", seed=3)
    while not table.over:
        if table.agent_turn():
            table.agent_move()
        else:
            table.act(table.view()["actions"]["legal"][0]["id"])
    record = table.record()
    assert ReplayTable(record).total == len(record["actions"])
    tampered = json.loads(json.dumps(record))
    tampered["results"][0]["points"][0] += 10
    with pytest.raises(TableError, match="does not replay"):
        ReplayTable(tampered)


def test_the_server_offers_named_agents_only():
    assert {"heuristic", "random", "ppo", "ppo_standard", "search", "pimc"} <= set(AGENTS.names)
    for name in ("spades_env/policies/ppo.pt", "../x.pt", "os.system"):
        with pytest.raises(TableError, match="unknown agent"):
            AGENTS.make(name, 0, 0)
    with pytest.raises(ValueError, match="unknown hint agent"):
        Agents(hint_agent="oracle")
    with pytest.raises(ValueError, match="max_tables"):
        create_app(max_tables=0)


def test_policy_files_are_named_on_the_command_line(tmp_path):
    policy = tmp_path / "mine.pt"
    policy.write_bytes((Path(spades_env.__file__).parent / "policies" / "ppo.pt").read_bytes())
    args = build_parser().parse_args(["--policy", f"mine={policy}", "--max-tables", "3"])
    assert args.policy == [("mine", str(policy))] and args.host == "127.0.0.1"
    for bad in ("mine", f"={policy}", f"mine={tmp_path / 'absent.pt'}"):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["--policy", bad])
    assert "mine" in Agents({"mine": str(policy)}).names


def test_message_fields_are_checked_before_any_table_sees_them():
    assert parse_message('{"type": "seek", "index": 3}') == {"type": "seek", "index": 3}
    for bad in ('{"type": "seek"}', '{"type": "seek", "index": 1, "path": "/etc"}', "7", '"new"'):
        with pytest.raises(MessageError):
            parse_message(bad)


def test_without_the_web_extra_the_command_says_what_to_install(monkeypatch, capsys):
    import sys

    from spades_env.web.__main__ import main

    monkeypatch.delitem(sys.modules, "spades_env.web.server", raising=False)
    monkeypatch.setitem(sys.modules, "starlette", None)  # as if starlette were not installed
    monkeypatch.setitem(sys.modules, "starlette.applications", None)
    assert main(["--port", "1"]) == 2
    assert "pip install 'spades_env[web]'" in capsys.readouterr().err


def test_a_card_passed_in_the_exchange_is_named_in_the_log_to_its_giver_alone():
    rules = preset("pagat").replace(blind_nil_requires_deficit=None)  # blind nil, so an exchange, from the start
    env = raw_env(rules=rules, episode="hand")
    env.reset(seed=0)
    track, names = Track(), [f"s{seat}" for seat in range(4)]
    passes = 0
    while not env.episode_over and passes < 4:
        hand = env.hand
        seat, legal = hand.current, hand.legal_actions()
        passing = hand.phase == Phase.EXCHANGE
        action = BLIND_NIL if BLIND_NIL in legal and seat == 0 else SEE_CARDS if SEE_CARDS in legal else legal[-1]
        track.step(env, action, names)
        if not passing:
            continue
        passes += 1
        assert table_view(env, track, seat, names)["log"][-1] == f"s{seat}: {action_name(action)}"
        assert table_view(env, track, None, names)["log"][-1] == f"s{seat}: {action_name(action)}"  # every hand
        for other in [s for s in range(4) if s != seat] + [PUBLIC]:
            assert table_view(env, track, other, names)["log"][-1] == f"s{seat}: passes a card", other
    assert passes == 4  # two cards each way


def test_a_person_s_moves_keep_their_name_after_an_agent_takes_the_seat_and_the_replay_names_both():
    table = LiveTable("standard", ["human", "random", "human", "random"], AGENTS.make, episode="hand", seed=5)
    while table.track.decisions < 6:
        seat = table.to_act
        if seat in table.people:
            table.act(table.view(seat)["actions"]["legal"][0]["id"], seat)
        else:
            table.agent_move()
    before = table.view(0)["log"]
    table.replace(2, "random")
    after = table.view(0)["log"]
    assert any(line.startswith("person (seat 2): ") for line in before) and after == before
    assert table.view(0)["seats"][2]["name"] == "random (seat 2)"
    while not table.over:
        table.agent_move() if table.agent_turn() else table.act(table.view(0)["actions"]["legal"][0]["id"], 0)
    replayed = ReplayTable(table.record())
    assert [s["name"] for s in replayed.view()["seats"]] == [
        "person (seat 0)", "random (seat 1)", "person (seat 2), then random", "random (seat 3)",
    ]  # fmt: skip


def test_a_watched_game_shows_each_hand_s_end_until_the_next_decision_without_holding():
    table = LiveTable("standard", ["random"] * 4, AGENTS.make, seed=2)
    while not table.view()["results"]:
        table.agent_move()
    view = table.view()
    assert view["hand_ended"] and not view["holding"] and table.agent_turn()  # the summary shows; agents go on
    table.agent_move()
    assert not table.view()["hand_ended"]


def test_an_agent_that_cannot_play_the_rules_is_refused_at_seating_and_the_table_is_left_as_it_was():
    with pytest.raises(TableError, match=r"ppo_standard cannot play two_player: trained on 88 actions") as refused:
        LiveTable("two_player", ["human", "ppo_standard"], AGENTS.make, seed=3)
    assert "policies" not in str(refused.value)  # the page never reads a server path
    table = LiveTable("two_player", ["human", "human"], AGENTS.make, seed=3)
    before = table.view(None)
    with pytest.raises(TableError, match="ppo_standard cannot play two_player"):
        table.replace(1, "ppo_standard")
    assert table.people == {0, 1} and table.replaced == [] and table.view(None) == before
    with pytest.raises(TableError, match="ppo_standard cannot play two_player"):
        table.hint(AGENTS.make("ppo_standard", 0, 0), table.to_act, "ppo_standard")
    assert table.view(None) == before
    table.replace(1, "ppo")  # today's release has the drawing turns
    assert table.agents[1] is not None and table.view(None)["seats"][1]["name"] == "ppo (seat 1)"
