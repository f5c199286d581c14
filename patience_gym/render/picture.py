"""Draw a :class:`~patience_gym.render.view.Frame` with Pillow: the ``rgb_array`` picture.

Everything is drawn from shapes and Pillow's built-in font, so no image or font file is read or
fetched. Each card face and the back are drawn once at four times their size and scaled down
(smooth edges), then cached: a frame is pasting cards and writing a few labels.
"""

from __future__ import annotations

from functools import cache, lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from patience_gym.core.cards import RANKS, SUITS
from patience_gym.render.view import BACK, CARD_H, CARD_W, Frame, TableView, layout

FELT = (28, 99, 56)
FELT_DARK = (20, 78, 43)
SLOT_LINE = (92, 150, 110)
INK = {"red": (200, 16, 46), "black": (26, 26, 26)}
TEXT = {
    "title": ((255, 255, 255), 17),
    "counter": ((214, 236, 216), 14),
    "label": ((232, 243, 232), 12),
    "badge": ((255, 255, 255), 12),
}
_SCALE = 4  # card faces are drawn this many times larger, then scaled down
RANK_TEXT = {r: ("10" if r == "T" else r) for r in RANKS}


@cache
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's built-in scalable font (no font file is read)."""
    return ImageFont.load_default(size=size)


def suit_colour(suit: str) -> tuple[int, int, int]:
    return INK["red"] if suit in "DH" else INK["black"]


def draw_suit(
    draw: ImageDraw.ImageDraw, cx: float, cy: float, s: float, suit: str, fill: tuple[int, ...]
) -> None:
    """A suit symbol of height ``s`` centred on ``(cx, cy)``, from circles and polygons."""

    def disc(x: float, y: float, r: float) -> None:
        draw.ellipse((x - r, y - r, x + r, y + r), fill=fill)

    if suit == "D":
        draw.polygon(
            [(cx, cy - s / 2), (cx + 0.38 * s, cy), (cx, cy + s / 2), (cx - 0.38 * s, cy)], fill=fill
        )
    elif suit == "H":
        r = 0.26 * s
        disc(cx - 0.92 * r, cy - 0.2 * s, r)
        disc(cx + 0.92 * r, cy - 0.2 * s, r)
        w = 1.92 * r
        draw.polygon([(cx - w, cy - 0.12 * s), (cx + w, cy - 0.12 * s), (cx, cy + 0.5 * s)], fill=fill)
    elif suit == "S":
        r = 0.25 * s
        disc(cx - 0.92 * r, cy + 0.1 * s, r)
        disc(cx + 0.92 * r, cy + 0.1 * s, r)
        w = 1.9 * r
        draw.polygon([(cx - w, cy + 0.03 * s), (cx + w, cy + 0.03 * s), (cx, cy - 0.5 * s)], fill=fill)
        draw.polygon(
            [(cx, cy + 0.08 * s), (cx - 0.17 * s, cy + 0.5 * s), (cx + 0.17 * s, cy + 0.5 * s)], fill=fill
        )
    else:  # clubs
        r = 0.21 * s
        disc(cx, cy - 0.27 * s, r)
        disc(cx - 0.24 * s, cy + 0.07 * s, r)
        disc(cx + 0.24 * s, cy + 0.07 * s, r)
        disc(cx, cy, 0.12 * s)
        draw.polygon(
            [(cx, cy + 0.02 * s), (cx - 0.17 * s, cy + 0.5 * s), (cx + 0.17 * s, cy + 0.5 * s)], fill=fill
        )


def _canvas() -> tuple[Image.Image, ImageDraw.ImageDraw, int, int, int]:
    """A transparent card-sized picture drawn ``_SCALE`` times larger (shrunk when done, for smooth
    edges): the image, its pen, its width and height, and the scale."""
    k = _SCALE
    w, h = CARD_W * k, CARD_H * k
    img = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    return img, ImageDraw.Draw(img), w, h, k


@cache
def card_image(code: str) -> Image.Image:
    """The picture of one card (``"7H"`` or the back), RGBA with rounded corners."""
    img, d, w, h, k = _canvas()
    box = (0, 0, w - 1, h - 1)
    if code == BACK:
        d.rounded_rectangle(box, radius=6 * k, fill=(245, 245, 240), outline=(60, 60, 60), width=k)
        inner = (4 * k, 4 * k, w - 1 - 4 * k, h - 1 - 4 * k)
        d.rounded_rectangle(inner, radius=4 * k, fill=(38, 72, 150))
        for t in range(-h, w, 6 * k):  # a lattice, so a stack of backs reads as cards, not a block
            d.line([(t, inner[1]), (t + h, inner[1] + h)], fill=(70, 104, 182), width=k)
            d.line([(t + h, inner[1]), (t, inner[1] + h)], fill=(70, 104, 182), width=k)
        d.rounded_rectangle(inner, radius=4 * k, outline=(245, 245, 240), width=2 * k)
        # re-cut the corners the lattice drew over
        mask = Image.new("L", (w, h), 0)
        ImageDraw.Draw(mask).rounded_rectangle(box, radius=6 * k, fill=255)
        img.putalpha(mask)
    else:
        rank, suit = code[0], code[1]
        ink = suit_colour(suit)
        d.rounded_rectangle(box, radius=6 * k, fill=(252, 252, 247), outline=(60, 60, 60), width=k)
        # Corner indices (rank over suit), upright in both top corners: a fan leaves only a strip
        # of a covered card visible, its left one in a row running right or down, its right one
        # in a row running left (The Kings' left rows), so each strip must read alone.
        f = font(16 * k)
        for cx in (11 * k, w - 11 * k):
            d.text(
                (cx, 2 * k),
                RANK_TEXT[rank],
                font=f,
                fill=ink,
                anchor="ma",
                stroke_width=k // 2,
                stroke_fill=ink,
            )
            draw_suit(d, cx, 24 * k, 10 * k, suit, ink)
        draw_suit(d, w / 2, h / 2 + 9 * k, 28 * k, suit, ink)
    return img.resize((CARD_W, CARD_H), Image.Resampling.LANCZOS)


@cache
def slot_image(hint: str) -> Image.Image:
    """An empty place: an outline, with a faint hint (a suit, or the rank that may fill it)."""
    img, d, w, h, k = _canvas()
    d.rounded_rectangle((0, 0, w - 1, h - 1), radius=6 * k, fill=FELT_DARK, outline=SLOT_LINE, width=2 * k)
    if len(hint) == 1 and hint in SUITS:
        draw_suit(d, w / 2, h / 2, 26 * k, hint, SLOT_LINE)
    elif hint:
        text = RANK_TEXT.get(hint, hint)
        f = font((22 if len(text) <= 2 else 12) * k)
        d.text((w / 2, h / 2), text, font=f, fill=SLOT_LINE, anchor="mm")
    return img.resize((CARD_W, CARD_H), Image.Resampling.LANCZOS)


@lru_cache(maxsize=4096)
def text_image(text: str, kind: str) -> tuple[Image.Image, int, int]:
    """``text`` in the style ``kind`` as an RGBA stamp and its offset from the text origin.

    Cached: laying out glyphs costs far more than pasting, and labels repeat every frame."""
    colour, size = TEXT[kind]
    f = font(size)
    left, top, right, bottom = (int(v) for v in f.getbbox(text))
    pad = 8 if kind == "badge" else 0  # a count sits on a dark tab, over the card
    w, h = right - left + pad, bottom - top + pad
    img = Image.new("RGBA", (max(1, w), max(1, h)), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    if kind == "badge":
        d.rounded_rectangle((0, 0, w - 1, h - 1), radius=4, fill=(30, 30, 30, 235))
    d.text((pad // 2 - left, pad // 2 - top), text, font=f, fill=colour)
    return img, left - pad // 2, top - pad // 2


def draw_frame(frame: Frame) -> Image.Image:
    """The frame as an RGB Pillow image."""
    img = Image.new("RGB", (frame.width, frame.height), FELT)
    for x, y, hint in frame.slots:
        slot = slot_image(hint)
        img.paste(slot, (x, y), slot)
    for x, y, code in frame.cards:
        face = card_image(code)
        img.paste(face, (x, y), face)
    for x, y, text, style in frame.texts:
        kind, _, align = style.partition(":")
        stamp, dx, dy = text_image(text, kind)
        if align == "r":
            x -= stamp.width + dx
        img.paste(stamp, (x + dx, y + dy), stamp)
    return img


def picture(view: TableView) -> np.ndarray:
    """The table as an ``H x W x 3`` ``uint8`` array (the environment's ``rgb_array``)."""
    return to_array(draw_frame(layout(view)))


def to_array(img: Image.Image) -> np.ndarray:
    """An RGB image as an ``H x W x 3`` ``uint8`` array."""
    # tobytes + frombuffer is several times faster than np.asarray(img); the bytearray makes the
    # array writable, as a caller may draw on it.
    return np.frombuffer(bytearray(img.tobytes()), dtype=np.uint8).reshape(img.height, img.width, 3)
