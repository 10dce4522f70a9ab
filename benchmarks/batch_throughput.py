"""Decisions per second of the vectorized batch engine (``spades_env.batch.BatchEnv``).

Random legal play at every table, measured in steady state (after a warm-up, the
tables are spread over every phase of a hand). For each rules preset and batch
size it reports:

* ``obs+mask``: ``step`` building the observation tensor (float32, 1,207) and the
  action mask (int8, 90) of every table; ``packed+mask``: the same with
  ``obs_format="packed"`` (272-byte rows that ``unpack_observations`` decodes
  to exactly the float32 observation; the decoding is not timed: it can run
  later, or on the learner's device); ``raw``: ``BatchEnv(...,
  observations=False)``, legal-action masks only (OpenSpiel's raw loop has
  legal actions + apply);
* the engine's own time (random action selection excluded) and an end-to-end
  figure that includes choosing the random actions with numpy;
* OpenSpiel's ``spades`` in the same run (``run_openspiel`` of
  ``aec_throughput.py``: random play, with the observation tensor and a mask
  built at each decision, and raw), measured before and after the engine, and
  the ratios to the mean of the two;
* peak memory: the engine's own allocations (tracemalloc, obs+mask mode at the
  largest batch size) and the process's peak resident size.

The first preset of ``--rules`` is measured at every ``--sizes``; the others at
``--others-size``.

    python benchmarks/batch_throughput.py [--seconds 5] [--sizes 256,1024,4096]
        [--rules standard,pagat,...|all] [--others-size 1024] [--output-buffers 2] [--clock wall|cpu]
        [--backend numpy|torch] [--device cpu|cuda] [--profile] [--json out.json]

``--backend torch --device D`` measures ``BatchEnv(..., backend="torch", device=D)`` the same way (the
packed mode is n/a there; the random legal actions are drawn on the device with ``torch.multinomial``; on a
GPU each step is timed after ``torch.cuda.synchronize()``; ``--profile`` prints one step's calls and device
kernels). OpenSpiel stays the reference of the ratios, measured in the same run.

``--fixed-steps N --fixed-mode raw|obs_mask|packed_mask`` steps the first
preset at the first size exactly N times (seeded random legal play, no
timing, no OpenSpiel) and exits: a fixed amount of work for an instruction
count (``valgrind --tool=callgrind``), which load on the machine does not change;
the difference of two counts (e.g. N = 300 and N = 100) is the cost of the
steps between them, random action selection included (the same for any
checkout that plays the same games).

``--clock cpu`` times with ``time.process_time`` (less sensitive to other
processes on a shared machine). With an older checkout on ``PYTHONPATH`` that
has no ``obs_format``, the packed mode is reported as n/a.

Measured 2026-12-01 on the shared 2-core machine (load average 1.2 to 1.9) with
``--seconds 3 --sizes 4096 --rules standard --clock cpu``, three rounds
alternating with the previous main (branch ``batch4``): raw 9.27M to 9.63M
decisions/s, 16.3x to 16.7x OpenSpiel (before: 8.05M to 8.19M, 14.1x to 14.5x);
obs+mask 23.8x to 24.8x (before 23.9x to 25.4x); packed+mask 68.0x to 70.9x
(before 67.8x to 71.8x). See docs/benchmarks.md for each round.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aec_throughput  # noqa: E402
from aec_throughput import CLOCKS, run_openspiel  # noqa: E402

from spades_env.batch import BatchEnv  # noqa: E402
from spades_env.core.rules import PRESETS  # noqa: E402


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """A uniformly random legal action per table (k-th legal action, k uniform)."""
    counts = mask.cumsum(axis=1, dtype=np.int8)
    k = (rng.random(len(mask)) * counts[:, -1]).astype(np.int8)
    return (counts > k[:, None]).argmax(axis=1)


clock = time.perf_counter  # set by --clock


backend, device = "numpy", None  # set by --backend and --device


def _torch_sync() -> None:
    """Wait for the device (the GPU's work is asynchronous: a step's time is taken after it is done)."""
    if device is not None and str(device).startswith("cuda"):
        import torch

        torch.cuda.synchronize()


def measure(
    rules: str,
    size: int,
    seconds: float,
    observe: bool,
    warmup: float,
    buffers: int = 2,
    seed: int = 0,
    obs_format: str | None = None,
) -> dict[str, float] | None:
    """Steady-state decisions per second: engine step only, and end to end (None: the engine here does not have
    obs_format, or refuses it for these rules, as checkouts before packed two-player rows did, or the torch
    backend, which has no packed rows)."""
    extra = {} if obs_format is None else {"obs_format": obs_format}
    if backend == "torch":
        if obs_format is not None:
            return None
        import torch

        env = BatchEnv(size, rules, seed=seed, observations=observe, backend="torch", device=device or "cpu",
                       check_actions=False)  # fmt: skip
        generator = torch.Generator(device=env.device).manual_seed(seed)

        def choose(mask):  # on the device: no trip through the host
            return torch.multinomial(mask.float(), 1, generator=generator).squeeze(1)
    else:
        try:
            env = BatchEnv(size, rules, seed=seed, observations=observe, output_buffers=buffers, **extra)
        except TypeError:  # an older engine without this option
            return None
        except ValueError:
            if obs_format is None:
                raise
            return None
        rng = np.random.default_rng(seed)

        def choose(mask):
            return random_legal(rng, mask)

    _, mask, _ = env.reset()
    start = clock()
    while clock() - start < warmup:
        _, mask, *_ = env.step(choose(mask))
    _torch_sync()
    engine = 0.0
    steps = 0
    start = clock()
    while True:
        actions = choose(mask)
        _torch_sync()
        t0 = clock()
        _, mask, *_ = env.step(actions)
        _torch_sync()
        engine += clock() - t0
        steps += 1
        wall = clock() - start
        if wall >= seconds:
            break
    return {"engine": steps * size / engine, "end_to_end": steps * size / wall, "steps": steps}


def profile_step(rules: str, size: int) -> None:
    """Kernel count and time of one torch step (``torch.profiler``): what the next step of the work is."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    env = BatchEnv(size, rules, seed=0, backend="torch", device=device or "cpu", check_actions=False)
    generator = torch.Generator(device=env.device).manual_seed(0)
    _, mask, _ = env.reset()
    for _ in range(20):
        _, mask, *_ = env.step(torch.multinomial(mask.float(), 1, generator=generator).squeeze(1))
    cuda = env.device.type == "cuda"
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    actions = torch.multinomial(mask.float(), 1, generator=generator).squeeze(1)
    with profile(activities=activities) as prof:
        env.step(actions)
        _torch_sync()
    events = prof.key_averages()
    ops = sum(e.count for e in events)
    kernels = sum(e.count for e in events if "cuda" in str(getattr(e, "device_type", "")).lower())
    print(f"one step of {rules} at {size} tables on {env.device}: {ops} profiled calls, {kernels} device kernels")
    print(events.table(sort_by="self_cuda_time_total" if cuda else "self_cpu_time_total", row_limit=15))


FIXED_MODES = {"raw": {"observations": False}, "obs_mask": {}, "packed_mask": {"obs_format": "packed"}}


def fixed_steps(rules: str, size: int, steps: int, mode: str, seed: int = 0) -> None:
    """Exactly ``steps`` seeded steps of random legal play (the work of an instruction count)."""
    env = BatchEnv(size, rules, seed=seed, **FIXED_MODES[mode])
    rng = np.random.default_rng(seed)
    _, mask, _ = env.reset()
    for _ in range(steps):
        _, mask, *_ = env.step(random_legal(rng, mask))


def engine_peak_memory(rules: str, size: int, steps: int = 200) -> float:
    """Peak bytes allocated while building the engine and stepping it with observations (tracemalloc)."""
    tracemalloc.start()
    env = BatchEnv(size, rules, seed=0)
    rng = np.random.default_rng(0)
    _, mask, _ = env.reset()
    for _ in range(steps):
        _, mask, *_ = env.step(random_legal(rng, mask))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del env
    return peak


def main(argv: list[str] | None = None) -> None:
    """Run every measurement and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    parser.add_argument("--sizes", default="256,1024,4096", help="batch sizes for the first preset")
    parser.add_argument("--rules", default="standard", help="comma-separated presets, or 'all'")
    parser.add_argument("--others-size", type=int, default=1024, help="batch size for the other presets")
    parser.add_argument("--warmup", type=float, default=None, help="warm-up seconds (default: seconds / 2)")
    parser.add_argument(
        "--output-buffers",
        type=int,
        default=2,
        choices=(1, 2),
        help="BatchEnv output_buffers (2, the default: obs stay valid during the next step)",
    )
    parser.add_argument(
        "--clock",
        choices=tuple(CLOCKS),
        default="wall",
        help="wall: time.perf_counter; cpu: time.process_time (less sensitive to other processes)",
    )
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    parser.add_argument(
        "--fixed-steps",
        type=int,
        default=None,
        help="step exactly this many times (no timing) and exit: for instruction counts",
    )
    parser.add_argument("--fixed-mode", choices=tuple(FIXED_MODES), default="raw", help="the mode of --fixed-steps")
    parser.add_argument("--backend", choices=("numpy", "torch"), default="numpy", help="BatchEnv's backend")
    parser.add_argument("--device", default=None, help="the torch backend's device (cpu, cuda); default cpu")
    parser.add_argument("--profile", action="store_true", help="torch: profile one step at the first size")
    args = parser.parse_args(argv)
    global backend, device
    backend, device = args.backend, args.device
    if args.fixed_steps is not None:
        size = int(args.sizes.split(",")[0])
        rules = args.rules.split(",")[0]
        fixed_steps(rules, size, args.fixed_steps, args.fixed_mode)
        print(f"{rules} x {size}: {args.fixed_steps} steps ({args.fixed_mode})")
        return
    global clock
    clock = aec_throughput.clock = CLOCKS[args.clock]
    sizes = [int(x) for x in args.sizes.split(",")]
    names = list(PRESETS) if args.rules == "all" else args.rules.split(",")
    warmup = args.seconds / 2 if args.warmup is None else args.warmup

    # OpenSpiel is measured before and after the engine (the machine's load can drift during the run);
    # the ratios use the mean of the two.
    before = {
        "obs_mask": run_openspiel(args.seconds, with_observation=True),
        "raw": run_openspiel(args.seconds, with_observation=False),
    }
    print(
        f"OpenSpiel spades (before): obs+mask {before['obs_mask'] or 0:,.0f} decisions/s, "
        f"raw {before['raw'] or 0:,.0f} decisions/s"
        + ("" if before["raw"] else "  (open_spiel not installed: no ratios)"),
        flush=True,
    )
    rows = []
    results = []
    header = (
        f"{'rules':<11}{'tables':>7} | {'obs+mask':>11}{'x OS':>7}{'end2end':>11} | "
        f"{'packed+mask':>11}{'x OS':>7}{'end2end':>11} | {'raw':>11}{'x OS':>7}{'end2end':>11}"
    )
    for i, name in enumerate(names):
        for size in sizes if i == 0 else [args.others_size]:
            obs = measure(name, size, args.seconds, True, warmup, args.output_buffers)
            packed = measure(name, size, args.seconds, True, warmup, args.output_buffers, obs_format="packed")
            raw = measure(name, size, args.seconds, False, warmup, args.output_buffers)
            results.append((name, size, obs, packed, raw))
            print(
                f"  measured {name} x {size}: obs+mask {obs['engine']:,.0f}, packed+mask "
                f"{packed['engine'] if packed else float('nan'):,.0f}, raw {raw['engine']:,.0f}",
                flush=True,
            )
    after = {
        "obs_mask": run_openspiel(args.seconds, with_observation=True),
        "raw": run_openspiel(args.seconds, with_observation=False),
    }
    openspiel = {key: (before[key] + after[key]) / 2 if before[key] else None for key in before}
    print(
        f"OpenSpiel spades (after): obs+mask {after['obs_mask'] or 0:,.0f} decisions/s, "
        f"raw {after['raw'] or 0:,.0f} decisions/s"
    )
    print(
        f"OpenSpiel spades (mean, used for the ratios): obs+mask {openspiel['obs_mask'] or 0:,.0f}, "
        f"raw {openspiel['raw'] or 0:,.0f}"
    )
    print(
        f"\ndecisions/s (engine step only, random action selection excluded; end2end includes it; "
        f"output_buffers={args.output_buffers})"
    )
    print(header)
    print("-" * len(header))
    nan = {"engine": float("nan"), "end_to_end": float("nan")}
    for name, size, obs, packed, raw in results:
        row = {
            "rules": name,
            "tables": size,
            "obs_mask": obs["engine"],
            "obs_mask_end_to_end": obs["end_to_end"],
            "packed_mask": packed and packed["engine"],
            "packed_mask_end_to_end": packed and packed["end_to_end"],
            "raw": raw["engine"],
            "raw_end_to_end": raw["end_to_end"],
        }
        if openspiel["raw"]:
            row["obs_mask_vs_openspiel"] = obs["engine"] / openspiel["obs_mask"]
            row["packed_mask_vs_openspiel"] = packed and packed["engine"] / openspiel["obs_mask"]
            row["raw_vs_openspiel"] = raw["engine"] / openspiel["raw"]
        rows.append(row)
        packed = packed or nan
        print(
            f"{name:<11}{size:>7} | {obs['engine']:>11,.0f}{row.get('obs_mask_vs_openspiel', 0):>6.1f}x"
            f"{obs['end_to_end']:>11,.0f} | {packed['engine']:>11,.0f}"
            f"{row.get('packed_mask_vs_openspiel') or float('nan'):>6.1f}x{packed['end_to_end']:>11,.0f} | "
            f"{raw['engine']:>11,.0f}{row.get('raw_vs_openspiel', 0):>6.1f}x{raw['end_to_end']:>11,.0f}"
        )
    largest = max(sizes)
    if backend == "torch" and args.profile:
        profile_step(names[0], sizes[0])
    peak = engine_peak_memory(names[0], largest) if backend == "numpy" else float("nan")  # tracemalloc: numpy
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    print(
        f"\npeak memory: engine {peak / 2**20:.1f} MiB ({names[0]}, {largest} tables, obs+mask, tracemalloc); "
        f"process peak RSS {maxrss / 2**20:.1f} MiB"
    )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                {
                    "seconds": args.seconds,
                    "backend": backend,
                    "device": str(device or "cpu"),
                    "clock": args.clock,
                    "warmup": warmup,
                    "output_buffers": args.output_buffers,
                    "openspiel": openspiel,
                    "openspiel_before": before,
                    "openspiel_after": after,
                    "rows": rows,
                    "engine_peak_bytes": peak,
                    "engine_peak_tables": largest,
                    "process_peak_rss_bytes": maxrss,
                },
                fh,
                indent=2,
            )


if __name__ == "__main__":
    main()
