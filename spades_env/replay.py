"""Step through a recorded game: ``python -m spades_env.replay RECORD.json``.

The record is a game record of :mod:`spades_env.records` (``--record`` of
``spades-play``, ``raw_env.game_record()``), or a golden transcript of
``tests/golden`` (the record under its ``"record"`` key). The viewer replays
it in a fresh env and shows the table at each *event*: the deal, the end of
the auction (and of a blind nil exchange), every trick (its cards and
winner), and the end of every hand (the score sheet).

* From a terminal, Enter shows the next event and ``q`` quits; ``--all`` (or
  input that is not a terminal, or its end) prints every event.
* ``--seat k`` shows only what seat k saw: its own hand (from the deal, even
  before it looked: the game is over, ``after_the_fact`` of
  :mod:`spades_env.core.visibility`), the others' card counts, bids, tricks
  and the cards played; every hand is shown otherwise.
* ``--frames DIR`` also writes a picture of the table at every event
  (``frame_0000.png``...; one animated ``replay.gif`` with ``--gif``), drawn
  by :func:`spades_env.render_image.table_image` from the same viewpoint.
  DIR is made if missing, but its parent folder must exist: the rule of every
  output path of the tools (``spades-play --record``, ``spades-evaluate
  --json``), checked before anything is read or written, so that a mistyped
  path is refused instead of growing a tree of folders.
* A record that is malformed or does not replay ends with a message naming
  the problem (exit status 2).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .core.hand import HandState, Phase
from .core.rules import Rules
from .core.scoring import Bid
from .core.visibility import faces_up
from .play import Console, hand_text, score_sheet, symbols_supported
from .records import RecordError, check_record, iter_replay, read_json_file, reset_options

AUCTION_PHASES = (Phase.BLIND, Phase.BID)


@dataclass
class Event:
    """One stop of the viewer: what happened, and the table right after it."""

    title: str
    hand: HandState
    scores: list[int]
    bags: list[int]
    lines: list[str]


def read_record(path: str) -> dict[str, Any]:
    """A game record from a record file or a golden transcript (its ``record`` key), checked as
    :func:`spades_env.records.replay` checks it (RecordError naming what is wrong): the viewer shows only what
    replays."""
    data = read_json_file(path)
    if isinstance(data, dict) and "record" in data and "actions" not in data:
        data = data["record"]
    check_record(data)
    for _ in iter_replay(data):  # the one validation of a record: its setup, actions, results and end
        pass
    return data


def events(record: dict[str, Any], names: Sequence[str], console: Console) -> Iterator[Event]:
    """Replay the record and yield each event (deal, auction, exchange, trick, hand end)."""
    from .aec import raw_env

    check_record(record)
    try:
        rules = Rules.from_dict(record["rules"])
        env = raw_env(rules=rules, episode=record["episode"])
        env.reset(options=reset_options(record, rules))
    except (ValueError, TypeError) as exc:
        raise RecordError(f"the record does not set up a game: {exc}") from None

    def event(title: str, hand: HandState, lines: Sequence[str] = ()) -> Event:
        return Event(title, hand, list(env.game.scores), list(env.game.bags), list(lines))

    hands_done = 0
    yield event(f"hand 1 {_begins(env.hand)}, dealer {names[env.hand.dealer]}", env.hand)
    actions = record["actions"]
    for i, action in enumerate(actions):
        before = env.hand
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            raise RecordError(f"the episode ended before action {i} of {len(actions)}")
        phase = before.phase
        completes_trick = phase == Phase.PLAY and len(before.trick_cards) == before.num_players - 1
        try:
            env.step(int(action))
        except (ValueError, TypeError) as exc:
            raise RecordError(f"action {i} ({action}) does not replay: {exc}") from None
        if phase in AUCTION_PHASES and before.phase not in AUCTION_PHASES:
            bids = ", ".join(
                f"{names[s]} {Bid(before.bid_kinds[s], before.bid_values[s])}" for s in range(before.num_players)
            )
            yield event("bidding done", before, [f"bids: {bids}"])
        elif phase == Phase.EXCHANGE and before.phase != Phase.EXCHANGE:
            yield event("exchange done", before)
        elif phase == Phase.DRAW and before.phase != Phase.DRAW:  # two players: the stock is empty
            lines = [f"each player kept {before.rules.hand_size} cards and discarded as many"]
            if before.rules.discards_face_up:  # face down, the discards stay unseen here too
                lines += [
                    f"{names[s]} discarded: {hand_text(console, before.discards[s])}" for s in range(before.num_players)
                ]
            yield event("drawing done", before, lines)
        if completes_trick:
            _, seats, cards, winner = before.last_trick
            played = ", ".join(f"{names[s]} {console.card(c)}" for s, c in zip(seats, cards))
            yield event(
                f"trick {before.trick_index} of {before.rules.num_tricks}",
                before,
                [f"played: {played}; won by {names[winner]}"],
            )
        if len(env.game.results) > hands_done:
            hands_done = len(env.game.results)
            sheet = score_sheet(rules, env.game_record()["results"], names).splitlines()
            yield event(f"hand {hands_done} over", before, sheet)
            if env.hand is not before:
                yield event(f"hand {hands_done + 1} {_begins(env.hand)}, dealer {names[env.hand.dealer]}", env.hand)
    game = env.game
    if any(env.terminations.values()) or any(env.truncations.values()):
        if record["episode"] == "game":
            outcome = "undecided" if game.winner is None else f"side {game.winner} wins"
            final = f"game over: {outcome}; final score {list(game.scores)}, bags {list(game.bags)}"
        else:
            final = f"episode over (one hand); score {list(game.scores)}, bags {list(game.bags)}"
        yield event("the end", env.hand, [final])
    else:  # a game stopped part way (spades-play saves it when the input ends)
        hand = env.hand
        trick = ", ".join(f"{names[s]} {console.card(c)}" for s, c in zip(hand.trick_seats, hand.trick_cards))
        yield event(
            "the record ends here (the game was not finished)", hand, [f"on the table: {trick}"] if trick else []
        )


def _begins(hand: HandState) -> str:
    """How a hand begins: dealt, or (two players) drawn from the stock."""
    return "begins: the players draw from the stock" if hand.stock else "dealt"


def table_view(console: Console, ev: Event, rules: Rules, viewer: int | None, names: Sequence[str]) -> str:
    """The table at an event: per seat its bid, tricks and hand (the viewer's only, with ``viewer``)."""
    hand = ev.hand
    width = max(len(x) for x in names)
    lines = []
    shown = faces_up(hand, viewer, after_the_fact=True)
    for seat in range(hand.num_players):
        bid = Bid(hand.bid_kinds[seat], hand.bid_values[seat])
        count = bin(hand.hands[seat]).count("1")
        cards = hand_text(console, hand.hands[seat]) if shown[seat] else f"{count} cards hidden"
        lines.append(f"  {names[seat]:{width}s}  bid {str(bid):>9s}  tricks {hand.tricks_won[seat]:2d}  hand: {cards}")
    sides = rules.num_sides
    lines.append("  score: " + "; ".join(f"side {i} {ev.scores[i]} ({ev.bags[i]} bags)" for i in range(sides)))
    return "\n".join(lines)


def view(
    record: dict[str, Any],
    stdout: IO[str],
    stdin: IO[str] | None,
    viewer: int | None,
    show_all: bool,
    symbols: bool,
    frames: str | None = None,
    gif: bool = False,
) -> int:
    """Print the events of a record (pausing on ``stdin`` unless ``show_all``); returns the events shown."""
    rules = Rules.from_dict(record["rules"])
    n = rules.num_players
    if viewer is not None and not 0 <= viewer < n:
        raise RecordError(f"--seat must be a seat in 0..{n - 1} for this record, got {viewer}")
    names = [f"seat {s}" + (" (viewer)" if s == viewer else "") for s in range(n)]
    console = Console(stdin or sys.stdin, stdout, symbols)
    pictures = []
    shown = 0
    if frames:
        from .render_image import table_image  # Pillow only when pictures are asked for
    for ev in events(record, names, console):
        console.say(f"== {ev.title}")
        for line in ev.lines:
            console.say(f"  {line}")
        console.say(table_view(console, ev, rules, viewer, names))
        shown += 1
        if frames:
            pictures.append(
                table_image(ev.hand, ev.scores, ev.bags, rules, viewer=viewer, names=names, after_the_fact=True)
            )
        if not show_all:
            answer = console.stdin.readline()
            if not answer:
                show_all = True  # the input ended: print the rest
            elif answer.strip().lower() == "q":
                break
    if frames:
        from .render_image import save_frames

        paths = save_frames(pictures, frames, gif=gif)
        console.say(f"wrote {len(paths)} file(s) under {frames}")
    return shown


def build_parser() -> argparse.ArgumentParser:
    """The argument parser."""
    p = argparse.ArgumentParser(
        prog="spades-replay", description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("record", help="a game record (JSON) or a golden transcript")
    p.add_argument("--seat", type=int, default=None, help="show only what this seat saw")
    p.add_argument("--all", action="store_true", help="print every event without pausing")
    p.add_argument(
        "--frames",
        metavar="DIR",
        help="write a table picture per event under this folder (made if missing; its parent folder must exist)",
    )
    p.add_argument("--gif", action="store_true", help="with --frames: one animated GIF instead of PNGs")
    p.add_argument("--ascii", action="store_true", help="suit letters instead of symbols")
    return p


def main(argv: list[str] | None = None, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Entry point of ``spades-replay``."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.frames is not None and not args.frames.strip():
        parser.error("--frames needs a folder, got ''")
    if args.gif and not args.frames:
        parser.error("--gif needs --frames DIR (the folder the GIF is written to)")
    if args.frames:
        try:
            check_frames_folder(args.frames)
        except ValueError as exc:
            parser.error(str(exc))
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    interactive = _is_terminal(stdin)
    try:
        record = read_record(args.record)
        view(
            record,
            stdout,
            stdin,
            args.seat,
            show_all=args.all or not interactive,
            symbols=not args.ascii and symbols_supported(stdout),
            frames=args.frames,
            gif=args.gif,
        )
    except (RecordError, OSError) as exc:
        print(f"spades-replay: {exc}", file=sys.stderr)
        return 2
    return 0


def check_frames_folder(folder: str) -> None:
    """Raise ValueError unless ``folder`` can take this replay's frames: a writable folder, or a new one in an
    existing, writable parent folder (as every output path of the tools), holding no frames of another replay
    (they would mix with the new ones)."""
    path = Path(folder)
    if path.exists() and not path.is_dir():
        raise ValueError(f"--frames {folder!r} is a file, not a folder")
    if not path.exists():
        parent = path.absolute().parent
        if parent.exists() and not parent.is_dir():
            raise ValueError(f"--frames {folder!r}: {str(path.parent)!r} is a file, not a folder")
        if not parent.is_dir():
            raise ValueError(f"--frames {folder!r}: folder {str(path.parent)!r} does not exist")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise ValueError(f"--frames {folder!r}: folder {str(path.parent)!r} is not writable")
    elif not os.access(path, os.W_OK | os.X_OK):
        raise ValueError(f"--frames {folder!r} is not writable")
    if path.is_dir():
        old = sorted(
            p.name
            for p in path.iterdir()
            if p.name == "replay.gif" or (p.name.startswith("frame_") and p.suffix == ".png")
        )
        if old:
            raise ValueError(
                f"--frames {folder!r} already holds {len(old)} frame file(s) of a replay ({old[0]}, ...); "
                "give an empty or new folder"
            )


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


if __name__ == "__main__":
    sys.exit(main())
