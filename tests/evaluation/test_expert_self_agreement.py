"""benchmarks/expert_self_agreement.py: two searches of the same positions, compared by run of cards and by bid."""

from __future__ import annotations

from .helpers import load_benchmark


def test_one_seed_agrees_with_itself_and_two_seeds_differ_somewhere():
    module = load_benchmark("expert_self_agreement")
    same = module.agreement("pimc", "cutthroat", steps=60, samples=2, seed=3, offsets=(1, 1))
    other = module.agreement("pimc", "cutthroat", steps=60, samples=2, seed=3, offsets=(1, 2))
    assert same["card"][0] >= 20 and same["bid"][0] >= 1
    assert same["card"][1] == same["bid"][1] == 1.0  # the same deals searched: the same choices
    assert other["card"][0] >= 20 and other["card"][1] < 1.0  # two deals per search: they differ somewhere


def test_main_prints_both_kinds(capsys):
    load_benchmark("expert_self_agreement").main(["--steps", "20", "--samples", "2"])
    out = capsys.readouterr().out
    assert "card plays searched by both" in out and "bid plays searched by both" in out
