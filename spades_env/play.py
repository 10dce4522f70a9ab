"""Play Spades at a table of agents: ``python -m spades_env.play`` (console script ``spades-play``).

A person takes one seat (``--seat``, default 0) and agents take the others:
``--partner AGENT --opponents AGENT`` (defaults: heuristic), or every seat at
once with ``--seats human,heuristic,ppo,heuristic``. Any rules preset or YAML
file (``--rules``); ``--episode hand`` plays one hand instead of a game to the
target. A flag that would have no effect is refused (exit status 2, naming
it) before the game: ``--partner`` under rules without partnerships, and
``--seat``, ``--partner`` or ``--opponents`` beside ``--seats``.

* The table shows the person's hand once the person has looked at it (face
  down before: while the others bid, and at a blind decision until it is
  made; :mod:`spades_env.core.visibility`, the observation's rule), the cards
  left in the other hands, bids, tricks won, the trick on the table and the
  score. Cards carry suit symbols; ``--ascii`` (automatic when the
  output cannot encode them) writes suit letters instead.
* The legal moves are listed before each decision; a move is typed in the
  action notation (``AS``, ``10D`` or ``TD``, ``bid 4``, ``nil``,
  ``blind nil``, ``see cards``, ``10 for 200``, ``blind 7``; a bare number
  while bidding means ``bid n``). ``hint`` shows what ``--hint-agent``
  (default heuristic) would play; ``score`` the score sheet; ``help`` the
  commands; ``quit`` ends the game.
* Bad input is answered with the reason and the prompt again; the end of the
  input ends the game cleanly (exit status 0).
* The score sheet is shown after every hand; ``--record PATH`` saves the game
  (finished or not) as a JSON record of :mod:`spades_env.records`, which
  ``python -m spades_env.replay PATH`` steps through.
* Moves are read from standard input, whether a terminal or a pipe, so a game
  can be scripted (``printf 'bid 3\\nAS\\n' | spades-play``); from a pipe each
  move read is echoed.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence
from typing import IO, Any

import numpy as np

from .cli_args import non_negative_int, sigterm_interrupts
from .core.actions import action_name, is_card_action, parse_action
from .core.cards import CARD_SUIT, NUM_STANDARD_CARDS, SUIT_CHARS, cards_of, format_card
from .core.drawing import stock_left
from .core.explain import why_illegal
from .core.hand import HandState, Phase
from .core.rules import Rules
from .core.scoring import Bid
from .core.visibility import faces_up

HUMAN = "human"
DEFAULT_SEAT = 0
DEFAULT_AGENT = "heuristic"  # the partner's and the opponents' agent when not named
SUIT_SYMBOLS = "\u2663\u2666\u2665\u2660"  # clubs, diamonds, hearts, spades: the order of SUIT_CHARS
PROMPT = "your move> "
COMMANDS = {
    "hint": "show the move the hint agent would make",
    "score": "show the score sheet",
    "help": "show this help",
    "quit": "end the game (the record is still saved with --record)",
}
SUIT_DISPLAY_ORDER = (3, 1, 2, 0)  # spades, diamonds, hearts, clubs: alternate colours


class Console:
    """The person's side of the table: where moves are read from and the table is written to."""

    def __init__(self, stdin: IO[str], stdout: IO[str], symbols: bool):
        self.stdin = stdin
        self.stdout = stdout
        self.symbols = symbols
        self.echo = not _is_terminal(stdin)

    def say(self, text: str = "") -> None:
        """Write a line."""
        print(text, file=self.stdout, flush=True)

    def ask(self, prompt: str) -> str | None:
        """One line of input (None at the end of the input)."""
        self.stdout.write(prompt)
        self.stdout.flush()
        try:
            line = self.stdin.readline()
        except UnicodeDecodeError:  # bytes the stream's encoding cannot read: an unknown move, asked again
            return "\ufffd"
        if not line:
            self.say()
            return None
        line = line.strip()
        if self.echo:
            self.say(line)
        return line

    def card(self, card: int) -> str:
        """A card with its suit symbol (or letter)."""
        name = format_card(card)
        if card >= NUM_STANDARD_CARDS or not self.symbols:
            return name
        return name[0] + SUIT_SYMBOLS[CARD_SUIT[card]]

    def action(self, action: int) -> str:
        """An action in the notation, cards with suit symbols."""
        return self.card(action) if is_card_action(action) else action_name(action)


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def symbols_supported(stream: IO[str]) -> bool:
    """Whether the stream can encode the suit symbols."""
    encoding = getattr(stream, "encoding", None)
    if encoding is None:  # an in-memory text stream holds any character
        return True
    try:
        SUIT_SYMBOLS.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


# ------------------------------------------------------------------- views
def suit_groups(mask: int) -> list[list[int]]:
    """A hand's cards in display order: the jokers (highest first), then each suit of SUIT_DISPLAY_ORDER that it
    holds, highest first. The terminal's order, which the browser table shows too."""
    cards = cards_of(mask)
    jokers = [c for c in reversed(cards) if c >= NUM_STANDARD_CARDS]
    groups = [jokers] if jokers else []
    for suit in SUIT_DISPLAY_ORDER:
        in_suit = [c for c in reversed(cards) if c < NUM_STANDARD_CARDS and CARD_SUIT[c] == suit]
        if in_suit:
            groups.append(in_suit)
    return groups


def hand_text(console: Console, mask: int) -> str:
    """A hand by suit, highest first (jokers first)."""
    return "   ".join(" ".join(console.card(c) for c in group) for group in suit_groups(mask)) or "(no cards)"


def side_names(rules: Rules, names: Sequence[str]) -> list[str]:
    """A name for each side: the partners' names joined, or the player's name."""
    if rules.partnerships:
        return [f"{names[s]} + {names[s + 2]}" for s in range(rules.num_sides)]
    return list(names[: rules.num_sides])


def table_text(
    console: Console,
    hand: HandState,
    scores: Sequence[int],
    bags: Sequence[int],
    rules: Rules,
    viewer: int,
    names: Sequence[str],
) -> str:
    """The table as the viewer sees it: its own hand, the others' card counts, bids, tricks, trick, score."""
    width = max(len(x) for x in names)
    lines = []
    trick = dict(zip(hand.trick_seats, hand.trick_cards))
    for seat in range(hand.num_players):
        bid = Bid(hand.bid_kinds[seat], hand.bid_values[seat])
        count = bin(hand.hands[seat]).count("1")
        mark = ">" if seat == hand.current else " "
        dealer = " (dealer)" if seat == hand.dealer else ""
        played = f", on the table {console.card(trick[seat])}" if seat in trick else ""
        lines.append(
            f"{mark} {names[seat]:{width}s}  bid {str(bid):>9s}  tricks {hand.tricks_won[seat]:2d}  "
            f"cards {count:2d}{played}{dealer}"
        )
    if hand.last_trick is not None and not hand.trick_cards:
        _, seats, cards, winner = hand.last_trick
        shown = ", ".join(f"{names[s]} {console.card(c)}" for s, c in zip(seats, cards))
        lines.append(f"  last trick: {shown}; won by {names[winner]}")
    if hand.stock:  # two players: what this player knows of the stock and the discards
        lines.append(
            f"  stock: {stock_left(hand.draw_turn)} cards; your discards: "
            f"{hand_text(console, hand.discards[viewer]) or '-'}"
        )
        if hand.rules.discards_face_up:
            other = (viewer + 1) % hand.num_players
            lines.append(f"  {names[other]}'s discards (face up): {hand_text(console, hand.discards[other]) or '-'}")
        if hand.offered is not None and hand.current == viewer:
            lines.append(
                f"  on offer: {console.card(hand.offered)} (keep it, and the next card is discarded; "
                "or discard it, and take the next card)"
            )
    if faces_up(hand, viewer)[viewer]:
        lines.append(f"  your hand: {hand_text(console, hand.hands[viewer])}")
    elif hand.current == viewer:
        lines.append("  your hand: (face down: decide blind first, or 'see cards')")
    else:
        lines.append("  your hand: (face down: not looked at yet)")
    sides = side_names(rules, names)
    lines.append(
        "  score: "
        + "; ".join(f"{sides[i]} {scores[i]} ({bags[i]} bags)" for i in range(rules.num_sides))
        + f"; target {rules.target_score}"
        + ("; spades broken" if hand.spades_broken else "")
    )
    return "\n".join(lines)


def legal_text(console: Console, legal: Sequence[int]) -> str:
    """The legal moves, comma-separated, in the action notation."""
    return ", ".join(console.action(a) for a in legal)


def score_sheet(rules: Rules, results: Sequence[dict[str, Any]], names: Sequence[str]) -> str:
    """Every finished hand: each side's bids, tricks, points, running score and bags."""
    sides = side_names(rules, names)
    if not results:
        return "score sheet: no hand finished yet"
    lines = ["score sheet:"]
    for r in results:
        parts = []
        for i in range(rules.num_sides):
            seats = [s for s in range(rules.num_players) if rules.side_of(s) == i]
            bids = "/".join(r["bids"][s] for s in seats)
            tricks = sum(r["tricks"][s] for s in seats)
            parts.append(
                f"{sides[i]}: bid {bids}, took {tricks}, {r['points'][i]:+d} -> {r['scores'][i]} ({r['bags'][i]} bags)"
            )
        lines.append(f"  hand {r['hand_index'] + 1}: " + "; ".join(parts))
    return "\n".join(lines)


# -------------------------------------------------------------------- play
def parse_move(text: str, phase: Phase) -> int:
    """The action a typed move names (any action, legal or not); ValueError naming the examples when unknown."""
    words = text.strip().lower()
    if words.isdigit() and phase == Phase.BID:
        words = "nil" if int(words) == 0 else f"bid {int(words)}"  # a bare number while bidding is a bid
    for suit, symbol in zip(SUIT_CHARS, SUIT_SYMBOLS):
        words = words.replace(symbol, suit.lower())
    return parse_action(words)  # raises ActionError (a ValueError) naming the examples


def legal_move(text: str, hand: HandState) -> int:
    """The legal action a typed move names; ValueError with the rule that forbids it otherwise (core.explain)."""
    action = parse_move(text, hand.phase)
    reason = why_illegal(hand, action)
    if reason is not None:
        raise ValueError(reason)
    return action


def seat_specs(args: argparse.Namespace, rules: Rules) -> list[str]:
    """Who sits where: ``human`` or an agent name, one per seat (ValueError naming a bad or ineffective flag)."""
    n = rules.num_players
    if args.seats:
        # --seats names every seat: the per-seat flags would be ignored, so they are refused
        for flag, value in (("--seat", args.seat), ("--partner", args.partner), ("--opponents", args.opponents)):
            if value is not None:
                raise ValueError(f"{flag} has no effect beside --seats, which names every seat; leave one out")
        specs = [s.strip() for s in args.seats.split(",")]
        if len(specs) != n:
            raise ValueError(f"--seats needs {n} comma-separated entries for {rules.name}, got {len(specs)}")
        if HUMAN not in specs:
            raise ValueError(f"--seats needs at least one '{HUMAN}'")
        return specs
    if args.partner is not None and not rules.partnerships:
        raise ValueError(
            f"--partner {args.partner!r} has no effect: the rules {rules.name!r} have no partnerships "
            "(every other seat plays --opponents)"
        )
    seat = DEFAULT_SEAT if args.seat is None else args.seat
    if not 0 <= seat < n:
        raise ValueError(f"--seat must be in 0..{n - 1}, got {seat}")
    specs = [args.opponents or DEFAULT_AGENT] * n
    if rules.partnerships:
        specs[(seat + 2) % n] = args.partner or DEFAULT_AGENT
    specs[seat] = HUMAN
    return specs


def seat_names(specs: Sequence[str]) -> list[str]:
    """``you`` for the one person (``you (seat k)`` when several), the agent's name and seat otherwise."""
    humans = specs.count(HUMAN)
    return [
        ("you" if humans == 1 else f"you (seat {s})") if spec == HUMAN else f"{spec} (seat {s})"
        for s, spec in enumerate(specs)
    ]


def _reseed(agent: Any, seed: int, seat: int) -> None:
    # As the evaluation's arena does: each seat's agent gets its own generator from the table seed.
    hook = getattr(agent, "reseed", None)
    if callable(hook):
        hook(np.random.default_rng([seed, seat]))
    elif hasattr(agent, "rng"):
        agent.rng = np.random.default_rng([seed, seat])


def human_turn(console: Console, env: Any, seat: int, names: Sequence[str], hint_agent: Any) -> int | None:
    """Ask the person for a legal move until one comes (None: input ended or ``quit``)."""
    hand = env.hand
    game = env.game
    console.say()
    console.say(f"hand {game.hand_index + 1}, {_phase_word(hand.phase)}; {names[seat]} to act")
    console.say(table_text(console, hand, game.scores, game.bags, env.rules, seat, names))
    legal = env.legal_actions()
    console.say(f"legal: {legal_text(console, legal)}")
    obs = env.observe(env.agent_selection)
    while True:
        line = console.ask(PROMPT)
        if line is None:
            console.say("input ended: the game stops here")
            return None
        word = line.lower()
        if not word:
            continue
        if word == "quit":
            console.say("game abandoned")
            return None
        if word in ("help", "?"):
            console.say("type a move (e.g. AS, 10D, bid 4, nil, blind nil, see cards, keep, discard) or a command:")
            for name, text in COMMANDS.items():
                console.say(f"  {name:6s} {text}")
            continue
        if word == "score":
            console.say(score_sheet(env.rules, env.game_record()["results"], names))
            continue
        if word == "hint":
            console.say(f"hint ({getattr(hint_agent, 'name', 'agent')}): {console.action(int(hint_agent.act(obs)))}")
            continue
        try:
            return legal_move(line, hand)
        except ValueError as exc:
            console.say(f"not a move: {exc}")
            console.say(f"legal: {legal_text(console, legal)}")


def _phase_word(phase: Phase) -> str:
    return {
        Phase.DRAW: "drawing",
        Phase.BLIND: "blind decision",
        Phase.BID: "bidding",
        Phase.EXCHANGE: "exchange",
        Phase.PLAY: "play",
        Phase.OVER: "over",
    }[phase]


def seat_agents(specs: Sequence[str], seed: int | None, rules: Rules | None = None) -> dict[int, Any]:
    """An agent for every seat that is not ``human``, each with its own generator from the seed (ValueError for
    one that cannot play ``rules``, when given)."""
    from .agents import make_agent

    agents = {}
    for seat, spec in enumerate(specs):
        if spec != HUMAN:
            agents[seat] = make_agent(spec)
            if rules is not None:
                check_agent(agents[seat], spec, rules)
            _reseed(agents[seat], 0 if seed is None else seed, seat)
    return agents


def check_agent(agent: Any, spec: str, rules: Rules) -> None:
    """ValueError naming ``spec`` and the reason when ``agent`` cannot play ``rules``."""
    from .agents import check_plays

    try:
        check_plays(agent, rules)
    except ValueError as exc:
        raise ValueError(f"agent {spec!r} cannot play these rules: {exc}") from None


def play_game(
    console: Console,
    rules: Rules,
    specs: Sequence[str],
    agents: dict[int, Any],
    hint_agent: Any,
    episode: str,
    seed: int | None,
    record_path: str | None,
) -> dict[str, Any]:
    """Play one episode with the person at the ``human`` seats; returns the game record."""
    from .aec import raw_env
    from .records import save_record

    names = seat_names(specs)
    env = raw_env(rules=rules, episode=episode)
    env.reset(seed=seed)
    console.say(
        f"Spades ({rules.name}), {'one hand' if episode == 'hand' else f'game to {rules.target_score}'}; "
        + ", ".join(names)
        + ("; partners sit opposite" if rules.partnerships else "")
    )
    finished = False
    try:
        finished = _play_turns(console, env, specs, agents, hint_agent, names)
    finally:  # interrupted (Ctrl-C, SIGTERM), quit or over: the game so far is saved
        record = env.game_record()
        if record_path:
            save_record(record, record_path)
            console.say(f"record saved: {record_path} (replay: python -m spades_env.replay {record_path})")
    game = env.game
    if finished:
        sides = side_names(rules, names)
        console.say()
        if episode == "game":
            outcome = "undecided" if game.winner is None else f"{sides[game.winner]} win"
            console.say(
                f"game over: {outcome}; final score "
                + ", ".join(f"{sides[i]} {game.scores[i]}" for i in range(rules.num_sides))
            )
        else:
            console.say("hand over")
    return record


def _play_turns(
    console: Console, env: Any, specs: Sequence[str], agents: dict[int, Any], hint_agent: Any, names: Sequence[str]
) -> bool:
    """Play the episode's turns; False when the person quit before its end."""
    hands_done = 0
    for agent_id in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = env.hand.current
        if specs[seat] == HUMAN:
            action = human_turn(console, env, seat, names, hint_agent)
            if action is None:
                return False
        else:
            action = int(agents[seat].act(env.observe(agent_id)))
            console.say(f"{names[seat]}: {console.action(action)}")
        before = env.hand  # the finished hand keeps its last trick when the game deals the next one
        completes_trick = before.phase == Phase.PLAY and len(before.trick_cards) == before.num_players - 1
        env.step(action)
        if completes_trick:
            console.say(f"  trick to {names[before.last_trick[3]]}")
        if len(env.game.results) > hands_done:
            hands_done = len(env.game.results)
            console.say()
            console.say(score_sheet(env.rules, env.game_record()["results"], names))
    return True


def build_parser() -> argparse.ArgumentParser:
    """The argument parser."""
    p = argparse.ArgumentParser(
        prog="spades-play", description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--rules", default="standard", help="preset name or YAML path")
    # None: not given (the defaults are filled in by seat_specs, which refuses a flag that would have no effect)
    p.add_argument("--seat", type=int, default=None, help=f"your seat (default {DEFAULT_SEAT})")
    p.add_argument(
        "--partner",
        default=None,
        help=f"your partner's agent (default {DEFAULT_AGENT}); refused under rules without partnerships",
    )
    p.add_argument("--opponents", default=None, help=f"the opponents' agent (default {DEFAULT_AGENT})")
    p.add_argument(
        "--seats",
        help="every seat at once, e.g. human,heuristic,ppo,heuristic (instead of --seat, --partner, --opponents)",
    )
    p.add_argument("--episode", choices=("game", "hand"), default="game", help="a game to the target, or one hand")
    p.add_argument("--seed", type=non_negative_int, default=None, help="deal seed (default: a new game each time)")
    p.add_argument("--hint-agent", default="heuristic", help="the agent behind 'hint'")
    p.add_argument("--ascii", action="store_true", help="suit letters instead of symbols")
    p.add_argument("--record", help="save the game as a JSON record here")
    return p


def main(argv: list[str] | None = None, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Entry point of ``spades-play`` (``stdin``/``stdout`` default to the process's streams)."""
    from .config_io import load_rules
    from .evaluation.report import check_json_path

    args = build_parser().parse_args(argv)
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    if isinstance(stdin, io.TextIOWrapper):  # bytes its encoding cannot read become U+FFFD: an unknown move
        stdin.reconfigure(errors="replace")
    try:
        rules = load_rules(args.rules)
        specs = seat_specs(args, rules)
        agents = seat_agents(specs, args.seed, rules)
        from .agents import make_agent

        hint_agent = make_agent(args.hint_agent)
        check_agent(hint_agent, args.hint_agent, rules)
        if args.record:  # checked before the game, so that the game is not played for nothing
            check_json_path(args.record, "--record")
    except ValueError as exc:  # unknown rules or agents, bad seats, a record path that cannot be written: named
        print(f"spades-play: {exc}", file=sys.stderr)
        return 2
    console = Console(stdin, stdout, symbols=not args.ascii and symbols_supported(stdout))
    try:
        with sigterm_interrupts():
            play_game(console, rules, specs, agents, hint_agent, args.episode, args.seed, args.record)
    except KeyboardInterrupt:
        console.say("\ninterrupted")
        return 130
    except OSError as exc:  # the record could not be written (disk full, removed folder)
        if not args.record:
            raise
        print(f"spades-play: could not save the record {args.record!r}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
