"""The page in a real browser (headless Chromium through Selenium): a person plays a hand by clicking, an illegal
click is refused with its reason, a hint shows, a replay shows the text replay's cards, two tabs keep apart.

Skipped without Chromium and its driver, unless ``SPADES_REQUIRE_BROWSER`` is set (``.ci/run`` sets it and
installs both). The screenshots of the docs (``docs/images/web_*.png``) are written by these tests when
``SPADES_WEB_SCREENSHOTS`` names a folder (always into the test's temporary folder otherwise).
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest

from spades_env.core.cards import parse_card
from spades_env.replay import main as text_replay

from .helpers import serving

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

GOLDEN = Path(__file__).parents[1] / "golden"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")
REQUIRED = os.environ.get("SPADES_REQUIRE_BROWSER", "").lower() in ("1", "true", "yes")
SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}

if not (CHROMIUM and DRIVER):
    if REQUIRED:
        raise RuntimeError("SPADES_REQUIRE_BROWSER is set but chromium or chromedriver is missing")
    pytest.skip("no chromium and chromedriver on this machine", allow_module_level=True)


@pytest.fixture(scope="module")
def server():
    with serving(max_tables=6, reconnect_s=0) as base:  # each test's page load closes the last one's table
        yield base


def chromium():
    """A headless Chromium of its own (its own profile: a second one is another person's browser)."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=DRIVER))
    driver.set_page_load_timeout(30)
    return driver


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = os.environ.get("SPADES_WEB_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def wait(driver, test, timeout: float = 60):
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: test(d))


def text(driver, element_id: str) -> str:
    return driver.find_element(By.ID, element_id).text


def open_table(driver, base: str, rules: str, seats: list[str], seed: int, episode: str = "game", pace: int = 0):
    driver.get(base + "/")
    wait(driver, lambda d: text(d, "connection") == "connected" and d.find_elements(By.ID, "seat-0"))
    driver.execute_script(
        "const s = document.getElementById('rules'); s.value = arguments[0]; s.dispatchEvent(new Event('change'));"
        "const p = document.getElementById('pace'); p.value = arguments[1]; p.dispatchEvent(new Event('input'));",
        rules,
        pace,
    )
    for seat, spec in enumerate(seats):
        driver.execute_script("document.getElementById(arguments[0]).value = arguments[1];", f"seat-{seat}", spec)
    driver.execute_script("document.getElementById('episode').value = arguments[0];", episode)
    driver.find_element(By.ID, "seed").send_keys(str(seed))
    driver.find_element(By.ID, "start").click()
    wait(driver, lambda d: text(d, "status") != "")


def shoot(driver, path: Path) -> None:
    """A screenshot of the page, checked to be a picture."""
    driver.save_screenshot(str(path))
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000, path


def my_turn_or_end(driver) -> str | None:
    status = text(driver, "status")
    if status.startswith("Your turn") or "over" in status:
        return status
    return None


def legal_elements(driver):
    return driver.find_elements(By.CSS_SELECTOR, ".card.legal, #bids button.legal, #drawing button.legal")


def test_a_person_plays_a_whole_hand_by_clicking_and_sees_the_summary(server, browser, shots):
    open_table(browser, server, "standard", ["human", "heuristic", "heuristic", "heuristic"], seed=4, pace=0)
    clicks = 0
    shot_bidding = shot_trick = False
    while True:
        status = wait(browser, my_turn_or_end)
        if "over" in status:
            break
        if status.startswith("Your turn: bid") and not shot_bidding:
            shoot(browser, shots / "web_bidding.png")
            shot_bidding = True
        if (
            status.startswith("Your turn: play")
            and not shot_trick
            and browser.find_elements(By.CSS_SELECTOR, "#trick .card")
        ):
            shoot(browser, shots / "web_mid_trick.png")
            shot_trick = True
        before = browser.execute_script("return document.getElementById('log').textContent")
        legal = legal_elements(browser)
        assert legal, status
        legal[0].click()
        clicks += 1
        wait(browser, lambda d: d.execute_script("return document.getElementById('log').textContent") != before)
    assert clicks == 14  # a bid and thirteen cards
    summary = browser.find_element(By.ID, "summary")
    assert summary.is_displayed() and "Hand 1 (standard) is over" in text(browser, "summary-title")
    assert "points" in text(browser, "summary-table") and browser.find_element(By.ID, "continue").is_displayed()
    shoot(browser, shots / "web_hand_summary.png")
    browser.find_element(By.ID, "continue").click()
    wait(browser, lambda d: not d.find_element(By.ID, "summary").is_displayed())
    assert "hand 2" in text(browser, "info")
    assert shot_bidding and shot_trick


@pytest.mark.parametrize(
    "rules, players, phases",
    [
        ("online", 4, {"Your turn: bid blind or see your cards."}),  # blind nil open from the start; 10 for 200
        ("two_player", 2, {"Your turn: keep or discard."}),  # the drawing from the stock
        ("jokers", 4, set()),
        ("cutthroat3", 3, set()),
    ],
)
def test_a_hand_of_other_presets_is_played_by_clicking(server, browser, rules, players, phases):
    open_table(browser, server, rules, ["human"] + ["heuristic"] * (players - 1), seed=6, episode="hand")
    seen = set()
    while True:
        status = wait(browser, my_turn_or_end)
        if "over" in status:
            break
        seen.add(status)
        before = browser.execute_script("return document.getElementById('log').textContent")
        legal_elements(browser)[-1].click()
        wait(browser, lambda d: d.execute_script("return document.getElementById('log').textContent") != before)
    assert phases <= seen, seen
    tricks = [
        int(e.text.split("tricks ")[1])
        for e in browser.find_elements(By.CSS_SELECTOR, "#table .seat .facts")
        if "tricks" in e.text
    ]
    assert len(tricks) == players and sum(tricks) == (17 if players == 3 else 13)


def test_an_illegal_click_is_refused_with_the_rule(server, browser):
    open_table(browser, server, "standard", ["human", "random", "random", "random"], seed=11, episode="hand")
    for _ in range(40):
        status = wait(browser, my_turn_or_end)
        assert "over" not in status, "no illegal card came up in this hand"
        illegal = browser.find_elements(By.CSS_SELECTOR, ".card.illegal")
        if status.startswith("Your turn: play") and illegal:
            break
        before = browser.execute_script("return document.getElementById('log').textContent")
        legal_elements(browser)[0].click()
        wait(browser, lambda d: d.execute_script("return document.getElementById('log').textContent") != before)
    decisions = browser.execute_script("return document.getElementById('log').children.length")
    card = illegal[0]
    card.click()
    message = text(browser, "message")
    reason = card.get_attribute("title")
    assert reason and message.endswith(reason)
    assert re.search(r"follow suit|spades are not broken", reason)
    assert browser.execute_script("return document.getElementById('log').children.length") == decisions
    assert my_turn_or_end(browser).startswith("Your turn: play")  # still the person's turn, nothing played


def test_a_hint_appears_and_marks_the_suggested_action(server, browser):
    open_table(browser, server, "standard", ["human", "heuristic", "heuristic", "heuristic"], seed=2, episode="hand")
    wait(browser, my_turn_or_end)
    browser.find_element(By.ID, "hint").click()
    wait(browser, lambda d: text(d, "hint-text").startswith("hint (heuristic): "))
    marked = browser.find_elements(By.CSS_SELECTOR, ".hinted")
    assert len(marked) == 1
    suggested = text(browser, "hint-text").removeprefix("hint (heuristic): ")
    assert marked[0].text == suggested or marked[0].get_attribute("data-card") in suggested


def page_cards(driver, seat: int) -> set[int]:
    cards = driver.find_elements(By.CSS_SELECTOR, f'#table .seat[data-seat="{seat}"] .card[data-card]')
    return {parse_card(c.get_attribute("data-card")) for c in cards if c.get_attribute("data-card")}


def text_replay_hands(path: Path, seat: int) -> list[set[int]]:
    """Seat ``seat``'s hand at each stop of the text replay (``spades-replay --seat k --all``)."""
    out = io.StringIO()
    assert text_replay([str(path), "--seat", str(seat), "--all"], stdin=io.StringIO(""), stdout=out) == 0
    hands = []
    for line in out.getvalue().splitlines():
        if line.strip().startswith(f"seat {seat} (viewer)") and "hand:" in line:
            shown = line.split("hand:", 1)[1].split()
            if shown and shown[0].startswith("("):  # "(no cards)"
                shown = []
            cards = set()
            for word in shown:
                word = word.replace("10", "T")
                for symbol, letter in SYMBOLS.items():
                    word = word.replace(symbol, letter)
                cards.add(parse_card(word))
            hands.append(cards)
    return hands


def replay_stops(record: dict) -> list[int]:
    """The decision index at each stop of the text replay in the first hand: the deal, the end of the bidding,
    each trick's last card."""
    import spades_env
    from spades_env.core import Phase, Rules
    from spades_env.records import reset_options

    rules = Rules.from_dict(record["rules"])
    env = spades_env.raw_env(rules=rules, episode=record["episode"])
    env.reset(options=reset_options(record, rules))
    stops = [0]
    for i, action in enumerate(record["actions"]):
        before = env.hand
        bidding = before.phase in (Phase.BID, Phase.BLIND)
        env.step(action)
        if (bidding and before.phase not in (Phase.BID, Phase.BLIND)) or before.last_transition.trick_winner >= 0:
            stops.append(i + 1)
        if env.hand is not before:
            return stops
    return stops


def test_a_replay_steps_through_a_golden_record_and_shows_the_text_replays_cards(server, browser, shots):
    path = GOLDEN / "jokers_seed11.json"
    record = json.loads(path.read_text())["record"]
    browser.get(server + "/")
    wait(browser, lambda d: text(d, "connection") == "connected")
    browser.find_element(By.ID, "replay-file").send_keys(str(path))
    wait(browser, lambda d: text(d, "replay-index") == f"0 / {len(record['actions'])}")
    browser.execute_script(
        "const v = document.getElementById('viewer'); v.value = '0'; v.dispatchEvent(new Event('change'));"
    )
    wait(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, '#table .seat[data-seat="1"] .card[data-card]'))
    expected = text_replay_hands(path, 0)
    stops = replay_stops(record)
    assert len(stops) == 15  # the deal, the bids, 13 tricks
    for stop, hand in zip(stops, expected):
        browser.execute_script(
            "const s = document.getElementById('replay-slider'); s.value = arguments[0];"
            "s.dispatchEvent(new Event('input'));",
            stop,
        )
        wait(browser, lambda d, stop=stop: text(d, "replay-index").startswith(f"{stop} /"))
        if stop == stops[-1]:  # the hand's last card: the page shows its summary and the next deal
            assert browser.find_element(By.ID, "summary").is_displayed() and not hand
        else:
            assert page_cards(browser, 0) == hand, stop
    browser.execute_script(
        "const s = document.getElementById('replay-slider'); s.value = arguments[0]; s.dispatchEvent(new Event('input'));",
        stops[6] + 2,  # two cards into the sixth trick
    )
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#trick .card")) == 2)
    shoot(browser, shots / "web_replay.png")
    index = int(text(browser, "replay-index").split("/")[0])
    browser.find_element(By.ID, "replay-prev").click()
    wait(browser, lambda d: text(d, "replay-index").startswith(f"{index - 1} /"))
    browser.find_element(By.ID, "replay-next").click()
    wait(browser, lambda d: text(d, "replay-index").startswith(f"{index} /"))


def test_two_tables_in_two_tabs_do_not_interfere(server, browser):
    open_table(browser, server, "standard", ["human", "heuristic", "heuristic", "heuristic"], seed=21, episode="hand")
    wait(browser, my_turn_or_end)
    first_tab = browser.current_window_handle
    first_hand = page_cards(browser, 0)
    browser.switch_to.new_window("tab")
    try:
        open_table(
            browser, server, "cutthroat", ["heuristic", "human", "heuristic", "heuristic"], seed=22, episode="hand"
        )
        wait(browser, my_turn_or_end)
        second_hand = page_cards(browser, 1)
        assert second_hand != first_hand
        legal_elements(browser)[0].click()  # the second tab bids
        wait(browser, lambda d: "you" in d.execute_script("return document.getElementById('log').textContent"))
        browser.switch_to.window(first_tab)
        assert page_cards(browser, 0) == first_hand
        assert "you" not in browser.execute_script("return document.getElementById('log').textContent")
        legal_elements(browser)[0].click()  # and the first tab still plays its own table
        wait(browser, lambda d: "you" in d.execute_script("return document.getElementById('log').textContent"))
    finally:
        for handle in browser.window_handles:
            if handle != first_tab:
                browser.switch_to.window(handle)
                browser.close()
        browser.switch_to.window(first_tab)


@pytest.mark.slow  # a whole hand from the keyboard (7 s); .ci/run runs the slow browser tests
def test_a_hand_is_played_from_the_keyboard_with_typed_bids_and_arrow_keys(server, browser):
    from selenium.webdriver.common.keys import Keys

    open_table(browser, server, "standard", ["human", "heuristic", "heuristic", "heuristic"], seed=4, episode="hand")
    played = 0
    while True:
        status = wait(browser, my_turn_or_end)
        if "over" in status:
            break
        before = browser.execute_script("return document.getElementById('log').textContent")
        if status.startswith("Your turn: bid"):
            move = browser.find_element(By.ID, "move")
            move.send_keys("bid 3", Keys.ENTER)  # typed as at the terminal
        else:
            cards = browser.find_elements(By.CSS_SELECTOR, "#my-cards button.card")
            assert [c.get_attribute("tabindex") for c in cards].count("0") == 1  # the hand is one tab stop
            first = next(c for c in cards if c.get_attribute("tabindex") == "0")
            assert "legal" in first.get_attribute("class").split()  # the first legal card takes the focus
            words = first.find_element(By.CSS_SELECTOR, ".sr-only").get_attribute("textContent")
            assert re.fullmatch(r"(10|[2-9]|jack|queen|king|ace) of (spades|hearts|diamonds|clubs)", words), words
            first.send_keys(Keys.END)  # the arrow keys and Home/End move the focus; Enter plays
            last = browser.switch_to.active_element
            assert last.get_attribute("data-card") == cards[-1].get_attribute("data-card")
            last.send_keys(Keys.HOME)
            focused = browser.switch_to.active_element
            assert focused.get_attribute("data-card") == cards[0].get_attribute("data-card")
            while "legal" not in focused.get_attribute("class").split():
                focused.send_keys(Keys.ARROW_RIGHT)
                focused = browser.switch_to.active_element
            focused.send_keys(Keys.ENTER)
            played += 1
        wait(browser, lambda d: d.execute_script("return document.getElementById('log').textContent") != before)
    assert played == 13
    assert text(browser, "status") == "The hand is over."


def test_a_typed_move_that_is_not_legal_is_refused_with_the_rule(server, browser):
    from selenium.webdriver.common.keys import Keys

    open_table(browser, server, "standard", ["human", "heuristic", "heuristic", "heuristic"], seed=4, episode="hand")
    assert wait(browser, my_turn_or_end).startswith("Your turn: bid")
    browser.find_element(By.ID, "move").send_keys("AS", Keys.ENTER)
    wait(browser, lambda d: text(d, "message") == "it is the bidding: make a bid, not AS")
    browser.find_element(By.ID, "move").send_keys("bid please", Keys.ENTER)
    wait(browser, lambda d: text(d, "message").startswith("'bid please' is not a move"))
    assert my_turn_or_end(browser).startswith("Your turn: bid")


# axe-core's script: SPADES_AXE_JS (.ci/run installs the npm package and sets it), or `npm install axe-core` here
AXE = os.environ.get("SPADES_AXE_JS") or next(
    (str(p) for p in [Path(__file__).parents[2] / "node_modules" / "axe-core" / "axe.min.js"] if p.exists()), None
)


def axe_violations(driver) -> list[str]:
    """axe-core's serious and critical violations on the page as it is (its rule, impact and first target)."""
    driver.execute_script(Path(AXE).read_text(encoding="utf-8"))
    result = driver.execute_async_script("const done = arguments[arguments.length - 1]; axe.run(document).then(done);")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[node['target'] for node in v['nodes']]}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def test_axe_core_finds_no_serious_violation_on_the_table_the_summary_and_the_replay(server, browser):
    if AXE is None:
        if REQUIRED:
            raise RuntimeError("SPADES_REQUIRE_BROWSER is set but axe-core is missing (SPADES_AXE_JS)")
        pytest.skip("no axe-core (npm install axe-core; or SPADES_AXE_JS=path/to/axe.min.js)")
    open_table(browser, server, "standard", ["human", "heuristic", "heuristic", "heuristic"], seed=4, episode="hand")
    pages = {}
    while True:
        status = wait(browser, my_turn_or_end)
        if "over" in status:
            break
        if status.startswith("Your turn: play") and "play" not in pages:
            pages["play"] = axe_violations(browser)
        if status.startswith("Your turn: bid") and "bidding" not in pages:
            pages["bidding"] = axe_violations(browser)
        before = browser.execute_script("return document.getElementById('log').textContent")
        legal_elements(browser)[0].click()
        wait(browser, lambda d: d.execute_script("return document.getElementById('log').textContent") != before)
    pages["summary"] = axe_violations(browser)
    browser.find_element(By.ID, "replay-file").send_keys(str(GOLDEN / "jokers_seed11.json"))
    wait(browser, lambda d: d.find_element(By.ID, "replay-bar").is_displayed())
    pages["replay"] = axe_violations(browser)
    assert set(pages) == {"bidding", "play", "summary", "replay"}
    problems = [f"{page}: {problem}" for page, found in pages.items() for problem in found]
    assert not problems, "\n".join(problems)


def test_hands_are_grouped_by_suit_in_the_terminal_s_order_and_tens_shown_as_chosen(server, browser):
    from spades_env.core.cards import parse_card
    from spades_env.play import suit_groups

    open_table(browser, server, "standard", ["human", "heuristic", "heuristic", "heuristic"], seed=4, episode="hand")
    wait(browser, my_turn_or_end)
    mine = browser.find_elements(By.CSS_SELECTOR, ".seat.pos-bottom .cards .card")
    cards = [parse_card(e.get_attribute("data-card")) for e in mine]
    mask = sum(1 << card for card in cards)
    assert len(cards) == 13 and [c for group in suit_groups(mask) for c in group] == cards
    mine = browser.find_element(By.CSS_SELECTOR, ".seat.pos-bottom .cards")
    assert len(mine.find_elements(By.CSS_SELECTOR, ".suit-gap")) == len(suit_groups(mask)) - 1
    for notation, other in (("T", "10"), ("10", "T")):
        browser.execute_script(
            "const n = document.getElementById('notation'); n.value = arguments[0]; n.dispatchEvent(new Event('change'));",
            notation,
        )
        faces = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#table .card[data-card^='T']")]
        assert faces and all(face.startswith(notation) and not face.startswith(other) for face in faces), faces
    assert browser.execute_script("return localStorage.getItem('spades-notation')") == "10"  # kept for next time


def test_a_finished_trick_stays_on_the_table_with_its_winner_marked(server, browser):
    open_table(browser, server, "standard", ["heuristic"] * 4, seed=5, episode="hand", pace=700)
    found = wait(
        browser,
        lambda d: d.execute_script(
            "const t = document.getElementById('trick');"
            "return t.classList.contains('collected') && t.querySelectorAll('.card').length === 4"
            " ? [t.querySelectorAll('.winner').length, document.querySelectorAll('.seat.takes').length,"
            " document.getElementById('last-trick').textContent] : null;"
        ),
    )
    winners, takers, last = found
    assert winners == 1 and takers == 1 and last.startswith("last trick: ")
    # the next card played clears it: the table shows the new trick
    wait(
        browser, lambda d: d.execute_script("return !document.getElementById('trick').classList.contains('collected')")
    )


def test_the_score_sheet_the_bid_tally_and_the_summary_by_side(server, browser, shots):
    open_table(browser, server, "standard", ["human", "heuristic", "heuristic", "heuristic"], seed=4, pace=0)
    tallies = []
    while True:
        status = wait(browser, my_turn_or_end)
        if "over" in status:
            break
        if browser.find_element(By.ID, "bid-tally").is_displayed():
            tallies.append(text(browser, "bid-tally"))
        before = browser.execute_script("return document.getElementById('log').textContent")
        legal_elements(browser)[0].click()
        wait(browser, lambda d: d.execute_script("return document.getElementById('log').textContent") != before)
    sides = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#score-table tbody tr td:first-child")]
    assert tallies and all(t.startswith("bids so far: ") and all(side in t for side in sides) for t in tallies)
    header = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#summary-table tr:first-child th")][1:]
    assert header == sides  # the summary has a column per side
    points = browser.find_elements(By.XPATH, "//table[@id='summary-table']//tr[th='points']/td")
    sheet = browser.find_elements(By.CSS_SELECTOR, "#score-sheet tr")
    assert len(sheet) == 2  # its header and hand 1
    cells = [td.text for td in sheet[1].find_elements(By.TAG_NAME, "td")]
    assert len(cells) == len(sides) and all(f"{int(p.text):+d} →" in cell for p, cell in zip(points, cells)), (
        cells,
        [p.text for p in points],
    )
    browser.execute_script("document.getElementById('scores').scrollIntoView();")
    browser.find_element(By.ID, "scores").screenshot(str(shots / "web_score_sheet.png"))
    # behind the summary the table does not show the next hand's cards
    assert "between-hands" in browser.find_element(By.ID, "table").get_attribute("class").split()
    assert not any(e.is_displayed() for e in browser.find_elements(By.CSS_SELECTOR, ".seat.pos-bottom .card"))
    browser.find_element(By.ID, "continue").click()
    wait(browser, lambda d: "between-hands" not in d.find_element(By.ID, "table").get_attribute("class").split())


def fits_the_width(driver) -> list[str]:
    """What sticks out sideways: the page scrolling sideways, or a visible control outside the window."""
    return driver.execute_script(
        "const width = document.documentElement.clientWidth, out = [];"
        "if (document.documentElement.scrollWidth > width) out.push('page ' + document.documentElement.scrollWidth);"
        "for (const e of document.querySelectorAll('button, input, select, a')) {"
        "  const r = e.getBoundingClientRect();"
        "  if (r.width && r.height && (r.left < 0 || r.right > width + 0.5)) out.push(e.id || e.textContent);"
        "}"
        "return out;"
    )


@pytest.mark.parametrize("width, height", [(390, 844), (1280, 1000)])
def test_the_table_fits_a_phone_and_a_desktop_and_the_setup_hides_while_a_game_runs(
    server, browser, shots, width, height
):
    browser.set_window_size(width, height)
    try:
        open_table(
            browser, server, "standard", ["human", "heuristic", "heuristic", "heuristic"], seed=4, episode="hand"
        )
        wait(browser, my_turn_or_end)
        assert not browser.find_element(By.ID, "setup").is_displayed()  # the table has the room
        assert browser.find_element(By.ID, "show-setup").is_displayed()
        assert fits_the_width(browser) == []
        browser.execute_script("window.scrollTo(0, 0);")
        shoot(browser, shots / f"web_table_{width}.png")
        while "over" not in (status := wait(browser, my_turn_or_end)):  # every control reached on the way
            before = browser.execute_script("return document.getElementById('log').textContent")
            legal = legal_elements(browser)[0]
            browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", legal)
            legal.click()
            wait(browser, lambda d: d.execute_script("return document.getElementById('log').textContent") != before)
        assert status == "The hand is over." and fits_the_width(browser) == []
        browser.execute_script("window.scrollTo(0, 0);")
        shoot(browser, shots / f"web_summary_{width}.png")
        assert browser.find_element(By.ID, "setup").is_displayed()  # back for the next game
    finally:
        browser.set_window_size(1280, 1000)


@pytest.fixture(scope="module")
def waiting_server():
    """A server whose tables wait the default minute for their tab to come back."""
    with serving(max_tables=2) as base:
        yield base


def test_a_reload_and_a_dropped_connection_come_back_to_the_same_table(waiting_server, browser):
    open_table(browser, waiting_server, "standard", ["human"] + ["heuristic"] * 3, seed=4, episode="hand")
    assert wait(browser, my_turn_or_end).startswith("Your turn")
    mine = lambda d: [e.get_attribute("data-card") for e in d.find_elements(By.CSS_SELECTOR, ".seat.pos-bottom .card")]  # noqa: E731
    cards, log = mine(browser), text(browser, "log")
    browser.refresh()
    wait(browser, lambda d: mine(d) == cards and text(d, "log") == log)
    assert my_turn_or_end(browser).startswith("Your turn") and not browser.find_element(By.ID, "setup").is_displayed()
    token = lambda d: d.execute_script("return sessionStorage.getItem('spades-table');")  # noqa: E731
    before = token(browser)
    browser.execute_script("socket.close();")  # the connection drops: the page reconnects by itself
    wait(browser, lambda d: text(d, "connection").startswith("disconnected: reconnecting"))
    wait(browser, lambda d: token(d) not in (None, before))  # resumed: the table sent its next token
    assert text(browser, "connection") == "connected" and mine(browser) == cards
    legal_elements(browser)[0].click()  # and plays on
    wait(browser, lambda d: text(d, "log") != log)
    browser.execute_script("sessionStorage.clear();")


def play_when_asked(drivers: list, until) -> None:
    """Each browser clicks its first legal action whenever its page says it is that person's turn, until
    ``until()`` holds."""
    from selenium.common.exceptions import StaleElementReferenceException

    deadline = time.monotonic() + 120
    while not until():
        assert time.monotonic() < deadline, [text(d, "status") for d in drivers]
        for driver in drivers:
            if not text(driver, "status").startswith("Your turn"):
                continue
            before = text(driver, "log")
            try:
                legal_elements(driver)[0].click()
            except (IndexError, StaleElementReferenceException):
                continue  # redrawn meanwhile: look again
            wait(driver, lambda d: text(d, "log") != before)
        time.sleep(0.05)


def others_face_down(driver, seat: int) -> bool:
    """No seat but ``seat`` shows a card face up on this page (the trick and the last trick aside)."""
    faces = driver.find_elements(By.CSS_SELECTOR, f'#table .seat:not([data-seat="{seat}"]) .card[data-card]')
    return not faces


def test_two_people_in_two_browsers_play_a_hand_at_one_table(server, browser, shots):
    open_table(browser, server, "standard", ["human", "heuristic", "guest", "heuristic"], seed=4, episode="hand")
    link = wait(browser, lambda d: d.find_element(By.ID, "invite-link").get_attribute("value"))
    assert re.fullmatch(re.escape(server) + r"/#join=[\w-]{24,}", link), link
    assert "person (seat 2): open" in text(browser, "people")
    guest = chromium()  # another person's browser: its own profile and storage
    try:
        guest.get(link)
        wait(guest, lambda d: d.find_element(By.ID, "join").is_displayed())
        assert not guest.find_element(By.ID, "setup").is_displayed()
        guest.find_element(By.ID, "join-seat").click()
        wait(guest, lambda d: text(d, "status") != "" and d.find_elements(By.CSS_SELECTOR, '.seat[data-seat="2"]'))
        assert "#join" not in guest.current_url  # a reload comes back by its token, not by the invite
        assert guest.find_element(By.ID, "pace-note").is_displayed()  # the host sets the pace
        wait(browser, lambda d: "person (seat 2): here" in text(d, "people"))
        assert others_face_down(browser, 0) and others_face_down(guest, 2)  # each sees only their own seat
        mid = lambda d: len(d.find_elements(By.CSS_SELECTOR, "#trick .card")) >= 2  # noqa: E731
        over = lambda: all("over" in text(d, "status") for d in (browser, guest))  # noqa: E731
        play_when_asked([browser, guest], lambda: over() or (mid(browser) and "Your turn" in text(browser, "status")))
        if "over" not in text(browser, "status"):  # mid-hand: each holds its own cards, sees no other's
            assert page_cards(browser, 0) and page_cards(guest, 2) and not page_cards(browser, 0) & page_cards(guest, 2)
            assert others_face_down(browser, 0) and others_face_down(guest, 2)
            shoot(browser, shots / "web_two_people.png")
        play_when_asked([browser, guest], over)
        for driver in (browser, guest):
            assert "The hand is over" in text(driver, "status")
            tricks = [
                int(e.text.split("tricks ")[1])
                for e in driver.find_elements(By.CSS_SELECTOR, "#table .seat .facts")
                if "tricks" in e.text
            ]
            assert sum(tricks) == 13
        scores = (
            "return [...document.querySelectorAll('#score-table tbody td:not(:first-child)')].map((c) => c.textContent)"
        )
        assert browser.execute_script(scores) == guest.execute_script(scores)  # one table, one score
        assert "you (seat 0) + person (seat 2)" in text(browser, "score-table")  # each reads "you" for their own
        assert "person (seat 0) + you (seat 2)" in text(guest, "score-table")
    finally:
        guest.quit()


def test_the_set_up_offers_only_the_agents_that_can_play_the_chosen_rules(browser):
    with serving(max_tables=2, reconnect_s=0, hint_agent="random") as base:  # the fallback: not the first agent
        browser.get(base + "/")
        wait(browser, lambda d: text(d, "connection") == "connected" and d.find_elements(By.ID, "seat-0"))

        def choices(rules: str) -> tuple[list[str], list[str], str]:
            browser.execute_script(
                "const s = document.getElementById('rules'); s.value = arguments[0];"
                "s.dispatchEvent(new Event('change'));",
                rules,
            )
            read = "return [...document.getElementById(arguments[0]).options].map((o) => o.value);"
            return (
                browser.execute_script(read, "seat-1"),
                browser.execute_script(read, "substitute"),
                browser.execute_script("return document.getElementById('substitute').value;"),
            )

        seat, substitute, chosen = choices("standard")
        assert "ppo_standard" in seat and "ppo_standard" in substitute and chosen == "random"  # the hint agent
        browser.execute_script("document.getElementById('substitute').value = 'ppo_standard';")
        seat, substitute, chosen = choices("two_player")  # no drawing turns: left out, the substitute falls back
        assert "ppo_standard" not in seat and "ppo_standard" not in substitute and chosen == "random"
        assert {"ppo", "heuristic", "search", "pimc", "random"} <= set(seat) and seat[:2] == ["human", "guest"]
        assert substitute[0] == "heuristic"  # so the fallback above was the hint agent, not the first choice
        browser.execute_script("document.getElementById('substitute').value = 'ppo';")
        assert choices("cutthroat")[2] == "ppo"  # a substitute that can play stays chosen
