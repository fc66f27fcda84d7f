"""RetrievalService: a frame's drug and section -> an EvidenceBundle.

Routes so far: the section route (a payload-filtered scroll of the whole section, score 1.0 by
construction, no evidence limit) and the drug overview (intro sections, prose only, book order).
"""

from __future__ import annotations

from duocthu.evidence import EvidenceBundle
from duocthu.policy import decide
from duocthu.sections import INTRO_SECTIONS
from duocthu.store import VectorStore


class RetrievalService:
    def __init__(self, store: VectorStore):
        self.store = store

    def by_section(self, drug_id: str, section_key: str) -> EvidenceBundle:
        items = self.store.find_by_section(drug_id, section_key)
        if not items:
            return EvidenceBundle(decision="ABSTAIN", reason="section_absent")
        return decide(items)

    def overview(self, drug_id: str) -> EvidenceBundle:
        items = [
            i for i in self.store.find_by_drug(drug_id, chunk_kind="prose") if i.section_key in INTRO_SECTIONS
        ]
        if not items:
            return EvidenceBundle(decision="ABSTAIN", reason="insufficient_retrieval_score")
        return decide(items)

    def retrieve_framed(self, drug_id: str, section_key: str | None) -> EvidenceBundle:
        return self.by_section(drug_id, section_key) if section_key else self.overview(drug_id)
