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
    """The line saying the drug (its display name) is contraindicated for this patient: one
    barring sentence a section, contraindications first; the dose is still asked for by its
    section's name."""
    if not bundle.barred_for_patient:
        return []
    first: dict[str, RankedLine] = {}
    for line in bundle.barred_for_patient:
        first.setdefault(line.section_key, line)
    quotes = "; ".join(_cited(line) for line in first.values())
    return [
        f"Chống chỉ định cho người bệnh này theo Dược thư ({drug}): {quotes}. Vì vậy liều dùng không "
        f"được trích như một lựa chọn; nếu vẫn cần, hỏi “{SECTION_HEADINGS[DOSE_SECTION]} của {drug}”."
    ]


def _cited(line: RankedLine) -> str:
    """The sentence in quotes (clipped to BARRED_WINDOW) with its section and pages."""
    quote = clip(line.text, (), BARRED_WINDOW)
    return f"{quote} ({line.source_refs[0].place()})" if line.source_refs else quote
