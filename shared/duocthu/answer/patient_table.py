"""The compact reply to a patient case: a short table first (drug, the chỉ định line that put it
on the list, each safety facet's status, pages), the alternative a section names, then per drug
only the sentences that name this patient, each with its section and page. Every listed drug is
checked; a quick reply opens any drug's whole contraindication section.

Every part keeps within the one reply budget (answer.reply_budget): the cells narrow when the
table and the lines before it leave the quotes too little; an alternative's sentence is clipped around the
drug it names (its section a quick reply away); the drugs found beyond the table are named first
few and counted (`wording.which_drugs`); the quotes get what is left, the contraindications first
(their rows first too when the budget is tight), and every part not quoted is named by drug,
section and page.

The statuses say where the formulary speaks about this patient, never a verdict: "CHỐNG CHỈ
ĐỊNH", "THẬN TRỌNG", "Dược thư ghi: “không cần chỉnh liều”" (the section's own words that no
change is needed, the sentence quoted below), "mục không nêu" (the section exists and names
nothing of the patient), "không có mục" (the monograph lacks the section). Nothing is ever called
safe.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from duocthu.answer.indication_lines import CLOSING, LINE_WINDOW, NOT_FOUND, indication_line
from duocthu.answer.indication_lines import clip as clip_around
from duocthu.answer.indication_lines import pages as _pages
from duocthu.answer.reply_budget import REPLY_CHARS
from duocthu.core.sections import CONTRAINDICATION_SECTION, INDICATION_SECTION, SECTION_HEADINGS
from duocthu.models.evidence import CandidateAssessment, EvidenceBundle, EvidenceItem, FacetAssessment
from duocthu.models.frame import QueryFrame
from duocthu.retrieval.sentences import no_change_words

FACET_HEADINGS = {
    "interaction": "Thuốc đang dùng",
    "warnings": "Chống chỉ định / thận trọng",
    "dosage": "Liều",
    "pregnancy": "Mang thai",
    "breastfeeding": "Cho con bú",
}
STATUS_WORDS = {
    "CONTRAINDICATED": "CHỐNG CHỈ ĐỊNH",
    "CAUTION": "THẬN TRỌNG",
    "SUPPORTED": "có nêu",
}
NOT_CHECKED = NOT_FOUND
# The quoted sentences get what the lines before them and the closing notice leave of the reply's
# target; below MIN_QUOTES the table's cells narrow. The first (most severe) sentence always goes
# in, clipped to what is left but never to fewer than MIN_CLIPPED characters.
MIN_QUOTES = 500
MIN_CLIPPED = 100
ALTERNATIVE_ONLY = "(lựa chọn Dược thư nêu, xem dưới)"  # a checked drug no chỉ định part listed
NARROW_WINDOW = 48  # a chỉ định cell when a table of many drugs would leave the quotes too little
# An alternative's sentence around the drug it names; the whole sentence is a quick reply away.
ALTERNATIVE_WINDOW = 200
# Drugs found beyond the ones shown: a patient reply names the first few and counts the rest,
# and this question (a quick reply) lists them all.
UNLISTED_SHOWN = 3
UNLISTED_REPLY = "Thuốc nào có chỉ định {condition}?"
_SEVERITY = {"CONTRAINDICATED": 2, "CAUTION": 1}


def facet_word(facet: FacetAssessment | None) -> str:
    if facet is None:
        return NOT_CHECKED
    if facet.status in STATUS_WORDS:
        return STATUS_WORDS[facet.status]
    if facet.status == "NO_CHANGE_STATED":
        said = next((w for q in facet.quotes if (w := no_change_words(q))), "không cần chỉnh liều")
        return f"Dược thư ghi: “{said}”"
    return "không có mục" if facet.section_absent else "mục không nêu"


class PatientTable:
    def __init__(self, titles: Mapping[str, str]):
        self.titles = titles

    def name(self, drug_id: str) -> str:
        return self.titles.get(drug_id, drug_id)

    def lines(self, frame: QueryFrame, bundle: EvidenceBundle, used: int = 0) -> list[str]:
        """The table, the alternatives and the quoted sentences; the caller adds the list's own
        lines (which section listed each drug, `used` characters) and the sample notice."""
        by_id = {item.id: item for item in bundle.evidence}
        facets = [
            f
            for f in FACET_HEADINGS
            if any(f == x.facet for c in bundle.candidate_statuses for x in c.facets)
        ]
        alternatives = self.alternatives(bundle, by_id)
        room = REPLY_CHARS - used - CLOSING - _size(alternatives)
        # the contraindicated drugs' rows first, as their sentences are: never read as an option
        rows = self._rows(frame, bundle, by_id, facets, LINE_WINDOW, by_severity=True)
        if _size(rows) > room - MIN_QUOTES:  # many drugs or a long head: narrower cells
            rows = self._rows(frame, bundle, by_id, facets, NARROW_WINDOW, by_severity=True)
        return [*rows, *alternatives, *self.quotes(bundle, by_id, room - _size(rows))]

    def _rows(
        self,
        frame: QueryFrame,
        bundle: EvidenceBundle,
        by_id: Mapping[str, EvidenceItem],
        facets: Sequence[str],
        window: int,
        by_severity: bool = False,
    ) -> list[str]:
        """The table: a header, then one row per checked drug (the most severe status first when
        `by_severity`), its chỉ định line in `window` characters."""
        ranked = {d.drug_id: d for d in bundle.ranked_drugs}
        condition = frame.condition.normalized or frame.condition.text if frame.condition else None
        header = ["Thuốc", "Chỉ định (trích)", *(FACET_HEADINGS[f] for f in facets), "tr."]
        rows = [" | ".join(header)]
        checked = most_severe_first(bundle.candidate_statuses) if by_severity else bundle.candidate_statuses
        for assessment in checked:
            indicated = [by_id[i] for i in ranked[assessment.drug_id].evidence_ids if i in by_id] if (
                assessment.drug_id in ranked
            ) else []  # fmt: skip
            indicated = [i for i in indicated if i.section_key == INDICATION_SECTION]
            line = indication_line(indicated, condition, window) if indicated else ALTERNATIVE_ONLY
            own: dict[str, FacetAssessment] = {f.facet: f for f in assessment.facets}
            cited = [by_id[i] for i in assessment.evidence_ids if i in by_id] + indicated
            cells = [
                self.name(assessment.drug_id),
                line,
                *(facet_word(own.get(f)) for f in facets),
                _pages(cited),
            ]
            rows.append(" | ".join(cells))
        return rows

    def alternatives(self, bundle: EvidenceBundle, by_id: Mapping[str, EvidenceItem]) -> list[str]:
        """One line per sentence naming an alternative, with every drug it names: the sentence
        clipped around the first of them (the whole section is a quick reply away,
        `quick_replies`)."""
        drugs_of: dict[tuple[str, str, str], list[str]] = {}
        for alt in bundle.named_alternatives:
            said = (alt.source_drug_id, alt.evidence_id, alt.text.strip())
            drugs_of.setdefault(said, []).append(alt.drug_id)
        lines = []
        for (source, evidence_id, text), drug_ids in drugs_of.items():
            item = by_id.get(evidence_id)
            where = f"mục “{SECTION_HEADINGS[item.section_key]}”, tr. {_pages([item])}" if item else ""
            names = [self.name(d) for d in drug_ids]
            wordings = [*names, *(d.replace("_", " ") for d in drug_ids)]
            short = len(text) <= ALTERNATIVE_WINDOW
            quote = f"“{text}”" if short else clip_around(text, wordings, ALTERNATIVE_WINDOW)
            lines.append(
                f"Lựa chọn Dược thư nêu cho tình huống này ({self.name(source)}, {where}): {quote} "
                f"— {', '.join(names)} đã được đối chiếu trong bảng."
            )
        return lines

    def quotes(self, bundle: EvidenceBundle, by_id: Mapping[str, EvidenceItem], budget: int) -> list[str]:
        """One sentence per part about this patient, the contraindications first, within `budget`
        characters; the parts beyond it are named by section and page (their whole section is a
        quick reply away), never dropped in silence."""
        found = [
            (_SEVERITY.get(status, 0), n, drug, line)
            for n, assessment in enumerate(bundle.candidate_statuses)
            for drug, status, line in self._drug_quotes(assessment, by_id)
        ]
        found.sort(key=lambda f: (-f[0], f[1]))
        used = len("\nTrích dẫn về người bệnh này:\n")
        quoted: set[tuple[str, str]] = set()
        named = [(self.name(drug), line.split(": “", 1)[0].removeprefix("- ")) for _, _, drug, line in found]
        beyond: list[tuple[str, str]] = []  # (drug, "Thận trọng (tr. 357)") named, not quoted
        clipped: dict[str, str] = {}  # a line shortened to what the budget leaves
        for n, (_, _, drug, line) in enumerate(found):
            # room for the line that would name everything not quoted yet, should none more fit
            reserve = len(_beyond_line([*beyond, *named[n + 1 :]]))
            heading = 0 if any(d == drug for d, _ in quoted) else len(f"【{self.name(drug)}】\n")
            cost = len(line) + 1 + heading
            if used + cost + reserve <= budget:
                quoted.add((drug, line))
                used += cost
            elif not quoted:  # the most severe sentence always goes in, clipped when it must be
                quoted.add((drug, line))
                clipped[line] = _clipped(line, max(MIN_CLIPPED, budget - used - reserve - heading - 1))
                used += len(clipped[line]) + 1 + heading
            else:
                beyond.append(named[n])
        lines = ["", "Trích dẫn về người bệnh này:"] if quoted else []
        for assessment in most_severe_first(bundle.candidate_statuses):  # a contraindication is read first
            own = [
                clipped.get(line, line)
                for drug, _, line in self._drug_quotes(assessment, by_id)
                if (drug, line) in quoted
            ]
            if own:
                lines += [f"【{self.name(assessment.drug_id)}】", *own]
        if beyond:
            lines.append(_beyond_line(beyond, budget - used))
        return lines

    @staticmethod
    def _drug_quotes(
        assessment: CandidateAssessment, by_id: Mapping[str, EvidenceItem]
    ) -> list[tuple[str, str, str]]:
        """(drug, facet status, line) per part: one sentence, the most severe. A drug contraindicated
        for the patient has no dose quoted: its dose is never shown as an option."""
        out: list[tuple[str, str, str]] = []
        seen: set[str] = set()
        barred = any(f.status == "CONTRAINDICATED" for f in assessment.facets)
        for facet in assessment.facets:
            if barred and facet.facet == "dosage":
                continue
            for item in (by_id[i] for i in facet.evidence_ids if i in by_id):
                quote = next((q for q in facet.quotes if q in item.text and q not in seen), None)
                if quote is not None:
                    seen.add(quote)
                    line = f"- {SECTION_HEADINGS[item.section_key]} (tr. {_pages([item])}): “{quote}”"
                    out.append((assessment.drug_id, facet.status, line))
        return out

    def quick_replies(self, bundle: EvidenceBundle, frame: QueryFrame | None = None) -> list[str]:
        """One per checked drug: its whole contraindication section; the section an alternative's
        sentence is clipped from; and, when the list names only the first drugs found beyond the
        ones shown, the question that lists them all (`UNLISTED_REPLY`)."""
        replies = [f"Chống chỉ định của {self.name(c.drug_id)}" for c in bundle.candidate_statuses]
        sections = {item.id: item.section_key for item in bundle.evidence}
        for alt in bundle.named_alternatives:
            if alt.evidence_id in sections and len(alt.text.strip()) > ALTERNATIVE_WINDOW:  # clipped
                heading = SECTION_HEADINGS[sections[alt.evidence_id]]
                replies.append(f"{heading} của {self.name(alt.source_drug_id)}")
        condition = frame.condition.text if frame is not None and frame.condition else None
        unlisted = [d for d in bundle.unlisted_drugs if d.section_key in (None, INDICATION_SECTION)]
        if condition and len(unlisted) > UNLISTED_SHOWN:
            replies.append(UNLISTED_REPLY.format(condition=condition))
        return list(dict.fromkeys(replies))


def most_severe_first(checked: Sequence[CandidateAssessment]) -> list[CandidateAssessment]:
    """The contraindicated drugs first, then those with a caution, each group in the table's order."""
    return sorted(checked, key=lambda c: -max((_SEVERITY.get(f.status, 0) for f in c.facets), default=0))


def _size(lines: Sequence[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _clipped(line: str, room: int) -> str:
    """A quoted line ("- Section (tr. n): “…”") cut at a word edge to `room` characters."""
    if len(line) <= room:
        return line
    cut = line.rfind(" ", 0, room - 2)
    return f"{line[: cut if cut > 0 else room - 2].rstrip(',;:')}…”"


def _beyond_line(named: Sequence[tuple[str, str]], room: int | None = None) -> str:
    """The parts about the patient not quoted, by drug: "Captopril: Thận trọng (tr. 357), Liều
    lượng và cách dùng (tr. 361); …" ("" when there are none). Longer than `room`, each drug's
    sections are named once, without pages ("Captopril: Thận trọng, Liều lượng và cách dùng"); longer
    still, each drug with the number of its sections ("Captopril (2 mục)")."""
    if not named:
        return ""
    by_drug: dict[str, list[str]] = {}
    for drug, where in named:
        by_drug.setdefault(drug, []).append(where)
    listed = "; ".join(f"{drug}: {', '.join(parts)}" for drug, parts in by_drug.items())
    # only the contraindication sections have a button: any other is opened by asking for it
    contraindication = SECTION_HEADINGS[CONTRAINDICATION_SECTION]
    other = next(((d, w.split(" (tr.", 1)[0]) for d, w in named if not w.startswith(contraindication)), None)
    ask = f" hoặc hỏi, ví dụ, “{other[1]} của {other[0]}”" if other else ""
    line = f"Các đoạn khác về người bệnh (mở toàn mục: nút bên dưới{ask}): {listed}."
    if room is None or len(line) <= room:
        return line
    sections = {d: dict.fromkeys(w.split(" (tr.", 1)[0] for w in parts) for d, parts in by_drug.items()}
    shorter = line.replace(
        listed, "; ".join(f"{drug}: {', '.join(parts)}" for drug, parts in sections.items())
    )
    if len(shorter) <= room:
        return shorter
    # still too long (many drugs): the drugs, each with how many of its sections name the patient
    counted = "; ".join(f"{drug} ({len(parts)} mục)" for drug, parts in sections.items())
    return line.replace(listed, counted)
