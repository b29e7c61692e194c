#!/usr/bin/env python3
"""Draws KeyDo's app icons (a keycap on slate) into assets/icons/ as PNGs.

Standard library only, so anyone can regenerate them: `python3 scripts/make-icons.py`.
Sizes follow what browsers ask of an installable app: 192 and 512 (any), a
maskable 512 whose artwork stays inside the 80 % safe zone, and a 180 apple-touch icon.
The tab's icon is the same keycap drawn as an SVG (`colour_at`'s rectangles, scaled
by 0.78 about the centre), inline in index.html so a first visit fetches no icon.
"""
import os
import struct
import zlib

SLATE = (29, 36, 48)
CAP = (242, 239, 230)
CAP_SIDE = (196, 190, 176)
ACCENT = (214, 69, 65)


def rounded_rect(x, y, left, top, right, bottom, radius):
    """Whether (x, y) lies inside the rounded rectangle."""
    if x < left or x > right or y < top or y > bottom:
        return False
    cx = min(max(x, left + radius), right - radius)
    cy = min(max(y, top + radius), bottom - radius)
    return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2


def colour_at(u, v, maskable):
    """The colour (or None for transparent) at unit coordinates (u, v)."""
    # Maskable icons are cropped to a circle of 80 %: draw edge to edge, art smaller.
    if not maskable and not rounded_rect(u, v, 0.0, 0.0, 1.0, 1.0, 0.22):
        return None
    scale = 0.62 if maskable else 0.78
    # Map into the artwork box, centred.
    a = (u - 0.5) / scale + 0.5
    b = (v - 0.5) / scale + 0.5
    if rounded_rect(a, b, 0.12, 0.10, 0.88, 0.80, 0.10):
        if rounded_rect(a, b, 0.19, 0.14, 0.81, 0.64, 0.07):
            # The accent bar: a home-row bump on the keycap's face.
            if rounded_rect(a, b, 0.36, 0.49, 0.64, 0.54, 0.025):
                return ACCENT
            return CAP
        return CAP_SIDE
    return SLATE


def render(size, maskable):
    """RGBA rows, 4× supersampled for smooth edges."""
    rows = []
    for y in range(size):
        row = bytearray()
        for x in range(size):
            total = [0, 0, 0, 0]
            for sy in (0.25, 0.75):
                for sx in (0.25, 0.75):
                    colour = colour_at((x + sx) / size, (y + sy) / size, maskable)
                    if colour is not None:
                        for i in range(3):
                            total[i] += colour[i]
                        total[3] += 255
            alpha = total[3] // 4
            if alpha:
                covered = total[3] // 255
                row += bytes(t // covered for t in total[:3]) + bytes([alpha])
            else:
                row += b"\0\0\0\0"
        rows.append(bytes(row))
    return rows


def png(size, rows):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\0" + row for row in rows)
    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def main():
    out = os.path.join(os.path.dirname(__file__), "..", "assets", "icons")
    os.makedirs(out, exist_ok=True)
    for name, size, maskable in [
        ("icon-192.png", 192, False),
        ("icon-512.png", 512, False),
        ("icon-maskable-512.png", 512, True),
        ("apple-touch-icon.png", 180, True),
    ]:
        with open(os.path.join(out, name), "wb") as f:
            f.write(png(size, render(size, maskable)))
        print(f"wrote {name} ({size}x{size})")


if __name__ == "__main__":
    main()
