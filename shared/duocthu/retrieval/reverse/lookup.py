"""Reverse lookup: a condition or indication -> the drugs whose chỉ định covers it (reference 09 §5).

Keyword first. `find_by_indication` reads every chi_dinh prose part that holds the phrase and
keeps a part only when the phrase stands in it as a contiguous run of whole words: never a
substring (with the diacritics stripped, short words sit inside unrelated ones), never a token
subset (a phrase of common filler words, each present somewhere in a real chỉ định, once matched
that way and reached generation). A part scores `1 + 1/(1 + position) + 1/(1 + words/40)`: an
early, concise mention ranks first. In chỉ định text a mention that follows a negation in its
sentence ("không phải là thuốc điều trị hen phế quản", data/indication_negations.tsv) is what
the drug is not for, and does not count; one right after a cause or patient lead ("co giật do
sốt", "ở người … có kèm", data/patient_state_leads.tsv) ranks the drug below every direct
mention; one after a risk lead ("có nguy cơ chảy máu thấp", "ít gây hạ glucose huyết") or inside
another condition's name ("sốt thương hàn", "thiếu máu cục bộ") lists the drug apart. A mention
inside a term that holds the phrase's words but is not it (data/distinct_terms.tsv: "phù hợp")
never counts. A phrase is also searched in the formulary's own wordings of it
(data/formulary_wordings.tsv: "hạ kali máu" is "hạ kali huyết").

Only when the keyword pass finds nothing does `search_indication` try dense similarity, on chi_dinh
prose only, discarding every hit below the threshold calibrated at ingest for the index's embedding
model (`calibrate`). Dense search always returns neighbours (a made-up phrase once got 8 unrelated
"matches" live), and e5-family cosines for unrelated text sit far above reference 09's 0.12, so a
threshold carried over from another model would discard nothing.

`rank_drugs` groups the chunk pool by drug, scores a drug by its best part (never a sum or a count:
a drug with more parts must not win), optionally reranks the groups, and caps the answer at
`indication_candidate_limit` drugs x `indication_evidence_per_drug` parts.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, cast, get_args

from duocthu.core.conditions import condition_kind, find_conditions
from duocthu.core.deadline import Deadline
from duocthu.core.phrases import phrase_starts
from duocthu.core.sections import ADR_SECTION, CAUTION_SECTION, INDICATION_SECTION, RELATION_SECTIONS
from duocthu.core.tables import table_rows
from duocthu.core.terms import inside_distinct_terms, names_finding
from duocthu.core.text import fold, has_diacritics, nfc, segment_ids, stop_words, token_matches, words
from duocthu.core.vocabulary import SystemError
from duocthu.models.chunk import Chunk
from duocthu.models.evidence import EvidenceBundle, EvidenceItem, RankedDrug
from duocthu.models.frame import QueryFrame
from duocthu.providers.embeddings import Embedder, EmbeddingModelMismatch, EmbeddingUnavailable
from duocthu.retrieval.decision import EvidencePolicy, decide
from duocthu.store import Manifest, NoIndex, VectorStore
from duocthu.store.base import rank_hits

log = logging.getLogger(__name__)

PROSE = "prose"
# The turns answered by a reverse lookup (a condition_relation turn asks which drugs cause or
# exclude a condition: another section, another route).
REVERSE_TURNS = frozenset({"condition_to_drug", "symptom_to_drug"})
# Above the best-scoring calibration nonsense phrase, by this much: room for nonsense not in the table.
CALIBRATION_MARGIN = 0.01
DEFAULT_QUERY_BUDGET_S = 5.0


def indication_of(frame: QueryFrame) -> str | None:
    """The phrase a frame asks drugs for: its indication, else its condition as normalised, else
    as the user wrote it."""
    if frame.indication:
        return frame.indication
    condition = frame.condition
    return (condition.normalized or condition.text) if condition else None


# -- keyword pass ------------------------------------------------------------------------------


def indication_score(position: int, words_in_part: int) -> float:
    """Reference 09's score: rewards an early (position, in words) and concise mention."""
    return 1 + 1 / (1 + position) + 1 / (1 + words_in_part / 40)


_DASHES = "-–‐"


def _compound_edges(text: str) -> tuple[set[int], set[int]]:
    """Word indices joined by an unspaced dash to the word before (first set) or after (second):
    "Wolff–Parkinson–White" is one name, and "Parkinson" inside it is not the disease."""
    if not any(d in text for d in _DASHES):
        return set(), set()
    text = nfc(text)
    spans = [m.span() for m in re.finditer(r"\w+", text)]
    before = {
        i for i, (a, _) in enumerate(spans) if a >= 2 and text[a - 1] in _DASHES and text[a - 2].isalnum()
    }
    after = {
        i
        for i, (_, b) in enumerate(spans)
        if b + 1 < len(text) and text[b] in _DASHES and text[b + 1].isalnum()
    }
    return before, after


def _mentions(
    text: str, tokens: Sequence[str], phrase: Sequence[str], lenient: bool, other_conditions: bool = False
) -> Iterator[int]:
    """Where the phrase stands in the text as words of its own: never inside a dashed compound,
    nor inside a term that holds its words but is not it (data/distinct_terms.tsv); inside another
    condition's name only when `other_conditions` (chỉ định lists such a drug apart)."""
    before, after = _compound_edges(text)
    inside = inside_distinct_terms(tokens, phrase, conditions=not other_conditions)
    n = len(phrase)
    return (
        i
        for i in phrase_starts(tokens, phrase, lenient)
        if i not in before and i + n - 1 not in after and not inside.issuperset(range(i, i + n))
    )


def phrase_position(text: str, phrase: Sequence[str], lenient: bool = False) -> int:
    """Word index of the phrase's first contiguous occurrence in the text, -1 if none. Exact: word
    for word as written (marks included, case ignored). Lenient: the diacritics rule, word by word
    (a word typed without marks matches the folded word). A run of words inside a dashed compound
    name does not count."""
    return next(_mentions(text, words(text), phrase, lenient), -1)


@lru_cache(maxsize=2)
def _negations(name: str = "indication_negations.tsv") -> dict[str, tuple[tuple[str, ...], ...]]:
    """Negating phrases of a data file (data/indication_negations.tsv, data/adverse_negations.tsv)
    as word tuples, by first word. Matched as written: the formulary's own text carries its marks."""
    by_first: dict[str, list[tuple[str, ...]]] = {}
    for (line,) in table_rows(name):
        phrase = tuple(words(line))
        by_first.setdefault(phrase[0], []).append(phrase)
    return {first: tuple(phrases) for first, phrases in by_first.items()}


LeadReading = Literal["state", "risk", "use"]
_LEAD_READINGS: frozenset[str] = frozenset(get_args(LeadReading))


@lru_cache(maxsize=1)
def _patient_state_leads() -> dict[str, tuple[tuple[tuple[str, ...], LeadReading], ...]]:
    """data/patient_state_leads.tsv: section key -> its leads as word tuples, with their reading."""
    by_section: dict[str, list[tuple[tuple[str, ...], LeadReading]]] = {}
    for phrase, sections, reading in table_rows("patient_state_leads.tsv"):
        if reading not in _LEAD_READINGS:
            raise ValueError(f"patient_state_leads.tsv: a lead reads state, risk or use, not {reading!r}")
        for key in sections.split(","):
            if key not in (ADR_SECTION, INDICATION_SECTION):
                raise ValueError(f"patient_state_leads.tsv: leads apply to ADR or chỉ định only, not {key!r}")
            by_section.setdefault(key, []).append((tuple(words(phrase)), cast(LeadReading, reading)))
    return {key: tuple(leads) for key, leads in by_section.items()}


def _lead_before(tokens: Sequence[str], start: int, section_key: str) -> LeadReading | None:
    """How the longest lead right before the word at `start` reads in this section: the patient's
    state or a cause ("khi có", "ở người", "do"), a risk the patient runs ("nguy cơ"), or the use
    after all ("giảm nguy cơ"); None without a lead."""
    found = [
        (len(lead), reading)
        for lead, reading in _patient_state_leads().get(section_key, ())
        if tuple(tokens[max(0, start - len(lead)) : start]) == lead
    ]
    return max(found)[1] if found else None


def _after_state_lead(tokens: Sequence[str], start: int, section_key: str) -> bool:
    """Whether the word at `start` follows a lead that, in this section, names the patient's state,
    a cause or a risk rather than what the lookup asks."""
    return _lead_before(tokens, start, section_key) in ("state", "risk")


def _either_way(tokens: Sequence[str], start: int) -> bool:
    """ "có hoặc không kèm X": X or not, so nothing is negated."""
    return start >= 2 and [fold(t) for t in tokens[start - 2 : start]] == ["co", "hoac"]


# A contrast word ends a negation's reach: "không gây X khi dùng đơn độc nhưng có thể gây X …"
_CONTRASTS = frozenset({"nhưng"})


# Where a negation's reach ends in a chỉ định section (the sentence) and in an ADR section (the
# clause: "thường không gây triệu chứng, đôi khi thấy quầng sáng" names the halo). A clause-bound
# reach can leave a listed negated finding counted ("không gây X, Y"), which its quote shows; it
# never drops one the text affirms, which nothing would show.
SENTENCE, CLAUSE = ".;:!?\n", ".;:!?\n,"


def affirmed_positions(
    text: str,
    phrase: Sequence[str],
    lenient: bool = False,
    negations: str = "indication_negations.tsv",
    reach: str = SENTENCE,
    other_conditions: bool = False,
) -> list[int]:
    """Word indices of every mention of the phrase (as `_mentions` finds them) that does not
    follow a negation (of the data file `negations`) within its `reach`, before a contrast word."""
    tokens = words(text)
    mentions = list(_mentions(text, tokens, phrase, lenient, other_conditions))
    if not mentions or not {"không", "chưa"} & set(tokens[: mentions[-1]]):
        return mentions  # the common case: nothing before a mention can negate it
    sentences = segment_ids(text, reach)
    by_first = _negations(negations)
    negated: list[tuple[int, int]] = []  # word spans a negation reaches
    for start, token in enumerate(tokens):
        for negation in by_first.get(token, ()):
            end = start + len(negation)
            if tuple(tokens[start:end]) == negation and not _either_way(tokens, start):
                stop = end
                while (
                    stop < len(tokens)
                    and sentences[stop] == sentences[start]
                    and tokens[stop] not in _CONTRASTS
                ):
                    stop += 1
                negated.append((end, stop))
    return [i for i in mentions if not any(a <= i < b for a, b in negated)]


def affirmed_position(text: str, phrase: Sequence[str], lenient: bool = False) -> int:
    """As `phrase_position`, but skipping a mention that follows a negation in its sentence."""
    return next(iter(affirmed_positions(text, phrase, lenient)), -1)


def allows_lenient(phrase: Sequence[str]) -> bool:
    """Whether an unmarked word may match through folding: only inside a phrase of two or more
    words. Folded, the one word "ho" (cough) would find hô hấp and hỗ trợ in every monograph."""
    return len(phrase) > 1 and any(not has_diacritics(t) for t in phrase)


def is_searchable(indication: str) -> bool:
    """A phrase made of stop words only ("có là được không") names nothing."""
    stops = stop_words()
    return any(t not in stops for t in words(indication))


@lru_cache(maxsize=1)
def _wording_rows() -> tuple[tuple[tuple[str, ...], ...], ...]:
    return tuple(tuple(tuple(words(w)) for w in row if w) for row in table_rows("formulary_wordings.tsv"))


def _find_run(tokens: Sequence[str], run: Sequence[str]) -> int:
    """Where `run` (marked, as the data file writes it) stands in the user's tokens, under the
    diacritics rule; -1 if nowhere."""
    n = len(run)
    for i in range(len(tokens) - n + 1):
        if all(token_matches(t, r) for t, r in zip(tokens[i : i + n], run, strict=True)):
            return i
    return -1


@lru_cache(maxsize=4096)
def wordings_of(phrase: str) -> tuple[str, ...]:
    """The phrase first, then each variant with a wording of data/formulary_wordings.tsv replaced
    by the other wordings of its row: "hạ kali máu" is also "hạ kali huyết"."""
    variants = [tuple(words(phrase))]
    for row in _wording_rows():
        for variant in list(variants):
            for wording in row:
                at = _find_run(variant, wording)
                if at >= 0:
                    variants += [(*variant[:at], *other, *variant[at + len(wording) :]) for other in row]
                    break
    return tuple(" ".join(v) for v in dict.fromkeys(variants))


@lru_cache(maxsize=1)
def _wider_rows() -> dict[str, tuple[str, ...]]:
    return {fold(row[0]): tuple(w for w in row[1:] if w) for row in table_rows("broader_findings.tsv")}


def wider_findings(phrase: str) -> tuple[str, ...]:
    """The formulary's wordings of wider findings that hold this one (data/broader_findings.tsv):
    "loét dạ dày" is part of "loét và xuất huyết tiêu hóa"."""
    return _wider_rows().get(fold(" ".join(words(phrase))), ())


def find_by_indication(
    store: VectorStore, indication: str, *, section_key: str = INDICATION_SECTION, limit: int | None = None
) -> list[EvidenceItem]:
    """Prose parts of `section_key` holding the indication in any of its wordings (`wordings_of`),
    scored, best first (ties in book order), at most `limit`. Each wording is matched exactly
    first; only when no part holds it as written, and the wording allows it, word by word under
    the diacritics rule."""
    best: dict[str, EvidenceItem] = {}
    for wording in wordings_of(indication) if is_searchable(indication) else ():
        for hit in _find_asked_phrase(store, wording, section_key):
            if hit.id not in best or hit.score > best[hit.id].score:
                best[hit.id] = hit
    ranked = rank_hits(list(best.values()))
    return ranked if limit is None else ranked[:limit]


# A chỉ định mention right after a cause or patient lead ("co giật do sốt", "ở người tăng huyết
# áp có kèm đái tháo đường"; data/patient_state_leads.tsv) ranks the drug below every drug that
# names the condition directly; it is still listed with them, because the lead may introduce
# what the drug is for ("dự phòng đột quỵ ở người rung nhĩ"). A symptom named only inside another
# disease's name ("sốt thương hàn", "đau thắt ngực" for "sốt", "đau") is no use of the drug for
# it: a keyword answer lists that drug apart (`incidental_drugs`). Direct mentions score above 1
# (`indication_score` > 1), secondary ones above SECONDARY_WEIGHT, incidental ones at most that.
SECONDARY_WEIGHT = 0.3
INCIDENTAL_WEIGHT = 0.1


def _inside_another_condition(text: str, start: int, length: int, wording: str) -> bool:
    """Whether a mention at `start` is part of a condition of another name. For a symptom, any
    disease holding it: "đau" inside "đau thắt ngực" or "đau dây thần kinh" (data/
    condition_phrases.tsv) is not pain to relieve, so amlodipin ranks below the analgesics for
    "giảm đau bằng thuốc gì". A symptom inside a symptom ("đau" in "đau đầu") and a disease inside
    a disease ("loét dạ dày" in "viêm loét dạ dày tá tràng") are the thing asked, unless data/
    distinct_terms.tsv names the longer one another condition ("thiếu máu cục bộ")."""
    if not names_finding(words(text), start, length):
        return True
    if condition_kind(wording) != "symptom":
        return False
    asked = fold(wording)
    return any(
        c.kind == "disease"
        and c.start <= start
        and start + length <= c.start + c.length
        and c.length > length
        and fold(c.normalized) != asked
        for c in find_conditions(text)
    )


def _find_asked_phrase(store: VectorStore, wording: str, section_key: str) -> list[EvidenceItem]:
    phrase = words(wording)
    if not phrase:
        return []
    candidates = store.find_by_phrase(wording, section_key=section_key, chunk_kind=PROSE)
    hits: list[EvidenceItem] = []
    for lenient in (False, True):
        if lenient and (hits or not allows_lenient(phrase)):
            break
        for item in candidates:
            tokens = words(item.text)
            if section_key == ADR_SECTION:
                mentions = affirmed_positions(item.text, phrase, lenient, "adverse_negations.tsv", CLAUSE)
                position = next(
                    (
                        i
                        for i in mentions
                        if not _after_state_lead(tokens, i, section_key)
                        and not _inside_another_condition(item.text, i, len(phrase), wording)
                    ),
                    -1,
                )
                weight = 1.0
            elif section_key != INDICATION_SECTION:
                # "sốt" inside "thuốc chống sốt rét" is no fever the drug is contraindicated in
                other = _inside_another_condition
                written = _mentions(item.text, tokens, phrase, lenient)
                position = next((i for i in written if not other(item.text, i, len(phrase), wording)), -1)
                weight = 1.0
            else:
                found = affirmed_positions(item.text, phrase, lenient, other_conditions=True)
                named = [
                    i
                    for i in found
                    if not _inside_another_condition(item.text, i, len(phrase), wording)
                    and _lead_before(tokens, i, section_key) != "risk"
                ]
                direct = [i for i in named if not _after_state_lead(tokens, i, section_key)]
                if direct or not found:
                    position, weight = (direct[0] if direct else -1), 1.0
                elif named:
                    position, weight = named[0], SECONDARY_WEIGHT
                else:
                    position, weight = found[0], INCIDENTAL_WEIGHT
            if position >= 0:
                score = weight * indication_score(position, len(tokens))
                hits.append(item.model_copy(update={"score": score}))
    return hits


def section_read_for(frame: QueryFrame) -> str | None:
    """The section a named drug's question asks about a finding ("X có trị Y không?": chỉ định;
    "X có gây Y không?": ADR), which `with_section_reading` reads for it; None for any other."""
    section = RELATION_SECTIONS.get(frame.condition_relation or "")
    if frame.turn_type == "drug_to_condition" or (
        frame.turn_type == "drug_attribute" and section == frame.attribute
    ):
        return section
    return None


def with_section_reading(
    bundle: EvidenceBundle, store: VectorStore, drug_id: str, frame: QueryFrame
) -> EvidenceBundle:
    """A "does X treat / cause / exclude Y" answer quotes X's whole section; this says how that
    section names Y, read as a which-drugs lookup would read it: as what is asked (X in
    `ranked_drugs`); in chỉ định, only inside another disease's name or as a risk (in
    `incidental_drugs`); only as a wider finding holding Y (in `wider_drugs`, with the section's
    words: "loét và xuất huyết tiêu hóa" for "loét dạ dày"); or in none of the formulary's
    wordings of Y (none of them). The section searched is the frame's relation's."""
    searches = relation_searches(frame)
    if not searches or bundle.decision == "ABSTAIN":
        return bundle
    search = searches[0]
    hits = [
        hit
        for phrase in search.phrases
        if is_searchable(phrase)
        for hit in find_by_indication(store, phrase, section_key=search.section_key)
        if hit.drug_id == drug_id
    ]
    if hits:
        best = max(hit.score for hit in hits)
        drug = RankedDrug(
            drug_id=drug_id,
            display_name=hits[0].display_name,
            score=best,
            section_key=search.section_key,
            evidence_ids=tuple(dict.fromkeys(hit.id for hit in hits)),
        )
        apart = search.section_key == INDICATION_SECTION and best <= SECONDARY_WEIGHT
        return bundle.model_copy(update={"incidental_drugs" if apart else "ranked_drugs": (drug,)})
    found = _found_wider(store, [search], counted=set())
    wider = [d.model_copy(update={"evidence_ids": (hit.id,)}) for d, hit in found if d.drug_id == drug_id]
    return bundle.model_copy(update={"wider_drugs": tuple(wider[:1])}) if wider else bundle


# -- dense fallback ----------------------------------------------------------------------------


def dense_threshold(manifest: Manifest | None, embedder: Embedder) -> float:
    """The index's calibrated threshold for this embedder's model; querying vectors of another
    model (or an index built without any) is an error, never a silent comparison."""
    if manifest is None:
        raise NoIndex("no index: run `duocthu ingest`")
    if manifest.embedding_model is None or manifest.dense_threshold is None:
        raise EmbeddingModelMismatch(
            f"index {manifest.version} has no dense vectors; re-ingest with {embedder.model_id} "
            "to use the dense fallback"
        )
    if manifest.embedding_model != embedder.model_id:
        raise EmbeddingModelMismatch(
            f"index {manifest.version} was embedded with {manifest.embedding_model}, "
            f"the configured model is {embedder.model_id}"
        )
    return manifest.dense_threshold


def search_indication(
    store: VectorStore,
    embedder: Embedder,
    indication: str,
    *,
    limit: int,
    deadline: Deadline | None = None,
    section_key: str = INDICATION_SECTION,
) -> list[EvidenceItem]:
    """Nearest prose parts of `section_key` by cosine, every hit below the index's calibrated
    threshold discarded (a weak top hit discards them all)."""
    manifest = store.active_manifest()
    threshold = dense_threshold(manifest, embedder)
    vector = embedder.embed_query(indication, deadline or Deadline.after(DEFAULT_QUERY_BUDGET_S))
    if manifest is not None and manifest.dense_dim is not None and len(vector) != manifest.dense_dim:
        raise EmbeddingModelMismatch(f"{len(vector)}-d query against {manifest.dense_dim}-d vectors")
    hits = store.search_dense(vector, section_key=section_key, chunk_kind=PROSE, limit=limit)
    return [hit for hit in hits if hit.score >= threshold]


# -- grouping ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DrugGroup:
    drug_id: str
    display_name: str
    score: float  # the drug's best part
    items: tuple[EvidenceItem, ...]  # best first


# A reranker sees the indication and the groups (best first) and returns them in its order; it may
# leave some out. A failing reranker is skipped (fail-open), never a reason to answer nothing.
Rerank = Callable[[str, Sequence[DrugGroup]], Sequence[DrugGroup]]


def group_by_drug(hits: Sequence[EvidenceItem]) -> list[DrugGroup]:
    by_drug: dict[str, list[EvidenceItem]] = {}
    for hit in rank_hits(hits):
        by_drug.setdefault(hit.drug_id, []).append(hit)
    groups = [
        DrugGroup(drug_id, items[0].display_name, max(i.score for i in items), tuple(items))
        for drug_id, items in by_drug.items()
    ]
    return sorted(groups, key=lambda g: (-g.score, g.drug_id))


@dataclass(frozen=True, slots=True)
class RankedGroups:
    groups: tuple[DrugGroup, ...]
    reranked: bool
    system_error: SystemError | None = None


def rank_drugs(
    indication: str, hits: Sequence[EvidenceItem], policy: EvidencePolicy, rerank: Rerank | None = None
) -> RankedGroups:
    """Groups by drug (max score per drug), optionally reranked, capped at
    indication_candidate_limit drugs x indication_evidence_per_drug parts each."""
    groups = group_by_drug(hits)
    reranked = False
    error: SystemError | None = None
    if rerank is not None and groups:
        try:
            given = {g.drug_id: g for g in groups}
            order = dict.fromkeys(g.drug_id for g in rerank(indication, groups) if g.drug_id in given)
            groups, reranked = [given[d] for d in order], True
        except Exception:  # fail-open by design: the hook may wrap any remote service
            log.warning("indication rerank failed; keeping the max-score order", exc_info=True)
            error = "rerank_unavailable"
    per_drug = policy.indication_evidence_per_drug
    capped = tuple(
        DrugGroup(g.drug_id, g.display_name, g.score, g.items[:per_drug])
        for g in groups[: policy.indication_candidate_limit]
    )
    return RankedGroups(capped, reranked, error)


# -- the route ---------------------------------------------------------------------------------


def _ranked(groups: Sequence[DrugGroup]) -> tuple[RankedDrug, ...]:
    return tuple(
        RankedDrug(
            drug_id=g.drug_id, display_name=g.display_name, score=g.score, section_key=g.items[0].section_key
        )
        for g in groups
    )


def _unlisted(ranked: RankedGroups, found: Sequence[EvidenceItem]) -> tuple[RankedDrug, ...]:
    """The drugs among everything the search found that the capped answer does not show."""
    shown = {g.drug_id for g in ranked.groups}
    return _ranked([g for g in group_by_drug(found) if g.drug_id not in shown])


def _bundle(
    ranked: RankedGroups,
    route: str,
    error: SystemError | None,
    found: Sequence[EvidenceItem] = (),
    wider: Sequence[RankedDrug] = (),
    wider_evidence: Sequence[EvidenceItem] = (),
) -> EvidenceBundle:
    evidence = [item for group in ranked.groups for item in group.items] + list(wider_evidence)
    bundle = decide(evidence)
    drugs = tuple(
        RankedDrug(
            drug_id=g.drug_id,
            display_name=g.display_name,
            score=g.score,
            section_key=g.items[0].section_key,
            evidence_ids=tuple(i.id for i in g.items),
        )
        for g in ranked.groups
    )
    return bundle.model_copy(
        update={
            "ranked_drugs": drugs,
            "unlisted_drugs": _unlisted(ranked, found),
            "wider_drugs": tuple(wider),
            "ordering": f"{route}+rerank" if ranked.reranked else route,
            "system_error": error or ranked.system_error,
        }
    )


def retrieve_by_indication(
    store: VectorStore,
    indication: str | None,
    policy: EvidencePolicy | None = None,
    *,
    embedder: Embedder | None = None,
    rerank: Rerank | None = None,
    deadline: Deadline | None = None,
    section_key: str = INDICATION_SECTION,
) -> EvidenceBundle:
    """Keyword pass; the dense fallback only when it finds nothing. Without an embedder the
    fallback is reported (`embedding_unavailable`), and a provider that fails is a dependency
    fault (`dependency_unavailable`), never an empty answer that looks like "no drug"."""
    policy = policy or EvidencePolicy()
    if not indication or not words(indication):
        return EvidenceBundle(decision="ABSTAIN", reason="needs_clarification")
    limit = policy.indication_retrieval_limit
    found = find_by_indication(store, indication, section_key=section_key)
    best = {g.drug_id: g.score for g in group_by_drug(found)}
    direct = [hit for hit in found if best[hit.drug_id] > SECONDARY_WEIGHT]
    incidental = [hit for hit in found if best[hit.drug_id] <= SECONDARY_WEIGHT]
    if direct:
        bundle = _bundle(rank_drugs(indication, direct[:limit], policy, rerank), "keyword", None, direct)
        return bundle.model_copy(update={"incidental_drugs": _ranked(group_by_drug(incidental))})
    if incidental:
        # no part names it as what the drug treats: the incidental ones are all there is, quoted,
        # and still apart
        bundle = _bundle(
            rank_drugs(indication, incidental[:limit], policy, rerank), "keyword", None, incidental
        )
        every = (*bundle.ranked_drugs, *bundle.unlisted_drugs)  # beyond the cap too, never as naming it
        return bundle.model_copy(update={"ranked_drugs": (), "unlisted_drugs": (), "incidental_drugs": every})
    if embedder is None:
        return EvidenceBundle(
            decision="ABSTAIN", reason="insufficient_retrieval_score", system_error="embedding_unavailable"
        )
    try:
        hits = search_indication(
            store, embedder, indication, limit=limit, deadline=deadline, section_key=section_key
        )
    except EmbeddingUnavailable as err:
        log.error("embedding provider unavailable: %s", err)
        return EvidenceBundle(
            decision="ABSTAIN", reason="dependency_unavailable", system_error="embedding_unavailable"
        )
    if not hits:
        return EvidenceBundle(decision="ABSTAIN", reason="insufficient_retrieval_score")
    return _bundle(rank_drugs(indication, hits, policy, rerank), "dense", None)


@dataclass(frozen=True, slots=True)
class RelationSearch:
    """One section searched across drugs for any of `phrases`. `advice`: the phrases are the
    section's own avoidance wordings ("không nên dùng"), matched as written, stop words and all;
    otherwise they are what the user asked about, searched like an indication."""

    section_key: str
    phrases: tuple[str, ...]
    advice: bool = False
    # Wider findings holding the asked one: a drug found only through one of them is listed
    # apart, with the words its section uses (`EvidenceBundle.wider_drugs`).
    wider: tuple[str, ...] = ()


@lru_cache(maxsize=1)
def _population_phrases() -> dict[str, tuple[str, ...]]:
    by_population: dict[str, list[str]] = {}
    for population, phrase in table_rows("population_phrases.tsv"):
        by_population.setdefault(population, []).append(phrase)
    return {k: tuple(v) for k, v in by_population.items()}


def population_wordings(population: str | None) -> tuple[str, ...]:
    """How the formulary's sections name a population ("trẻ em", "trẻ dưới" for tre_em)."""
    return _population_phrases().get(population or "", ())


@lru_cache(maxsize=1)
def _population_advice() -> dict[str, RelationSearch]:
    """Population -> its own section and the wordings there that advise against use."""
    rows: dict[str, tuple[str, list[str]]] = {}
    for population, section_key, wording in table_rows("population_advice.tsv"):
        rows.setdefault(population, (section_key, []))[1].append(wording)
    return {k: RelationSearch(key, tuple(wordings), advice=True) for k, (key, wordings) in rows.items()}


def advice_sections() -> frozenset[str]:
    """The population sections whose avoidance wordings a relation lookup reads."""
    return frozenset(search.section_key for search in _population_advice().values())


def _narrowing(frame: QueryFrame) -> str | None:
    return frame.condition.subtype if frame.condition is not None else None


def relation_phrases(frame: QueryFrame, narrowed: bool = True) -> tuple[str, ...]:
    """What a which-drugs-cause/exclude question searches for: its condition, with the words that
    narrow it ("chảy máu" + "cam") unless `narrowed` is off; when it names no known condition
    but a population ("không được dùng cho phụ nữ có thai"), the wordings the formulary uses for
    that population (data/population_phrases.tsv)."""
    condition = indication_of(frame)
    known = frame.condition is not None and frame.condition.normalized
    if not known and frame.population:
        return population_wordings(frame.population) or ((condition,) if condition else ())
    subtype = _narrowing(frame) if narrowed else None
    if condition and subtype:
        return (f"{condition} {subtype}",)
    return (condition,) if condition else ()


def _wider_of(frame: QueryFrame, phrases: Sequence[str], narrowed: bool) -> tuple[str, ...]:
    """The wider findings of a relation question: the data file's for each phrase, and a narrowed
    condition's own name ("chảy máu" for "chảy máu cam")."""
    wider = [w for phrase in phrases for w in wider_findings(phrase)]
    head = indication_of(frame)
    if narrowed and _narrowing(frame) and head:
        wider.append(head)
    return tuple(dict.fromkeys(wider))


def relation_searches(frame: QueryFrame, narrowed: bool = True) -> tuple[RelationSearch, ...]:
    """The relation's own section for its phrases; for a contraindication question about a
    population that has a section of its own (pregnancy, breastfeeding), that section too, for
    its avoidance wordings (data/population_advice.tsv): a drug whose "Thời kỳ mang thai" says
    "không nên dùng" while its chống chỉ định is silent must not drop out of the list."""
    section = RELATION_SECTIONS.get(frame.condition_relation or "")
    phrases = relation_phrases(frame, narrowed)
    if section is None or not phrases:
        return ()
    wider = _wider_of(frame, phrases, narrowed)
    searches = [RelationSearch(section, phrases, wider=wider)]
    known = frame.condition is not None and frame.condition.normalized
    advice = _population_advice().get(frame.population or "")
    if frame.condition_relation == "contraindication" and not known and advice is not None:
        searches.append(advice)
    if frame.condition_relation == "contraindication" and (known or advice is None):
        # "người bị gút nên tránh thuốc nào": a drug that names gout only under "Thận trọng"
        # (furosemid) is listed too, after the contraindicated ones and under its own heading;
        # so for a population with no section of its own ("người cao tuổi")
        searches.append(RelationSearch(CAUTION_SECTION, phrases, wider=wider))
    return tuple(searches)


_NEGATORS = frozenset({"không", "chưa"})


def _find_advice(store: VectorStore, wording: str, section_key: str) -> list[EvidenceItem]:
    """Prose parts of `section_key` where a data-file wording stands as written (marks and case
    aside), scored like an indication mention. No stop-word test: "không nên dùng" is made of
    stop words, and is the point. Right after "không" or "chưa" it does not count: "không cần
    ngừng cho con bú" advises nothing against the drug."""
    phrase = words(wording)
    hits = []
    for item in store.find_by_phrase(wording, section_key=section_key, chunk_kind=PROSE):
        tokens = words(item.text)
        mentions = _mentions(item.text, tokens, phrase, False)
        position = next((p for p in mentions if p == 0 or tokens[p - 1] not in _NEGATORS), -1)
        if position >= 0:
            hits.append(item.model_copy(update={"score": indication_score(position, len(tokens))}))
    return rank_hits(hits)


def retrieve_by_relation(
    store: VectorStore,
    searches: Sequence[RelationSearch],
    policy: EvidencePolicy | None = None,
    *,
    rerank: Rerank | None = None,
) -> EvidenceBundle:
    """Condition -> the drugs whose ADR (or contraindication) section names it: the keyword pass
    of the reverse lookup over that section. A part counts when it holds any of a search's
    phrases. Searches are answered in order and a drug counts once, under the first section that
    names it, so every listed drug says which section it comes from. No dense fallback (only chỉ
    định is embedded)."""
    policy = policy or EvidencePolicy()
    if not searches:
        return EvidenceBundle(decision="ABSTAIN", reason="needs_clarification")
    limit = policy.indication_retrieval_limit
    groups: list[DrugGroup] = []
    found: list[EvidenceItem] = []
    reranked, error = False, None
    for search in searches:
        best: dict[str, EvidenceItem] = {}
        for phrase in search.phrases:
            hits = (
                _find_advice(store, phrase, search.section_key)
                if search.advice
                else find_by_indication(store, phrase, section_key=search.section_key)
            )
            for hit in hits:
                if hit.id not in best or hit.score > best[hit.id].score:
                    best[hit.id] = hit
        counted = {g.drug_id for g in groups} | {i.drug_id for i in found}
        hits = [h for h in rank_hits(list(best.values())) if h.drug_id not in counted]
        if not hits:
            continue
        ranked = rank_drugs(" ".join(search.phrases), hits[:limit], policy, rerank)
        groups.extend(ranked.groups)
        found.extend(hits)
        reranked, error = reranked or ranked.reranked, error or ranked.system_error
    counted = {g.drug_id for g in groups} | {i.drug_id for i in found}
    wider = _found_wider(store, searches, counted)
    if not groups and not wider:
        return EvidenceBundle(decision="ABSTAIN", reason="insufficient_retrieval_score")
    cap = policy.indication_candidate_limit
    capped = RankedGroups(tuple(groups[:cap]), reranked, error)
    # the drugs of a wider finding are quoted in the room the drugs naming it leave; the rest named
    quoted = [item for _, item in wider[: max(cap - len(capped.groups), 0)]]
    quoted_ids = {item.id for item in quoted}
    wider_drugs = [
        drug.model_copy(update={"evidence_ids": (item.id,) if item.id in quoted_ids else ()})
        for drug, item in wider
    ]
    route = "keyword:" + "+".join(dict.fromkeys(s.section_key for s in searches))
    return _bundle(capped, route, None, found, wider_drugs, quoted)


def retrieve_for_relation(
    store: VectorStore,
    frame: QueryFrame,
    policy: EvidencePolicy | None = None,
    *,
    rerank: Rerank | None = None,
) -> EvidenceBundle:
    """A relation question's lookup: the finding with the words that narrow it ("chảy máu cam"),
    the finding alone listed apart as wider. When no section writes the narrowed form, the words
    were no narrowing the formulary knows ("suy thận hoài"), and the finding alone is searched as
    the one asked."""
    bundle = retrieve_by_relation(store, relation_searches(frame), policy, rerank=rerank)
    if _narrowing(frame) and not bundle.ranked_drugs:
        return retrieve_by_relation(store, relation_searches(frame, narrowed=False), policy, rerank=rerank)
    return bundle


def _as_written(text: str, wording: str) -> str:
    """The words of the part that matched `wording` (in any of its formulary wordings), as the
    part writes them: "loét và chảy máu tiêu hóa" where the data row says "xuất huyết"."""
    for variant in wordings_of(wording):
        pattern = r"\W+".join(re.escape(w) for w in words(variant))
        found = re.search(rf"(?<!\w){pattern}(?!\w)", nfc(text), re.IGNORECASE)
        if found:
            return found.group(0)
    return wording


def _found_wider(
    store: VectorStore, searches: Sequence[RelationSearch], counted: set[str]
) -> list[tuple[RankedDrug, EvidenceItem]]:
    """Drugs not yet listed whose section names a wider finding holding the one asked
    (`RelationSearch.wider`), each with the first wider wording its section holds and its best
    part for that wording: by search, then by score. Never a drug that names the finding itself
    (`counted`)."""
    drugs: dict[str, tuple[RankedDrug, EvidenceItem]] = {}
    for search in searches:
        best: dict[str, tuple[EvidenceItem, str]] = {}
        for wording in search.wider:
            for hit in find_by_indication(store, wording, section_key=search.section_key):
                if hit.drug_id not in best:  # the first wider wording, its best part
                    best[hit.drug_id] = (hit, wording)
        ranked = sorted(best.values(), key=lambda found: (-found[0].score, found[0].drug_id))
        for hit, wording in ranked:
            if hit.drug_id in counted or hit.drug_id in drugs:
                continue
            drug = RankedDrug(
                drug_id=hit.drug_id,
                display_name=hit.display_name,
                score=hit.score,
                section_key=search.section_key,
                wider_finding=_as_written(hit.text, wording),
            )
            drugs[hit.drug_id] = (drug, hit)
    return list(drugs.values())


# -- ingest: dense vectors and the calibrated threshold ----------------------------------------


def in_dense_scope(chunk: Chunk) -> bool:
    """Only the parts the dense route can return get a vector (chỉ định prose): embedding every
    part would cost ~14x the time (1,237 parts vs 89 in the sample) for vectors nothing queries."""
    return chunk.section_key == INDICATION_SECTION and chunk.chunk_kind == PROSE


@lru_cache(maxsize=1)
def calibration_phrases() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(indication phrases, nonsense phrases) of data/indication_calibration.tsv."""
    kinds: dict[str, list[str]] = {"indication": [], "nonsense": []}
    for phrase, kind in table_rows("indication_calibration.tsv"):
        kinds[kind].append(phrase)
    return tuple(kinds["indication"]), tuple(kinds["nonsense"])


@dataclass(frozen=True, slots=True)
class Calibration:
    """What the threshold rests on: each calibration phrase's best cosine over the indexed parts."""

    model: str
    threshold: float
    indication_scores: tuple[float, ...]
    nonsense_scores: tuple[float, ...]

    @property
    def indication_recall(self) -> float:
        """Share of the indication phrases whose best part clears the threshold."""
        kept = [s for s in self.indication_scores if s >= self.threshold]
        return len(kept) / len(self.indication_scores) if self.indication_scores else 0.0

    def summary(self) -> str:
        ind, non = sorted(self.indication_scores), sorted(self.nonsense_scores)
        return (
            f"{self.model}: threshold {self.threshold:.3f} (best nonsense {non[-1]:.3f} + margin "
            f"{CALIBRATION_MARGIN}); nonsense top cosines {non[0]:.3f}..{non[-1]:.3f}, "
            f"indication top cosines {ind[0]:.3f}..{ind[-1]:.3f} (median {ind[len(ind) // 2]:.3f}); "
            f"{self.indication_recall:.2f} of {len(ind)} indication phrases kept"
        )


def _unit_rows(vectors: Sequence[Sequence[float]]) -> Any:
    import numpy as np  # ingest-time calibration only: kept off the request path's cold start

    matrix = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.asarray(matrix / np.where(norms == 0, 1, norms))


def calibrate(embedder: Embedder, passages: Sequence[Sequence[float]]) -> Calibration:
    """The discard threshold for this model over these passages: just above the best cosine any
    calibration nonsense phrase reaches, so none of them would survive the dense fallback."""
    indications, nonsense = calibration_phrases()
    deadline = Deadline.after(600.0)  # ingest, not a request
    docs = _unit_rows(passages)

    def best(phrases: Sequence[str]) -> tuple[float, ...]:
        queries = _unit_rows([embedder.embed_query(p, deadline) for p in phrases])
        return tuple(float(s) for s in (queries @ docs.T).max(axis=1))

    nonsense_scores = best(nonsense)
    threshold = math.ceil((max(nonsense_scores) + CALIBRATION_MARGIN) * 1000) / 1000
    return Calibration(embedder.model_id, threshold, best(indications), nonsense_scores)


def dense_vectors(
    chunks: Sequence[Chunk], embedder: Embedder
) -> tuple[list[list[float] | None], Calibration | None]:
    """Each chunk's dense vector (None outside the dense scope) and the calibration over them;
    (all None, None) when no chunk is in scope (a source without chỉ định)."""
    scope = [i for i, c in enumerate(chunks) if in_dense_scope(c)]
    vectors: list[list[float] | None] = [None] * len(chunks)
    if not scope:
        return vectors, None
    embedded = embedder.embed_passages([chunks[i].text for i in scope])
    for i, vector in zip(scope, embedded, strict=True):
        vectors[i] = vector
    return vectors, calibrate(embedder, embedded)
