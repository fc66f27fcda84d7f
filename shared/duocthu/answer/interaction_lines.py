"""The compact reply to an interaction question naming three or more drugs: per pair, the sentences
of each drug's "Tương tác thuốc" section that name the other (by a catalogue name, or by the class
its "Loại thuốc" section gives: `named_by_class`), each with drug – section – page, clipped around
that name; a pair neither section names in one line that never reads as "no interaction"; a quick
reply per drug that opens its whole section. The pooled parts stay the evidence and citations and
are never pasted here. Lines share the reply's target length; a pair whose lines do not fit is
named as not shown, never dropped silently.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from duocthu.answer.blocks import VERIFY_NOTICE
from duocthu.answer.indication_lines import CLOSING, LINE_WINDOW, LONGEST_LINE, REPLY_TARGET, SOURCE, clip
from duocthu.core.sections import CONTRAINDICATION_SECTION, INTERACTION_SECTION, SECTION_HEADINGS
from duocthu.core.sentences import split_sentences
from duocthu.core.text import words
from duocthu.models.evidence import EvidenceBundle, EvidenceItem
from duocthu.models.reply import InteractionPair, PairMention
from duocthu.retrieval.interactions import names_in, phrase_in
from duocthu.retrieval.sentences import has_cue

HEADING = SECTION_HEADINGS[INTERACTION_SECTION]
MIN_DRUGS = 3  # two drugs keep the full answer: both sections' naming parts fit in full
QUARANTINED = " [CẦN ĐỐI CHIẾU BẢN IN]"
OPENING = f"Theo mục “{HEADING}” của từng thuốc, từng cặp (toàn mục: nút bên dưới):"
# a combination the contraindications forbid is quoted from there too
BARRED = OPENING.replace("mục", f"mục “{SECTION_HEADINGS[CONTRAINDICATION_SECTION]}” và", 1)
NOT_EACH_OTHER = "mục {heading} của {a} và của {b} không nêu nhau; không có nghĩa là không có tương tác."
NOT_THE_OTHER = "mục {heading} của {a} không nêu {b}; không có nghĩa là không có tương tác."
ONE_WAY = " (mục của {b} không nêu {a})"
MORE = " (+{n} câu khác nêu {b})"
NO_SECTION = "Chuyên luận {a} trong Dược thư không có mục “{heading}”; điều này không có nghĩa là an toàn."
NOT_SHOWN = "Không hiển thị vì giới hạn độ dài (xem toàn mục bằng nút bên dưới): {pairs}."

NARROWER = 20  # characters a line's window loses per try when the lines do not fit

Section = Callable[[str, str], Sequence[EvidenceItem]]


@dataclass(frozen=True, slots=True)
class Mention:
    """The sentences of `owner`'s section that name `other`, with the wordings they name it by."""

    owner: str
    other: str
    sentences: tuple[str, ...]
    wordings: tuple[str, ...]
    items: tuple[EvidenceItem, ...]
    by_class: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Reading:
    parts: Mapping[str, Sequence[EvidenceItem]]  # each drug's pooled parts, in part order
    sectioned: set[str]  # the asked catalogue drugs whose monograph has the section
    pairs: list[tuple[str, str, list[Mention]]]


class InteractionLines:
    """The compact interaction reply's lines and quick replies, from the plan's drugs and names."""

    def __init__(
        self,
        titles: Mapping[str, str],
        names: Mapping[str, Sequence[str]],
        section: Section,
        known: Sequence[str],
        unknown: Sequence[str] = (),
    ):
        self.titles = titles
        self.names = names  # each catalogue drug's names a formulary text may use (Plan.names)
        self.section = section  # (drug, section key) -> that section's parts, to tell one is absent
        self.known, self.unknown = tuple(known), tuple(unknown)  # the catalogue's drugs; names it lacks

    def name(self, drug: str) -> str:
        return self.titles.get(drug, f"“{drug}”")

    def _read(self, bundle: EvidenceBundle, about: str | None) -> _Reading:
        """Each asked pair (in the order the drugs were asked; `about`: only that drug's) with the
        sentences of each one's section naming the other."""
        parts: dict[str, list[EvidenceItem]] = {}
        for item in sorted(bundle.evidence, key=lambda i: i.part_index):
            parts.setdefault(item.drug_id, []).append(item)
        known, unknown = self.known, self.unknown
        sectioned = {d for d in known if self.section(d, INTERACTION_SECTION)}
        pairs = [(a, b) for i, a in enumerate(known) for b in (*known[i + 1 :], *unknown)]
        found = [
            (a, b, [*self._mentions(a, b, parts, bundle), *self._mentions(b, a, parts, bundle)])
            for a, b in pairs
            if about is None or about in (a, b)
        ]
        return _Reading(parts, sectioned, found)

    def _mentions(
        self, owner: str, other: str, parts: Mapping[str, Sequence[EvidenceItem]], bundle: EvidenceBundle
    ) -> list[Mention]:
        """Owner's mentions of other, one per section they stand in (each line cites one section):
        a combination its contraindications forbid first."""
        items = parts.get(owner, ())
        keys = sorted(
            dict.fromkeys(i.section_key for i in items), key=lambda k: k != CONTRAINDICATION_SECTION
        )
        found = (
            self._mention(owner, other, {owner: [i for i in items if i.section_key == k]}, bundle)
            for k in keys
        )
        return [m for m in found if m]

    def lines(self, bundle: EvidenceBundle, used: int = 0, about: str | None = None) -> list[str]:
        """The pairs in the order the drugs were asked, those the sections name first, then the
        silent ones; `used`: the characters before these lines; `about`: only that drug's pairs."""
        read = self._read(bundle, about)
        barred = any(m.items[0].section_key == CONTRAINDICATION_SECTION for *_, ms in read.pairs for m in ms)
        lines = ["", BARRED if barred else OPENING]
        lines += [
            NO_SECTION.format(a=self.name(d), heading=HEADING) for d in self.known if d not in read.sectioned
        ]
        named = [(a, b, mentions) for a, b, mentions in read.pairs if mentions]
        lines += [
            self._silent(a, b, read.sectioned, read.parts)
            for a, b, mentions in read.pairs
            if not mentions and (a in read.sectioned or b in read.sectioned)
        ]
        notice = len(VERIFY_NOTICE) + 1 if bundle.decision == "VERIFY_PDF" else 0  # the turn puts it first
        fixed = used + notice + CLOSING + sum(len(line) + 1 for line in lines)
        return lines[:2] + self._named(named, REPLY_TARGET - fixed, read.sectioned) + lines[2:]

    def pairs(self, bundle: EvidenceBundle, about: str | None = None) -> tuple[InteractionPair, ...]:
        """The pairs as data, every sentence kept (the text's lines may count some): what a page draws."""
        read = self._read(bundle, about)
        return tuple(
            InteractionPair(
                drugs=(a, b),
                mentions=tuple(
                    PairMention(
                        owner=m.owner,
                        sentences=m.sentences,
                        by_class=m.by_class,
                        pages=pages(m.items),
                        needs_visual_check=any(i.needs_visual_check for i in m.items),
                    )
                    for m in mentions
                ),
                without_section=tuple(d for d in (a, b) if d in self.known and d not in read.sectioned),
            )
            for a, b, mentions in read.pairs
        )

    def _mention(
        self, owner: str, other: str, parts: Mapping[str, Sequence[EvidenceItem]], bundle: EvidenceBundle
    ) -> Mention | None:
        """The sentences of owner's pooled parts naming other: by a catalogue name (a name the
        catalogue lacks: as written), else by the class the bundle found for that part."""
        names = tuple(self.names.get(other, ())) or (other,)
        classes = {(m.evidence_id, m.drug_id): m.wording for m in bundle.named_by_class}
        sentences: list[str] = []
        items: list[EvidenceItem] = []
        by_class: list[str] = []
        for item in parts.get(owner, ()):
            wording = classes.get((item.id, other))
            named = False  # the sentence before names the other drug
            for sentence in split_sentences(item.text.removeprefix(f"【{item.display_name}】 ")):
                by_name = bool(names_in(sentence, {other: names}))
                # what to take instead, said right after the pair ("có thể chọn pantoprazol"), goes with it
                instead = named and has_cue(sentence, "preference")
                named = by_name or bool(wording and phrase_in(words(sentence), wording))
                if not named and not instead:
                    continue
                if not by_name and wording and wording not in by_class:
                    by_class.append(wording)
                sentences.append(sentence.strip())
                if item not in items:
                    items.append(item)
        if not sentences:
            return None
        return Mention(owner, other, tuple(sentences), (*names, *by_class), tuple(items), tuple(by_class))

    def _silent(
        self, a: str, b: str, sectioned: set[str], parts: Mapping[str, Sequence[EvidenceItem]]
    ) -> str:
        flag = "".join(QUARANTINED for d in (a, b) if any(i.needs_visual_check for i in parts.get(d, ())))
        if a in sectioned and b in sectioned:
            text = NOT_EACH_OTHER.format(heading=HEADING, a=self.name(a), b=self.name(b))
        else:
            owner, other = (a, b) if a in sectioned else (b, a)
            text = NOT_THE_OTHER.format(heading=HEADING, a=self.name(owner), b=self.name(other))
        return f"- {self.name(a)} – {self.name(b)}: {text}{flag}"

    def _named(
        self, named: Sequence[tuple[str, str, list[Mention]]], room: int, sectioned: set[str]
    ) -> list[str]:
        """The named pairs' lines within `room` characters: every sentence if each still gets a
        table cell's length, else the first of each section's (the others counted); the window
        narrowed until the lines fit; what does not fit even then is named as not shown."""
        count = sum(len(m.sentences) for *_, mentions in named for m in mentions)
        blocks: list[list[str]] = []
        for every in (True, False):
            window = max(LINE_WINDOW, min(LONGEST_LINE, room // max(1, count)))
            while True:
                blocks = [
                    [self._head(a, b, mentions, sectioned), *(self._line(m, window, every) for m in mentions)]
                    for a, b, mentions in named
                ]
                if _size(blocks) <= room or window == LINE_WINDOW:
                    break
                window = max(LINE_WINDOW, window - NARROWER)
            if _size(blocks) <= room:
                return [line for block in blocks for line in block]
        lines: list[str] = []
        for at, block in enumerate(blocks):
            if _size([lines, block]) > room - SOURCE:  # room for the line naming the rest
                rest = ", ".join(f"{self.name(a)} – {self.name(b)}" for a, b, _ in named[at:])
                return [*lines, NOT_SHOWN.format(pairs=rest)]
            lines += block
        return lines

    def _head(self, a: str, b: str, mentions: Sequence[Mention], sectioned: set[str]) -> str:
        owners = {m.owner for m in mentions}
        # a section that names the other drug while the other's, which it has, does not name it back
        silent = next((d for d in (a, b) if d not in owners and d in sectioned), None)
        one_way = ONE_WAY.format(a=self.name(a if silent == b else b), b=self.name(silent)) if silent else ""
        return f"• {self.name(a)} – {self.name(b)}{one_way}:"

    def _line(self, mention: Mention, window: int, every: bool) -> str:
        sentences = mention.sentences if every else mention.sentences[:1]
        quotes = " ".join(clip(s, mention.wordings, window) for s in sentences)
        more = MORE.format(n=len(mention.sentences) - len(sentences), b=self.name(mention.other))
        more = more if len(sentences) < len(mention.sentences) else ""
        by_class = f" (nêu nhóm {', '.join(f'“{w}”' for w in mention.by_class)})" if mention.by_class else ""
        flag = QUARANTINED if any(i.needs_visual_check for i in mention.items) else ""
        heading = SECTION_HEADINGS[mention.items[0].section_key]  # a mention's parts are of one section
        source = f"{self.name(mention.owner)} – {heading} – tr. {pages(mention.items)}"
        return f"  - {source}{by_class}: {quotes}{more}{flag}"

    def quick_replies(self) -> list[str]:
        """One per catalogue drug asked: its whole interaction section."""
        return [f"{HEADING} của {self.name(d)}" for d in self.known]


def _size(blocks: Sequence[Sequence[str]]) -> int:
    return sum(len(line) + 1 for block in blocks for line in block)


def pages(items: Sequence[EvidenceItem]) -> str:
    """ "420–421": the pages the parts stand on."""
    refs = [ref for item in items for ref in item.source_refs]
    if not refs:
        return "–"
    start, end = min(r.page_start for r in refs), max(r.page_end or r.page_start for r in refs)
    return f"{start}–{end}" if end != start else str(start)
