"""A figure for the renderer: a small raster image made in memory (a PNG written with zlib and
struct, no file, no drawing library) and its caption "Hình N: …" under it, in the column."""

from __future__ import annotations

import struct
import zlib
from io import BytesIO

from duocthu.ingest.pdf.render_page import COL_W, Canvas, Draw

WIDTH, HEIGHT = 0.6 * COL_W, 48.0  # points on the page
PIXELS = (24, 12)  # the image itself: a grey gradient with a dark band


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def figure_png() -> bytes:
    """An 8-bit greyscale PNG, PIXELS wide and high."""
    w, h = PIXELS
    rows = b"".join(
        b"\x00" + bytes(40 if y == h // 2 else (x * 255) // (w - 1) for x in range(w)) for y in range(h)
    )
    header = struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(rows))
        + _chunk(b"IEND", b"")
    )


def draw_figure(x: float, y: float) -> Draw:
    """A drawing of the image with its lower-left corner at (x, y)."""

    def draw(canvas: Canvas) -> None:
        from reportlab.lib.utils import ImageReader

        canvas.drawImage(ImageReader(BytesIO(figure_png())), x, y, WIDTH, HEIGHT)

    return draw
