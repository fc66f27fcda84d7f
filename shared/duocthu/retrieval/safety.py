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
verdict: each sentence naming the patient's anchors is read by `duocthu.retrieval.sentences`
(CONTRAINDICATED, CAUTION or NO_CHANGE_STATED, the last never rolling up into a candidate's
status), and a part takes its most severe sentence. A facet that finds nothing is INSUFFICIENT_EVIDENCE,
and so is a candidate with no finding at all: absence of a hit is never "safe". SUPPORTED (the
indication text supports the drug) belongs to stage 1; nothing here infers it.

Caps (`EvidencePolicy`): `safety_hits_per_section` parts per section (best match first) and
`safety_sections_per_candidate` sections per candidate, kept in `SECTION_PRIORITY` order; whatever
a cap removes is listed in `omitted_evidence_ids`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from duocthu.catalog.drug_names import drug_names
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.phrases import find_phrase, phrase_starts
from duocthu.core.sections import CLASS_SECTION, CONTRAINDICATION_SECTION, INTERACTION_SECTION
from duocthu.core.text import fold, typed_matches, typed_token, words
from duocthu.core.vocabulary import CandidateStatus, FacetStatus
from duocthu.models.evidence import (
    CandidateAssessment,
    EvidenceBundle,
    EvidenceItem,
    FacetAssessment,
    NamedAlternative,
    SafetyFacet,
)
from duocthu.models.frame import QueryFrame
from duocthu.retrieval.allergy import AllergyReading, allergy_reading, with_allergy_bars
from duocthu.retrieval.decision import EvidencePolicy, decide, merge_bundles
from duocthu.retrieval.facets import FACET_SECTIONS, FacetQuery, PatientProfile, anchor_table
from duocthu.retrieval.interactions import drug_classes
from duocthu.retrieval.levels import patient_band, relation, sentence_bands
from duocthu.retrieval.section_reads import SectionReads
from duocthu.retrieval.sentences import advice, cues, has_cue, part_sentences, sentence_status
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

_SEVERITY: Mapping[FacetStatus, int] = {
    "INSUFFICIENT_EVIDENCE": 0,
    "NO_CHANGE_STATED": 1,
    "SUPPORTED": 2,
    "CAUTION": 3,
    "CONTRAINDICATED": 4,
}


# --- Searching -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Finding:
    item: EvidenceItem
    named: frozenset[str]  # anchor keys the part names
    status: FacetStatus
    facet: SafetyFacet
    sentences: tuple[str, ...] = ()  # the sentences that name them, as written


def _finding(query: FacetQuery, profile: PatientProfile, item: EvidenceItem) -> Finding | None:
    named: set[str] = set()
    sentences: list[str] = []
    statuses: list[FacetStatus] = []
    for sentence in part_sentences(item.text):
        keys = query.named_in(sentence)
        status = sentence_status(query, profile, item.section_key, sentence, keys) if keys else None
        if status is not None:
            named |= keys
            sentences.append(sentence)
            statuses.append(status)
    if not statuses:
        return None
    # the most severe sentence first: what a compact answer quotes when it quotes one
    order = sorted(range(len(sentences)), key=lambda i: -_SEVERITY[statuses[i]])
    return Finding(item, frozenset(named), _worst(statuses), query.facet, tuple(sentences[i] for i in order))


def search_facet(
    store: VectorStore, drug_id: str, query: FacetQuery, profile: PatientProfile | None = None
) -> list[Finding]:
    """Every part of the drug's facet sections that names one of the query's anchors in a sentence
    that is about this patient (the section route: every part of the section), unranked."""
    profile = profile or PatientProfile()
    if query.route == "section":
        return [
            _stage_finding(p, query.facet, profile)
            for s in query.sections
            for p in store.find_by_section(drug_id, s)
        ]
    if query.route == "read":
        hits = [p for s in query.sections for p in store.find_by_section(drug_id, s)]
    else:
        hits = store.search_lexical(
            query.text, drug_id=drug_id, section_keys=query.sections, limit=FACET_POOL
        )
    findings = []
    for hit in hits:
        if hit.drug_id != drug_id or hit.section_key not in query.sections:
            continue
        finding = _finding(query, profile, hit)
        if finding is not None:
            findings.append(finding)
    return findings


# Words by which a pregnancy or breastfeeding section excludes the drug (at the stage it names).
EXCLUDING = ("chống chỉ định", "không được dùng")
STAGE_CONCEPT: Mapping[SafetyFacet, str] = {"pregnancy": "pregnancy", "breastfeeding": "breastfeeding"}


def _stage_finding(part: EvidenceItem, facet: SafetyFacet, profile: PatientProfile) -> Finding:
    """A pregnancy or breastfeeding part, about the patient by its section: CONTRAINDICATED when a
    sentence excludes the drug at a stage the patient is in or may be in (a stage they are outside,
    "3 tháng cuối" for a patient at 10 weeks, does not apply), that sentence quoted; else CAUTION,
    quoting the section's strongest advice."""
    patient = patient_band(profile.level_text("pregnancy"), "pregnancy")
    applying = [
        sentence
        for sentence in part_sentences(part.text)
        if facet != "pregnancy" or relation(patient, sentence_bands(sentence, "pregnancy")) != "outside"
    ]
    for sentence in applying:
        tokens = words(sentence)
        if any(find_phrase(tokens, words(w)) >= 0 for w in EXCLUDING) and not _negated(tokens):
            return Finding(part, frozenset({STAGE_CONCEPT[facet]}), "CONTRAINDICATED", facet, (sentence,))
    return Finding(part, frozenset(), "CAUTION", facet, advice(" ".join(applying) or part.text))


def _negated(tokens: Sequence[str]) -> bool:
    """ "không phải là chống chỉ định": the sentence says the condition does not exclude the drug."""
    return any(
        next(phrase_starts(tokens, words(p)), None) is not None for p in anchor_table().not_contraindication
    )


def _stage_columns_agree(findings: Mapping[SafetyFacet, list[Finding]]) -> dict[SafetyFacet, list[Finding]]:
    """A contraindication sentence naming pregnancy or breastfeeding (found by the warnings facet
    in Chống chỉ định) decides that column too, when its own section excludes nothing: the columns
    never say less than each other. Per column, the findings that lend it their status and quote."""
    lent: dict[SafetyFacet, list[Finding]] = {}
    for facet, concept in STAGE_CONCEPT.items():
        if facet not in findings or any(f.status == "CONTRAINDICATED" for f in findings[facet]):
            continue
        excluding = [
            f for f in findings.get("warnings", []) if f.status == "CONTRAINDICATED" and concept in f.named
        ]
        if excluding:
            lent[facet] = excluding
    return lent


def _rank(finding: Finding) -> tuple[int, int, float, int]:
    """Best first: the more severe, then the more anchors named, the higher lexical score, the
    earlier part."""
    item = finding.item
    return (-_SEVERITY[finding.status], -len(finding.named), -item.score, item.part_index)


def _worst(statuses: Iterable[FacetStatus]) -> FacetStatus:
    return max(statuses, key=_SEVERITY.__getitem__, default="INSUFFICIENT_EVIDENCE")


def _candidate_status(statuses: Iterable[FacetStatus]) -> CandidateStatus:
    """The worst facet; a facet that states no change says nothing against the drug and nothing
    for it: alone, the candidate has no finding (never "safe")."""
    worst = _worst(statuses)
    return "INSUFFICIENT_EVIDENCE" if worst == "NO_CHANGE_STATED" else worst


@dataclass(frozen=True)
class SafetyAssessment:
    candidates: tuple[CandidateAssessment, ...]
    evidence: tuple[EvidenceItem, ...]
    omitted_evidence_ids: tuple[str, ...]


def _with_classes(store: VectorStore, query: FacetQuery, drug_id: str) -> FacetQuery:
    """The interaction query with each current medicine's classes and the candidate's own, so that
    a part naming the class names the medicine."""
    if query.facet != "interaction":
        return query
    classes = {a.key: drug_classes(store, a.key) for a in query.anchors}
    return replace(
        query, classes={k: v for k, v in classes.items() if v}, own_classes=drug_classes(store, drug_id)
    )


def _absent(store: VectorStore, drug_id: str, query: FacetQuery) -> bool:
    return not any(store.find_by_section(drug_id, s) for s in query.sections)


def _assess_one(
    store: VectorStore,
    resolver: CatalogDrugResolver,
    drug_id: str,
    profile: PatientProfile,
    policy: EvidencePolicy,
    allergy: AllergyReading | None = None,
) -> tuple[CandidateAssessment, list[EvidenceItem], list[str]]:
    kept: dict[tuple[SafetyFacet, str], list[Finding]] = {}  # within the per-section cap
    omitted: list[str] = []
    statuses: dict[SafetyFacet, FacetStatus] = {}
    absent: set[SafetyFacet] = set()
    queries = profile.facet_queries(resolver, drug_id)
    found = {
        q.facet: search_facet(store, drug_id, _with_classes(store, q, drug_id), profile) for q in queries
    }
    lent = _stage_columns_agree(found)
    for query in queries:
        findings = found[query.facet]
        statuses[query.facet] = _worst(f.status for f in [*findings, *lent.get(query.facet, ())])
        if not findings and _absent(store, drug_id, query):
            absent.add(query.facet)
        for section in query.sections:
            ranked = sorted((f for f in findings if f.item.section_key == section), key=_rank)
            if ranked:
                kept[(query.facet, section)] = ranked[: policy.safety_hits_per_section]
            omitted += [f.item.id for f in ranked[policy.safety_hits_per_section :]]
    sections = sorted({s for _, s in kept}, key=SECTION_PRIORITY.index)
    for key in [k for k in kept if k[1] in sections[policy.safety_sections_per_candidate :]]:
        omitted += [f.item.id for f in kept.pop(key)]
    ordered = sorted(kept.items(), key=lambda kv: SECTION_PRIORITY.index(kv[0][1]))
    evidence = list({f.item.id: f.item for _, fs in ordered for f in fs}.values())
    facets = tuple(
        FacetAssessment(
            facet=facet,
            status=status,
            evidence_ids=tuple(f.item.id for (fc, _), fs in ordered if fc == facet for f in fs),
            section_absent=facet in absent,
            # the sentence a lent status comes from first: the column quotes what decides it
            quotes=tuple(
                dict.fromkeys(
                    [
                        *(q for f in lent.get(facet, ()) for q in f.sentences),
                        *(q for (fc, _), fs in ordered if fc == facet for f in fs for q in f.sentences),
                    ]
                )
            ),
        )
        for facet, status in statuses.items()
    )
    facets, evidence = with_allergy_bars(store, drug_id, allergy, facets, evidence)
    statuses.update({f.facet: f.status for f in facets})
    assessment = CandidateAssessment(
        drug_id=drug_id,
        status=_candidate_status(statuses.values()),
        evidence_ids=tuple(item.id for item in evidence),
        facets=facets,
    )
    return assessment, evidence, omitted


def named_alternatives(
    store: VectorStore, resolver: CatalogDrugResolver, sources: Sequence[str], situation: Sequence[str]
) -> list[tuple[NamedAlternative, EvidenceItem]]:
    """The sentences of the sources' interaction and caution sections (the patient's medicines and
    the checked drugs) that name a catalogue drug after a word of preference ("nên tránh, nếu cần
    giảm đau ưu tiên paracetamol", in warfarin's interactions) while naming this situation: another
    of `situation` (the checked drugs, the patient's medicines). A drug named before the word, as
    the one to avoid, is not the alternative."""
    found: list[tuple[NamedAlternative, EvidenceItem]] = []
    index = catalogue_index(resolver)
    for source in dict.fromkeys(sources):
        for section in (INTERACTION_SECTION, "than_trong"):
            for part in store.find_by_section(source, section):
                for sentence in part_sentences(part.text):
                    if not has_cue(sentence, "preference"):
                        continue
                    tokens = words(sentence)
                    at = {d: starts for d, starts in index.starts(tokens).items() if d != source}
                    for drug in sorted(at):
                        if _preferred(tokens, at[drug]) and (at.keys() & set(situation)) - {drug}:
                            alternative = NamedAlternative(
                                evidence_id=part.id, source_drug_id=source, drug_id=drug, text=sentence
                            )
                            found.append((alternative, part))
    return found


# The sections that speak of a patient's state, where a drug may name itself the one preferred
_STATE_SECTIONS = {"pregnant": "thoi_ky_mang_thai", "breastfeeding": "thoi_ky_cho_con_bu"}


def preferred_in_state(
    store: VectorStore, resolver: CatalogDrugResolver, candidates: Sequence[str], patient: PatientProfile
) -> list[tuple[NamedAlternative, EvidenceItem]]:
    """The checked drugs' sentences, in the section for the patient's state (pregnancy,
    breastfeeding), that name the drug itself as the one preferred there ("Paracetamol là thuốc
    giảm đau, hạ sốt được ưu tiên lựa chọn trong thời kỳ mang thai"): its own name before a word
    of preference, with no "không" between them ("không phải là lựa chọn ưu tiên")."""
    sections = [key for state, key in _STATE_SECTIONS.items() if getattr(patient, state)]
    index = catalogue_index(resolver)
    found: list[tuple[NamedAlternative, EvidenceItem]] = []
    for drug in candidates:
        for part in (p for key in sections for p in store.find_by_section(drug, key)):
            for sentence in part_sentences(part.text):
                tokens = words(sentence)
                named = index.starts(tokens).get(drug, [])
                cues_at = [i for c in cues()["preference"] for i in phrase_starts(tokens, words(c))]
                if not named or not cues_at:
                    continue
                first, cue = min(named), min(cues_at)
                if first < cue and "không" not in tokens[first:cue]:
                    alternative = NamedAlternative(
                        evidence_id=part.id, source_drug_id=drug, drug_id=drug, text=sentence
                    )
                    found.append((alternative, part))
                    break
    return found


class NameIndex:
    """Every catalogue drug's names as a formulary text may write them, by the folded form of
    their first word: a text is read once, one dict probe per word, whatever the catalogue's size
    (scanning each of ten thousand names through each sentence was most of a patient turn)."""

    def __init__(self, names: Mapping[str, Sequence[str]]):
        by_first: dict[str, list[tuple[str, tuple[tuple[str, bool], ...]]]] = {}
        for drug_id, phrases in names.items():
            for phrase in phrases:
                tokens = words(phrase)
                if tokens:
                    typed = tuple(map(typed_token, tokens))
                    by_first.setdefault(fold(tokens[0]), []).append((drug_id, typed))
        self._by_first = by_first

    def starts(self, tokens: Sequence[str]) -> dict[str, list[int]]:
        """drug_id -> where its names stand in `tokens` (whole words, the diacritics rule with the
        name as the typed side)."""
        found: dict[str, list[int]] = {}
        for i, token in enumerate(tokens):
            for drug_id, typed in self._by_first.get(fold(token), ()):
                end = i + len(typed)
                span = tokens[i:end]
                if end <= len(tokens) and all(typed_matches(q, t) for q, t in zip(typed, span, strict=True)):
                    found.setdefault(drug_id, []).append(i)
        return found


@lru_cache(maxsize=4)  # one resolver per process: its names are indexed once, not per patient turn
def catalogue_index(resolver: CatalogDrugResolver) -> NameIndex:
    """Every catalogue drug's names (drugs with none left out), indexed."""
    return NameIndex({d.drug_id: drug_names(resolver, d.drug_id) for d in resolver.catalog.drugs})


def _preferred(tokens: Sequence[str], named_at: Sequence[int]) -> bool:
    """Whether a drug named at `named_at` stands after the first word of preference. "không nên
    dùng: … các thuốc chống viêm không steroid" names the drugs to avoid, not a choice."""
    starts = (i for p in cues()["preference"] for i in phrase_starts(tokens, words(p)))
    cue = min((i for i in starts if not (i and tokens[i - 1] == "không")), default=-1)
    return cue >= 0 and any(i > cue for i in named_at)


def assess_patient_candidates(
    store: VectorStore,
    resolver: CatalogDrugResolver,
    candidates: Sequence[str],
    patient: PatientProfile,
    policy: EvidencePolicy | None = None,
    said: str = "",
) -> SafetyAssessment:
    """The safety facets of every candidate, up to `patient_candidate_limit` (the drugs a reverse
    lookup shows: every listed drug is checked), in stage 1's order; `said`: the turn's words."""
    policy = policy or EvidencePolicy()
    assessments: list[CandidateAssessment] = []
    evidence: dict[str, EvidenceItem] = {}
    omitted: dict[str, None] = {}
    allergy = allergy_reading(store, resolver, patient.context, said)  # once, for every candidate
    for drug_id in list(dict.fromkeys(candidates))[: policy.patient_candidate_limit]:
        assessment, items, dropped = _assess_one(store, resolver, drug_id, patient, policy, allergy)
        assessments.append(assessment)
        for item in items:
            evidence.setdefault(item.id, item)
        omitted.update(dict.fromkeys(dropped))
    return SafetyAssessment(
        candidates=tuple(assessments),
        evidence=tuple(evidence.values()),
        omitted_evidence_ids=tuple(i for i in omitted if i not in evidence),
    )


# Every section a patient check reads whole, fetched for a drug in one read (`SectionReads`).
READ_SECTIONS: frozenset[str] = frozenset(
    {*(s for sections in FACET_SECTIONS.values() for s in sections), "than_trong", CLASS_SECTION}
)


def _reads(store: VectorStore) -> VectorStore:
    return store if isinstance(store, SectionReads) else SectionReads(store, READ_SECTIONS)


def retrieve_patient_drug_context(
    store: VectorStore,
    resolver: CatalogDrugResolver,
    candidates: Sequence[str],
    patient: PatientProfile | QueryFrame,
    policy: EvidencePolicy | None = None,
    said: str = "",
) -> EvidenceBundle:
    """Stage 2 as an EvidenceBundle: the kept parts decided by `decide()` (a quarantined part makes
    it VERIFY_PDF), with every candidate's status. Nothing found is ABSTAIN
    insufficient_retrieval_score, statuses INSUFFICIENT_EVIDENCE."""
    profile = PatientProfile.from_frame(patient) if isinstance(patient, QueryFrame) else patient
    result = assess_patient_candidates(_reads(store), resolver, candidates, profile, policy, said)
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
    said: str = "",
) -> EvidenceBundle:
    """A reverse lookup's bundle with stage 2 added for the patient the frame describes (`said`:
    the turn's words, where the kind of a reaction told is read): its
    ranked drugs, every one, and any drug a section names as the alternative for this situation,
    are the candidates; each carries its whole contraindication section. Without ranked drugs or
    a patient, stage one as it is."""
    profile = PatientProfile.from_frame(frame)
    candidates = [drug.drug_id for drug in stage_one.ranked_drugs]
    if not candidates or profile.is_empty():
        return stage_one
    store = _reads(store)
    medicines = [m.drug_id for text in profile.context.current_medications for m in resolver.resolve(text)]
    alternatives = named_alternatives(store, resolver, [*medicines, *candidates], [*candidates, *medicines])
    alternatives += preferred_in_state(store, resolver, candidates, profile)
    # a listed drug the patient already takes is checked (and read) first: the turn is about it
    taken = [c for c in candidates if c in medicines]
    checked = list(dict.fromkeys([*taken, *candidates, *(a.drug_id for a, _ in alternatives)]))
    stage_two = retrieve_patient_drug_context(store, resolver, checked, profile, policy, said)
    contraindications = [p for d in checked for p in store.find_by_section(d, CONTRAINDICATION_SECTION)]
    quoted = tuple(part for _, part in alternatives)
    merged = merge_bundles(stage_one, stage_two, extra=(*quoted, *contraindications))
    return merged.model_copy(update={"named_alternatives": tuple(a for a, _ in alternatives)})
