"""Stage-2 patient safety evidence (reference 09 §6): what the formulary says about *this*
patient for drugs already found to be indicated.

Stage 2 never creates candidates: it assesses the drugs stage 1 (the reverse lookup) ranked, at
most `patient_candidate_limit` of them, best first. For each one it runs separate,
relation-specific searches, each with its own query source and its own sections
(`duocthu.retrieval.facets`):

- interaction: the catalogue names of the patient's current medicines (`interaction_query`), in
  tuong_tac_thuoc; a part counts when it names one of those medicines;
- warnings: conditions, allergies, past reactions, kidney and liver function, labs, pregnancy,
  breastfeeding and age band (`warning_query`), in chong_chi_dinh and than_trong; a part counts when
  it names one of the patient's clinical anchors;
- dosage: kidney and liver function, labs and age band (`dosage_context_query`), in
  lieu_luong_va_cach_dung; a part counts when it names one of those anchors;
- pregnancy and breastfeeding: the section route (thoi_ky_mang_thai, thoi_ky_cho_con_bu), when the
  patient is pregnant or breastfeeding; the section is about it.

Keeping the queries apart is the point. A current medicine selects an interaction part only when
that medicine is named in it, so a kidney-disease term cannot make an unrelated interaction look
supported; and a medicine never makes a warnings part count.

Statuses say where the formulary speaks about this patient, for a reader to check, not a clinical
verdict: a contraindications part naming the patient's anchor is CONTRAINDICATED (CAUTION when
every such sentence says it is not, or only relatively, a contraindication); any other matching
part is CAUTION. A facet that finds nothing is INSUFFICIENT_EVIDENCE, and so is a candidate with
no finding at all: absence of a hit is never "safe". SUPPORTED (the indication text supports the
drug) belongs to stage 1; nothing here infers it.

Caps (`EvidencePolicy`): `safety_hits_per_section` parts per section (best match first) and
`safety_sections_per_candidate` sections per candidate, kept in `SECTION_PRIORITY` order; whatever
a cap removes is listed in `omitted_evidence_ids`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.sections import INTERACTION_SECTION
from duocthu.core.text import words
from duocthu.core.vocabulary import CandidateStatus
from duocthu.models.evidence import (
    CandidateAssessment,
    EvidenceBundle,
    EvidenceItem,
    FacetAssessment,
    SafetyFacet,
)
from duocthu.models.frame import QueryFrame
from duocthu.retrieval.decision import EvidencePolicy, decide
from duocthu.retrieval.facets import FacetQuery, PatientProfile, anchor_table
from duocthu.retrieval.interactions import phrase_in
from duocthu.store import VectorStore

# Which sections survive the per-candidate cap: a contraindication first, then what the patient's
# own medicines and state (pregnancy, breastfeeding) make certain to matter, then the rest.
SECTION_PRIORITY: tuple[str, ...] = (
    "chong_chi_dinh",
    INTERACTION_SECTION,
    "thoi_ky_mang_thai",
    "thoi_ky_cho_con_bu",
    "than_trong",
    "lieu_luong_va_cach_dung",
)
# Parts one facet search reads before the anchor check: a bound no section of one drug reaches
# (the longest sample section has 5 parts; a long interaction section in the full formulary a few
# dozen), so the search returns every part that matches, never a top-k that could drop a finding.
FACET_POOL = 1000

_SEVERITY: Mapping[CandidateStatus, int] = {
    "INSUFFICIENT_EVIDENCE": 0,
    "SUPPORTED": 1,
    "CAUTION": 2,
    "CONTRAINDICATED": 3,
}
# Whole sentences: "không phải là chống chỉ định ..., nhưng ...; ..." qualifies its clauses after ";" too.
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


# --- Searching -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Finding:
    item: EvidenceItem
    named: frozenset[str]  # anchor keys the part names
    status: CandidateStatus


def _not_a_contraindication(sentence: str) -> bool:
    tokens = words(sentence)
    return any(phrase_in(tokens, p) for p in anchor_table().not_contraindication)


def _status(query: FacetQuery, item: EvidenceItem) -> CandidateStatus:
    if item.section_key != "chong_chi_dinh":
        return "CAUTION"
    anchored = [s for s in _SENTENCE.split(item.text) if query.named_in(s)]
    if anchored and all(_not_a_contraindication(s) for s in anchored):
        return "CAUTION"
    return "CONTRAINDICATED"


def search_facet(store: VectorStore, drug_id: str, query: FacetQuery) -> list[Finding]:
    """Every part of the drug's facet sections that names one of the query's anchors (the section
    route: every part of the section), unranked."""
    if query.route == "section":
        return [
            Finding(p, frozenset(), "CAUTION")
            for s in query.sections
            for p in store.find_by_section(drug_id, s)
        ]
    hits = store.search_lexical(query.text, drug_id=drug_id, section_keys=query.sections, limit=FACET_POOL)
    findings = []
    for hit in hits:
        if hit.drug_id != drug_id or hit.section_key not in query.sections:
            continue
        named = query.named_in(hit.text)
        if named:
            findings.append(Finding(hit, named, _status(query, hit)))
    return findings


def _rank(finding: Finding) -> tuple[int, int, float, int]:
    """Best first: the more severe, then the more anchors named, the higher lexical score, the
    earlier part."""
    item = finding.item
    return (-_SEVERITY[finding.status], -len(finding.named), -item.score, item.part_index)


def _worst(statuses: Iterable[CandidateStatus]) -> CandidateStatus:
    return max(statuses, key=_SEVERITY.__getitem__, default="INSUFFICIENT_EVIDENCE")


@dataclass(frozen=True)
class SafetyAssessment:
    candidates: tuple[CandidateAssessment, ...]
    evidence: tuple[EvidenceItem, ...]
    omitted_evidence_ids: tuple[str, ...]


def _assess_one(
    store: VectorStore,
    resolver: CatalogDrugResolver,
    drug_id: str,
    profile: PatientProfile,
    policy: EvidencePolicy,
) -> tuple[CandidateAssessment, list[EvidenceItem], list[str]]:
    kept: dict[str, list[Finding]] = {}  # section -> findings kept within the per-section cap
    omitted: list[str] = []
    statuses: dict[SafetyFacet, CandidateStatus] = {}
    facet_of: dict[str, SafetyFacet] = {}
    for query in profile.facet_queries(resolver, drug_id):
        findings = search_facet(store, drug_id, query)
        statuses[query.facet] = _worst(f.status for f in findings)
        for section in query.sections:
            ranked = sorted((f for f in findings if f.item.section_key == section), key=_rank)
            if ranked:
                kept[section] = ranked[: policy.safety_hits_per_section]
                facet_of[section] = query.facet
            omitted += [f.item.id for f in ranked[policy.safety_hits_per_section :]]
    sections = sorted(kept, key=SECTION_PRIORITY.index)
    for section in sections[policy.safety_sections_per_candidate :]:
        omitted += [f.item.id for f in kept.pop(section)]
    evidence = [f.item for section in sections if section in kept for f in kept[section]]
    facets = tuple(
        FacetAssessment(
            facet=facet,
            status=status,
            evidence_ids=tuple(f.item.id for s, fs in kept.items() if facet_of[s] == facet for f in fs),
        )
        for facet, status in statuses.items()
    )
    assessment = CandidateAssessment(
        drug_id=drug_id,
        status=_worst(statuses.values()),
        evidence_ids=tuple(item.id for item in evidence),
        facets=facets,
    )
    return assessment, evidence, omitted


def assess_patient_candidates(
    store: VectorStore,
    resolver: CatalogDrugResolver,
    candidates: Sequence[str],
    patient: PatientProfile,
    policy: EvidencePolicy | None = None,
) -> SafetyAssessment:
    """The safety facets of the first `patient_candidate_limit` candidates (stage 1's order)."""
    policy = policy or EvidencePolicy()
    assessments: list[CandidateAssessment] = []
    evidence: dict[str, EvidenceItem] = {}
    omitted: dict[str, None] = {}
    for drug_id in list(dict.fromkeys(candidates))[: policy.patient_candidate_limit]:
        assessment, items, dropped = _assess_one(store, resolver, drug_id, patient, policy)
        assessments.append(assessment)
        for item in items:
            evidence.setdefault(item.id, item)
        omitted.update(dict.fromkeys(dropped))
    return SafetyAssessment(
        candidates=tuple(assessments),
        evidence=tuple(evidence.values()),
        omitted_evidence_ids=tuple(i for i in omitted if i not in evidence),
    )


def retrieve_patient_drug_context(
    store: VectorStore,
    resolver: CatalogDrugResolver,
    candidates: Sequence[str],
    patient: PatientProfile | QueryFrame,
    policy: EvidencePolicy | None = None,
) -> EvidenceBundle:
    """Stage 2 as an EvidenceBundle: the kept parts decided by `decide()` (a quarantined part makes
    it VERIFY_PDF), with every candidate's status. Nothing found is ABSTAIN
    insufficient_retrieval_score, statuses INSUFFICIENT_EVIDENCE."""
    profile = PatientProfile.from_frame(patient) if isinstance(patient, QueryFrame) else patient
    result = assess_patient_candidates(store, resolver, candidates, profile, policy)
    if not result.evidence:
        return EvidenceBundle(
            decision="ABSTAIN",
            reason="insufficient_retrieval_score",
            omitted_evidence_ids=result.omitted_evidence_ids,
            candidate_statuses=result.candidates,
        )
    bundle = decide(result.evidence, result.omitted_evidence_ids)
    return bundle.model_copy(update={"candidate_statuses": result.candidates})


def with_patient_safety(
    stage_one: EvidenceBundle,
    store: VectorStore,
    resolver: CatalogDrugResolver,
    frame: QueryFrame,
    policy: EvidencePolicy | None = None,
) -> EvidenceBundle:
    """A reverse lookup's bundle with stage 2 added for the patient the frame describes: its
    ranked drugs are the only candidates. Without ranked drugs or a patient, stage one as it is."""
    profile = PatientProfile.from_frame(frame)
    candidates = [drug.drug_id for drug in stage_one.ranked_drugs]
    if not candidates or profile.is_empty():
        return stage_one
    stage_two = retrieve_patient_drug_context(store, resolver, candidates, profile, policy)
    return merge_bundles(stage_one, stage_two)


def merge_bundles(stage_one: EvidenceBundle, stage_two: EvidenceBundle) -> EvidenceBundle:
    """Stage one's evidence and ranking with stage two's parts and statuses, decided again over the
    whole pool (a quarantined part from either stage makes it VERIFY_PDF)."""
    evidence = {item.id: item for item in (*stage_one.evidence, *stage_two.evidence)}
    omitted = [
        i for i in dict.fromkeys((*stage_one.omitted_evidence_ids, *stage_two.omitted_evidence_ids))
        if i not in evidence
    ]  # fmt: skip
    if evidence:
        merged = decide(list(evidence.values()), omitted)
    else:
        merged = stage_one.model_copy(update={"omitted_evidence_ids": tuple(omitted)})
    return merged.model_copy(
        update={
            "ranked_drugs": stage_one.ranked_drugs,
            "unlisted_drugs": stage_one.unlisted_drugs,
            "wider_drugs": stage_one.wider_drugs,
            "incidental_drugs": stage_one.incidental_drugs,
            "candidate_statuses": stage_two.candidate_statuses,
            "ordering": stage_one.ordering,
            "system_error": stage_one.system_error,
        }
    )
