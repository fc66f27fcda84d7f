"""A fifth engine's test book: the formulary typeset by LuaLaTeX (Debian's `texlive-luatex` and
`texlive-latex-recommended`), TeX's line breaker and page builder.

The book is `render_typst.book_data`'s (headings in the printed book's spellings, cases, numbers and
colons, synonyms, bold captions, tables inside a column printed without rules, trade names) in the
printed book's layout: roman front matter (footer centred), then page columns (multicol: two, or
three) on mirrored margins, running heads "90 Aciclovir … DTQGVN 2" / "DTQGVN 2 … Aciclovir 91"
over a rule, printed page = PDF page + `OFFSET`, justified text where only long Latin names are
hyphenated (by TeX's English patterns; Vietnamese words never) and hard hyphens break where TeX
breaks them, paragraphs indented or flush left, group monographs and monographs of one form under
a descriptor line (`group_records`), one title left alone at a page's foot, an ATC appendix ("PHỤ
LỤC", code and drug a line) and a brand index whose pages come from `\\pageref`. Every prose word
carries the chosen text-layer defects (`render_text.prose_word`). The fonts are the static Noto
Serif instances of the LibreOffice book, so bold is a font of its own. The truth: each section's
first and last line and each title writes a mark at shipout (drug, key, printed page, PDF page, x
position), read back from the file TeX writes, not from the converter.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

from duocthu.ingest.pdf import render_fonts as fonts
from duocthu.ingest.pdf.render import TITLE_MARK, Truth
from duocthu.ingest.pdf.render_libreoffice import _fonts
from duocthu.ingest.pdf.render_text import Defects, prose_word
from duocthu.ingest.pdf.render_typst import OFFSET, book_data
from duocthu.models.source import Monograph, slugify

LUALATEX = shutil.which("lualatex") or "/usr/bin/lualatex"
FRONT_PAGES = 4  # i-iv: the first body page is printed FRONT_PAGES + 1 + OFFSET
_ESCAPES = {c: "\\" + c for c in "&%$#_{}"}
_ESCAPES |= {"~": r"\textasciitilde{}", "^": r"\^{}", "\\": r"\textbackslash{}"}
# a line may break after a dash or a slash, as a typesetter lets it: a long compound in a narrow
# column ("renin–angiotensin–aldosteron") would otherwise run over into the next column
_ESCAPES |= {"–": r"–\allowbreak{}", "/": r"/\allowbreak{}"}

PREAMBLE = r"""
\documentclass[10pt,twoside]{article}
\usepackage[a4paper,inner=2.6cm,outer=1.5cm,top=2.4cm,bottom=2.2cm,headsep=0.5cm]{geometry}
\usepackage{fontspec,multicol,tabularx,array}
\usepackage[hidelinks,pdfusetitle]{hyperref}
\setmainfont{DTSerif.ttf}[Path=./.fonts/,BoldFont=DTSerif-Bold.ttf]
% TCVN3 pieces: the PDF names the font .VnTime; drawn without luaotfload's OpenType processing,
% which takes TCVN3's slot of ư, U+00AD, for a soft hyphen (the space glyph, no advance)
\newfontfamily\vntime{VnTime.ttf}[Path=./.fonts/,Renderer=Base]
\newfontfamily\symbolmt{SymbolMT.ttf}[Path=./.fonts/]% the Symbol font's private-use arrows
\directlua{dofile("dtfonts.lua")}
% NFD text drawn mark by mark (no composition by the font's features), as a writer that does not
% compose leaves it in the text layer
\newcommand\nfd[1]{{\addfontfeature{Renderer=Base}#1}}
\newlanguage\novihyph % Vietnamese words: a language without patterns, never hyphenated
\AtBeginDocument{\language\novihyph}
\newcommand\latin[1]{{\language0 #1}}% long Latin names: TeX's English patterns
\setlength\columnsep{14pt}
\setlength\parindent{1.2em}
\setlength\parskip{0pt}
\raggedbottom
\tolerance=3000 \emergencystretch=3em
\renewcommand\normalsize{\fontsize{9}{11}\selectfont}
\makeatletter
\newwrite\dtmarks \immediate\openout\dtmarks=\jobname.marks
\newcommand\mk[2]{\savepos% where it lands: its page's column
  \write\dtmarks{#1 #2 \the\c@page\space\the\ReadonlyShipoutCounter\space\the\lastxpos}}
\def\dthead#1{\vbox{\hbox to\textwidth{\fontsize{8}{9}\selectfont #1}\vskip2pt\hrule}}
\def\ps@front{\def\@oddhead{}\def\@evenhead{}%
  \def\@oddfoot{\hfil\fontsize{8}{9}\selectfont\thepage\hfil}\let\@evenfoot\@oddfoot}
\def\ps@body{\def\@oddfoot{}\def\@evenfoot{}%
  \def\@evenhead{\dthead{\thepage\hspace{1.5em}\rightmark\hfil DTQGVN 2}}%
  \def\@oddhead{\dthead{DTQGVN 2\hfil\rightmark\hspace{1.5em}\thepage}}}
\makeatother
% titles and headings ragged right: a long one wraps in a narrow column instead of overrunning it
\newcommand\dttitle[3]{\par\addvspace{1.2em}{\raggedright\noindent\markright{#2}#3%
  {\fontsize{12}{14}\selectfont\bfseries #1}\par}\nopagebreak\addvspace{0.4em}}
% a title left alone at the foot of a page's last column, its body on the next page
\newcommand\dtfoottitle[3]{\par\vfill{\raggedright\noindent\markright{#2}#3%
  {\fontsize{12}{14}\selectfont\bfseries #1}\par}}
\newcommand\dtdescriptor[1]{{\raggedright\noindent #1\par}\nopagebreak\addvspace{0.4em}}
\newcommand\dtheading[1]{\par\addvspace{0.6em}{\raggedright\noindent{\bfseries #1}\par}\nopagebreak}
"""


# The legacy fonts' text layer is their code points as such: luaotfload maps a private-use glyph to
# U+FFFD and nothing maps a glyph slot of a TCVN3 font to a letter, as the printed book's PDF has it.
IDENTITY_TO_UNICODE = """
luatexbase.add_to_callback("luaotfload.patch_font", function(tfmdata)
  local name = tfmdata.psname or ""
  if name:find("VnTime", 1, true) or name:find("SymbolMT", 1, true) then
    for code, char in pairs(tfmdata.characters) do
      if type(code) == "number" and code > 127 then char.tounicode = string.format("%04X", code) end
    end
  end
end, "duocthu.identity_tounicode")
"""


def available() -> bool:
    return Path(LUALATEX).exists()


def _tex(text: str) -> str:
    return "".join(_ESCAPES.get(c, c) for c in text)


# the font a segment of `render_text.prose_word` is drawn in; a legacy font's code points are
# glyph slots, not letters, so each is written by number (TeX's input handling never sees them)
_FONTS = {fonts.TCVN3: r"\vntime", fonts.SYMBOL: r"\symbolmt"}


def _segment(text: str, font: str) -> str:
    if font not in _FONTS:
        tex = "~".join(_tex(part) for part in text.split(" "))  # a split syllable never breaks a line
        return tex if unicodedata.is_normalized("NFC", text) else r"\nfd{" + tex + "}"
    chars = "".join(c if c.isascii() else f'\\char"{ord(c):04X} ' for c in text)
    return "{" + _FONTS[font] + " " + chars + "}"


def _prose(words: list[list[Any]], defects: Defects) -> str:
    """Running text, each word written through `render_text.prose_word` with the book's
    text-layer defects (split syllables, TCVN3 pieces, Symbol code points, NFD)."""
    out = []
    for w, latin in words:
        segments = prose_word(w, defects)
        text = "".join(_segment(t, f) for t, f in segments)
        out.append(r"\latin{" + text + "}" if latin else text)
    return " ".join(out)


def _table(block: dict[str, Any], end: str) -> str:
    """A table in the column, printed without rules: the odd-numbered ones with none at all and no
    caption (their title a line of text, no "Bảng N"), the others with horizontal rules only (over
    and under the header, under the last row) under their caption."""
    rows = block["rows"]
    ruled = int(block["caption"].split()[1].rstrip(":")) % 2 == 0
    top, under_header, bottom = (r"\hline", r"\hline", r"\hline") if ruled else ("", "", "")
    spec = r"@{}" + "".join([r">{\raggedright\arraybackslash}X"] * len(rows[0])) + r"@{}"
    title = (
        r"{\bfseries " + _tex(block["caption"]) + "}" if ruled else _tex(block["caption"].split(": ", 1)[1])
    )
    lines = [
        r"\par\addvspace{0.5em}\noindent " + title + r"\par\nopagebreak",
        r"\noindent{\fontsize{7.5}{9}\selectfont\begin{tabularx}{\linewidth}{" + spec + "}" + top,
        " & ".join(r"\textbf{" + _tex(c) + "}" for c in rows[0]) + r"\\" + under_header,
    ]
    for n, row in enumerate(rows[1:], 2):
        cells = [_tex(c) for c in row]
        if n == len(rows):
            cells[-1] += end
        lines.append(" & ".join(cells) + r"\\" + (bottom if n == len(rows) else ""))
    lines.append(r"\end{tabularx}}\par\addvspace{0.3em}")
    return "\n".join(lines)


def _bold_split(text: str) -> str:
    """Bold text whose accented letters come from the regular font (the printed book's text layer:
    "bold broken mid-word"); the text stays the same."""
    return "".join(c if c.isascii() else r"\textmd{" + c + "}" for c in _tex(text))


def _monograph(m: dict[str, Any], run_in: bool, split: bool, defects: Defects, foot: bool = False) -> str:
    """One monograph; `run_in`: its headings set on the line of their first text, in the text's
    own weight ("Chỉ định: Nhiễm …"); `split`: the bold-split defect on its title and headings;
    `foot`: its title alone at the foot of the page's last column. A descriptor in the title ("X
    (dùng đường uống)") is printed on a line of its own under it, in the text's size and weight."""
    bold = _bold_split if split else _tex
    out: list[str] = []
    name, _, descriptor = m["title"].partition(" (")
    title = bold(name) + (f" ({_tex(m['synonym'])})" if m["synonym"] else "")
    command = r"\dtfoottitle" if foot else r"\dttitle"
    out.append(
        rf"{command}{{{title}}}{{{_tex(m['running'])}}}{{\label{{m-{m['id']}}}\mk{{{m['id']}}}{{{TITLE_MARK}}}}}"
    )
    if descriptor:
        out.append(rf"\dtdescriptor{{({_tex(descriptor[:1].upper() + descriptor[1:].lower())}}}")
    if foot:
        out.append(r"\columnbreak")
    for s in m["sections"]:
        start, end = rf"\mk{{{m['id']}}}{{{s['key']}}}", rf"\mk{{{m['id']}}}{{{s['key']}}}"
        if s["identity"]:
            words = _prose(s["blocks"][0]["words"], defects)
            out.append(rf"\noindent{start}\textbf{{{bold(s['heading'])}:}} {words}{end}\par")
            continue
        last = len(s["blocks"]) - 1
        label = _tex(s["heading"].rstrip(":"))
        for i, b in enumerate(s["blocks"]):
            close = end if i == last else ""
            text = _table(b, close) if b["kind"] == "table" else _prose(b["words"], defects) + close + r"\par"
            if i == 0 and run_in and b["kind"] != "table":
                out.append(rf"\par\addvspace{{0.4em}}\noindent{start}{label}: {text}")
                continue
            if i == 0:
                out.append(rf"\dtheading{{{start}{bold(s['heading'])}}}")
            out.append(text)
    return "\n".join(out)


GROUP_EVERY = 10  # every tenth monograph (from the 6th) is printed as a group monograph
SALT = "natri"


DESCRIPTOR = "dùng đường uống"  # every tenth monograph (from the 4th) is one form of its drug


def group_records(records: list[Monograph]) -> list[Monograph]:
    """The records with some made group monographs: one heading for a drug and its salt ("X VÀ X
    NATRI"), its brands cited in the index under the salt; the title (and so the id) is the group's.
    Some others are one form of their drug, the printed book's separate monographs under a
    descriptor line ("BUDESONID" / "(Dùng trong hô hấp)"): "X (dùng đường uống)" is title and id."""
    out = []
    for n, record in enumerate(records):
        title = record.title
        if n % GROUP_EVERY == 5:
            title = f"{record.title} và {record.title.lower()} {SALT}"
        elif n % GROUP_EVERY == 3:
            title = f"{record.title} ({DESCRIPTOR})"
        if title != record.title:
            record = record.model_copy(update={"title": title, "drug_id": slugify(title)})
        out.append(record)
    return out


def _appendix(records: list[Monograph]) -> str:
    """The ATC appendix: each code with the drug it names, in code order (the printed book's)."""
    pairs = sorted((code, r.title) for r in records for code in r.atc_codes)
    lines = [r"\noindent " + _tex(code) + r"\quad " + _tex(title) + r"\par" for code, title in pairs]
    return "\n".join(lines)


RUN_IN_EVERY = 3  # every third monograph sets its headings run-in, not bold
SPLIT_EVERY = 2  # with the bold_split defect, every second monograph's bold lines are split


def document(
    records: list[Monograph],
    columns: int = 2,
    defects: Defects | None = None,
    indent: bool = True,
    foot: str | None = None,
) -> str:
    """The book's source; `indent`: paragraphs start indented, else flush left (no other mark);
    `foot`: the monograph whose title is left alone at a page's foot."""
    data = book_data(records)
    chosen = defects or Defects()
    defects = Defects(on=chosen.on, every=dict(chosen.every))  # counted afresh: each run the same
    split = "bold_split" in defects.on
    for entry in data["index"]:  # a group monograph's brands are cited under its last member
        if " và " in entry["generic"]:
            entry["generic"] = entry["generic"].split(" và ")[-1].capitalize()
    front = "\n\n".join(_tex(p) for p in data["front"])
    abbreviations = "\n\n".join(r"\noindent " + _tex(p) for p in data["abbreviations"])
    index = "\n".join(
        rf"\noindent\hangindent=1.2em {_tex(e['brand'])} - {_tex(e['generic'])}, \pageref{{m-{e['id']}}}\par"
        for e in data["index"]
    )
    monographs = "\n".join(
        _monograph(m, n % RUN_IN_EVERY == 1, split and n % SPLIT_EVERY == 0, defects, m["id"] == foot)
        for n, m in enumerate(data["monographs"])
    )
    big = r"\begin{center}\fontsize{13}{16}\selectfont\bfseries "
    return "\n".join(
        [
            PREAMBLE,
            "" if indent else r"\setlength\parindent{0pt}",
            rf"\hypersetup{{pdftitle={{{_tex(data['title'])}}},pdfsubject={{{_tex(data['subject'])}}}}}",
            r"\begin{document}",
            r"\pagestyle{front}\pagenumbering{roman}",
            rf"\begin{{center}}\fontsize{{18}}{{22}}\selectfont\bfseries {_tex(data['title'].upper())}",
            r"\end{center}",
            r"\clearpage\null\clearpage",
            big + r"LỜI GIỚI THIỆU\end{center}",
            front,
            r"\clearpage",
            big + r"CHỮ VIẾT TẮT\end{center}",
            abbreviations,
            r"\clearpage\pagestyle{body}\pagenumbering{arabic}",
            rf"\setcounter{{page}}{{{FRONT_PAGES + 1 + OFFSET}}}",
            rf"\begin{{multicols}}{{{columns}}}",
            monographs,
            r"\end{multicols}\clearpage\markright{Phụ lục}",
            rf"\begin{{multicols}}{{{columns}}}[{big}PHỤ LỤC: MÃ ATC\end{{center}}]",
            _appendix(records),
            r"\end{multicols}\clearpage\markright{Mục lục tra cứu}",
            rf"\begin{{multicols}}{{{columns}}}[{big}MỤC LỤC TRA CỨU\end{{center}}]",
            index,
            r"\end{multicols}",
            r"\end{document}",
        ]
    )


def _lualatex(folder: Path) -> list[list[str]]:
    """One LuaLaTeX run; the marks it wrote (drug, key, printed page, PDF page, x in sp)."""
    run = subprocess.run(
        [LUALATEX, "-interaction=nonstopmode", "-halt-on-error", "book.tex"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if run.returncode != 0:
        raise RuntimeError(f"lualatex failed: {run.stdout[-2000:]}")
    return [m.split() for m in (folder / "book.marks").read_text(encoding="utf-8").split("\n") if m]


FOOT_FROM = 2  # the first title in a page's last column from the third monograph on goes to its foot
A4_WIDTH, INNER, OUTER = 595.276, 2.6 * 28.3465, 1.5 * 28.3465  # the geometry of PREAMBLE, in pt


def _foot_title(marks: list[list[str]], records: list[Monograph], columns: int) -> str | None:
    """A monograph whose title the first run set in a page's last column: its title is then pushed
    to that column's foot and its body to the next page (what comes before it does not move)."""
    width = A4_WIDTH - INNER - OUTER
    ids = [r.drug_id for r in records[FOOT_FROM:-1]]
    for drug, key, printed, _, x in marks:
        left = INNER if int(printed) % 2 else OUTER  # twoside: odd pages have the inner margin left
        if key == TITLE_MARK and drug in ids and int(x) / 65536 > left + width * (columns - 1) / columns:
            return drug
    return None


def render_latex(
    records: list[Monograph], out: Path, columns: int = 2, defects: Defects | None = None, indent: bool = True
) -> Truth:
    """Typeset the records with LuaLaTeX into `out`: a first run finds a title to leave at a page's
    foot, two more (the brand index's page references) set the book; the truth is the marks TeX
    wrote at shipout."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _fonts(folder)
        (folder / "dtfonts.lua").write_text(IDENTITY_TO_UNICODE, encoding="utf-8")
        (folder / "book.tex").write_text(document(records, columns, defects, indent), encoding="utf-8")
        foot = _foot_title(_lualatex(folder), records, columns)
        (folder / "book.tex").write_text(document(records, columns, defects, indent, foot), encoding="utf-8")
        _lualatex(folder)
        marks = _lualatex(folder)
        shutil.copyfile(folder / "book.pdf", out)
    truth = Truth()
    for drug, key, printed, page, _ in marks:  # in document order: a section's start, then its end
        truth.pages.setdefault((drug, key), []).append((int(printed), int(page)))
    return truth
