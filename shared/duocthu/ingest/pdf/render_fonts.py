"""The renderer's fonts: Noto Serif (OFL, shipped by the `fontpkg-noto-serif` wheel) under the
names a book's PDF carries.

One font file serves every role; what differs is the name written into the PDF, because that is
what a converter sees: `DTSerif` and `DTSerif-Bold` for the text, `.VnTime` for TCVN3 pieces and
`SymbolMT` for the Symbol font's private-use arrows. fontTools adds the code points Noto lacks
(arrows, ≤ ≥, U+F0xx), pointing at a stand-in glyph: the text layer is what the tests read.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

REGULAR = "DTSerif"
BOLD = "DTSerif-Bold"
TCVN3 = ".VnTime"
SYMBOL = "SymbolMT"
_VERSION = "1"  # bump when the font file's making changes


def _font_source() -> Path:
    try:
        import fontpkg_noto_serif
    except ModuleNotFoundError as err:  # pragma: no cover - the pdf-render extra is missing
        raise RuntimeError("render-pdf needs the pdf-render extra: pip install -e '.[pdf-render]'") from err
    return Path(fontpkg_noto_serif.ROOT) / "files" / "NotoSerif[wdth,wght].ttf"


def _make_font(target: Path, extra: str) -> None:
    from fontTools.ttLib import TTFont as FontFile

    font = FontFile(str(_font_source()))
    best = font.getBestCmap()
    stand_in = best[ord("*")]
    for table in font["cmap"].tables:
        if table.isUnicode() and table.format in (4, 12):
            for char in extra:
                table.cmap.setdefault(ord(char), stand_in)
    tmp = target.with_suffix(".tmp")
    font.save(str(tmp))
    tmp.replace(target)


def font_file(extra_chars: str) -> Path:
    """The augmented font file, made once per set of extra characters and cached in the temp dir."""
    import hashlib

    key = hashlib.sha256((_VERSION + "".join(sorted(set(extra_chars)))).encode()).hexdigest()[:12]
    target = Path(tempfile.gettempdir()) / f"duocthu-render-font-{key}.ttf"
    if not target.exists():
        _make_font(target, extra_chars)
    return target


_registered: list[str] = []


def register_fonts(extra_chars: str) -> None:
    """Register the four names with reportlab, over a font that has every character given."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    path = str(font_file(extra_chars))
    if _registered == [path]:
        return
    _registered[:] = [path]
    for name in (REGULAR, BOLD, TCVN3, SYMBOL):
        font = TTFont(name, path)
        font.face.name = name.encode() if isinstance(font.face.name, bytes) else name
        pdfmetrics.registerFont(font)
