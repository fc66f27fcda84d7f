"""Lines in reading order -> monographs in the source format, with every problem reported.

The drug and the section being read are state carried across columns and pages. A title counts
only when identity lines follow; a bold line is a heading only when the heading table places it;
anything it cannot place is a Problem with its page and line, never merged into the section
before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from duocthu.core.sections import SECTION_HEADINGS, SECTION_ORDER
from duocthu.core.text import fold
from duocthu.ingest.pdf.layout import Line
from duocthu.ingest.pdf.repair import BREAK, join_lines

IDENTITY_LABELS = {
    "ten chung quoc te": "ten_chung_quoc_te",
    "ma atc": "ma_atc",
    "ma act": "ma_atc",  # misprinted once in the book
    "loai thuoc": "loai_thuoc",
}
TRADE_NAMES = "ten_thuong_mai"
TITLE_SIZE = 11.0  # a title's least size when the body size is unknown
PROMINENCE = 1.2  # a title is set at least this many times the body text's size
INDENT = 4.0  # a first line is indented more than this
# A caption "Bảng 3: …", "BẢNG 3.", "Bảng 3 -": a table's caption wherever it sits, in any weight.
_CAPTION = re.compile(r"^B[aả]ng\s+\d+[a-z]?\s*[:.\-–]\s*", re.IGNORECASE)
_FIGURE_CAPTION = re.compile(r"^Hình\s+\d+\s*[:.]\s*")
# A heading's number: "3. Chỉ định", "III. …", "a) …".
_NUMBERING = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[IVXivx]{1,4}\.|[a-zđ]\))\s+")
_LABEL = re.compile(r"^([^:]{2,60}):\s*")


@dataclass(frozen=True)
class Problem:
    page: int
    line: int  # the line's number on its page, 1-based, in reading order
    message: str

    def __str__(self) -> str:
        return f"page {self.page}, line {self.line}: {self.message}"


def _key_text(text: str) -> str:
    """A heading or label as compared: numbering, case, accents and punctuation (a trailing colon)
    left out, and i/y folded together ("kì"/"kỳ", "qui"/"quy": both spellings are in print)."""
    words = re.findall(r"\w+", fold(_NUMBERING.sub("", text)))
    return " ".join(words).replace("y", "i")


@cache
def heading_keys() -> dict[str, str]:
    """Folded heading as printed -> section key (canonical headings and data/headings.tsv)."""
    keys = {_key_text(h): k for k, h in SECTION_HEADINGS.items()}
    keys[_key_text("Tác dụng không mong muốn")] = "tac_dung_khong_mong_muon"
    table = resources.files("duocthu.ingest.pdf").joinpath("data").joinpath("headings.tsv")
    rows = [r.split("\t") for r in table.read_text(encoding="utf-8").splitlines() if r and r[0] != "#"]
    keys.update({_key_text(h): k for h, k in rows[1:]})
    unknown = sorted(set(keys.values()) - set(SECTION_ORDER))
    if unknown:
        raise ValueError(f"headings.tsv: unknown section keys {unknown}")
    return keys


LABEL_WORDS = 8  # a label that opens a paragraph is a short run
_CONNECTIVES = frozenset({"va"})  # "và" joins a heading's parts: sharing it is no likeness


@cache
def _entries() -> list[tuple[list[str], str]]:
    return [(entry.split(), key) for entry, key in heading_keys().items()]


def near_heading(label: str) -> str | None:
    """The section key of the vocabulary entry a label the vocabulary does not place comes close
    to, by the book's matching rules (`_key_text`): the entry's first word first, and at least two
    of the entry's words ("và" aside), half the label's words or more ("Tác dụng phụ", "Tương
    tác", "Liều dùng"); the entry sharing most words wins. None for a label the vocabulary places
    or one near no entry."""
    words = _key_text(label).split()
    if not words or " ".join(words) in heading_keys():
        return None
    own = set(words) - _CONNECTIVES
    best: tuple[int, str] | None = None
    for entry, key in _entries():
        shared = len(own & set(entry))
        if (
            entry[0] == words[0]
            and shared >= 2
            and 2 * shared >= len(own)
            and (best is None or shared > best[0])
        ):
            best = (shared, key)
    return best[1] if best else None


def opening_label(line: Line, body_size: float) -> str:
    """The run a line opens with that is set apart as a label: the words before a colon, the
    leading words in bold or in another size, or the whole line set in another size than the
    body text; "" when there is none or it is too long for a label."""
    match = _LABEL.match(line.text)
    if match is not None:
        label = match.group(1)
    elif line.bold_lead or line.size_lead:
        label = line.bold_lead or line.size_lead
    elif body_size and abs(line.size - body_size) > 0.5:
        label = line.text
    else:
        return ""
    return label.strip() if len(label.split()) <= LABEL_WORDS else ""


def prominent(line: Line, body_size: float) -> bool:
    """Set clearly larger than the body text (weight is no evidence: some writers fake bold)."""
    if body_size <= 0:
        return line.bold and line.size >= TITLE_SIZE
    return line.size >= PROMINENCE * body_size


def split_synonym(text: str) -> tuple[str, str | None]:
    """ "ACID ACETYLSALICYLIC (Aspirin)" -> ("ACID ACETYLSALICYLIC", "Aspirin"): a synonym is set in
    another case than its upper-case title; "… (DẠNG TIÊM)", in the title's case, is part of it."""
    # the closing parenthesis may be on the title's next line (a narrow column wraps it)
    match = re.match(r"^(.*?\S)\s*\(([^()]+)\)?\s*$", text)
    if match is None or not any(c.islower() for c in match.group(2)) or not match.group(1).isupper():
        return text, None
    return match.group(1), match.group(2).strip()


def is_title(line: Line, body_size: float = 0.0) -> bool:
    """A prominent line in upper case (a synonym in parentheses after it may be in any case)."""
    letters = [c for c in split_synonym(line.text)[0] if c.isalpha()]
    upper = sum(c.isupper() for c in letters)
    return bool(letters) and upper >= 0.8 * len(letters) and prominent(line, body_size)


# What opens the back of the book (the appendices, the indexes): no monograph is read after it.
BACK_MATTER = ("phu luc", "muc luc")


def opens_back_matter(line: Line, body_size: float = 0.0) -> bool:
    """A title-like line (prominent, upper case) that the back matter's vocabulary starts."""
    return is_title(line, body_size) and fold(line.text).startswith(BACK_MATTER)


@dataclass
class SectionDraft:
    key: str
    heading: str
    first: Line
    last: Line
    blocks: list[dict[str, object]] = field(default_factory=list)
    paragraph: str = ""

    def add_text(self, line: Line, new_paragraph: bool) -> None:
        if new_paragraph and self.paragraph:
            self.close()
        self.paragraph = join_lines(self.paragraph, line.text)
        self.last = line

    def close(self) -> None:
        if self.paragraph.strip():
            self.blocks.append({"kind": "prose", "text": self.paragraph.strip()})
        self.paragraph = ""

    def record(self) -> dict[str, Any]:
        self.close()
        return {
            "key": self.key,
            "heading": self.heading,
            "pages": {
                "start": self.first.printed or self.first.page,
                "end": self.last.printed or self.last.page,
            },
            "pdf_pages": {"start": self.first.page, "end": self.last.page},
            "blocks": self.blocks,
        }


@dataclass
class MonographDraft:
    title: str
    line: Line
    sections: list[SectionDraft] = field(default_factory=list)
    synonyms: list[str] = field(default_factory=list)  # printed after the title in parentheses

    @property
    def drug_id(self) -> str:
        from duocthu.models.source import slugify

        return slugify(self.title)

    def trade_names(self) -> list[str]:
        section = next((s for s in self.sections if s.key == TRADE_NAMES), None)
        if section is None:
            return []
        text = (" ".join(str(b["text"]) for b in section.blocks) + section.paragraph).replace(BREAK, "")
        return [n.strip(" .") for n in re.split(r"[;,]", text) if n.strip(" .")]


def title_case(text: str) -> str:
    """ "ACID ACETYLSALICYLIC" -> "Acid acetylsalicylic" (the source format's titles)."""
    lower = text.lower()
    return lower[:1].upper() + lower[1:]
