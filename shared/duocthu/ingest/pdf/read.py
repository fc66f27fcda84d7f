"""The state machine that reads monographs from lines: title, identity lines, sections, tables,
figures."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from duocthu.core.sections import SECTION_ORDER
from duocthu.core.text import fold
from duocthu.ingest.pdf.layout import Line
from duocthu.ingest.pdf.loose_table import LooseTable
from duocthu.ingest.pdf.repair import join_lines, resolve_breaks
from duocthu.ingest.pdf.structure import (
    _CAPTION,
    _FIGURE_CAPTION,
    _LABEL,
    IDENTITY_LABELS,
    INDENT,
    MonographDraft,
    Problem,
    SectionDraft,
    _key_text,
    heading_keys,
    is_title,
    near_heading,
    opening_label,
    opens_back_matter,
    prominent,
    split_synonym,
    title_case,
)

_ENDS = (".", ":", ";", "!", "?", ")")
CAPTION_LINES = 6  # a caption runs on over at most this many lines (a narrow column wraps it)


@dataclass
class Reader:
    monographs: list[MonographDraft] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    section: SectionDraft | None = None
    skipping: bool = False  # after a heading it cannot place: its text goes nowhere
    pending_title: list[Line] = field(default_factory=list)
    descriptor: list[str] = field(default_factory=list)  # "(Dùng trong hô hấp)" under the title
    caption: str | None = None
    caption_lines: int = 0
    loose: LooseTable | None = None  # a table without rules being read, after its caption
    trial: LooseTable | None = None  # lines in pieces that may be a table without a caption
    trial_lines: list[tuple[int, Line]] = field(default_factory=list)  # with their line numbers
    figure: dict[str, object] | None = None  # the figure block whose caption may follow
    line_no: int = 0
    last_page: int = 0
    body_size: float = 0.0  # the book's body text size: titles stand out from it
    hyphenated: set[str] = field(default_factory=set)  # words printed with a hyphen inside a line
    open_sentence: bool = False  # the last line read ended mid-sentence: the next one continues it
    back_matter: bool = False  # past the monographs (an appendix): nothing more is monograph text
    # the last line read, when it started a block as text: a run-in label may wrap from it, and
    # then it is taken back (the section, its paragraph and last line before it)
    held: tuple[Line, SectionDraft, str, Line] | None = None

    def problem(self, line: Line, message: str) -> None:
        self.problems.append(Problem(line.page, self.line_no, message))

    @property
    def monograph(self) -> MonographDraft | None:
        return self.monographs[-1] if self.monographs else None

    def feed(self, line: Line) -> None:
        self.line_no = self.line_no + 1 if line.page == self.last_page else 1
        self.last_page = line.page
        self.hyphenated.update(w.strip(".,;:()") for w in line.text.split() if "-" in w.strip("-.,;:()"))
        if self.trial is not None:
            if not self._heading_like(line) and self.trial.take(line):
                self.trial_lines.append((self.line_no, line))
                return
            self._settle_trial()
        self._place(line)

    def _place(self, line: Line, trial: bool = True) -> None:
        """The line read where it belongs; `trial`: it may open a table without a caption."""
        held, self.held = self.held, None
        if self.loose is not None and not self._heading_like(line) and self.loose.take(line):
            line.where = self._where()
            return
        self._end_loose()
        if self.back_matter or (not self.pending_title and opens_back_matter(line, self.body_size)):
            self._close_section()
            self.back_matter = True
            line.where = "back matter"
        elif line.figure:
            self._figure(line)
        elif self.figure is not None and self._figure_caption(line):
            pass
        elif line.rows is not None:
            self._table(line)
        elif (self.caption is not None and not self._heading_like(line) and self._begin_loose(line)) or (
            trial and self._begin_trial(line)
        ):
            pass  # a table without rules: after its caption, or on trial without one
        elif is_title(line, self.body_size) or (self.pending_title and prominent(line, self.body_size)):
            self._title_line(line)  # a wrapped title's next line may hold no letter ("… B12) 2")
        elif self.pending_title:
            self._after_title(line)
        elif not (self._identity(line, held) or self._caption(line) or self._heading(line)):
            self._text(line)
        if not line.where:
            line.where = self._where()
        text = line.text.rstrip()
        table = line.rows is not None or self.loose is not None
        self.open_sentence = not table and not line.figure and not text.endswith(_ENDS)

    def _where(self) -> str:
        if self.monograph is None:
            return ""
        return f"{self.monograph.drug_id}/{self.section.key if self.section else ''}"

    def _title_line(self, line: Line) -> None:
        self.pending_title.append(line)

    def _after_title(self, line: Line) -> None:
        """The line after a title: a descriptor line, or the identity lines that make it a title."""
        if self._descriptor(line):
            return
        joined = ""
        for part in self.pending_title:
            joined = join_lines(joined, part.text)
        printed, synonym = split_synonym(resolve_breaks(joined, self.hyphenated))
        title = title_case(" ".join([printed, *self.descriptor]))
        first = self.pending_title[0]
        self.pending_title, self.descriptor = [], []
        self._close_section()
        self.monographs.append(MonographDraft(title, first, synonyms=[synonym] if synonym else []))
        if not self._identity(line):
            self.problem(first, f"title {title!r} is not followed by identity lines (Tên chung quốc tế: …)")
            self._text(line)

    def _descriptor(self, line: Line) -> bool:
        """A parenthesis on lines of its own between a title and its identity lines, in the text's
        size ("BUDESONID" / "(Dùng trong hô hấp)"): the form of the drug this monograph is about,
        so part of its title and id (the book has a monograph per form). A parenthesis on the
        title's own lines is a synonym instead (`split_synonym`)."""
        text = line.text.strip()
        if self.descriptor:  # a descriptor wrapped in a narrow column runs on until it closes
            opens = not self.descriptor[-1].endswith(")") and len(self.descriptor) < CAPTION_LINES
        else:
            opens = text.startswith("(")
        if not opens:
            return False
        self.descriptor.append(text)
        return True

    def _heading_like(self, line: Line) -> bool:
        """A title or a line the heading vocabulary places: never a table's row."""
        return is_title(line, self.body_size) or heading_keys().get(_key_text(line.text)) is not None

    def _begin_loose(self, line: Line) -> bool:
        """A caption's table printed without rules: the first line after it in cells opens it."""
        self.loose = LooseTable.begin(line)
        if self.loose is not None:
            line.where = self._where()
        return self.loose is not None

    def _begin_trial(self, line: Line) -> bool:
        """A line in pieces inside a section (identity lines aside) opens a table without a
        caption on trial: the lines it takes are held until the evidence is in (`_settle_trial`)."""
        section = self.section
        if len(line.cells) < 2 or section is None or self.skipping or section.key in IDENTITY_LABELS.values():
            return False
        label = _LABEL.match(line.text)  # a run-in heading is no table's row
        if self._heading_like(line) or (label and heading_keys().get(_key_text(label.group(1)))):
            return False
        self.trial, self.trial_lines = LooseTable.begin(line), [(self.line_no, line)]
        return self.trial is not None

    def _settle_trial(self) -> None:
        """The lines held on trial: a table when their alignment is strong evidence of one, else
        read again one by one as what they are (never opening a table again)."""
        table, lines = self.trial, self.trial_lines
        self.trial, self.trial_lines = None, []
        if table is None:
            return
        if table.aligned():
            self.loose = table
            for _, line in lines:
                line.where = self._where()
            self._end_loose()
            return
        last = self.line_no
        for number, line in lines:
            self.line_no = number
            self._place(line, trial=False)
        self.line_no = last

    def _end_loose(self) -> None:
        table, self.loose = self.loose, None
        if table is not None and table.last is not None:
            self.open_sentence = False  # a table's last cell ends no sentence the next line goes on
            self._table(Line(**{**table.last.__dict__, "rows": table.rows, "cells": ()}))

    def finish(self) -> None:
        """The end of the monographs' pages: what is still open is closed."""
        self._settle_trial()
        self._end_loose()
        self._close_section()

    def _close_section(self) -> None:
        if self.section is not None and self.monograph is not None:
            self.section.close()
        self.section, self.skipping, self.caption = None, False, None

    def _open(self, key: str, heading: str, line: Line) -> SectionDraft | None:
        mono = self.monograph
        if mono is None:
            self.problem(line, f"section {heading!r} before any monograph title")
            return None
        keys = [s.key for s in mono.sections]
        if key in keys:
            self.problem(
                line, f"{mono.drug_id}: section {heading!r} ({key}) appears twice; the second is left out"
            )
            return None
        if keys and SECTION_ORDER[key] < SECTION_ORDER[keys[-1]]:
            self.problem(line, f"{mono.drug_id}: section {heading!r} ({key}) out of order after {keys[-1]}")
        self._close_section()
        self.section = SectionDraft(key, heading, line, line)
        mono.sections.append(self.section)
        return self.section

    def _identity(self, line: Line, held: tuple[Line, SectionDraft, str, Line] | None = None) -> bool:
        """A label and its text on one line: an identity line ("Mã ATC: …"), or a run-in heading,
        a label the heading vocabulary places, set bold, then a colon and the section's first text
        ("Chỉ định: Nhiễm …"). A bold label is evidence the plain words of running text lack."""
        match = _LABEL.match(line.text)
        label = _key_text(match.group(1)) if match else ""
        key = IDENTITY_LABELS.get(label)
        if match is not None and key is None and line.text[match.end() :].strip():
            run_in = heading_keys().get(label)
            lead = _key_text(line.bold_lead)
            if run_in is not None and (lead.startswith(label) if lead else self._starts_next(run_in, line)):
                key = run_in
            elif run_in is None and not lead and held is not None:
                key = self._wrapped_label(held, label)
        if match is None or key is None:
            return False
        section = self._open(key, match.group(1).strip(), line)
        if section is not None:
            section.add_text(Line(**{**line.__dict__, "text": line.text[match.end() :]}), True)
        else:
            self.skipping = True
        line.where = self._where()
        return True

    def _wrapped_label(self, held: tuple[Line, SectionDraft, str, Line], label: str) -> str | None:
        """A run-in label in the text's weight wrapped over two lines ("DẠNG BÀO CHẾ VÀ HÀM" /
        "LƯỢNG: Dạng uống …" in a narrow column): the line before, which started a block, and this
        label read as one the vocabulary places, next in the book's order. The line before is taken
        back from the section it went to; the key is returned."""
        before, section, paragraph, last = held
        key = heading_keys().get(_key_text(f"{before.text} {label}"))
        mono = self.monograph
        keys = [s.key for s in mono.sections] if mono else []
        if key is None or before.bold_lead or key in keys or section is not self.section:
            return None
        if keys and SECTION_ORDER[key] <= SECTION_ORDER[keys[-1]]:
            return None
        section.paragraph, section.last = paragraph, last
        return key

    def _starts_next(self, key: str, line: Line) -> bool:
        """Whether a run-in label set in the text's own weight opens section `key`: the line starts
        a block (unindented, after a finished sentence) and the key comes later in the book's order
        than every section this monograph has, so a label inside running text stays text. A label
        only partly bold is no such line (the caller reads weight first)."""
        mono = self.monograph
        if mono is None or self.open_sentence or line.indent > INDENT or self.pending_title:
            return False
        keys = [s.key for s in mono.sections]
        return key not in keys and (not keys or SECTION_ORDER[key] > SECTION_ORDER[keys[-1]])

    def _heading(self, line: Line) -> bool:
        """A line the book's heading vocabulary places, where a block starts (unindented, a capital
        first letter); bold supports it. A bold line it cannot place is reported, never merged."""
        if line.indent > INDENT:
            return False
        key = heading_keys().get(_key_text(line.text))
        starts = line.text.lstrip()[:1]
        # without bold, a heading must start a block: a capital, after a finished sentence, not
        # itself ending one ("… xem mục" / "Thận trọng." is running text)
        continues = self.open_sentence or line.text.rstrip().endswith(".")
        if key is not None and not line.bold and (continues or not (starts.isupper() or starts.isdigit())):
            return False
        # nor may it repeat a section the monograph has read: without weight or an indent to tell
        # them apart, running text that wraps at a heading's words ("Tác dụng không mong muốn" /
        # "thường gặp …" under that heading) is such a line
        mono = self.monograph
        if key is not None and not line.bold and mono is not None and key in (s.key for s in mono.sections):
            return False
        if key is None and not line.bold:
            return False
        if key is None and self._wrapped_heading(line):
            return True
        if key is None:
            self.problem(
                line, f"bold line {line.text!r} is no section heading it knows; its text is left out"
            )
            self._close_section()
            self.skipping = True
        elif self._open(key, line.text, line) is None:
            self.skipping = True
        line.where = self._where()
        return True

    def _wrapped_heading(self, line: Line) -> bool:
        """A bold line right under a heading, before any of its text, that completes it into a
        heading the vocabulary places ("Tác dụng không mong muốn" / "(ADR)" in a narrow column)."""
        section = self.section
        if section is None or section.blocks or section.paragraph or section.last is not section.first:
            return False
        joined = f"{section.heading} {line.text}"
        if heading_keys().get(_key_text(joined)) != section.key:
            return False
        section.heading, section.last = joined, line
        line.where = self._where()
        return True

    def _caption(self, line: Line) -> bool:
        heading = heading_keys().get(_key_text(line.text))
        if self.caption is not None and self.caption_lines < CAPTION_LINES and heading is None:
            self.caption += " " + line.text  # a caption (bold or not) runs on until its table
            self.caption_lines += 1
            return True
        if not _CAPTION.match(line.text):
            return False
        self.caption, self.caption_lines = _CAPTION.sub("", line.text), 1
        return True

    def _text(self, line: Line) -> None:
        if self.skipping:
            return
        if self.section is None:
            where = f"{self.monograph.drug_id}: " if self.monograph else ""
            self.problem(line, f"{where}text outside any section: {line.text[:60]!r}")
            return
        if self.caption is not None:
            self.problem(line, f"caption 'Bảng …: {self.caption[:40]}' is not followed by a table")
            self.caption = None
        if not self.open_sentence or line.indent > INDENT:
            self._unrecognised_label(line)
        starts_block = not self.open_sentence and line.indent <= INDENT and not line.bold
        if starts_block:
            self.held = (line, self.section, self.section.paragraph, self.section.last)
        self.section.add_text(line, line.indent > INDENT)

    def _unrecognised_label(self, line: Line) -> None:
        """A paragraph that opens with a label close to a heading of a section the monograph has
        not read, later in the book's order, that the vocabulary does not place ("Tác dụng phụ:
        …"): maybe a heading spelt another way. Reported with its page; the text stays where it
        is (it cannot be placed without the vocabulary knowing the spelling)."""
        mono, label = self.monograph, opening_label(line, self.body_size)
        key = near_heading(label) if label else None
        if mono is None or key is None or self.section is None:
            return
        keys = [s.key for s in mono.sections]
        if key in keys or SECTION_ORDER[key] <= SECTION_ORDER[keys[-1]]:
            return
        self.problem(
            line,
            f"{mono.drug_id}: unrecognised heading? {label!r} opens a paragraph like the heading of "
            f"{key}, which the vocabulary does not place; its text stays in {self.section.key}",
        )

    def _table(self, line: Line) -> None:
        rows = line.rows or []
        section = self.section
        if section is None or self.skipping:
            self.problem(line, "table outside any section")
            return
        section.close()
        previous = section.blocks[-1] if section.blocks else None
        continued = (
            self.caption is None
            and previous is not None
            and previous["kind"] == "table"
            and section.last.rows is not None  # nothing read since: the next column or page
            and previous.get("header") == rows[0]
        )
        if continued and previous is not None:
            previous["text"] = str(previous["text"]) + "\n" + "\n".join(" | ".join(r) for r in rows[1:])
        else:
            lines = [self.caption] if self.caption else []
            lines += [" | ".join(r) for r in rows]
            section.blocks.append(
                {"kind": "table", "text": "\n".join(lines), "requires_visual_check": True, "header": rows[0]}
            )
        self.caption = None
        section.last = line
        line.where = self._where()

    def _figure(self, line: Line) -> None:
        """An image: a figure block of its own in the section, flagged; never text, never dropped."""
        section = self.section
        if section is None or self.skipping:
            self.problem(line, "figure (an image) outside any section")
            return
        section.close()
        self.figure = {"kind": "figure", "text": "", "requires_visual_check": True, "printed": line.printed}
        self.figure["text"] = _figure_text(self.figure, "Hình không có chú thích")
        section.blocks.append(self.figure)
        section.last = line

    def _figure_caption(self, line: Line) -> bool:
        """The line right under a figure, when it reads "Hình N: …", is its caption."""
        figure, self.figure = self.figure, None
        if figure is None or not _FIGURE_CAPTION.match(line.text):
            return False
        figure["text"] = _figure_text(figure, line.text)
        if self.section is not None:
            self.section.last = line
        line.where = self._where()
        return True


def _figure_text(figure: dict[str, object], caption: str) -> str:
    printed = figure["printed"]
    return f"{caption} (hình, trang {printed})" if printed else f"{caption} (hình)"


def brand_entries(lines: list[Line]) -> tuple[list[tuple[str, str, int]], list[Problem]]:
    """The brand index's lines `Brand - Generic, page`."""
    entry = re.compile(r"^(.+?) - (.+?), (\d+)$")
    out: list[tuple[str, str, int]] = []
    problems: list[Problem] = []
    merged: list[Line] = []
    for line in lines:
        if fold(line.text).startswith("muc luc tra cuu"):
            continue
        if merged and line.indent > INDENT:  # a long entry runs on under a hanging indent
            merged[-1] = Line(**{**merged[-1].__dict__, "text": f"{merged[-1].text} {line.text}"})
        else:
            merged.append(line)
    for n, line in enumerate(merged, 1):
        match = entry.match(line.text)
        if match is None:
            problems.append(
                Problem(line.page, n, f"brand index line not 'Brand - Generic, page': {line.text!r}")
            )
        else:
            out.append((match.group(1).strip(), match.group(2).strip(), int(match.group(3))))
    return out, problems
