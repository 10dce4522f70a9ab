"""benchmarks/card_sureness.py: the cards each policy gives a fair chance, counted on the same positions."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")  # the released policy

from spades_env.agents import make_agent  # noqa: E402

from .helpers import load_benchmark  # noqa: E402


class Uniform:
    """Every legal action alike: every legal card counts at any threshold up to 1/13."""

    def __init__(self):
        self.legal: list[int] = []

    def probabilities(self, observation):
        mask = observation["action_mask"].astype(float)
        self.legal.append(int(mask[:54].sum()))
        return mask / mask.sum()


def test_a_uniform_policy_counts_every_legal_card_and_the_release_at_least_its_own():
    sureness = load_benchmark("card_sureness")
    uniform = Uniform()
    counts = sureness.card_counts({"uniform": uniform, "ppo": make_agent("ppo")}, "cutthroat", 3, 0.05)
    assert len(counts["uniform"]) == len(counts["ppo"]) == len(uniform.legal) >= 60  # the same positions
    assert counts["uniform"].tolist() == uniform.legal and min(uniform.legal) >= 2
    assert (counts["ppo"] >= 1).all() and (counts["ppo"] <= counts["uniform"]).all()  # its top card: p >= 1/13
    assert (counts["ppo"] < counts["uniform"]).mean() > 0.5  # a trained policy is surer than uniform


def test_main_prints_each_policy_and_refuses_a_bad_entry(capsys):
    sureness = load_benchmark("card_sureness")
    sureness.main(["release=ppo", "--hands", "1"])
    out = capsys.readouterr().out
    assert out.startswith("release: ") and "2+ cards at p >= 0.05" in out
    with pytest.raises(SystemExit):
        sureness.main(["ppo"])
    assert "NAME=POLICY" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        sureness.main(["release=ppo", "--threshold", "1.5"])
    assert "--threshold in (0, 1)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        sureness.main(["h=heuristic"])
    assert "gives no probabilities" in capsys.readouterr().err
