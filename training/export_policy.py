"""Export a run's policy as a small release file (float16 weights, provenance in its meta).

python -m training.export_policy runs/release-standard-seed1/policy.pt spades_env/policies/ppo.pt
"""

from __future__ import annotations

import argparse
import json

from spades_env.nn import load_policy, save_policy


def main(argv: list[str] | None = None) -> int:
    """Read a policy file, write it again with float16 weights and extra meta (``--meta key=value``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="policy file written by training (runs/<run>/policy.pt)")
    parser.add_argument("target", help="release file, e.g. spades_env/policies/ppo.pt")
    parser.add_argument(
        "--meta",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="extra provenance stored in the file (values parsed as JSON when they parse)",
    )
    args = parser.parse_args(argv)
    policy, meta = load_policy(args.source)
    for item in args.meta:
        key, _, value = item.partition("=")
        try:
            meta[key] = json.loads(value)
        except json.JSONDecodeError:
            meta[key] = value
    save_policy(args.target, policy, meta=meta, half=True)
    print(f"wrote {args.target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
