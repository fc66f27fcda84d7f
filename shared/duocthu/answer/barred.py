"""What a reply says of a named drug the patient's own numbers contraindicate (the retrieval's
`EvidenceBundle.barred_for_patient`): the sentences that bar them, each with its section, and that
its dose is not quoted as an option."""

from __future__ import annotations

from duocthu.answer.indication_lines import clip
from duocthu.core.sections import DOSE_SECTION, SECTION_HEADINGS
from duocthu.models.evidence import EvidenceBundle, RankedLine

# A barring sentence as long as the reply quotes it in a line of its own
BARRED_WINDOW = 240


def dose_barred(drug: str, bundle: EvidenceBundle) -> list[str]:
    """The line saying the drug (its display name) is contraindicated for this patient: each section
    that bars, contraindications first, cited, and its barring clause quoted when the reply leaves
    that section out (the dose's); the dose is still asked for by its section's name."""
    if not bundle.barred_for_patient:
        return []
    first: dict[str, RankedLine] = {}
    for line in bundle.barred_for_patient:
        first.setdefault(line.section_key, line)
    # a section the reply quotes is cited (its sentence is there); one it leaves out is quoted
    shown = {item.section_key for item in bundle.evidence}
    said = "; ".join(
        f"{_place(line)} (trích trong câu trả lời)"
        if line.section_key in shown
        else f"{clip(line.text, (), BARRED_WINDOW)} ({_place(line)})"
        for line in first.values()
    )
    return [
        f"Dược thư ghi không dùng {drug} cho trường hợp của người bệnh này: {said}. Vì vậy liều dùng "
        f"không được trích như một lựa chọn; nếu vẫn cần, hỏi “{SECTION_HEADINGS[DOSE_SECTION]} của {drug}”."
    ]


def _place(line: RankedLine) -> str:
    """Where the sentence stands: its section and pages."""
    return line.source_refs[0].place() if line.source_refs else SECTION_HEADINGS[line.section_key]
