"""Generate lib/speedduo/display/glyphs.py and large_ranks.py: the renderer's sprites as
page-aligned bytes.

    python host_sim/tools/make_glyphs.py            # rewrite both files
    python host_sim/tools/make_glyphs.py --check    # exit 1 if either file is out of date
    python host_sim/tools/make_glyphs.py --sheet glyphs.png   # a contact sheet to look at

Large card ranks (24x32 px, 4 pages) and hand ranks (12x16 px, 2 pages) are
rendered from DejaVu Sans Mono Bold (Pillow, thresholded); "10" is two squeezed
digits so it fits the same box. The 5x7 text font is hand drawn below. Every
sprite is stored in the SSD1306's own layout: one byte is 8 pixels of one
column, bit 0 on top; a sprite is its pages one after another, each page
``width`` bytes, so drawing it is a byte copy per page row. The large ranks have a
module of their own, loaded only for the matches that draw them (piles.py): the menu
and California Speed do without them.
"""

import argparse
import os
import sys

from PIL import Image, ImageDraw, ImageFont

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "lib", "speedduo", "display", "glyphs.py")
RANKS_OUT = os.path.join(ROOT, "lib", "speedduo", "display", "large_ranks.py")
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

LARGE_W, LARGE_H, LARGE_INK = 24, 32, 28  # box and ink height (2 px margin top and bottom)
MEDIUM_W, MEDIUM_H, MEDIUM_INK = 12, 16, 14

# 5x7 text font, drawn by hand. Codes 1-4 are the suits (spades, hearts, diamonds,
# clubs), 5-8 arrows (up, down, left, right), 9 a filled block.
SMALL = {
    " ": ".....|.....|.....|.....|.....|.....|.....",
    "0": ".###.|#...#|#..##|#.#.#|##..#|#...#|.###.",
    "1": "..#..|.##..|..#..|..#..|..#..|..#..|.###.",
    "2": ".###.|#...#|....#|...#.|..#..|.#...|#####",
    "3": "#####|...#.|..#..|...#.|....#|#...#|.###.",
    "4": "...#.|..##.|.#.#.|#..#.|#####|...#.|...#.",
    "5": "#####|#....|####.|....#|....#|#...#|.###.",
    "6": "..##.|.#...|#....|####.|#...#|#...#|.###.",
    "7": "#####|....#|...#.|..#..|.#...|.#...|.#...",
    "8": ".###.|#...#|#...#|.###.|#...#|#...#|.###.",
    "9": ".###.|#...#|#...#|.####|....#|...#.|.##..",
    "A": ".###.|#...#|#...#|#####|#...#|#...#|#...#",
    "B": "####.|#...#|#...#|####.|#...#|#...#|####.",
    "C": ".###.|#...#|#....|#....|#....|#...#|.###.",
    "D": "###..|#..#.|#...#|#...#|#...#|#..#.|###..",
    "E": "#####|#....|#....|####.|#....|#....|#####",
    "F": "#####|#....|#....|####.|#....|#....|#....",
    "G": ".###.|#...#|#....|#.###|#...#|#...#|.####",
    "H": "#...#|#...#|#...#|#####|#...#|#...#|#...#",
    "I": ".###.|..#..|..#..|..#..|..#..|..#..|.###.",
    "J": "..###|...#.|...#.|...#.|...#.|#..#.|.##..",
    "K": "#...#|#..#.|#.#..|##...|#.#..|#..#.|#...#",
    "L": "#....|#....|#....|#....|#....|#....|#####",
    "M": "#...#|##.##|#.#.#|#.#.#|#...#|#...#|#...#",
    "N": "#...#|#...#|##..#|#.#.#|#..##|#...#|#...#",
    "O": ".###.|#...#|#...#|#...#|#...#|#...#|.###.",
    "P": "####.|#...#|#...#|####.|#....|#....|#....",
    "Q": ".###.|#...#|#...#|#...#|#.#.#|#..#.|.##.#",
    "R": "####.|#...#|#...#|####.|#.#..|#..#.|#...#",
    "S": ".####|#....|#....|.###.|....#|....#|####.",
    "T": "#####|..#..|..#..|..#..|..#..|..#..|..#..",
    "U": "#...#|#...#|#...#|#...#|#...#|#...#|.###.",
    "V": "#...#|#...#|#...#|#...#|#...#|.#.#.|..#..",
    "W": "#...#|#...#|#...#|#.#.#|#.#.#|#.#.#|.#.#.",
    "X": "#...#|#...#|.#.#.|..#..|.#.#.|#...#|#...#",
    "Y": "#...#|#...#|.#.#.|..#..|..#..|..#..|..#..",
    "Z": "#####|....#|...#.|..#..|.#...|#....|#####",
    "!": "..#..|..#..|..#..|..#..|..#..|.....|..#..",
    "?": ".###.|#...#|....#|...#.|..#..|.....|..#..",
    "-": ".....|.....|.....|#####|.....|.....|.....",
    "+": ".....|..#..|..#..|#####|..#..|..#..|.....",
    ":": ".....|.##..|.##..|.....|.##..|.##..|.....",
    ".": ".....|.....|.....|.....|.....|.##..|.##..",
    "/": ".....|....#|...#.|..#..|.#...|#....|.....",
    "<": "...#.|..#..|.#...|#....|.#...|..#..|...#.",
    ">": ".#...|..#..|...#.|....#|...#.|..#..|.#...",
    "'": "..#..|..#..|.#...|.....|.....|.....|.....",
    "=": ".....|.....|#####|.....|#####|.....|.....",
    "_": ".....|.....|.....|.....|.....|.....|#####",
    ",": ".....|.....|.....|.....|.##..|..#..|.#...",
    "(": "...#.|..#..|.#...|.#...|.#...|..#..|...#.",
    ")": ".#...|..#..|...#.|...#.|...#.|..#..|.#...",
    "x": ".....|.....|#...#|.#.#.|..#..|.#.#.|#...#",
    "s": ".....|.....|.####|#....|.###.|....#|####.",
    "\x01": "..#..|.###.|#####|#####|..#..|.###.|.....",
    "\x02": ".#.#.|#####|#####|#####|.###.|..#..|.....",
    "\x03": "..#..|.###.|#####|#####|.###.|..#..|.....",
    "\x04": ".###.|.###.|#####|#####|..#..|.###.|.....",
    "\x05": ".....|..#..|.###.|#####|.....|.....|.....",
    "\x06": ".....|.....|#####|.###.|..#..|.....|.....",
    "\x07": "...#.|..##.|.###.|####.|.###.|..##.|...#.",
    "\x08": ".#...|.##..|.###.|.####|.###.|.##..|.#...",
    "\x09": "#####|#####|#####|#####|#####|#####|#####",
}


def _font(path):
    if not os.path.exists(path):
        raise SystemExit("make_glyphs: font not found: %s (pass --font)" % path)
    return ImageFont.truetype(path, 160)


def _ink(font, text):
    """The text's pixels, cropped to the ink, as an 'L' image."""
    img = Image.new("L", (400, 300), 0)
    ImageDraw.Draw(img).text((20, 20), text, font=font, fill=255)
    return img.crop(img.getbbox())


def _fit(ink, w, h):
    g = ink.resize((w, h), Image.LANCZOS)
    return g.point(lambda v: 255 if v >= 110 else 0)


def _rank_image(font, rank, box_w, box_h, ink_h):
    out = Image.new("L", (box_w, box_h), 0)
    top = (box_h - ink_h) // 2
    if rank == "10":  # two squeezed digits, one column apart
        digit_w = (box_w - 1) // 2
        out.paste(_fit(_ink(font, "1"), digit_w, ink_h), (0, top))
        out.paste(_fit(_ink(font, "0"), digit_w, ink_h), (box_w - digit_w, top))
        return out
    ink = _ink(font, rank)
    w = round(ink.width * ink_h / ink.height)
    w = min(w, box_w)
    out.paste(_fit(ink, w, ink_h), ((box_w - w) // 2, top))
    return out


def _small_image(art):
    rows = art.split("|")
    img = Image.new("L", (5, 8), 0)
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch == "#":
                img.putpixel((x, y), 255)
    return img


def pages(img):
    """An 'L' image (height a multiple of 8) as SSD1306 page bytes, page after page."""
    out = bytearray()
    for page in range(img.height // 8):
        for x in range(img.width):
            b = 0
            for bit in range(8):
                if img.getpixel((x, page * 8 + bit)):
                    b |= 1 << bit
            out.append(b)
    return bytes(out)


def _bytes_literal(name, data, width):
    lines = ["%s = (" % name]
    for i in range(0, len(data), width):
        lines.append('    b"' + "".join("\\x%02x" % b for b in data[i : i + width]) + '"')
    lines.append(")")
    return "\n".join(lines)


def build(font_path=FONT):
    """The two files' text: (glyphs.py, large_ranks.py)."""
    font = _font(font_path)
    large = b"".join(pages(_rank_image(font, r, LARGE_W, LARGE_H, LARGE_INK)) for r in RANKS)
    medium = b"".join(pages(_rank_image(font, r, MEDIUM_W, MEDIUM_H, MEDIUM_INK)) for r in RANKS)
    chars = "".join(SMALL)
    small = b"".join(pages(_small_image(SMALL[c])) for c in chars)
    index = bytearray([255] * 128)
    for i, c in enumerate(chars):
        index[ord(c)] = i
    for c in "abcdefghijklmnopqrtuvwyz":  # lower case prints as upper case (x, s have their own)
        index[ord(c)] = chars.index(c.upper())
    source = '''"""Sprites for the SSD1306 renderer, page layout. GENERATED: do not edit.

Made by ``python host_sim/tools/make_glyphs.py`` (tests check it is in sync).
A sprite is ``pages`` rows of ``width`` bytes; a byte is 8 pixels of one column,
bit 0 on top. ``MEDIUM`` holds the 13 ranks A..K at 12x16 (rank r at
``r * MEDIUM_SIZE``; the large ones: large_ranks.py), ``SMALL`` a 5x8 font whose
glyph for byte value c starts at ``SMALL_INDEX[c] * SMALL_W`` (255: no glyph).
Codes 1-4 are the suits (spades, hearts, diamonds, clubs), 5-8 arrows
(up, down, left, right), 9 a block.
"""

from micropython import const  # on the host, Blinka provides this module

MEDIUM_W = const(%d)
MEDIUM_PAGES = const(%d)
MEDIUM_SIZE = const(%d)
SMALL_W = const(5)

''' % (
        MEDIUM_W,
        MEDIUM_H // 8,
        MEDIUM_W * MEDIUM_H // 8,
    )
    source += _bytes_literal("MEDIUM", medium, MEDIUM_W) + "\n"
    source += _bytes_literal("SMALL", small, 5 * 8) + "\n"
    source += _bytes_literal("SMALL_INDEX", bytes(index), 32) + "\n"
    ranks = '''"""The large card ranks for the SSD1306 renderer. GENERATED: do not edit.

Made by ``python host_sim/tools/make_glyphs.py`` (tests check it is in sync), as
glyphs.py: ``LARGE`` holds the 13 ranks A..K at 24x32 (rank r at ``r * LARGE_SIZE``),
each ``LARGE_PAGES`` rows of ``LARGE_W`` bytes. Loaded only for the matches whose
pile tops show them (piles.py): the menu and California Speed do without them.
"""

from micropython import const  # on the host, Blinka provides this module

LARGE_W = const(%d)
LARGE_PAGES = const(%d)
LARGE_SIZE = const(%d)

''' % (
        LARGE_W,
        LARGE_H // 8,
        LARGE_W * LARGE_H // 8,
    )
    ranks += _bytes_literal("LARGE", large, LARGE_W) + "\n"
    return source, ranks


def sheet(path, sources):
    """A contact sheet of every sprite (4x), to look at."""
    scope = {}
    for source in sources:
        exec(compile(source, "glyphs", "exec"), scope)  # noqa: S102 - our own generated files
    img = Image.new("1", (13 * 28, 32 + 20 + 30), 0)

    def put(data, base, width, npages, x0, y0):
        for p in range(npages):
            for x in range(width):
                b = data[base + p * width + x]
                for bit in range(8):
                    if b >> bit & 1:
                        img.putpixel((x0 + x, y0 + p * 8 + bit), 1)

    for r in range(13):
        put(scope["LARGE"], r * scope["LARGE_SIZE"], 24, 4, r * 28, 0)
        put(scope["MEDIUM"], r * scope["MEDIUM_SIZE"], 12, 2, r * 28, 36)
    for i in range(len(scope["SMALL"]) // 5):
        put(scope["SMALL"], i * 5, 5, 1, (i % 58) * 6, 56 + (i // 58) * 10)
    img.resize((img.width * 4, img.height * 4), Image.NEAREST).save(path)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="example: python host_sim/tools/make_glyphs.py --check",
    )
    parser.add_argument("--check", action="store_true", help="fail if a file is stale")
    parser.add_argument("--font", default=FONT, help="TTF for the card ranks")
    parser.add_argument("--out", default=OUT, help="glyphs.py (default: %(default)s)")
    parser.add_argument("--ranks-out", default=RANKS_OUT, help="large_ranks.py")
    parser.add_argument("--sheet", help="also write a contact sheet PNG")
    args = parser.parse_args(argv)
    sources = build(args.font)
    if args.sheet:
        sheet(args.sheet, sources)
    paths = (args.out, args.ranks_out)
    if args.check:
        for path, source in zip(paths, sources, strict=True):
            with open(path) as f:
                if f.read() != source:
                    print("make_glyphs: %s is out of date" % path, file=sys.stderr)
                    return 1
        return 0
    for path, source in zip(paths, sources, strict=True):
        with open(path, "w") as f:
            f.write(source)
    return 0


if __name__ == "__main__":
    sys.exit(main())
