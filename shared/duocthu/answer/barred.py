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
    shown = {(item.drug_id, item.section_key) for item in bundle.evidence}
    said = "; ".join(
        f"{_place(line)} (trích trong câu trả lời)"
        if (line.drug_id, line.section_key) in shown
        else f"{clip(line.text, (), BARRED_WINDOW)} ({_place(line)})"
        for line in first.values()
    )
    return [
        f"Dược thư ghi không dùng {drug} cho trường hợp của người bệnh này: {said}. Vì vậy liều dùng "
        f"không được trích như một lựa chọn; nếu vẫn cần, hỏi “{SECTION_HEADINGS[DOSE_SECTION]} của {drug}”.",
        *preferred_instead(bundle),
    ]


def preferred_instead(bundle: EvidenceBundle) -> list[str]:
    """A line per drug the book names the preferred one in this patient's state
    (`retrieval.state_alternatives`): its sentence, cited, its section quoted below; what the book
    prefers, not a claim that it is safe for this patient."""
    by_id = {item.id: item for item in bundle.evidence}
    out = []
    for alternative in bundle.named_alternatives:
        item = by_id.get(alternative.evidence_id)
        if item is None or alternative.drug_id != alternative.source_drug_id:
            continue
        place = item.source_refs[0].place() if item.source_refs else SECTION_HEADINGS[item.section_key]
        out.append(
            f"Thuốc Dược thư nêu là được ưu tiên trong trường hợp này: {item.display_name} — "
            f"{clip(alternative.text, (), BARRED_WINDOW)} ({place}; toàn mục trích dưới đây). "
            f"Hãy đối chiếu chống chỉ định của {item.display_name} với người bệnh trước khi dùng."
        )
    return out


def _place(line: RankedLine) -> str:
    """Where the sentence stands: its section and pages."""
    return line.source_refs[0].place() if line.source_refs else SECTION_HEADINGS[line.section_key]
