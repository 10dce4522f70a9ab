"""benchmarks/model_zoo.py: every agent in the zoo, and a small zoo measured and read back."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("torch")  # the learned agents

from spades_env.agents import check_plays  # noqa: E402
from spades_env.agents.registry import UnknownAgentError, available_agents, released_policies  # noqa: E402
from spades_env.core.rules import preset  # noqa: E402
from spades_env.nn import PolicyFileError  # noqa: E402

from .helpers import load_benchmark  # noqa: E402

ROOT = Path(__file__).parents[2]


def load_zoo():
    return load_benchmark("model_zoo")


def test_the_zoo_holds_every_agent_the_package_offers():
    zoo = load_zoo()
    assert set(zoo.zoo_agents()) == (set(available_agents()) | set(released_policies())) - {"heuristic"}
    assert zoo.zoo_agents()[-2:] == ["pimc", "search"]  # the slow ones last
    for name in zoo.zoo_agents():
        file, made = zoo.source_of(name)
        assert (ROOT / file.split(" ")[0]).exists(), name
        assert ("training.train" in made) == (name in released_policies()), name


def test_a_small_zoo_is_measured_and_read_back(tmp_path, capsys):
    zoo = load_zoo()
    argv = ["--agents", "random", "ppo_standard", "--presets", "standard", "two_player", "--deals", "4"]
    argv += ["--games", "1", "--workers", "2", "--out", str(tmp_path)]  # worker processes, as the zoo is run
    table = zoo.main(argv)
    rows = table.splitlines()
    assert len(rows) == 4 and rows[2].startswith("| `random` | rule-based |")
    assert "spades_env/policies/ppo_standard.pt" in rows[3] and "training.train" in rows[3]
    assert re.search(r"\| -\d+\.\d \[-\d+\.\d, [-+]\d+\.\d\]; \d+% \[", rows[2])  # random loses, with intervals
    assert rows[3].count("cannot play it") == 1  # the 88-action policy has no drawing actions for two_player
    assert sorted(p.name for p in tmp_path.glob("*.json")) == [
        "ppo_standard_standard.json", "random_standard.json", "random_two_player.json",
    ]  # fmt: skip
    capsys.readouterr()
    assert zoo.main([*argv, "--resume"]) == table  # the same figures, read back
    out = capsys.readouterr().out
    assert out.count("(read back)") == 3 and out.count("(not played)") == 1


def test_the_zoo_page_lists_every_agent_on_every_preset():
    """docs/model_zoo.md: one row per agent of the zoo, with a measured cell (or "cannot play it") per preset."""
    from spades_env.core.rules import PRESETS

    zoo = load_zoo()
    page = (ROOT / "docs" / "model_zoo.md").read_text()
    head = next(line for line in page.splitlines() if line.startswith("| agent |"))
    columns = [c.strip() for c in head.strip("|").split("|")]
    assert [c for c in columns if c in PRESETS] == list(PRESETS)
    rows = [line for line in page.splitlines() if re.match(r"\| `[a-z_0-9]+` \|", line)]
    assert [re.match(r"\| `([a-z_0-9]+)` \|", row).group(1) for row in rows] == zoo.zoo_agents()
    measured = re.compile(
        r"^(?:[-+]\d+\.\d \[[-+]\d+\.\d, [-+]\d+\.\d\](?:; \d+% \[\d+%, \d+%\] \(fair \d+%\))?|cannot play it)$"
    )
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == len(columns), row
        agent = row.split("`")[1]
        for name in PRESETS:
            cell = cells[columns.index(name)]
            assert measured.match(cell), (agent, name)
            assert (cell == "cannot play it") == (zoo.cannot_play(agent, name) is not None), (agent, name)
        assert (ROOT / cells[columns.index("file")].strip("`").split(" ")[0]).exists(), row


def test_cannot_play_names_the_drawing_turns_and_an_unknown_agent_is_an_error_not_a_cell():
    zoo = load_zoo()
    assert "88 actions" in zoo.cannot_play("ppo_standard", "two_player")
    assert zoo.cannot_play("ppo_standard", "standard") is None and zoo.cannot_play("ppo", "two_player") is None
    with pytest.raises(UnknownAgentError):
        zoo.cannot_play("nosuchagent", "standard")


def test_the_bid_play_split_benchmark_asks_its_card_player_whether_it_can_play():
    module = load_benchmark("bid_play_split")
    two = preset("two_player")
    check_plays(module.SplitAgent(bid="ppo_standard", play="heuristic"), two)  # the bidder takes no drawing turn
    with pytest.raises(PolicyFileError, match="88 actions"):
        check_plays(module.SplitAgent(bid="heuristic", play="ppo_standard"), two)
