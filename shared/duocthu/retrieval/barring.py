"""The clauses that bar a drug for this patient, verbatim: a contraindication (or a line saying
the drug is not used) stating a band the patient's own numbers fall in, for every form and dose of
the drug. A clause naming a dosage form, a route, a dose or a condition beside the band bars that
use only, and advice against use is quoted, never made a bar.
"""

from __future__ import annotations

import re

from duocthu.core.conditions import ORGAN_FUNCTION_CONDITIONS, find_conditions
from duocthu.core.measures import NAMES_A_DOSE
from duocthu.core.sections import CONTRAINDICATION_SECTION, DOSE_SECTION
from duocthu.core.text import words
from duocthu.models.evidence import EvidenceBundle, RankedLine
from duocthu.retrieval.answering import about_starting, part_line, patient_fit
from duocthu.retrieval.decision import decide
from duocthu.retrieval.facets import PatientProfile
from duocthu.retrieval.sentences import part_sentences
from duocthu.store import VectorStore

# The book's words for a dosage form or a route, as written (marks kept: "nang" is no "năng"): a
# contraindication clause naming one bars that form only ("Viên nén … không dùng cho trẻ em dưới
# 6 tuổi; trẻ từ 2 đến dưới 6 tuổi dùng dạng dung dịch"), not the drug
_FORMS = tuple(
    tuple(words(w))
    for w in ("viên", "nang", "siro", "hỗn dịch", "dung dịch", "giọt", "thuốc đạn", "gel", "kem", "thuốc mỡ",
              "miếng dán", "tiêm", "truyền", "đường uống", "dạng uống", "khí dung", "xịt")
)  # fmt: skip


# Where a clause gives its reason ("… dưới 2 tuổi, do nguy cơ ức chế hô hấp"): what follows names
# no one the clause is about
_REASON = re.compile(r"\b(?:do|vì|bởi)\b")
# A bar is the book's own "do not use": a contraindication, or "không dùng" elsewhere; a clause that
# only advises against use ("không khuyến cáo", "không nên", "tránh") is quoted, never made a bar
_NOT_USED = ("chống chỉ định", "không dùng", "không được dùng")
_ADVISES_ONLY = ("khuyến cáo", "không nên", "tránh", "cân nhắc", "thận trọng")
# A clause about starting the drug ("kali huyết thanh trên 5,0 mmol/l khi bắt đầu điều trị") bars
# starting it: for a patient who already takes it, its dose section says what to do instead


def barring_clause(
    sentence: str, patient: PatientProfile, advising: bool = False, taking: bool = False
) -> str | None:
    """The clause of the sentence (between semicolons) that states a band the patient's numbers
    fall in and names no dosage form, route or dose, nor a condition beside the band ("dưới 16
    tuổi bị sốt do nhiễm virus" is about a feverish child): it bars the drug for them, whatever
    form or dose is given. With `advising` (a sentence outside the contraindications), it must say
    the drug is not used ("không dùng"); advice against use alone bars nothing. For a patient
    `taking` the drug already, a clause about starting it bars nothing."""
    for clause in sentence.split(";"):
        said = words(clause)
        runs = {tuple(said[i : i + len(form)]) for form in _FORMS for i in range(len(said))}
        lowered = clause.lower()
        if taking and about_starting(clause):
            continue
        strong = not advising or any(w in lowered for w in _NOT_USED)
        against = strong and not any(w in lowered for w in _ADVISES_ONLY)
        unconditional = not runs.intersection(_FORMS) and not NAMES_A_DOSE.search(clause)
        about = _REASON.split(clause.lower(), maxsplit=1)[0]
        named = [c for c in find_conditions(about) if c.normalized not in ORGAN_FUNCTION_CONDITIONS]
        if against and unconditional and not named and patient_fit(clause, patient) > 1:
            return clause.strip()
    return None


# The sections a bar for this patient is read from: a contraindication, or a line against use in
# the patient's band in their state's section or the dose's ("eGFR < 30: không dùng")
BARRING_SECTIONS = (CONTRAINDICATION_SECTION, "thoi_ky_mang_thai", DOSE_SECTION)


def barring_lines(
    store: VectorStore, drug_id: str, patient: PatientProfile, taking: bool = False
) -> list[RankedLine]:
    """The clauses that bar the drug for this patient, verbatim: in its contraindications, or
    saying it is not used elsewhere (`BARRING_SECTIONS`), each stating a band the patient's own
    numbers fall in for every form of the drug (`barring_clause`); the contraindications' first."""
    out: list[RankedLine] = []
    for section in BARRING_SECTIONS:
        for part in store.find_by_section(drug_id, section):
            for index, sentence in enumerate(part_sentences(part.text)):
                advising = section != CONTRAINDICATION_SECTION
                clause = barring_clause(sentence, patient, advising, taking)
                if clause:
                    out.append(part_line(part, clause, index, 0.0))
    return out


def without_dose(bundle: EvidenceBundle, barring: tuple[RankedLine, ...]) -> EvidenceBundle:
    """The bundle without its dose parts (counted as omitted), with the sentences that bar them."""
    dose = [item.id for item in bundle.evidence if item.section_key == DOSE_SECTION]
    kept = tuple(item for item in bundle.evidence if item.section_key != DOSE_SECTION)
    if not kept:  # no contraindications section beside it: the dose stays, the bar said before it
        return bundle.model_copy(update={"barred_for_patient": barring})
    # decided again: a dose table to check against the print no longer makes the answer one
    decided = decide(list(kept), [*bundle.omitted_evidence_ids, *dose])
    fields = ("evidence", "decision", "reason", "omitted_evidence_ids")
    return bundle.model_copy(
        update={**{f: getattr(decided, f) for f in fields}, "barred_for_patient": barring}
    )
