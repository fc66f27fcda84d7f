"""RetrievalService: a frame's drug and section -> an EvidenceBundle (reference 09).

When the question names its section, a payload filter answers it exactly: letting similarity
choose the section was measured at hit@1 0.544 (0.05 on chong_chi_dinh), because the large
pharmacology section sits close to almost any question. Routes here:

- the section route: the whole section, read to exhaustion, in part order, score 1.0 by
  construction (an exact match, not a similarity), no evidence limit: a truncated list of
  contraindications would read as a complete one;
- bounded cross-section pooling, for the routes the policy names (than_trong): parts of other
  sections of the same drug that match the question strongly by lexical score;
- the drug overview: prose parts in book order, the intro sections only for a drug_overview turn
  (the whole monograph for a bare drug name once made answers too long to generate).

Ordering and packing of a free-form question's candidates are the free-form route's (issue 7).
"""

from __future__ import annotations

from collections.abc import Sequence

from duocthu.evidence import EvidenceBundle, EvidenceItem
from duocthu.policy import EvidencePolicy, decide
from duocthu.sections import INTRO_SECTIONS, SECTION_HEADINGS
from duocthu.store import VectorStore


def label_sections(items: Sequence[EvidenceItem]) -> list[EvidenceItem]:
    """Prefix each section's first part with 【section heading】, so that a reader (or a model)
    of the concatenated overview sees where one section ends and the next begins."""
    labelled: list[EvidenceItem] = []
    seen: set[tuple[str, str]] = set()
    for item in items:
        key = (item.drug_id, item.section_key)
        if key not in seen:
            seen.add(key)
            heading = SECTION_HEADINGS.get(item.section_key, item.section_key)
            item = item.model_copy(update={"text": f"【{heading}】 {item.text}"})
        labelled.append(item)
    return labelled


class RetrievalService:
    def __init__(self, store: VectorStore, policy: EvidencePolicy | None = None):
        self.store = store
        self.policy = policy or EvidencePolicy()

    # -- section route ----------------------------------------------------------------------
    def by_section(self, drug_id: str, section_key: str, query: str | None = None) -> EvidenceBundle:
        parts = self.store.find_by_section(drug_id, section_key)
        if not parts:
            # Pooled text is a supplement to a section, never a stand-in for a missing one.
            return EvidenceBundle(decision="ABSTAIN", reason="section_absent")
        pooled = self.pooled_neighbours(drug_id, section_key, query) if query else []
        # decide() sees the pooled parts too: a quarantined neighbour makes the answer VERIFY_PDF.
        return decide([*parts, *pooled])

    def pooled_neighbours(self, drug_id: str, section_key: str, query: str) -> list[EvidenceItem]:
        """Parts of at most `max_lexical_pooled_sections` other sections of the same drug that
        match the question on at least `lexical_pool_min_score` distinct words, best section
        first. Exists for one measured case: a precaution question whose answer the monograph
        files only under contraindications."""
        policy = self.policy
        if not policy.pools(section_key):
            return []
        hits = self.store.search_lexical(
            query,
            drug_id=drug_id,
            exclude_sections={section_key} | policy.lexical_pool_excluded_sections,
            min_score=policy.lexical_pool_min_score,
            limit=policy.lexical_pool_hit_limit,
        )
        sections: list[str] = []
        for hit in hits:  # best first
            if hit.section_key not in sections and len(sections) < policy.max_lexical_pooled_sections:
                sections.append(hit.section_key)
        rank = {key: i for i, key in enumerate(sections)}
        kept = [hit for hit in hits if hit.section_key in rank and hit.drug_id == drug_id]
        return sorted(kept, key=lambda h: (rank[h.section_key], h.part_index))

    # -- drug overview ----------------------------------------------------------------------
    def overview(self, drug_id: str, intro_only: bool = True) -> EvidenceBundle:
        sections = INTRO_SECTIONS if intro_only else None
        items = self.store.find_by_drug(drug_id, chunk_kind="prose", section_keys=sections)
        if not items:
            return EvidenceBundle(decision="ABSTAIN", reason="insufficient_retrieval_score")
        return decide(label_sections(items))

    # -- entry point ------------------------------------------------------------------------
    def retrieve_framed(
        self,
        drug_id: str,
        section_key: str | None,
        query: str | None = None,
        is_overview: bool = True,
    ) -> EvidenceBundle:
        """A named section takes the section route. Without one: the intro overview for a
        drug_overview turn (is_overview, the default: a bare drug name), else every prose
        section in book order, until the free-form route orders and packs them."""
        if section_key:
            return self.by_section(drug_id, section_key, query)
        return self.overview(drug_id, intro_only=is_overview)
