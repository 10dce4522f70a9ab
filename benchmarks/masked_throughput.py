"""Decisions per second of the masked engine (``spades_env.batch.masked.MaskedGames``) on numpy or torch, any device.

Random legal play at every table (games to the target, auto-reset), legal-action masks at every step, no
observations: the masked engine's raw loop. In the same run, as the reference, the numpy batch engine
(``BatchEnv(..., observations=False)``) at the same table count on the CPU; the report gives each figure and the
ratio to that reference.

    python benchmarks/masked_throughput.py [--forms numpy,torch] [--device cpu|cuda] [--tables 4096,65536]
        [--rules standard] [--seconds 5] [--sync-free auto|yes|no] [--json out.json]

The actions are drawn on the engine's side (torch: ``multinomial`` over the mask on the device; numpy: the
argmax of uniform noise over the mask), and their time is included: what a self-play loop without a network
pays. On a GPU the figure is taken after ``torch.cuda.synchronize()``; ``--profile`` prints the kernel count and
time of one step (``torch.profiler``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spades_env.batch import BatchEnv  # noqa: E402
from spades_env.batch.masked import MaskedGames  # noqa: E402
from spades_env.core.ops import ARRAY  # noqa: E402
from spades_env.core.rules import preset  # noqa: E402


def reference(rules: str, tables: int, seconds: float) -> float:
    """Decisions/s of the numpy batch engine (raw) with random legal play."""
    env = BatchEnv(tables, rules=rules, observations=False, seed=0)
    _, mask, _ = env.reset()
    rng = np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        _, mask, *_ = env.step(actions)
        steps += 1
    return steps * tables / (time.perf_counter() - start)


def masked(rules: str, tables: int, seconds: float, form: str, device: str, sync_free: bool | None) -> dict:
    """Decisions/s of MaskedGames in one form, with the steps taken."""
    if form == "numpy":
        ops, sync = ARRAY, lambda: None
    else:
        import torch

        from spades_env.batch.torch_ops import torch_ops

        ops = torch_ops(device, sync_free)
        sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
    engine = MaskedGames(preset(rules), ops, seed=0)
    engine.reset(tables)
    if form == "numpy":
        rng = np.random.default_rng(0)

        def choose(legal):
            return (rng.random(legal.shape) * legal).argmax(axis=1)
    else:
        generator = torch.Generator(device=device).manual_seed(0)

        def choose(legal):
            return torch.multinomial(legal.float(), 1, generator=generator).squeeze(1)

    for _ in range(20):  # warm-up: tables spread over the phases, kernels and caches ready
        engine.step(choose(engine.legal()))
    sync()
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        engine.step(choose(engine.legal()))
        steps += 1
        if steps % 10 == 0:
            sync()
    sync()
    elapsed = time.perf_counter() - start
    return {
        "form": form,
        "device": device,
        "tables": tables,
        "steps": steps,
        "decisions_per_s": steps * tables / elapsed,
    }


def profile_step(rules: str, tables: int, device: str) -> None:
    """Kernel count and time of one step on the device (torch.profiler)."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    from spades_env.batch.torch_ops import torch_ops

    engine = MaskedGames(preset(rules), torch_ops(device), seed=0)
    engine.reset(tables)
    generator = torch.Generator(device=device).manual_seed(0)
    for _ in range(20):
        engine.step(torch.multinomial(engine.legal().float(), 1, generator=generator).squeeze(1))
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.startswith("cuda") else [])
    with profile(activities=activities) as prof:
        engine.step(torch.multinomial(engine.legal().float(), 1, generator=generator).squeeze(1))
        if device.startswith("cuda"):
            torch.cuda.synchronize()
    events = prof.key_averages()
    kernels = sum(
        e.count for e in events if getattr(e, "device_type", None) is not None and "cuda" in str(e.device_type).lower()
    )
    print(
        f"one step at {tables} tables on {device}: {sum(e.count for e in events)} profiled ops, {kernels} device kernels"
    )
    print(events.table(sort_by="self_cpu_time_total", row_limit=15))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--forms", default="numpy,torch", help="comma-separated: numpy, torch")
    parser.add_argument("--device", default="cpu", help="torch device (cpu, cuda)")
    parser.add_argument("--tables", default="4096", help="comma-separated table counts")
    parser.add_argument("--rules", default="standard", help="a preset")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement")
    parser.add_argument("--sync-free", choices=("auto", "yes", "no"), default="auto", help="torch Ops.any")
    parser.add_argument("--profile", action="store_true", help="profile one torch step")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    sync_free = {"auto": None, "yes": True, "no": False}[args.sync_free]
    rows = []
    for tables in (int(t) for t in args.tables.split(",")):
        ref = reference(args.rules, tables, args.seconds)
        rows.append(
            {"form": "numpy batch engine (reference)", "device": "cpu", "tables": tables, "decisions_per_s": ref}
        )
        for form in args.forms.split(","):
            row = masked(args.rules, tables, args.seconds, form, args.device if form == "torch" else "cpu", sync_free)
            row["ratio_to_reference"] = row["decisions_per_s"] / ref
            rows.append(row)
    for row in rows:
        ratio = f"  x{row['ratio_to_reference']:.3f} of the reference" if "ratio_to_reference" in row else ""
        print(
            f"{row['form']:32s} {row['device']:6s} {row['tables']:>8d} tables: {row['decisions_per_s']:>14,.0f} decisions/s{ratio}"
        )
    if args.profile:
        profile_step(args.rules, int(args.tables.split(",")[0]), args.device)
    if args.json:
        Path(args.json).write_text(json.dumps({"rules": args.rules, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
