"""The web server without a browser: the page and its assets, bad messages, turns, limits, disconnects."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from pathlib import Path

import pytest

import spades_env
from spades_env.records import replay

pytest.importorskip("starlette")  # the [web] extra

from spades_env.web.server import MAX_MEMBERS  # noqa: E402
from spades_env.web.session import PUBLIC  # noqa: E402

from .helpers import Tab, my_turn, serving  # noqa: E402

GOLDEN = Path(__file__).parents[1] / "golden"
HUMAN_FIRST = {"type": "new", "rules": "standard", "episode": "hand", "pace_ms": 0}


def first_bidder(seed: int) -> int:
    env = spades_env.raw_env(episode="hand")
    env.reset(seed=seed)
    return env.hand.current


def seats(first: str = "human", others: str = "heuristic", n: int = 4) -> list[str]:
    return [first] + [others] * (n - 1)


@pytest.fixture(scope="module")
def server():
    with serving(max_tables=4, reconnect_s=0) as base:  # a closed tab frees its table at once
        yield base


def test_the_page_and_its_assets_come_from_the_package_with_a_strict_policy(server):
    with urllib.request.urlopen(server + "/") as response:
        page = response.read().decode()
        assert "default-src 'self'" in response.headers["Content-Security-Policy"]
    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert sorted(assets) == ["/static/table.css", "/static/table.js"]
    for asset in assets:
        with urllib.request.urlopen(server + asset) as response:
            text = response.read().decode()
        assert not re.search(r"https?://", text), f"{asset} fetches from elsewhere"  # no CDN: it works offline
    assert "<script>" not in page and "style=" not in page  # nothing inline: the policy forbids it


@pytest.mark.parametrize(
    "message, reason",
    [
        ("not json", "not JSON"),
        (b"\x00\x01", "JSON text, not binary"),
        ("[1, 2]", "a JSON object"),
        ({"type": "dance"}, "unknown message type 'dance'"),
        ({"action": 3}, "a message needs a 'type'"),
        ({"type": "act"}, "'act' needs ['action']"),
        ({"type": "act", "action": 0, "extra": 1}, "unknown field(s) ['extra']"),
        ({"type": "new", "rules": "standard", "seats": seats(), "pace_ms": -5}, "pace must be"),
        ({"type": "new", "rules": "nope", "seats": seats()}, "unknown rules 'nope'"),
        ({"type": "new", "rules": "standard", "seats": seats()[:3]}, "one entry per seat"),
        ({**HUMAN_FIRST, "seats": seats(), "spectators": "all"}, "spectators must be one of"),
        ({**HUMAN_FIRST, "seats": seats(), "substitute": "human"}, "unknown substitute agent 'human'"),
        ({**HUMAN_FIRST, "seats": seats(), "substitute": "../x.pt"}, "unknown substitute agent"),
        ({"type": "join", "invite": "x" * 24}, "no table has that invite"),
        ({"type": "fill", "seat": 1}, "start a game first"),
        ({"type": "new", "rules": "standard", "seats": seats(others="/etc/passwd")}, "unknown agent '/etc/passwd'"),
        ({"type": "new", "rules": "standard", "seats": seats(), "seed": "7"}, "seed must be"),
        ({"type": "act", "action": 0}, "start a game first"),
        ({"type": "seek", "index": 3}, "open a record to replay first"),
        ({"type": "replay", "record": {"actions": []}}, "the record does not replay"),
        ({"type": "replay", "record": "../../etc/passwd"}, "'replay' field record must be a JSON object"),
        ("[" * 100_000 + "]" * 100_000, "not JSON"),
        ("x" * 1_000_001, "message too large"),
    ],
    ids=lambda v: str(v)[:30],
)
def test_a_bad_message_gets_an_error_naming_it_and_the_connection_goes_on(server, message, reason):
    with Tab(server) as tab:
        reply = tab.ask(message)
        assert reply["type"] == "error" and reason in reply["message"], reply
        started = tab.ask({**HUMAN_FIRST, "seats": seats(), "seed": 1})
        assert started["type"] == "state"  # the same connection still serves


def test_out_of_turn_and_illegal_actions_are_refused_with_the_rule_and_change_nothing(server):
    with Tab(server) as tab:
        seed = next(s for s in range(20) if first_bidder(s) != 0)  # an agent bids first
        state = tab.ask({**HUMAN_FIRST, "seats": seats(), "seed": seed, "pace_ms": 5000})  # it waits 5 s
        view = state["view"]
        assert view["current"] != 0
        reply = tab.ask({"type": "act", "action": 57})
        assert reply == {
            "type": "error",
            "message": f"it is not your turn: {view['seats'][view['current']]['name']} is to act",
        }
        tab.send({"type": "pace", "ms": 0})
        view = tab.until(my_turn)["view"]
        assert view["phase"] == "bidding"
        for bad, reason in [
            (0, "it is the bidding: make a bid, not 2C"),
            (71, "you may bid at most 13 tricks"),
            (90, "is not an action"),
            ("bid 3", "'act' field action must be an integer"),
            (True, "'act' field action must be an integer"),
        ]:
            reply = tab.ask({"type": "act", "action": bad})
            assert reply["type"] == "error" and reason in reply["message"], (bad, reply)
        reply = tab.ask({"type": "act", "action": view["actions"]["legal"][0]["id"]})
        assert reply["type"] == "state" and reply["view"]["decisions"] == view["decisions"] + 1


def test_a_typed_move_reads_as_at_the_terminal_and_is_refused_with_the_rule(server):
    with Tab(server) as tab:
        seed = next(s for s in range(20) if first_bidder(s) == 0)  # the person bids first
        view = tab.ask({**HUMAN_FIRST, "seats": seats(), "seed": seed})["view"]
        assert view["phase"] == "bidding" and view["current"] == 0
        for typed, reason in [
            ("AS", "it is the bidding: make a bid, not AS"),
            ("bid 14", "you may bid at most 13 tricks"),
            ("bid 99", "'bid 99' is not a move"),
            ("hello", "'hello' is not a move"),
            ("", "'' is not a move"),
        ]:
            reply = tab.ask({"type": "move", "text": typed})
            assert reply["type"] == "error" and reason in reply["message"], (typed, reply)
        reply = tab.ask({"type": "move", "text": " 4 "})  # a bare number while bidding is a bid
        assert reply["type"] == "state" and reply["view"]["seats"][0]["bid"] == "4"
        view = tab.until(lambda m: my_turn(m) and m["view"]["phase"] == "play")["view"]
        card = view["actions"]["legal"][0]["name"]  # "10H" is typed "10h" or "10♥" too
        typed = card.replace("T", "10").lower().replace("h", "♥")
        reply = tab.ask({"type": "move", "text": typed})
        assert reply["type"] == "state" and card not in (reply["view"]["seats"][0]["cards"] or [])


def test_a_person_plays_a_whole_hand_and_the_saved_record_replays(server):
    with Tab(server) as tab:
        tab.send({**HUMAN_FIRST, "seats": ["heuristic", "ppo", "human", "random"], "seed": 5})
        decisions = 0
        while True:
            view = tab.until(my_turn)["view"]
            if view["over"]:
                break
            assert all(seat["cards"] is None for seat in view["seats"] if seat["seat"] != 2)  # only its own hand
            legal = view["actions"]["legal"]
            for shown in view["actions"]["shown"]:
                assert (str(shown["id"]) in view["actions"]["illegal"]) != (shown in legal)
            tab.send({"type": "act", "action": legal[-1]["id"]})
            decisions += 1
        assert decisions == 14  # one bid, thirteen cards
        assert sum(seat["tricks"] for seat in view["seats"]) == 13 and len(view["results"]) == 1
        record = tab.ask({"type": "save"})["record"]
        assert record["seats"] == ["heuristic", "ppo", "human", "random"] and record["over"] is True
        assert replay(record).results == view["results"]


def test_agents_alone_play_a_game_to_its_end_at_any_pace(server):
    with Tab(server) as tab:
        tab.send({"type": "new", "rules": "cutthroat3", "seats": ["heuristic"] * 3, "seed": 3, "pace_ms": 0})
        view = tab.until(lambda m: m["type"] == "state" and m["view"]["over"], timeout=120)["view"]
        assert view["actions"] is None and view["viewer"] is None
        assert all(seat["cards"] is not None for seat in view["seats"])  # watched: every hand shown
        assert view["winner"] is not None or view["truncated"]


def test_the_hand_summary_waits_for_the_person(server):
    with Tab(server) as tab:
        tab.send({"type": "new", "rules": "standard", "seats": seats(others="random"), "seed": 8, "pace_ms": 0})
        while True:
            view = tab.until(my_turn)["view"]
            if view["holding"]:
                break
            tab.send({"type": "act", "action": view["actions"]["legal"][0]["id"]})
        assert view["hand_ended"] and len(view["results"]) == 1 and view["actions"] is None
        assert tab.ask({"type": "act", "action": 57})["message"] == "the hand is over: continue to the next one first"
        view = tab.ask({"type": "continue"})["view"]
        assert not view["holding"] and view["hand_number"] == 2


def test_a_replay_steps_to_any_decision_and_refuses_bad_indices(server):
    record = json.loads((GOLDEN / "two_player_seed6.json").read_text())["record"]
    with Tab(server) as tab:
        view = tab.ask({"type": "replay", "record": record})["view"]
        assert view["kind"] == "replay" and view["index"] == 0 and view["total"] == len(record["actions"])
        assert view["drawing"]["offered"] is not None  # every hand shown: the card on offer too
        drawer = view["current"]
        view = tab.ask({"type": "viewer", "seat": 1 - drawer})["view"]
        assert view["seats"][drawer]["cards"] is None and view["drawing"]["offered"] is None  # the other's card
        view = tab.ask({"type": "viewer", "seat": drawer})["view"]
        assert view["seats"][1 - drawer]["cards"] is None and view["drawing"]["offered"] is not None
        for index in (5, 60, len(record["actions"]), 2):
            assert tab.ask({"type": "seek", "index": index})["view"]["index"] == index
        for bad in (-1, len(record["actions"]) + 1, "3", None):
            assert "index must be" in tab.ask({"type": "seek", "index": bad})["message"]
        assert "seat must be" in tab.ask({"type": "viewer", "seat": 2})["message"]
        assert tab.ask({"type": "act", "action": 0})["message"] == "this is a replay: start a game to play"


def test_tables_are_limited_and_a_closed_tab_frees_its_table():
    with serving(max_tables=2, reconnect_s=0) as base:
        first, second = Tab(base), Tab(base)
        for tab in (first, second):
            assert tab.ask({**HUMAN_FIRST, "seats": seats(), "seed": 1})["type"] == "state"
        third = Tab(base)
        reply = third.ask({**HUMAN_FIRST, "seats": seats(), "seed": 1})
        assert reply["type"] == "error" and "limit of 2 open tables" in reply["message"]
        assert second.ask({**HUMAN_FIRST, "seats": seats(), "seed": 9})["type"] == "state"  # a tab replaces its own
        first.close()  # mid-hand: the server frees its table
        for _ in range(200):  # the server frees the table when it sees the socket close
            reply = third.ask({**HUMAN_FIRST, "seats": seats(), "seed": 1})
            if reply["type"] == "state":
                break
            time.sleep(0.05)
        assert reply["type"] == "state"
        view = second.until(lambda m: my_turn(m) and m["view"]["seed"] == 9)["view"]  # the other table plays on
        assert view["actions"]["legal"]
        assert second.ask({"type": "hint"})["type"] == "hint"
        second.close()
        third.close()


def test_a_table_waits_for_its_tab_to_come_back_then_closes():
    with serving(max_tables=1, reconnect_s=1.5) as base:
        first = Tab(base)
        started = first.ask({**HUMAN_FIRST, "seats": seats(), "seed": 3})["view"]
        token = first.token
        assert token and len(token) >= 24
        first.close()  # a reload, a dropped connection: the table keeps its slot
        time.sleep(0.3)
        other = Tab(base)
        reply = other.ask({**HUMAN_FIRST, "seats": seats(), "seed": 1})
        assert reply["type"] == "error" and "limit of 1 open tables" in reply["message"]
        assert other.ask({"type": "resume", "token": "x" * 24})["message"].startswith("that table is gone")
        view = other.ask({"type": "resume", "token": token})["view"]  # the same table, where it was
        assert view["seed"] == 3 and view["seats"][0]["cards"] == started["seats"][0]["cards"]
        assert other.token not in (None, token)  # a token is spent once: a new one comes
        other.close()
        time.sleep(2.0)  # past reconnect_s: closed, its slot freed
        last = Tab(base)
        assert last.ask({"type": "resume", "token": other.token})["message"].startswith("that table is gone")
        assert last.ask({**HUMAN_FIRST, "seats": seats(), "seed": 1})["type"] == "state"
        last.close()


def test_a_tab_that_comes_back_to_a_table_gives_up_its_own_and_its_slot():
    with serving(max_tables=2, reconnect_s=30) as base:
        first = Tab(base)
        first.ask({**HUMAN_FIRST, "seats": seats(), "seed": 3})
        token = first.token
        first.close()
        time.sleep(0.3)
        other = Tab(base)
        assert other.ask({**HUMAN_FIRST, "seats": seats(), "seed": 5})["view"]["seed"] == 5  # the second slot
        other.send({"type": "resume", "token": token})  # its own table closed
        assert other.until(lambda m: m["type"] != "state" or m["view"]["seed"] == 3)["type"] == "state"
        third = Tab(base)
        assert third.ask({**HUMAN_FIRST, "seats": seats(), "seed": 7})["type"] == "state"  # that slot is free
        assert third.ask({**HUMAN_FIRST, "seats": seats(), "seed": 8})["type"] == "state"  # (a tab replaces its own)
        fourth = Tab(base)
        reply = fourth.ask({**HUMAN_FIRST, "seats": seats(), "seed": 1})
        assert reply["type"] == "error" and "limit of 2 open tables" in reply["message"]
        for tab in (other, third, fourth):
            tab.close()


def test_many_tables_at_once_play_apart():
    with serving(max_tables=6, reconnect_s=0) as base:
        tabs = [Tab(base) for _ in range(6)]
        for i, tab in enumerate(tabs):
            tab.send({"type": "new", "rules": "standard", "seats": seats(), "seed": i, "pace_ms": 0, "episode": "hand"})
        views = [tab.until(my_turn)["view"] for tab in tabs]
        hands = [v["seats"][0]["cards"] for v in views]
        assert len({tuple(h) for h in hands}) == 6  # six seeds, six deals
        for tab, view in zip(tabs, views):  # each acts at its own table only
            tab.send({"type": "act", "action": view["actions"]["legal"][0]["id"]})
        after = [
            tab.until(lambda m: m["type"] == "state" and m["view"]["seats"][0]["bid"] is not None)["view"]
            for tab in tabs
        ]
        assert [v["seats"][0]["cards"] for v in after] == hands
        for tab in tabs:
            tab.close()


def test_a_socket_from_another_site_is_refused(server):
    with pytest.raises(Exception):
        Tab(server, origin="http://evil.example")
    with Tab(server, origin=server) as tab:  # the page's own origin
        assert tab.hello["type"] == "hello"


def test_finished_games_are_saved_as_records_one_file_each(tmp_path):
    from spades_env.records import load_record

    folder = tmp_path / "games"
    with serving(max_tables=4, record_dir=folder) as base:
        with Tab(base) as tab:
            tab.send({**HUMAN_FIRST, "seats": ["human", "heuristic", "heuristic", "heuristic"], "seed": 8})
            while True:
                view = tab.until(my_turn)["view"]
                if view["over"]:
                    break
                assert list(folder.iterdir()) == []  # nothing before the game ends
                tab.send({"type": "act", "action": view["actions"]["legal"][0]["id"]})
            saved = tab.ask({"type": "save"})["record"]
        with Tab(base) as other:  # a game of agents alone, at another table
            other.send({"type": "new", "rules": "cutthroat3", "seats": ["random"] * 3, "episode": "hand", "seed": 2,
                        "pace_ms": 0})  # fmt: skip
            other.until(lambda m: m["type"] == "state" and m["view"]["over"], timeout=60)
            deadline = time.monotonic() + 10
            while len(list(folder.glob("*.json"))) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
    files = sorted(folder.glob("*.json"))
    assert len(files) == 2 and not list(folder.glob(".*"))  # one per game, no temporary file left
    records = [load_record(f) for f in files]
    mine = next(r for r in records if r["seats"][0] == "human")
    assert mine == saved and replay(mine).results == saved["results"]  # the game as played, once
    theirs = next(r for r in records if r is not mine)
    assert theirs["seats"] == ["random"] * 3 and replay(theirs).results == theirs["results"]


def test_a_record_folder_that_cannot_be_written_is_refused_at_start(tmp_path):
    from spades_env.web.server import create_app

    a_file = tmp_path / "file"
    a_file.write_text("x")
    with pytest.raises(ValueError, match="--record-dir .*cannot make the folder|not a folder"):
        create_app(record_dir=a_file)
    made = tmp_path / "new" / "games"
    assert create_app(record_dir=made).state.record_dir == made and made.is_dir()


# ---------------------------------------------------------------- several people at one table
PARTNERS = {"type": "new", "rules": "standard", "seats": ["human", "random", "human", "random"], "pace_ms": 0}


def refusal(tab: Tab, message: dict) -> str:
    """The error a message gets (the states pushed to the tab meanwhile passed over)."""
    tab.send(message)
    return tab.until(lambda m: m["type"] == "error")["message"]


def play_as_people(tabs: dict[int, Tab], until) -> dict:
    """Each tab plays its seat's first legal action whenever its view says it is to act (from the last view it
    read on), until a view of any tab passes ``until``; every view a person gets holds no other seat's cards.
    Returns that view."""
    acted = {seat: -1 for seat in tabs}  # the decision count each tab last acted at (a state may come twice)
    views = {seat: tab.view for seat, tab in tabs.items()}
    while True:
        for seat, tab in tabs.items():
            view = views.pop(seat, None)
            if view is None:
                try:
                    view = tab.until(lambda m: m["type"] == "state", timeout=0.3)["view"]
                except TimeoutError:
                    continue
            assert view["viewer"] == seat
            assert all(s["cards"] is None for s in view["seats"] if s["seat"] != seat)  # only its own hand
            if until(view):
                return view
            legal = view["actions"]["legal"] if view["actions"] else []
            if legal and view["decisions"] > acted[seat]:
                acted[seat] = view["decisions"]
                tab.send({"type": "act", "action": legal[0]["id"]})


def test_two_people_play_a_hand_at_one_table_each_seeing_only_their_seat(server):
    with Tab(server) as host, Tab(server) as guest, Tab(server) as third:
        view = host.ask({**PARTNERS, "seed": 4})["view"]
        invite = host.place["invite"]
        assert host.place["seat"] == 0 and host.place["host"] and invite and len(invite) >= 24
        assert view["people"] == [{"seat": 0, "state": "here"}, {"seat": 2, "state": "open"}]
        assert view["seats"][0]["name"] == "you (seat 0)" and view["seats"][2]["name"] == "person (seat 2)"
        assert refusal(third, {"type": "join", "invite": invite, "seat": 0}) == "seat 0 is taken"
        assert "not a person's seat" in refusal(third, {"type": "join", "invite": invite, "seat": 1})
        assert "takes no spectators" in refusal(third, {"type": "join", "invite": invite, "seat": None})
        view = guest.ask({"type": "join", "invite": invite})["view"]  # the first open seat
        assert guest.place["seat"] == 2 and not guest.place["host"] and guest.place["invite"] == invite
        assert view["people"] == [{"seat": 0, "state": "here"}, {"seat": 2, "state": "here"}]
        assert "no seat is open" in refusal(third, {"type": "join", "invite": invite})  # claims are exclusive
        assert refusal(guest, {"type": "pace", "ms": 0}) == "only the table's host sets the agents' pace"
        assert refusal(guest, {"type": "fill", "seat": 0}).startswith("only the table's host")
        assert refusal(host, {"type": "fill", "seat": 2}) == "seat 2 is played by a person who is here or on the way"
        record = guest.ask({"type": "save"})
        assert record["message"] == "the record shows every hand: it is saved once the game is over"
        view = play_as_people({0: host, 2: guest}, lambda v: v["holding"])  # both play to the hand's end
        assert view["waiting"] == [0, 2] and len(view["results"]) == 1
        host.send({"type": "continue"})  # the table waits for every person
        host.until(lambda m: m["type"] == "state" and m["view"]["waiting"] == [2])
        assert refusal(host, {"type": "continue"}) == "you have continued already; waiting for person (seat 2)"
        guest.until(lambda m: m["type"] == "state" and m["view"]["waiting"] == [2])
        view = guest.ask({"type": "continue"})["view"]
        assert not view["holding"] and view["hand_number"] == 2


def test_spectators_see_what_the_table_allows_and_never_play(server):
    for allowed, every_hand in (("public", False), ("hands", True)):
        with Tab(server) as host, Tab(server) as watcher:
            host.ask({**HUMAN_FIRST, "seats": seats(), "seed": 2, "pace_ms": 5000, "spectators": allowed})
            view = watcher.ask({"type": "join", "invite": host.place["invite"]})["view"]  # no open seat: watch
            assert watcher.place["seat"] is None and view["actions"] is None
            assert all((s["cards"] is not None) == every_hand for s in view["seats"]), allowed
            assert view["viewer"] == (None if every_hand else -1)
            assert refusal(watcher, {"type": "act", "action": 57}) == "you are watching this table: its people play"
            assert host.until(lambda m: m["type"] == "state")["view"]["spectators"] == 1
            saved = watcher.ask({"type": "save"})
            assert (saved["type"] == "record") == every_hand, saved  # the deal only to who sees every hand


def test_a_person_who_leaves_gets_the_host_s_agent_and_a_return_keeps_the_seat():
    with serving(max_tables=2, reconnect_s=1.0) as base:
        with Tab(base) as host:
            host.ask({**PARTNERS, "seed": 6, "episode": "hand", "substitute": "heuristic"})
            invite = host.place["invite"]
            guest = Tab(base)
            guest.ask({"type": "join", "invite": invite, "seat": 2})
            token = guest.token
            guest.close()  # a reload: the seat is kept for reconnect_s
            away = host.until(lambda m: m["type"] == "state" and m["view"]["people"][1]["state"] == "away")["view"]
            assert away["seats"][2]["name"] == "person (seat 2)"
            back = Tab(base)
            view = back.ask({"type": "resume", "token": token})["view"]
            assert back.place["seat"] == 2 and view["viewer"] == 2  # the same seat, its own hand
            back.close()  # gone for good: past reconnect_s its seat is the host's substitute's
            view = host.until(lambda m: m["type"] == "state" and not m["view"]["people"][1:], timeout=10)["view"]
            assert view["seats"][2]["name"] == "heuristic (seat 2)"
            view = play_as_people({0: host}, lambda v: v["over"])  # the agent plays the seat on
            record = host.ask({"type": "save"})["record"]
            assert record["seats"][2] == "human" and record["replaced"][0]["seat"] == 2
            assert record["replaced"][0]["agent"] == "heuristic"
            assert replay(record).results == view["results"]


def test_the_host_seats_an_agent_where_nobody_came():
    with serving(max_tables=2, reconnect_s=0) as base:
        with Tab(base) as host:
            view = host.ask({**PARTNERS, "seed": 3, "episode": "hand", "substitute": "random"})["view"]
            assert view["people"][1] == {"seat": 2, "state": "open"}
            view = host.ask({"type": "fill", "seat": None})["view"]  # every seat nobody is in
            assert view["seats"][2]["name"] == "random (seat 2)" and len(view["people"]) == 1
            assert refusal(host, {"type": "fill", "seat": None}) == "every person's seat has its person here"
            with Tab(base) as late:  # the seat is the agent's now
                assert "no seat is open" in refusal(late, {"type": "join", "invite": host.place["invite"]})
            assert play_as_people({0: host}, lambda v: v["over"])["over"]
        time.sleep(0.3)  # the host gone, the table closes: its invite opens nothing
        with Tab(base) as late:
            assert "no table has that invite" in refusal(late, {"type": "join", "invite": host.place["invite"]})


def test_a_table_of_several_people_takes_no_spectators_of_every_hand(server):
    with Tab(server) as host:
        reply = host.ask({**PARTNERS, "seed": 1, "spectators": "hands"})
        assert reply["type"] == "error" and "the people could watch each other" in reply["message"]


def test_the_last_person_waited_for_leaving_lets_the_agents_play_on():
    with serving(max_tables=2, reconnect_s=30) as base:
        with Tab(base) as host:
            host.ask({**PARTNERS, "seed": 1})  # a game: the summary waits at each hand's end
            guest = Tab(base)
            guest.ask({"type": "join", "invite": host.place["invite"]})
            view = play_as_people({0: host, 2: guest}, lambda v: v["holding"])
            host.send({"type": "continue"})
            host.until(lambda m: m["type"] == "state" and m["view"]["waiting"] == [2])
            decisions = view["decisions"]
            guest.close()  # away (kept for 30 s): the table no longer waits for it
            view = host.until(lambda m: m["type"] == "state" and m["view"]["decisions"] > decisions)["view"]
            assert not view["holding"] and view["people"][1]["state"] == "away"


def test_the_host_s_part_passes_on_and_a_tab_cannot_come_back_into_its_own_table():
    with serving(max_tables=3, reconnect_s=30) as base:
        with Tab(base) as host, Tab(base) as first, Tab(base) as second:
            seats4 = {**PARTNERS, "rules": "cutthroat", "seats": ["human"] * 4, "seed": 2, "pace_ms": 5000}
            host.ask(seats4)
            invite = host.place["invite"]
            first.ask({"type": "join", "invite": invite, "seat": 1})
            second.ask({"type": "join", "invite": invite, "seat": 3})
            token = first.token
            first.close()  # seat 1 away, kept
            second.until(lambda m: m["type"] == "state" and m["view"]["people"][1]["state"] == "away")
            assert refusal(second, {"type": "resume", "token": token}) == "this tab is at that table already"
            assert refusal(second, {"type": "pace", "ms": 0}).startswith("only the table's host")
            host.ask({**HUMAN_FIRST, "seats": seats(), "seed": 1})  # the host opens another table
            view = second.until(lambda m: m["type"] == "state" and m["view"]["host"])["view"]
            assert [p["state"] for p in view["people"]] == ["away", "open", "here"]  # seat 0 went to the agent
            assert view["seats"][0]["name"] == "heuristic (seat 0)"
            second.send({"type": "fill", "seat": None})  # the new host seats agents for the person away and seat 2
            view = second.until(lambda m: m["type"] == "state" and len(m["view"]["people"]) == 1)["view"]
            assert [view["seats"][s]["name"] for s in (1, 2)] == ["heuristic (seat 1)", "heuristic (seat 2)"]
            with Tab(base) as late:  # the token of the seat filled opens nothing
                assert refusal(late, {"type": "resume", "token": token}).startswith("that table is gone")


def test_a_table_takes_at_most_its_limit_of_tabs():
    with serving(max_tables=1, reconnect_s=0) as base:
        with Tab(base) as host:
            host.ask({**HUMAN_FIRST, "seats": seats(), "seed": 1, "pace_ms": 5000, "spectators": "public"})
            watchers = [Tab(base) for _ in range(MAX_MEMBERS - 1)]
            for tab in watchers:
                assert tab.ask({"type": "join", "invite": host.place["invite"]})["view"]["viewer"] == PUBLIC
            with Tab(base) as one_more:
                assert refusal(one_more, {"type": "join", "invite": host.place["invite"]}) == (
                    f"this table is full ({MAX_MEMBERS} tabs)"
                )
            for tab in watchers:
                tab.close()


def test_agents_that_cannot_play_a_preset_are_named_in_the_hello_and_refused_as_seat_or_substitute(server):
    with Tab(server) as tab:
        unplayable = tab.hello["unplayable"]
        assert set(unplayable) == set(tab.hello["presets"])
        assert {rules: sorted(refused) for rules, refused in unplayable.items() if refused} == {
            "two_player": ["ppo_standard"]
        }
        assert "88 actions" in unplayable["two_player"]["ppo_standard"]
        two = {"type": "new", "rules": "two_player", "seed": 1, "pace_ms": 5000}
        reply = tab.ask({**two, "seats": ["human", "ppo_standard"]})
        assert reply["type"] == "error" and "ppo_standard cannot play two_player" in reply["message"]
        reply = tab.ask({**two, "seats": ["human", "heuristic"], "substitute": "ppo_standard"})
        assert reply == {
            "type": "error",
            "message": f"the substitute ppo_standard cannot play two_player: {unplayable['two_player']['ppo_standard']}",
        }
        assert tab.token is None  # no table was opened
        reply = tab.ask({**two, "seats": ["human", "ppo"], "substitute": "ppo"})
        assert reply["type"] == "state" and tab.token is not None


def test_an_agent_that_fails_to_build_is_refused_by_name_when_the_server_starts(monkeypatch):
    from spades_env.agents import registry
    from spades_env.web.server import Agents

    def broken(**options):
        raise RuntimeError("needs an option")

    monkeypatch.setitem(registry._FACTORIES, "broken_plugin", broken)
    monkeypatch.setitem(registry._DESCRIPTIONS, "broken_plugin", "a plugin that cannot be built without options")
    with pytest.raises(ValueError, match="agent 'broken_plugin' cannot be built: RuntimeError: needs an option"):
        Agents()


def test_a_table_without_people_needs_no_substitute_that_can_play():
    with serving(hint_agent="ppo_standard") as base, Tab(base) as tab:  # the default substitute: the hint agent
        two = {"type": "new", "rules": "two_player", "seed": 1, "pace_ms": 5000}
        reply = tab.ask({**two, "seats": ["human", "ppo"]})
        assert reply["type"] == "error" and "the substitute ppo_standard cannot play two_player" in reply["message"]
        reply = tab.ask({**two, "seats": ["ppo", "heuristic"]})  # agents alone: nobody leaves
        assert reply["type"] == "state" and tab.token is not None
