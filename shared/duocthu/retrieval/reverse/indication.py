"""Condition or symptom -> the drugs whose chỉ định covers it (reference 09 §5): the keyword pass
(`duocthu.retrieval.reverse.keyword`) first, the dense fallback (`duocthu.retrieval.reverse.dense`)
only when it finds nothing, the drugs ranked by `duocthu.retrieval.reverse.ranking`.
"""

from __future__ import annotations

import logging

from duocthu.core.deadline import Deadline
from duocthu.core.errors import EmbeddingUnavailable
from duocthu.core.ports import Embedder
from duocthu.core.sections import INDICATION_SECTION
from duocthu.core.text import words
from duocthu.models.evidence import EvidenceBundle
from duocthu.retrieval.decision import EvidencePolicy
from duocthu.retrieval.reverse.dense import search_indication
from duocthu.retrieval.reverse.keyword import SECONDARY_WEIGHT, find_by_indication
from duocthu.retrieval.reverse.ranking import Rerank, group_by_drug, named_drugs, rank_drugs, ranked_bundle
from duocthu.store import VectorStore

log = logging.getLogger(__name__)


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
        bundle = ranked_bundle(rank_drugs(indication, direct[:limit], policy, rerank), "keyword", direct)
        return bundle.model_copy(update={"incidental_drugs": named_drugs(group_by_drug(incidental))})
    if incidental:
        # no part names it as what the drug treats: the incidental ones are all there is, quoted,
        # and still apart
        bundle = ranked_bundle(
            rank_drugs(indication, incidental[:limit], policy, rerank), "keyword", incidental
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
    return ranked_bundle(rank_drugs(indication, hits, policy, rerank), "dense")
