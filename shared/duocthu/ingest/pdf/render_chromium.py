"""A third engine's test book: the formulary as an HTML page printed to PDF by Debian's Chromium
(`/usr/bin/chromium --headless --print-to-pdf`), a browser's layout engine rather than a typesetter.

The book is `render_typst.book_data`'s (the same headings in other spellings, cases, numbers and
colons, synonyms, bold captions, tables, brand index) laid out by CSS: two columns
(`column-count`) on mirrored margins (`@page :left` / `:right`), "DTQGVN 2" and the page number in
the page-margin boxes at the top, soft hyphens in long Latin names (Chromium hyphenates there),
tables inside a column with their header row repeated. Chromium has no running string for the
drug's name and no roman front matter: the printed page is the PDF page. The truth is read back
from the PDF itself: every section's first and last line carry an anchor, a 1-pixel link to each
makes Chromium write it as a named destination, and its page is where the section landed; the
brand index's pages come from a first printing.
"""

from __future__ import annotations

import html
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from duocthu.ingest.pdf.render import Truth
from duocthu.ingest.pdf.render_typst import book_data
from duocthu.models.source import Monograph

CHROMIUM = "/usr/bin/chromium"
CSS = """
@page { size: A4; margin: 2.2cm 1.5cm 2cm 2.6cm; }
@page :left { margin-left: 1.5cm; margin-right: 2.6cm;
  @top-left { content: counter(page); font: 8pt 'Noto Serif'; }
  @top-right { content: "DTQGVN 2"; font: 8pt 'Noto Serif'; } }
@page :right { margin-left: 2.6cm; margin-right: 1.5cm;
  @top-left { content: "DTQGVN 2"; font: 8pt 'Noto Serif'; }
  @top-right { content: counter(page); font: 8pt 'Noto Serif'; } }
@font-face { font-family: 'Noto Serif'; src: url('FONT'); font-weight: 100 900; }
@font-face { font-family: 'DT Mark'; src: url('MARK'); font-weight: 100 900; }
.m { font-family: 'DT Mark'; white-space: nowrap; }
body { font-family: 'Noto Serif'; font-size: 9pt; line-height: 1.3; margin: 0; }
.cols { column-count: 2; column-gap: 14pt; text-align: justify; }
p { margin: 0; text-indent: 1.2em; }
p.flat, p.h, p.t, p.cap, p.ix { text-indent: 0; text-align: left; }
p.t { font-size: 12pt; font-weight: bold; margin-top: 1.2em; break-after: avoid; }
p.h { font-weight: bold; margin-top: 0.6em; break-after: avoid; }
p.cap { font-weight: bold; margin-top: 0.4em; break-after: avoid; }
p.ix { padding-left: 1.2em; text-indent: -1.2em; }
table { border-collapse: collapse; font-size: 7.5pt; margin: 2pt 0; width: 100%; }
td, th { border: 0.4pt solid black; padding: 2pt; text-align: left; vertical-align: top; }
th { font-weight: bold; }
h1 { column-span: all; text-align: center; font-size: 12pt; break-before: page; margin: 0 0 1em; }
"""


def available() -> bool:
    return Path(CHROMIUM).exists()


def _soft(word: str, latin: bool) -> str:
    """A long Latin name gets soft hyphens every 4 letters: where Chromium may break it."""
    text = html.escape(word)
    if not latin:
        return text
    return "\u00ad".join(word[i : i + 4] for i in range(0, len(word), 4))


def _prose(words: list[list[Any]]) -> str:
    return " ".join(_soft(str(w), bool(latin)) for w, latin in words)


def _html(data: dict[str, Any], font: str, pages: dict[str, int]) -> tuple[str, list[str]]:
    """The book's HTML; an anchor wraps each section's first and last word (an empty element's
    destination may be left on the page before a break)."""
    anchors: list[str] = []

    def mark(name: str, word: str) -> str:
        anchors.append(name)
        return f'<span class="m">{word.replace(chr(0xAD), "")}</span>'

    def first_word(text: str, name: str) -> str:
        head, _, tail = text.partition(" ")
        return f"{mark(name, head)} {tail}" if tail else mark(name, head)

    def last_word(text: str, name: str) -> str:
        head, _, tail = text.rpartition(" ")
        return f"{head} {mark(name, tail)}" if head else mark(name, tail)

    out = ['<div class="cols">']
    for mono in data["monographs"]:
        mid = mono["id"]
        synonym = f" ({html.escape(mono['synonym'])})" if mono["synonym"] else ""
        title = first_word(html.escape(mono["title"]), f"s--{mid}--_title")
        out.append(f'<p class="t">{title}{synonym}</p>')
        for section in mono["sections"]:
            start, end = f"s--{mid}--{section['key']}", f"e--{mid}--{section['key']}"
            heading = html.escape(section["heading"])
            if section["identity"]:
                text = last_word(_prose(section["blocks"][0]["words"]), end)
                out.append(f'<p class="flat"><b>{first_word(heading + ":", start)}</b> {text}</p>')
                continue
            out.append(f'<p class="h">{first_word(heading, start)}</p>')
            for n, block in enumerate(section["blocks"]):
                last = n == len(section["blocks"]) - 1
                if block["kind"] == "table":
                    head, *rows = block["rows"]
                    cells = "".join(f"<th>{html.escape(c)}</th>" for c in head)
                    body = []
                    for r, row in enumerate(rows):
                        tds = [html.escape(c) for c in row]
                        if last and r == len(rows) - 1:
                            tds[-1] = last_word(tds[-1], end)
                        body.append("<tr>" + "".join(f"<td>{c}</td>" for c in tds) + "</tr>")
                    out.append(f'<p class="cap">{html.escape(block["caption"])}</p>')
                    out.append(
                        f"<table><thead><tr>{cells}</tr></thead><tbody>{''.join(body)}</tbody></table>"
                    )
                else:
                    text = _prose(block["words"])
                    out.append(f"<p>{last_word(text, end) if last else text}</p>")
    out.append("</div>")
    out.append('<div class="cols"><h1>MỤC LỤC TRA CỨU</h1>')
    for entry in data["index"]:
        page = pages.get(entry["id"], 0)
        out.append(
            f'<p class="ix">{html.escape(entry["brand"])} - {html.escape(entry["generic"])}, {page}</p>'
        )
    out.append("</div>")
    css = CSS.replace("FONT", Path(font).as_uri()).replace("MARK", _mark_font(font).as_uri())
    head = f'<head><meta charset="utf-8"><style>{css}</style></head>'
    return f'<html lang="vi">{head}<body>{"".join(out)}</body></html>', anchors


def _print(page: str, out: Path, folder: Path) -> None:
    source = folder / "book.html"
    source.write_text(page, encoding="utf-8")
    subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={folder / 'profile'}",
            "--no-pdf-header-footer",
            f"--print-to-pdf={out}",
            source.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=180,
    )


def _mark_font(font: str) -> Path:
    """Noto Serif renamed "DTMark": the words of the section marks are drawn in it, so the PDF says
    which words they are (its text is the same)."""
    from fontTools.ttLib import TTFont

    target = Path(tempfile.gettempdir()) / "duocthu-render-mark-1.ttf"
    if not target.exists():
        face = TTFont(font)
        for record in face["name"].names:
            if record.nameID in (1, 4, 6, 16, 25):
                record.string = "DTMark"
        face.save(str(target))
    return target


def _marked_words(pdf_path: Path) -> list[int]:
    """The PDF page of each word drawn in the mark font, in page order."""
    import pdfplumber

    out: list[int] = []
    with pdfplumber.open(str(pdf_path)) as pdf:
        for n, page in enumerate(pdf.pages, 1):
            words = page.extract_words(extra_attrs=["fontname"], keep_blank_chars=False, use_text_flow=False)
            out += [n for w in words if "DTMark" in w["fontname"]]
            page.flush_cache()
    return out


def render_chromium(records: list[Monograph], out: Path) -> Truth:
    """Print the records' book with Chromium into `out`; the truth comes from its destinations."""
    from duocthu.ingest.pdf.render_fonts import _font_source

    data = book_data(records)
    font = str(_font_source())
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        page, anchors = _html(data, font, {})
        _print(page, folder / "first.pdf", folder)
        spots = _spots(anchors, _marked_words(folder / "first.pdf"))
        starts = {drug: spots[a] for a, (_, drug, key) in _parts(anchors) if key == "_title"}
        page, anchors = _html(data, font, starts)
        _print(page, folder / "book.pdf", folder)
        spots = _spots(anchors, _marked_words(folder / "book.pdf"))
        shutil.copyfile(folder / "book.pdf", out)
    truth = Truth()
    for anchor, (_, drug, key) in _parts(anchors):  # in document order: a section's start, then its end
        truth.pages.setdefault((drug, key), []).append((spots[anchor], spots[anchor]))
    return truth


def _parts(anchors: list[str]) -> list[tuple[str, tuple[str, str, str]]]:
    return [(a, (a.split("--")[0], a.split("--")[1], a.split("--")[2])) for a in anchors]


def _spots(anchors: list[str], pages: list[int]) -> dict[str, int]:
    """Each mark's page: the marks are one word each, drawn in order, so the k-th marked word of
    the PDF (pages in order) is the k-th mark."""
    if len(pages) != len(anchors):
        raise RuntimeError(f"chromium book: {len(pages)} marked words for {len(anchors)} marks")
    return dict(zip(anchors, pages, strict=True))
