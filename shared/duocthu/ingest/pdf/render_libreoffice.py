"""A fourth engine's test book: the formulary as a flat OpenDocument text (.fodt) printed to PDF by
LibreOffice headless (Debian's `libreoffice-writer-nogui`), a word processor's layout engine.

The book is `render_typst.book_data`'s (headings in the printed book's spellings, cases, numbers
and colons, synonyms, bold captions, tables, brand index) in the printed book's layout: roman
front matter, then two page columns on mirrored margins, running heads "90 TITLE … DTQGVN 2" /
"DTQGVN 2 … TITLE 91" (LibreOffice's chapter field), printed page = PDF page + `OFFSET`, justified
text, soft hyphens in long Latin names, tables inside a column with their header row repeated.
Every third monograph sets its headings run-in ("Chỉ định: text…" on one line); with the
`table_break` defect the first table breaks inside a column across a page, its header repeated.
The words are written through `render_text` with the chosen defects, so this book carries the
printed book's text-layer defects from an engine other than the project's own: split syllables,
TCVN3 pieces in a font named `.VnTime`, Symbol private-use code points in `SymbolMT`, NFD.
The truth is read back from the PDF: each section's first and last word is drawn in a renamed copy
of the font ("DTMark"), so the k-th word in that font is the k-th mark (`render_chromium`).
"""

from __future__ import annotations

import copy
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from duocthu.ingest.pdf import render_fonts as fonts
from duocthu.ingest.pdf.render import Truth
from duocthu.ingest.pdf.render_chromium import _parts, _spots
from duocthu.ingest.pdf.render_text import Defects, prose_word
from duocthu.ingest.pdf.render_typst import OFFSET, book_data
from duocthu.ingest.pdf.repair import symbol_table, tcvn3_table
from duocthu.models.source import Monograph

SOFFICE = shutil.which("soffice") or "/usr/bin/soffice"
FRONT_PAGES = 2  # i and ii: the first body page is printed FRONT_PAGES + 1 + OFFSET
RUN_IN_EVERY = 3  # every third monograph sets its headings run-in
# The font families the .fodt names, each a file made from Noto Serif (`_fonts`).
FAMILIES = {fonts.REGULAR: "DTSerif", fonts.TCVN3: ".VnTime", fonts.SYMBOL: "SymbolMT", "mark": "DTMark"}
SOFT = "\u00ad"
COLUMN_BOTTOM = 841.89 - 56.69  # the body pages' text block ends 2 cm above the A4 page's foot


def available() -> bool:
    return Path(SOFFICE).exists()


def _instance(source: Path, family: str, bold: bool, extra: str, target: Path) -> None:
    """A static instance of the variable Noto Serif under its own family name, with the extra code
    points pointing at a stand-in glyph (the text layer is what the converter reads)."""
    from fontTools.ttLib import TTFont
    from fontTools.varLib import instancer

    face = instancer.instantiateVariableFont(TTFont(str(source)), {"wght": 700 if bold else 400, "wdth": 100})
    stand_in = face.getBestCmap()[ord("*")]
    missing = [ch for ch in dict.fromkeys(extra) if ord(ch) not in face.getBestCmap()]
    # each its own copy of the stand-in: a PDF writer maps text back per glyph, not per code point
    order = face.getGlyphOrder()
    names = [f"uni{ord(ch):04X}" for ch in missing]
    face.setGlyphOrder(order + names)
    for name in names:
        face["glyf"][name] = copy.deepcopy(face["glyf"][stand_in])
        face["hmtx"][name] = face["hmtx"][stand_in]
    face["maxp"].numGlyphs = len(order) + len(names)
    # a legacy font's layout: each byte (and its symbol-encoded U+F0xx) draws its TCVN3 letter
    legacy: dict[int, str] = {}
    if family == ".VnTime":
        best, letters = face.getBestCmap(), tcvn3_table()
        for byte in range(0x20, 0x100):
            glyph = best.get(ord(letters.get(chr(byte), chr(byte))))
            if glyph:
                legacy[0xF000 + byte] = glyph
                if chr(byte) in letters:
                    legacy[byte] = glyph
    for table in face["cmap"].tables:
        if table.isUnicode() and table.format in (4, 12):
            for ch, name in zip(missing, names, strict=True):
                table.cmap[ord(ch)] = name
            table.cmap.update(legacy)
    style = "Bold" if bold else "Regular"
    ps_name = f"{family}-Bold" if bold else family
    for record in list(face["name"].names):
        if record.nameID in (1, 16):
            record.string = family
        elif record.nameID in (2, 17):
            record.string = style
        elif record.nameID in (4,):
            record.string = f"{family} {style}"
        elif record.nameID in (6, 25):
            record.string = ps_name
    face["OS/2"].usWeightClass = 700 if bold else 400
    face["OS/2"].fsSelection = (face["OS/2"].fsSelection & ~0b1100001) | (0b100000 if bold else 0b1000000)
    face["head"].macStyle = 1 if bold else 0
    face.save(str(target))


def _fonts(folder: Path) -> None:
    """The book's fonts in a folder fontconfig reads (`$HOME/.fonts`), cached in the temp dir."""
    source = fonts._font_source()
    extra = "".join(tcvn3_table()) + "".join(chr(c) for c in symbol_table()) + "≤≥×°→↓↑"
    cache = Path(tempfile.gettempdir()) / "duocthu-render-lo-fonts-4"
    if not cache.exists():
        work = Path(tempfile.mkdtemp(prefix=cache.name, dir=cache.parent))
        for family in FAMILIES.values():
            for bold in (False, True):
                name = f"{family.lstrip('.')}{'-Bold' if bold else ''}.ttf"
                _instance(source, family, bold, extra, work / name)
        try:
            work.replace(cache)
        except OSError:  # another process made it first
            shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(cache, folder / ".fonts", dirs_exist_ok=True)


STYLES = """
<office:font-face-decls>
 <style:font-face style:name="DTSerif" svg:font-family="DTSerif"/>
 <style:font-face style:name="DTMark" svg:font-family="DTMark"/>
 <style:font-face style:name=".VnTime" svg:font-family=".VnTime"/>
 <style:font-face style:name="SymbolMT" svg:font-family="SymbolMT"/>
</office:font-face-decls>
<office:styles>
 <style:default-style style:family="paragraph">
  <style:paragraph-properties fo:hyphenation-ladder-count="no-limit"/>
  <style:text-properties style:font-name="DTSerif" fo:font-size="9pt" fo:language="vi" fo:country="VN"
   fo:hyphenate="false"/>
 </style:default-style>
 <style:style style:name="Standard" style:family="paragraph"/>
 <style:style style:name="Text" style:family="paragraph">
  <style:paragraph-properties fo:text-align="justify" fo:text-indent="0.42cm" fo:line-height="118%"/>
 </style:style>
 <style:style style:name="Flat" style:family="paragraph" style:parent-style-name="Text">
  <style:paragraph-properties fo:text-indent="0cm"/>
 </style:style>
 <style:style style:name="RunIn" style:family="paragraph" style:parent-style-name="Text">
  <style:paragraph-properties fo:text-indent="0cm" fo:margin-top="0.12cm"/>
 </style:style>
 <style:style style:name="Heading" style:family="paragraph">
  <style:paragraph-properties fo:margin-top="0.15cm" fo:keep-with-next="always"/>
  <style:text-properties fo:font-weight="bold"/>
 </style:style>
 <style:style style:name="Caption" style:family="paragraph" style:parent-style-name="Heading"/>
 <style:style style:name="Title" style:family="paragraph" style:default-outline-level="1">
  <style:paragraph-properties fo:margin-top="0.4cm" fo:margin-bottom="0.1cm" fo:keep-with-next="always"/>
  <style:text-properties fo:font-size="12pt" fo:font-weight="bold"/>
 </style:style>
 <style:style style:name="Cell" style:family="paragraph">
  <style:text-properties fo:font-size="7.5pt"/>
 </style:style>
 <style:style style:name="Head" style:family="paragraph">
  <style:paragraph-properties fo:border-bottom="0.5pt solid #000000" fo:padding-bottom="0.05cm">
   <style:tab-stops>
    <style:tab-stop style:position="8.45cm" style:type="center"/>
    <style:tab-stop style:position="16.9cm" style:type="right"/>
   </style:tab-stops>
  </style:paragraph-properties>
  <style:text-properties fo:font-size="8pt"/>
 </style:style>
 <style:style style:name="Foot" style:family="paragraph">
  <style:paragraph-properties fo:text-align="center"/>
  <style:text-properties fo:font-size="8pt"/>
 </style:style>
 <style:style style:name="Index" style:family="paragraph">
  <style:paragraph-properties fo:margin-left="0.42cm" fo:text-indent="-0.42cm"/>
 </style:style>
 <style:style style:name="IndexTitle" style:family="paragraph">
  <style:paragraph-properties fo:margin-bottom="0.3cm"/>
  <style:text-properties fo:font-size="12pt" fo:font-weight="bold"/>
 </style:style>
</office:styles>
<office:automatic-styles>
 <style:page-layout style:name="LFront">
  <style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" style:num-format="i"
   fo:margin-top="2.2cm" fo:margin-bottom="1.2cm" fo:margin-left="2.6cm" fo:margin-right="2.6cm"/>
  <style:footer-style><style:header-footer-properties fo:min-height="0.6cm" fo:margin-top="0.3cm"/>
  </style:footer-style>
 </style:page-layout>
 <style:page-layout style:name="LBody" style:page-usage="mirrored">
  <style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" style:num-format="1"
   fo:margin-top="1.2cm" fo:margin-bottom="2cm" fo:margin-left="2.6cm" fo:margin-right="1.5cm">
   <style:columns fo:column-count="2" fo:column-gap="0.5cm"/>
  </style:page-layout-properties>
  <style:header-style><style:header-footer-properties fo:min-height="0.6cm" fo:margin-bottom="0.4cm"/>
  </style:header-style>
 </style:page-layout>
 <style:style style:name="PFront" style:family="paragraph" style:parent-style-name="Flat"
  style:master-page-name="Front"/>
 <style:style style:name="PBreak" style:family="paragraph" style:parent-style-name="Flat">
  <style:paragraph-properties fo:break-before="page"/>
 </style:style>
 <style:style style:name="PBody" style:family="paragraph" style:parent-style-name="Title"
  style:master-page-name="Body"><style:paragraph-properties style:page-number="PAGE"/></style:style>
 <style:style style:name="Push" style:family="paragraph" style:parent-style-name="Caption">
  <style:paragraph-properties PUSH/></style:style>
 <style:style style:name="PIndex" style:family="paragraph" style:parent-style-name="IndexTitle">
  <style:paragraph-properties fo:break-before="page"/>
 </style:style>
 <style:style style:name="Tbl" style:family="table">
  <style:table-properties style:width="8.2cm" table:align="margins" fo:margin-top="0.1cm"
   fo:margin-bottom="0.1cm" style:may-break-between-rows="true"/>
 </style:style>
 <style:style style:name="Td" style:family="table-cell">
  <style:table-cell-properties fo:border="0.5pt solid #000000" fo:padding="0.05cm"/>
 </style:style>
 <style:style style:name="B" style:family="text"><style:text-properties fo:font-weight="bold"/>
 </style:style>
 <style:style style:name="M" style:family="text"><style:text-properties style:font-name="DTMark"/>
 </style:style>
 <style:style style:name="V" style:family="text"><style:text-properties style:font-name=".VnTime"/>
 </style:style>
 <style:style style:name="S" style:family="text"><style:text-properties style:font-name="SymbolMT"/>
 </style:style>
</office:automatic-styles>
<office:master-styles>
 <style:master-page style:name="Front" style:page-layout-name="LFront">
  <style:footer><text:p text:style-name="Foot"><text:page-number text:select-page="current"/></text:p>
  </style:footer>
 </style:master-page>
 <style:master-page style:name="Body" style:page-layout-name="LBody">
  <style:header><text:p text:style-name="Head">DTQGVN 2<text:tab/><text:chapter text:display="name"
   text:outline-level="1"/><text:tab/><text:page-number text:select-page="current"/></text:p></style:header>
  <style:header-left><text:p text:style-name="Head"><text:page-number text:select-page="current"/><text:tab/>
   <text:chapter text:display="name" text:outline-level="1"/><text:tab/>DTQGVN 2</text:p></style:header-left>
 </style:master-page>
</office:master-styles>
"""
NS = " ".join(
    f'xmlns:{p}="urn:oasis:names:tc:opendocument:xmlns:{u}"'
    for p, u in (
        ("office", "office:1.0"),
        ("style", "style:1.0"),
        ("text", "text:1.0"),
        ("table", "table:1.0"),
        ("fo", "xsl-fo-compatible:1.0"),
        ("svg", "svg-compatible:1.0"),
        ("meta", "meta:1.0"),
    )
)


class _Writer:
    """The body's XML, every word through `render_text` with the defects; the marks in order."""

    def __init__(self, defects: Defects) -> None:
        self.defects = defects
        self.anchors: list[str] = []
        self.push: str | None = None
        self.tables = 0

    def mark(self, name: str, word: str) -> str:
        self.anchors.append(name)
        return f'<text:span text:style-name="M">{escape(word)}</text:span>'

    def word(self, text: str, latin: bool) -> str:
        out = []
        for piece, font in prose_word(text, self.defects):
            if font == fonts.TCVN3:  # symbol-encoded: TCVN3's ư, U+00AD, is a word processor's soft hyphen
                piece = "".join(chr(0xF000 + ord(c)) for c in piece)
            # a split syllable's space is in the text layer only: the line never breaks there
            piece = piece.replace(" ", "\u00a0")
            style = {fonts.TCVN3: "V", fonts.SYMBOL: "S"}.get(font)
            body = escape(SOFT.join(piece[i : i + 4] for i in range(0, len(piece), 4)) if latin else piece)
            out.append(f'<text:span text:style-name="{style}">{body}</text:span>' if style else body)
        return "".join(out)

    def prose(self, words: list[list[Any]], first: str | None = None, last: str | None = None) -> str:
        out = []
        for n, (text, latin) in enumerate(words):
            if n == 0 and first:
                out.append(self.mark(first, str(text)))
            elif n == len(words) - 1 and last:
                out.append(self.mark(last, str(text)))
            else:
                out.append(self.word(str(text), bool(latin)))
        return " ".join(out)

    def heading(self, text: str, start: str) -> str:
        head, _, tail = text.partition(" ")
        return self.mark(start, head) + (f" {escape(tail)}" if tail else "")


def _p(style: str, content: str) -> str:
    return f'<text:p text:style-name="{style}">{content}</text:p>'


def _body(
    data: dict[str, Any], defects: Defects, pages: dict[str, int], push: str | None = None
) -> tuple[str, list[str]]:
    """The body's XML and its marks; `push` is the first table caption's extra paragraph properties
    (`_break_first_table`)."""
    w = _Writer(defects)
    w.push = push
    out = [f'<text:p text:style-name="PFront">{escape(data["front"][0])}</text:p>']
    out += [f'<text:p text:style-name="Flat">{escape(p)}</text:p>' for p in data["front"][1:]]
    out += [f'<text:p text:style-name="PBreak">{escape(data["abbreviations"][0])}</text:p>']
    out += [f'<text:p text:style-name="Flat">{escape(p)}</text:p>' for p in data["abbreviations"][1:]]
    for n, mono in enumerate(data["monographs"]):
        mid = mono["id"]
        synonym = f" ({escape(mono['synonym'])})" if mono["synonym"] else ""
        style = "PBody" if n == 0 else "Title"
        title = w.heading(mono["title"], f"s--{mid}--_title")
        out.append(f'<text:h text:style-name="{style}" text:outline-level="1">{title}{synonym}</text:h>')
        run_in = RUN_IN_EVERY > 0 and n % RUN_IN_EVERY == 1
        for section in mono["sections"]:
            start, end = f"s--{mid}--{section['key']}", f"e--{mid}--{section['key']}"
            blocks = section["blocks"]
            if section["identity"] or (run_in and blocks[0]["kind"] == "prose"):
                label = section["heading"].rstrip(":") + ":"
                text = w.prose(blocks[0]["words"], last=end if len(blocks) == 1 else None)
                lead = f'<text:span text:style-name="B">{w.heading(label, start)}</text:span>'
                out.append(_p("Flat" if section["identity"] else "RunIn", f"{lead} {text}"))
                blocks = blocks[1:]
            else:
                out.append(_p("Heading", w.heading(section["heading"], start)))
            for k, block in enumerate(blocks):
                last = k == len(blocks) - 1
                if block["kind"] == "table":
                    out.append(_table(w, block, end if last else None))
                else:
                    out.append(_p("Text", w.prose(block["words"], last=end if last else None)))
    out.append('<text:p text:style-name="PIndex">MỤC LỤC TRA CỨU</text:p>')
    for entry in data["index"]:
        page = pages.get(entry["id"], 0)
        line = f"{entry['brand']} - {entry['generic']}, {page}"
        out.append(f'<text:p text:style-name="Index">{escape(line)}</text:p>')
    return "\n".join(out), w.anchors


def _table(w: _Writer, block: dict[str, Any], end: str | None) -> str:
    head, *rows = block["rows"]
    w.tables += 1

    def row(cells: list[str], mark: str | None) -> str:
        tds = []
        for c, cell in enumerate(cells):
            text = escape(cell)
            if mark and c == len(cells) - 1:
                before, _, word = cell.rpartition(" ")
                text = (escape(before) + " " if before else "") + w.mark(mark, word)
            tds.append(f'<table:table-cell table:style-name="Td">{_p("Cell", text)}</table:table-cell>')
        return "<table:table-row>" + "".join(tds) + "</table:table-row>"

    columns = f'<table:table-column table:number-columns-repeated="{len(head)}"/>'
    body = "".join(row(r, end if i == len(rows) - 1 else None) for i, r in enumerate(rows))
    return (
        _p("Push" if w.tables == 1 and w.push else "Caption", escape(block["caption"]))
        + f'<table:table table:name="T{len(w.anchors)}" table:style-name="Tbl">{columns}'
        f"<table:table-header-rows>{row(head, None)}</table:table-header-rows>{body}</table:table>"
    )


def _document(data: dict[str, Any], body: str, push: str | None = None) -> str:
    title, subject = escape(data["title"]), escape(data["subject"])
    meta = f"<office:meta><dc:title>{title}</dc:title><dc:subject>{subject}</dc:subject></office:meta>"
    styles = STYLES.replace("PAGE", str(FRONT_PAGES + 1 + OFFSET)).replace("PUSH", push or "")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<office:document {NS} xmlns:dc="http://purl.org/dc/elements/1.1/" '
        f'office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">{meta}{styles}'
        f"<office:body><office:text>{body}</office:text></office:body></office:document>"
    )


def _print(document: str, out: Path, folder: Path) -> None:
    source = folder / "book.fodt"
    source.write_text(document, encoding="utf-8")
    env = {**os.environ, "HOME": str(folder), "SAL_USE_VCLPLUGIN": "svp"}
    subprocess.run(
        [
            SOFFICE,
            "--headless",
            "--norestore",
            f"-env:UserInstallation={(folder / 'profile').as_uri()}",
            "--convert-to",
            "pdf:writer_pdf_Export",
            "--outdir",
            str(folder / "out"),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=300,
        env=env,
    )
    shutil.move(folder / "out" / "book.pdf", out)


def _marked_words(pdf_path: Path) -> list[int]:
    """The PDF page of each word drawn in the mark font, in page order; a marked word broken at
    its hyphen over two lines is one mark (a word processor has no unbreakable span)."""
    import pdfplumber

    out: list[int] = []
    with pdfplumber.open(str(pdf_path)) as pdf:
        for n, page in enumerate(pdf.pages, 1):
            broken = False
            for w in page.extract_words(extra_attrs=["fontname"]):
                if "DTMark" in w["fontname"]:
                    if not broken:
                        out.append(n)
                    broken = w["text"].endswith("-")
            page.flush_cache()
    return out


def _table_spot(pdf_path: Path, number: int) -> tuple[str, float | None] | None:
    """Where table N landed: its column ("L" or "R") and the bottom of its first body row when the
    table starts on that page (None when it is already broken)."""
    import pdfplumber

    with pdfplumber.open(str(pdf_path)) as pdf:
        for page in pdf.pages:
            words = page.extract_words()
            for k, word in enumerate(words[:-1]):
                if word["text"] == "Bảng" and words[k + 1]["text"] == f"{number}:":
                    side = "R" if word["x0"] > page.width / 3 else "L"
                    grids = [t for t in page.find_tables() if t.bbox[1] > word["top"]]
                    rows = grids[0].rows if grids else []
                    return side, (float(rows[1].bbox[3]) if len(rows) > 2 else None)
    return None


def _break_first_table(data: dict[str, Any], defects: Defects, folder: Path) -> str | None:
    """The `table_break` defect in a word processor's book: the first table moved to the foot of
    a right-hand column, so that it breaks onto the next page after one row, its header repeated
    by LibreOffice. Found by printing: a column break puts it in a right column, then a top margin
    leaves room for its caption, header and first row only."""
    push: str | None = None
    for _ in range(3):
        pdf = folder / "probe.pdf"
        _print(_document(data, _body(data, Defects(on=defects.on), {}, push)[0], push), pdf, folder)
        spot = _table_spot(pdf, 1)
        if spot is None or (push and "margin-top" in push):
            return push
        side, row_bottom = spot
        if side == "L":
            push = 'fo:break-before="column"'
        elif row_bottom is not None:
            room = COLUMN_BOTTOM - row_bottom - 4.0  # the second row (over 4 pt high) no longer fits
            push = f'{push or ""} fo:margin-top="{4.25 + room:.1f}pt"'
    return push


def render_libreoffice(records: list[Monograph], out: Path, defects: Defects | None = None) -> Truth:
    """Print the records' book with LibreOffice into `out`; the truth comes from the marked words."""
    data = book_data(records)
    data["title"] = data["title"].replace("typst", "LibreOffice")
    on = Defects(on=(defects or Defects()).on)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _fonts(folder)
        push = _break_first_table(data, on, folder) if "table_break" in on.on else None
        body, anchors = _body(data, Defects(on=on.on), {}, push)
        _print(_document(data, body, push), folder / "first.pdf", folder)
        spots = _spots(anchors, _marked_words(folder / "first.pdf"))
        starts = {drug: spots[a] + OFFSET for a, (_, drug, key) in _parts(anchors) if key == "_title"}
        body, anchors = _body(data, Defects(on=on.on), starts, push)
        _print(_document(data, body, push), folder / "book.pdf", folder)
        spots = _spots(anchors, _marked_words(folder / "book.pdf"))
        shutil.copyfile(folder / "book.pdf", out)
    truth = Truth()
    for anchor, (_, drug, key) in _parts(anchors):  # in document order: a section's start, then its end
        truth.pages.setdefault((drug, key), []).append((spots[anchor] + OFFSET, spots[anchor]))
    return truth
