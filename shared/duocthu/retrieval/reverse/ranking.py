"""A reverse lookup's hits -> its ranked drugs and their evidence, as an EvidenceBundle.

`rank_drugs` groups the chunk pool by drug, scores a drug by its best part (never a sum or a count:
a drug with more parts must not win), orders the drugs by how directly their chỉ định names the
indication (`duocthu.retrieval.reverse.directness`; the score, or a reranker's order, breaks
ties), and caps the answer at `indication_candidate_limit` drugs x `indication_evidence_per_drug`
parts; the drugs beyond the cap are named in the same order.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from pydantic import TypeAdapter

from duocthu.core.vocabulary import SystemError
from duocthu.models.evidence import EvidenceBundle, EvidenceItem, RankedDrug
from duocthu.retrieval.decision import EvidencePolicy, decide
from duocthu.retrieval.reverse.directness import RANK, drug_directness
from duocthu.store.base import rank_hits

log = logging.getLogger(__name__)


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
    groups = [  # each drug's items best first: its score is its first's
        DrugGroup(drug_id, items[0].display_name, items[0].score, tuple(items))
        for drug_id, items in by_drug.items()
    ]
    return sorted(groups, key=lambda g: (-g.score, g.drug_id))


def by_directness(indication: str, groups: Sequence[DrugGroup]) -> list[DrugGroup]:
    """The groups, the drugs whose chỉ định names the indication most directly first; a stable
    sort, so the order given breaks ties."""
    return sorted(groups, key=lambda g: RANK[drug_directness(g.items, indication)])


@dataclass(frozen=True, slots=True)
class RankedGroups:
    groups: tuple[DrugGroup, ...]
    reranked: bool
    system_error: SystemError | None = None
    indication: str | None = None  # what the drugs beyond the cap are ordered by, as the groups are


def rank_drugs(
    indication: str,
    hits: Sequence[EvidenceItem],
    policy: EvidencePolicy,
    rerank: Rerank | None = None,
    first: Mapping[str, int] | None = None,
) -> RankedGroups:
    """Groups by drug (max score per drug), ordered by directness, optionally reranked within it,
    capped at indication_candidate_limit drugs x indication_evidence_per_drug parts each; the drugs
    of `first` before the cap, by their rank there (a stable sort: else as ranked)."""
    groups = by_directness(indication, group_by_drug(hits))
    reranked = False
    error: SystemError | None = None
    if rerank is not None and groups:
        try:
            given = {g.drug_id: g for g in groups}
            order = dict.fromkeys(g.drug_id for g in rerank(indication, groups) if g.drug_id in given)
            groups, reranked = by_directness(indication, [given[d] for d in order]), True
        except Exception:  # fail-open by design: the hook may wrap any remote service
            log.warning("indication rerank failed; keeping the max-score order", exc_info=True)
            error = "rerank_unavailable"
    if first:
        groups = sorted(groups, key=lambda g: first.get(g.drug_id, math.inf))
    per_drug = policy.indication_evidence_per_drug
    capped = tuple(
        DrugGroup(g.drug_id, g.display_name, g.score, g.items[:per_drug])
        for g in groups[: policy.indication_candidate_limit]
    )
    return RankedGroups(capped, reranked, error, indication)


# A list names hundreds of drugs at the book's size: validated in one call, not one model at a time.
_NAMED = TypeAdapter(tuple[RankedDrug, ...])


def named_drugs(groups: Sequence[DrugGroup]) -> tuple[RankedDrug, ...]:
    """The groups' drugs, named without their evidence."""
    return _NAMED.validate_python(
        [
            {
                "drug_id": g.drug_id,
                "display_name": g.display_name,
                "score": g.score,
                "section_key": g.items[0].section_key,
            }
            for g in groups
        ]
    )


def _unlisted(ranked: RankedGroups, found: Sequence[EvidenceItem]) -> tuple[RankedDrug, ...]:
    """The drugs among everything the search found that the capped answer does not show."""
    shown = {g.drug_id for g in ranked.groups}
    rest = group_by_drug([hit for hit in found if hit.drug_id not in shown])
    return named_drugs(by_directness(ranked.indication, rest) if ranked.indication else rest)


def ranked_bundle(
    ranked: RankedGroups,
    route: str,
    found: Sequence[EvidenceItem] = (),
    wider: Sequence[RankedDrug] = (),
    wider_evidence: Sequence[EvidenceItem] = (),
) -> EvidenceBundle:
    """The ranked groups' parts, and the quoted parts of the wider drugs, decided by `decide()`;
    the drugs shown with their evidence, the rest of `found` named, `route` as the ordering."""
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
            "system_error": ranked.system_error,
        }
    )


def only_among(bundle: EvidenceBundle, among: Collection[str]) -> EvidenceBundle:
    """A which-drug lookup's bundle with only the drugs the question lists to choose among (all of
    it without a list); nothing found among them is an abstention, which the reply says of them."""
    if not among:
        return bundle

    def kept(drugs: Sequence[RankedDrug]) -> tuple[RankedDrug, ...]:
        return tuple(d for d in drugs if d.drug_id in among)

    fields = ("ranked_drugs", "unlisted_drugs", "wider_drugs", "incidental_drugs")
    update: dict[str, object] = {name: kept(getattr(bundle, name)) for name in fields}
    update["evidence"] = tuple(item for item in bundle.evidence if item.drug_id in among)
    if not update["evidence"]:
        return EvidenceBundle(decision="ABSTAIN", reason="insufficient_retrieval_score")
    return bundle.model_copy(update=update)
