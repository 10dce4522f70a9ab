"""A picture of the table: ``table_image(hand, scores, bags, game_rules, viewer=None, names=None)``.

Returns an RGB array of shape (``IMAGE_HEIGHT``, ``IMAGE_WIDTH``, 3), dtype
uint8: the seats around a green table, the viewer's seat at the bottom and the
others clockwise (the next seat to the left, as players sit); each seat's
name, bid and tricks won, and its hand (card backs, or face up as
:func:`spades_env.core.visibility.faces_up` says: every hand when ``viewer``
is None, else the viewer's own once it has looked at it, as its observation:
before, while the others bid or at its blind decision, it shows backs even
to itself; from the deal ``after_the_fact``, as a replay shows it);
the trick in progress (or the last trick, once a trick is complete) in the
middle; the score and bags of every side, the phase and the seat to act along
the top. Cards are drawn as small white cards with the rank and the suit
letter (C D H S; hearts and diamonds in red), so Pillow's default font is
enough. Pillow comes with matplotlib (the ``[eval]`` extra); without it
``table_image`` raises ImportError naming the extra.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .core.cards import CARD_SUIT, NUM_STANDARD_CARDS, Suit, cards_of, format_card
from .core.drawing import DRAW_TURNS
from .core.hand import HandState, Phase
from .core.rules import Rules
from .core.scoring import Bid
from .core.visibility import faces_up

IMAGE_WIDTH, IMAGE_HEIGHT = 960, 640
CARD_W, CARD_H, CARD_STEP = 30, 42, 22  # a card, and the offset between overlapping cards of a hand
FONT_SIZE = 14
TABLE_GREEN = (22, 110, 56)
FELT_EDGE = (12, 70, 34)
BACKGROUND = (30, 30, 36)
CARD_FACE = (250, 250, 245)
CARD_BACK = (40, 70, 160)
RED = (200, 20, 30)
BLACK = (15, 15, 15)
TEXT = (240, 240, 240)
HIGHLIGHT = (250, 210, 60)  # the seat to act
RED_SUITS = (Suit.DIAMONDS, Suit.HEARTS)
JOKER_COLORS = {"BJ": BLACK, "LJ": RED}
SUIT_ORDER = (Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS)  # alternate colours in a fanned hand
PHASE_WORDS = {
    Phase.DRAW: "drawing",
    Phase.BLIND: "blind decision",
    Phase.BID: "bidding",
    Phase.EXCHANGE: "exchange",
    Phase.PLAY: "play",
    Phase.OVER: "hand over",
}

# Seat anchors (centre of the seat's hand) as fractions of the image, by the seat's place
# relative to the viewer: 0 = bottom, then clockwise as seen from the viewer's chair.
PLACES = {
    2: [(0.5, 0.86), (0.5, 0.2)],
    3: [(0.5, 0.86), (0.16, 0.45), (0.84, 0.45)],
    4: [(0.5, 0.86), (0.16, 0.5), (0.5, 0.2), (0.84, 0.5)],
}
TRICK_OFFSET = 0.42  # how far from the table centre towards its seat a played card lies
FRAME_MS = 700  # how long a GIF shows each frame (identical frames in a row merge into one longer frame)


def _pillow():
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        raise ImportError(
            "table_image needs Pillow: pip install 'spades_env[eval]' (Pillow comes with "
            "matplotlib) or pip install pillow"
        ) from None
    return Image, ImageDraw, ImageFont


def _font(ImageFont, size: int = FONT_SIZE):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1: a fixed bitmap font
        return ImageFont.load_default()


def _sorted_hand(mask: int) -> list[int]:
    cards = cards_of(mask)
    jokers = [c for c in cards if c >= NUM_STANDARD_CARDS]
    by_suit = [
        sorted((c for c in cards if c < NUM_STANDARD_CARDS and CARD_SUIT[c] == s), reverse=True) for s in SUIT_ORDER
    ]
    return sorted(jokers, reverse=True) + [c for suit in by_suit for c in suit]


def _draw_card(draw, font, x: float, y: float, card: int | None) -> None:
    box = [x, y, x + CARD_W, y + CARD_H]
    if card is None:
        draw.rounded_rectangle(box, radius=4, fill=CARD_BACK, outline=CARD_FACE)
        return
    draw.rounded_rectangle(box, radius=4, fill=CARD_FACE, outline=BLACK)
    name = format_card(card)
    colour = JOKER_COLORS.get(name) or (RED if CARD_SUIT[card] in RED_SUITS else BLACK)
    draw.text((x + 3, y + 2), name[0], fill=colour, font=font)
    draw.text((x + 3, y + 2 + FONT_SIZE), name[1], fill=colour, font=font)


def _draw_hand(draw, font, cx: float, cy: float, cards: list[int | None]) -> None:
    width = CARD_W + CARD_STEP * max(0, len(cards) - 1)
    x0 = cx - width / 2
    for k, card in enumerate(cards):
        _draw_card(draw, font, x0 + k * CARD_STEP, cy - CARD_H / 2, card)


def table_image(
    hand_state: HandState,
    scores: Sequence[int],
    bags: Sequence[int],
    game_rules: Rules,
    viewer: int | None = None,
    names: Sequence[str] | None = None,
    after_the_fact: bool = False,
) -> np.ndarray:
    """The table as an RGB uint8 array (H, W, 3), hands shown as ``viewer`` may see them (all if None; the viewer's
    own from the deal ``after_the_fact``)."""
    Image, ImageDraw, ImageFont = _pillow()
    hand = hand_state
    n = hand.num_players
    if viewer is not None and not (isinstance(viewer, (int, np.integer)) and 0 <= viewer < n):
        raise ValueError(f"viewer must be None or a seat in 0..{n - 1}, got {viewer!r}")
    names = list(names) if names is not None else [f"seat {s}" for s in range(n)]
    if len(names) != n:
        raise ValueError(f"names needs one name per seat ({n}), got {len(names)}")
    sides = game_rules.num_sides
    if len(scores) != sides or len(bags) != sides:
        raise ValueError(f"scores and bags need one value per side ({sides}), got {len(scores)} and {len(bags)}")
    font = _font(ImageFont)
    image = Image.new("RGB", (IMAGE_WIDTH, IMAGE_HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.ellipse(
        [0.05 * IMAGE_WIDTH, 0.1 * IMAGE_HEIGHT, 0.95 * IMAGE_WIDTH, 0.98 * IMAGE_HEIGHT],
        fill=TABLE_GREEN,
        outline=FELT_EDGE,
        width=8,
    )
    bottom = 0 if viewer is None else int(viewer)
    places = PLACES[n]
    centre = (0.5 * IMAGE_WIDTH, 0.53 * IMAGE_HEIGHT)
    anchors = {}
    face_up = faces_up(hand, None if viewer is None else int(viewer), after_the_fact)
    for seat in range(n):
        fx, fy = places[(seat - bottom) % n]
        cx, cy = fx * IMAGE_WIDTH, fy * IMAGE_HEIGHT
        anchors[seat] = (cx, cy)
        held = _sorted_hand(hand.hands[seat])
        _draw_hand(draw, font, cx, cy, held if face_up[seat] else [None] * len(held))
        bid = Bid(hand.bid_kinds[seat], hand.bid_values[seat])
        label = f"{names[seat]}  bid {bid}  tricks {hand.tricks_won[seat]}" + (
            " (dealer)" if seat == hand.dealer else ""
        )
        colour = HIGHLIGHT if seat == hand.current else TEXT
        draw.text((cx, cy - CARD_H / 2 - 4), label, fill=colour, font=font, anchor="md")
    if hand.trick_cards:
        trick = list(zip(hand.trick_seats, hand.trick_cards))
        caption = None
    elif hand.last_trick is not None and hand.phase in (Phase.PLAY, Phase.OVER):
        _, seats, cards, winner = hand.last_trick
        trick = list(zip(seats, cards))
        caption = f"last trick won by {names[winner]}"
    else:
        trick, caption = [], None
    for seat, card in trick:
        ax, ay = anchors[seat]
        x = centre[0] + TRICK_OFFSET * (ax - centre[0]) - CARD_W / 2
        y = centre[1] + TRICK_OFFSET * (ay - centre[1]) - CARD_H / 2
        _draw_card(draw, font, x, y, card)
    if hand.offered is not None:  # two players drawing: the card on offer, seen by the drawer only
        shown = viewer is None or viewer == hand.current
        _draw_card(draw, font, centre[0] - CARD_W / 2, centre[1] - CARD_H / 2, hand.offered if shown else None)
        caption = (
            f"on offer to {names[hand.current]}; stock {2 * DRAW_TURNS - 2 * hand.draw_turn} cards; "
            f"discards {' / '.join(str(d.bit_count()) for d in hand.discards)}"
        )
    if caption:
        draw.text((centre[0], centre[1] + CARD_H + 18), caption, fill=TEXT, font=font, anchor="mm")
    if game_rules.partnerships:
        side_names = [f"{names[s]} + {names[s + 2]}" for s in range(sides)]
    else:
        side_names = names[:sides]
    for i in range(sides):
        draw.text(
            (12, 10 + i * (FONT_SIZE + 4)), f"{side_names[i]}: {scores[i]} points, {bags[i]} bags", fill=TEXT, font=font
        )
    status = f"{hand.rules.name}, target {game_rules.target_score}; {PHASE_WORDS[hand.phase]}"
    if hand.current >= 0:
        status += f"; to act: {names[hand.current]}"
    status += "; spades broken" if hand.spades_broken else ""
    draw.text((IMAGE_WIDTH - 12, 10), status, fill=TEXT, font=font, anchor="ra")
    return np.asarray(image, dtype=np.uint8).copy()


def save_frames(frames: Sequence[np.ndarray], folder: str, gif: bool = False, frame_ms: int = FRAME_MS) -> list[str]:
    """Write frames as ``frame_0000.png``... (or one ``replay.gif``) under ``folder``, made if missing (its parent
    must exist: FileNotFoundError otherwise, as for every output path); returns the paths."""
    import os

    Image, _, _ = _pillow()
    if not os.path.isdir(folder):
        os.mkdir(folder)
    if gif:
        path = os.path.join(folder, "replay.gif")
        images = [Image.fromarray(f) for f in frames]
        images[0].save(path, save_all=True, append_images=images[1:], duration=frame_ms, loop=0)
        return [path]
    paths = []
    for k, frame in enumerate(frames):
        path = os.path.join(folder, f"frame_{k:04d}.png")
        Image.fromarray(frame).save(path)
        paths.append(path)
    return paths
