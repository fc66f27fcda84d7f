"""Evidence policy: the retrieval limits (`EvidencePolicy`) and the decision over a pool of
evidence (`decide`): whether an answer may be given from it, and how."""

from __future__ import annotations

from collections.abc import Sequence

from duocthu.core.policy import EvidencePolicy
from duocthu.models.evidence import EvidenceBundle, EvidenceItem

__all__ = ["EvidencePolicy", "decide", "merge_bundles"]


def decide(evidence: Sequence[EvidenceItem], omitted_evidence_ids: Sequence[str] = ()) -> EvidenceBundle:
    """Public so that every caller that assembles its own pool applies the same policy: a
    quarantined or visual-check part anywhere in the pool makes the whole answer VERIFY_PDF;
    it is never dropped to make the rest answerable."""
    items = tuple(evidence)
    omitted = tuple(omitted_evidence_ids)
    if not items:
        return EvidenceBundle(
            decision="ABSTAIN", reason="parent_hydration_failed", omitted_evidence_ids=omitted
        )
    if any(not item.source_refs for item in items):
        return EvidenceBundle(decision="ABSTAIN", reason="missing_provenance", omitted_evidence_ids=omitted)
    if any(item.needs_visual_check for item in items):
        return EvidenceBundle(
            decision="VERIFY_PDF",
            reason="visual_verification_required",
            evidence=items,
            omitted_evidence_ids=omitted,
        )
    return EvidenceBundle(
        decision="ANSWERABLE",
        reason="grounded_evidence_available",
        evidence=items,
        omitted_evidence_ids=omitted,
    )


def merge_bundles(
    stage_one: EvidenceBundle, stage_two: EvidenceBundle, extra: Sequence[EvidenceItem] = ()
) -> EvidenceBundle:
    """Stage one's evidence and ranking with stage two's parts and statuses (and `extra` parts),
    decided again over the whole pool (a quarantined part from either stage makes it VERIFY_PDF)."""
    evidence = {item.id: item for item in (*stage_one.evidence, *stage_two.evidence, *extra)}
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
